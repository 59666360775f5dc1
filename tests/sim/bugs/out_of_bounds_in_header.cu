/* out_of_bounds_in_header.cu — planted bug: the out-of-bounds write is in a kernel of an included
 * header (out_of_bounds_in_header.cuh), launched there too. The report must name the header and
 * its lines, as it names a .cu file's: lib/sim/tools/simcc rewrites the program's own headers the
 * way it rewrites .cu files, keeping their names and lines. */
#include <cstdio>
#include "out_of_bounds_in_header.cuh"

int main()
{
    const int n = 100;
    float *in, *out;
    cudaMalloc(&in, n * sizeof(float));
    cudaMalloc(&out, n * sizeof(float));
    copy_in_tiles(in, out, n);
    printf("launch: %s\n", cudaGetErrorName(cudaGetLastError()));
    return 0;
}
