/* host_stack_variable.cu — planted bug: the address of a host local variable as a result slot. */
#include <cstdio>

__global__ void count(int *total)
{
    if (threadIdx.x == 0) *total = 32;
}

int main()
{
    int total = 0;
    count<<<1, 32>>>(&total);
    printf("launch: %s\n", cudaGetErrorName(cudaGetLastError()));
    return 0;
}
