/* initcheck_clean.cu — with SIM_INITCHECK=1 (set below, as `SIM_INITCHECK=1 ./prog` would), every
 * way of writing device memory before a kernel reads it passes: host code's stores to unified memory
 * and libc's memset on it (which the hooks do not see: the byte no longer holds the 0xff fill),
 * cudaMemset, cudaMemcpy from the host and between allocations (the copy carries what was written),
 * a kernel's stores, a 16-byte struct copied whole (one memcpy the hooks do not see), atomicExch
 * (it writes without needing the old value), and shared memory each thread fills before a barrier.
 * Planted reads of memory nothing wrote are in tests/sim/bugs/initcheck_*.cu. */
#include <cstdio>
#include <cstdlib>
#include <cstring>

struct four { float a, b, c, d; };

__global__ void count(const int *in, int *total, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(total, in[i]);
}

__global__ void copy_structs(const four *in, four *out) { out[threadIdx.x] = in[threadIdx.x]; }

__global__ void neighbours(const four *in, float *out, int *flag)
{
    __shared__ float slot[64];
    slot[threadIdx.x] = in[threadIdx.x].a + out[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = slot[(threadIdx.x + 1) % 64];
    if (threadIdx.x == 0) atomicExch(flag, 1);
}

int main()
{
    setenv("SIM_INITCHECK", "1", 1);
    int *in, *total, *zeroed, *copied, *flag;
    cudaMallocManaged(&in, 256 * sizeof(int));
    cudaMallocManaged(&total, sizeof(int));
    cudaMallocManaged(&zeroed, sizeof(int));
    cudaMalloc(&copied, 256 * sizeof(int));
    cudaMalloc(&flag, sizeof(int));
    for (int i = 0; i < 256; i++) in[i] = 1;
    *total = 0;
    memset(zeroed, 0, sizeof(int));
    cudaMemcpy(copied, in, 256 * sizeof(int), cudaMemcpyDefault);
    count<<<2, 128>>>(in, total, 256);
    count<<<2, 128>>>(copied, zeroed, 256);
    printf("sums: %s, %d and %d\n", cudaGetErrorName(cudaDeviceSynchronize()), *total, *zeroed);

    four host[64], *a, *b;
    for (int i = 0; i < 64; i++) host[i] = four{(float)i, 0, 0, 0};
    cudaMalloc(&a, sizeof host);
    cudaMalloc(&b, sizeof host);
    cudaMemcpy(a, host, sizeof host, cudaMemcpyHostToDevice);
    copy_structs<<<1, 64>>>(a, b);
    float *out;
    cudaMalloc(&out, 64 * sizeof(float));
    cudaMemset(out, 0, 64 * sizeof(float));
    neighbours<<<1, 64>>>(b, out, flag);
    float result[64];
    int flag_value = 0;
    cudaMemcpy(result, out, sizeof result, cudaMemcpyDeviceToHost);
    cudaMemcpy(&flag_value, flag, sizeof flag_value, cudaMemcpyDeviceToHost);
    printf("neighbours: %s, out[0] %g, flag %d\n", cudaGetErrorName(cudaGetLastError()), result[0], flag_value);
    return 0;
}
