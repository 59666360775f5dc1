/* copy_2d_past_the_end.cu — planted bug: a 64-row host image copied with cudaMemcpy2D into a pitched
 * array allocated for 48 rows: the last 16 rows would fall past the end of the allocation. */
#include <cstdio>

int main()
{
    static float image[64][100];
    float *device;
    size_t pitch;
    cudaMallocPitch(&device, &pitch, 100 * sizeof(float), 48);
    cudaError_t error = cudaMemcpy2D(device, pitch, image, sizeof image[0], sizeof image[0], 64,
                                     cudaMemcpyHostToDevice);
    printf("copy: %s\n", cudaGetErrorName(error));
    return 0;
}
