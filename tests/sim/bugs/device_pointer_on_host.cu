/* device_pointer_on_host.cu — planted bug: reading a result on the host straight through
 * the device pointer, without copying it back. On a real system: a segmentation fault. */
#include <cstdio>

int main()
{
    float *x;
    cudaMalloc(&x, 16 * sizeof(float));
    cudaMemset(x, 0, 16 * sizeof(float));
    printf("about to read x[3] on the host\n");
    float value = x[3];
    printf("x[3] = %g\n", value);
    return 0;
}
