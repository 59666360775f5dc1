/* managed_after_free.cu — planted bug: unified memory read on the host after cudaFree gave it back.
 * On a GPU: a segmentation fault, or stale data if the pages were reused. */
#include <cstdio>

int main()
{
    float *x;
    cudaMallocManaged(&x, 64 * sizeof(float));
    for (int i = 0; i < 64; i++) x[i] = (float)i;
    cudaFree(x);
    printf("about to read x[5] after cudaFree\n");
    float value = x[5];
    printf("x[5] = %g\n", value);
    return 0;
}
