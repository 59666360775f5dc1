/* cg_partitions.cu — cooperative groups that split and scan: cg::inclusive_scan and cg::exclusive_scan
 * over tiles and over a coalesced group, binary_partition and labeled_partition, match_any and
 * match_all. One warp; every thread holds value = its rank in the block, so each printed number can be
 * worked out by hand (the comments do). lib/sim/tools/simcc must build and run it unchanged; so must nvcc:
 *   lib/sim/tools/simcc -o cg_partitions tests/sim/programs/cg_partitions.cu && ./cg_partitions
 *   nvcc -o cg_partitions tests/sim/programs/cg_partitions.cu && ./cg_partitions      (on a GPU) */
#include <cooperative_groups.h>
#include <cooperative_groups/scan.h>
#include <cstdio>
#include <cstdlib>

namespace cg = cooperative_groups;

const int THREADS = 32;
enum { INCLUSIVE, EXCLUSIVE, EXCLUSIVE_MAX, HALVES_SCAN, VALUES_BELOW, MULTIPLE_OF_4, TENS, THIRDS, QUARTERS_ALL,
       HALVES_ALL, PARITY, RESULTS };

__global__ void partitions(float *out)
{
    cg::thread_block block = cg::this_thread_block();
    int value = block.thread_rank();
    float *mine = out + value * RESULTS;
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    cg::thread_block_tile<16> tile16 = cg::tiled_partition<16>(block);
    cg::thread_block_tile<8> tile8 = cg::tiled_partition<8>(block);
    cg::thread_block_tile<4> tile4 = cg::tiled_partition<4>(block);

    mine[INCLUSIVE] = cg::inclusive_scan(tile16, value);
    mine[EXCLUSIVE] = cg::exclusive_scan(tile16, value);
    mine[EXCLUSIVE_MAX] = cg::exclusive_scan(tile16, value, cg::greater<int>());
    if (value % 3 == 0) {
        cg::coalesced_group active = cg::coalesced_threads();
        mine[HALVES_SCAN] = cg::inclusive_scan(active, value * 0.5f);
        mine[VALUES_BELOW] = cg::exclusive_scan(active, (float)value);
        mine[PARITY] = active.match_any(value % 2);
    }
    cg::coalesced_group by_4 = cg::binary_partition(tile16, value % 4 == 0);
    mine[MULTIPLE_OF_4] = by_4.size() * 10000 + by_4.thread_rank() * 100 + by_4.meta_group_rank() * 10 +
                          by_4.meta_group_size();
    cg::coalesced_group tens = cg::labeled_partition(warp, value / 10);
    mine[TENS] = tens.size() * 10000 + tens.thread_rank() * 100 + tens.meta_group_rank() * 10 + tens.meta_group_size();
    mine[THIRDS] = tile8.match_any(value / 3);
    int all_equal;
    unsigned int lanes = tile4.match_all(value / 4, all_equal);
    mine[QUARTERS_ALL] = lanes * 10 + all_equal;
    lanes = tile4.match_all(value / 2, all_equal);
    mine[HALVES_ALL] = lanes * 10 + all_equal;
}

int main()
{
    float *out, host[THREADS * RESULTS];
    if (cudaMalloc(&out, sizeof host) != cudaSuccess) return EXIT_FAILURE;
    cudaMemset(out, 0, sizeof host);
    partitions<<<1, THREADS>>>(out);
    cudaError_t error = cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost);
    if (error != cudaSuccess) {
        printf("partitions: %s\n", cudaGetErrorName(error));
        return EXIT_FAILURE;
    }
    /* Tiles of 16, values 0..15 and 16..31: inclusive sums r(r+1)/2 then 16(k+1) + k(k+1)/2; exclusive
     * ones the same less the thread's value; the exclusive maximum is value - 1, and 0 at rank 0. */
    const int shown[] = {0, 1, 2, 3, 15, 16, 31};
    for (int t : shown)
        printf("thread %2d: inclusive sum %3.0f, exclusive sum %3.0f, exclusive max %2.0f\n", t,
               host[t * RESULTS + INCLUSIVE], host[t * RESULTS + EXCLUSIVE], host[t * RESULTS + EXCLUSIVE_MAX]);
    /* Threads 0, 3, ..., 30 (ranks 0..10 of the coalesced group): the sum of 1.5k over ranks up to k is
     * 0.75k(k+1); of 3j below k, 1.5k(k-1). Even values sit at even ranks: 0x555; odd ones at 0x2aa. */
    for (int t = 0; t < THREADS; t += 9)
        printf("thread %2d of the multiples of 3: inclusive sum of halves %4.1f, exclusive sum %5.1f, same parity 0x%03x\n",
               t, host[t * RESULTS + HALVES_SCAN], host[t * RESULTS + VALUES_BELOW], (unsigned)host[t * RESULTS + PARITY]);
    /* binary_partition of a tile of 16 by value % 4 == 0: 4 threads (group 1 of 2) and 12 (group 0);
     * labeled_partition of the warp by value / 10: 0..9, 10..19, 20..29, 30..31 (groups 0..3 of 4). */
    const int split[] = {0, 5, 8, 19, 25, 31};
    for (int t : split) {
        int b = (int)host[t * RESULTS + MULTIPLE_OF_4], l = (int)host[t * RESULTS + TENS];
        printf("thread %2d: by value %% 4 == 0 rank %d of %d in group %d of %d; by value / 10 rank %d of %2d in group %d of %d\n",
               t, b / 100 % 100, b / 10000, b / 10 % 10, b % 10, l / 100 % 100, l / 10000, l / 10 % 10, l % 10);
    }
    /* Tiles of 8 matching value / 3: tile 0 holds 0 0 0 1 1 1 2 2, tile 1 holds 2 3 3 3 4 4 4 5. */
    const int thirds[] = {0, 4, 7, 8, 10, 15};
    printf("match_any(value / 3) in tiles of 8:");
    for (int t : thirds) printf(" thread %d 0x%02x", t, (unsigned)host[t * RESULTS + THIRDS]);
    printf("\n");
    /* Tiles of 4 share value / 4 (0xf, all equal) but not value / 2 (0, not all equal). */
    printf("match_all in tiles of 4: value / 4 0x%x %d, value / 2 0x%x %d\n", (unsigned)host[QUARTERS_ALL] / 10,
           (int)host[QUARTERS_ALL] % 10, (unsigned)host[HALVES_ALL] / 10, (int)host[HALVES_ALL] % 10);
    cudaFree(out);
    return EXIT_SUCCESS;
}
