/* samples_math_helpers.cu — written the way NVIDIA's samples' helper_math.h is: host versions of
 * CUDA's math functions (fminf, max, rsqrtf, ...) defined only when the file is NOT compiled as
 * CUDA (#ifndef __CUDACC__), so that a .cpp file can share the vector operators; then float3
 * operators and a kernel that normalises vectors with them. nvcc defines __CUDACC__ for every .cu
 * file, in its host pass too, and so does lib/sim/tools/simcc: without it these host versions
 * would clash with CUDA's own. CUDA 13's __CUDACC_VER_MAJOR__ is checked as samples check it.
 *   lib/sim/tools/simcc -o samples_math_helpers tests/sim/programs/samples_math_helpers.cu && ./samples_math_helpers
 *   nvcc -o samples_math_helpers tests/sim/programs/samples_math_helpers.cu && ./samples_math_helpers   (on a GPU) */
#include <cmath>
#include <cstdio>
#include <cstdlib>

#ifndef __CUDACC__
inline float fminf(float a, float b) { return a < b ? a : b; }
inline float fmaxf(float a, float b) { return a > b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline int min(int a, int b) { return a < b ? a : b; }
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
#endif

#if defined(__CUDACC_VER_MAJOR__) && __CUDACC_VER_MAJOR__ >= 11
#define SAMPLE_HAS_MODERN_CUDA 1
#else
#define SAMPLE_HAS_MODERN_CUDA 0
#endif

inline __host__ __device__ float3 operator*(float3 a, float s) { return make_float3(a.x * s, a.y * s, a.z * s); }
inline __host__ __device__ float3 operator+(float3 a, float3 b) { return make_float3(a.x + b.x, a.y + b.y, a.z + b.z); }
inline __host__ __device__ float dot(float3 a, float3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline __host__ __device__ float3 normalize(float3 v) { return v * rsqrtf(dot(v, v)); }
inline __host__ __device__ float3 clamp(float3 v, float low, float high)
{
    return make_float3(fmaxf(low, fminf(v.x, high)), fmaxf(low, fminf(v.y, high)), fmaxf(low, fminf(v.z, high)));
}

__global__ void normalize_all(const float3 *in, float3 *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = clamp(normalize(in[i] + make_float3(0.0f, 0.0f, 1.0f)), -0.75f, 0.75f);
}

int main(void)
{
    enum { N = 1000 };
    float3 *in, *out;
    if (cudaMallocManaged(&in, N * sizeof(float3)) != cudaSuccess || cudaMallocManaged(&out, N * sizeof(float3)) != cudaSuccess) {
        fprintf(stderr, "cudaMallocManaged failed\n");
        return EXIT_FAILURE;
    }
    for (int i = 0; i < N; i++) in[i] = make_float3((float)(i % 7) - 3.0f, (float)(i % 5) - 2.0f, (float)(i % 3));
    normalize_all<<<(N + 127) / 128, 128>>>(in, out, N);
    if (cudaDeviceSynchronize() != cudaSuccess) {
        fprintf(stderr, "the kernel failed\n");
        return EXIT_FAILURE;
    }
    int wrong = 0, longest_index = 0;
    for (int i = 0; i < N; i++) {
        float3 want = clamp(normalize(in[i] + make_float3(0.0f, 0.0f, 1.0f)), -0.75f, 0.75f);
        wrong += fabsf(want.x - out[i].x) > 1e-6f || fabsf(want.y - out[i].y) > 1e-6f || fabsf(want.z - out[i].z) > 1e-6f;
        longest_index = max(longest_index, (int)(dot(out[i], out[i]) > 0.9f) * i);   /* CUDA's int max, on the host */
    }
    printf("modern CUDA headers: %s\n", SAMPLE_HAS_MODERN_CUDA ? "yes" : "no");
    printf("normalised %d vectors, %d differ from the host's; the last of squared length > 0.9: %d\n", N, wrong, longest_index);
    printf("%s\n", wrong == 0 ? "Test passed" : "Test FAILED");
    cudaFree(in), cudaFree(out);
    return wrong == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
