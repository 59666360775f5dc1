/* main.cpp — a program of several files, laid out as NVIDIA's samples are: host code in a .cpp
 * file (compiled by the host's C++ compiler under nvcc, with the CUDA runtime's headers) calling
 * the CUDA API and launchers defined in kernels.cu, whose kernels live in included headers
 * (kernels.cuh, common.h), and a reference in C (reference.c).
 * In this folder:
 *   ../../../../lib/sim/tools/simcc -o multi_file main.cpp kernels.cu reference.c && ./multi_file
 *   nvcc -o multi_file main.cpp kernels.cu reference.c && ./multi_file     (on a GPU) */
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

extern void make_input(float *x, int n);
extern int sums_of_squares(const float *x, float *sums, int n);
extern "C" double reference_sum_of_squares(int n);

static void check(cudaError_t error, const char *what)
{
    if (error != cudaSuccess) {
        fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(error));
        exit(EXIT_FAILURE);
    }
}

int main()
{
    const int n = 1000;
    float *x, *sums;
    check(cudaMalloc(&x, n * sizeof(float)), "cudaMalloc");
    check(cudaMalloc(&sums, n * sizeof(float)), "cudaMalloc");
    make_input(x, n);
    int blocks = sums_of_squares(x, sums, n);
    std::vector<float> partial(blocks);
    check(cudaMemcpy(partial.data(), sums, blocks * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
    double total = 0;
    for (float p : partial) total += p;
    double expected = reference_sum_of_squares(n);
    printf("%d blocks, sum of squares %.0f (reference %.0f): %s\n", blocks, total, expected,
           total == expected ? "Test PASSED" : "Test FAILED");
    check(cudaFree(x), "cudaFree");
    check(cudaFree(sums), "cudaFree");
    return total == expected ? EXIT_SUCCESS : EXIT_FAILURE;
}
