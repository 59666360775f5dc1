/* cg_tiles.cu — cooperative groups smaller than a block: tiles of 16, 8 and 4 threads cut from the
 * block and from one another, their ranks, shuffles and votes; a tile made at run time and passed as
 * a thread_group; the lanes that take a branch, as a coalesced group, and the whole warp again after a
 * branch; the grid's ranks. Every thread holds value = its rank in the block, so each printed number
 * can be worked out by hand (the numbers in the comments are). lib/sim/tools/simcc must build and run it unchanged; so must nvcc:
 *   lib/sim/tools/simcc -o cg_tiles tests/sim/programs/cg_tiles.cu && ./cg_tiles
 *   nvcc -o cg_tiles tests/sim/programs/cg_tiles.cu && ./cg_tiles      (on a GPU) */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cstdio>
#include <cstdlib>

namespace cg = cooperative_groups;

const int THREADS = 64, BLOCKS = 2;
enum { META16, SUM16, META8, NEIGHBOUR8, VOTES8, BALLOT4, GROUP_SUM, COALESCED, COALESCED_SUM, COALESCED_BALLOT,
       COALESCED_LAST, REJOINED, GRID_RANK, RESULTS };

/* The CUDA programming guide's reduction over any group: a tree through shared memory, with the
 * group's barrier between the steps. */
__device__ int group_sum(cg::thread_group g, int *scratch, int value)
{
    int rank = g.thread_rank();
    for (int half = g.size() / 2; half > 0; half /= 2) {
        scratch[rank] = value;
        g.sync();
        if (rank < half) value += scratch[rank + half];
        g.sync();
    }
    return value;
}

__global__ void tiles(int *out)
{
    __shared__ int scratch[THREADS];
    cg::thread_block block = cg::this_thread_block();
    int value = block.thread_rank();
    int *mine = out + (blockIdx.x * THREADS + value) * RESULTS;

    cg::thread_block_tile<16> tile16 = cg::tiled_partition<16>(block);
    cg::thread_block_tile<8> tile8 = cg::tiled_partition<8>(tile16);
    cg::thread_block_tile<4> tile4 = cg::tiled_partition<4>(block);
    mine[META16] = tile16.meta_group_rank() * 10 + tile16.meta_group_size();
    int sum = value;
    for (int distance = 8; distance > 0; distance /= 2) sum += tile16.shfl_xor(sum, distance);
    mine[SUM16] = sum;
    mine[META8] = tile8.meta_group_rank() * 10 + tile8.meta_group_size();
    mine[NEIGHBOUR8] = tile8.shfl_xor(value, 5);
    mine[VOTES8] = tile8.any(value > 60) * 10 + tile8.all(value >= 8);
    mine[BALLOT4] = tile4.ballot(value % 3 == 0);

    cg::thread_group runtime16 = cg::tiled_partition(block, 16);
    mine[GROUP_SUM] = group_sum(runtime16, scratch + value / 16 * 16, value);

    if (value % 5 == 0) {
        cg::coalesced_group active = cg::coalesced_threads();
        mine[COALESCED] = active.size() * 10 + active.thread_rank();
        mine[COALESCED_SUM] = cg::reduce(active, value, cg::plus<int>());
        mine[COALESCED_BALLOT] = active.ballot(value % 10 == 0);
        mine[COALESCED_LAST] = active.shfl(value, active.size() - 1);
    }
    /* Lanes 16..31 alone shuffle, in a branch of their own (value stays the same). */
    if (value % 32 >= 16) value = __shfl_sync(0xffff0000u, value, 16) + value % 16;
    mine[REJOINED] = cg::coalesced_threads().size();
    cg::grid_group grid = cg::this_grid();
    mine[GRID_RANK] = (int)grid.thread_rank() * 1000 + (int)grid.size();
}

int main()
{
    const int n = BLOCKS * THREADS * RESULTS;
    int *out, *host = (int *)malloc(n * sizeof(int));
    if (cudaMalloc(&out, n * sizeof(int)) != cudaSuccess) return EXIT_FAILURE;
    cudaMemset(out, 0, n * sizeof(int));
    tiles<<<BLOCKS, THREADS>>>(out);
    cudaError_t error = cudaMemcpy(host, out, n * sizeof(int), cudaMemcpyDeviceToHost);
    if (error != cudaSuccess) {
        printf("tiles: %s\n", cudaGetErrorName(error));
        return EXIT_FAILURE;
    }
    const int *r = host;   /* block 0; thread t's results at r[t * RESULTS + ...] */
    /* Tile k of 16 holds threads 16k..16k+15: meta 0 of 4 ... 3 of 4; sums 120, 376, 632, 888. */
    for (int t = 0; t < THREADS; t += 16)
        printf("tile16 %d of %d: sum %d, through shared memory %d\n", r[t * RESULTS + META16] / 10,
               r[t * RESULTS + META16] % 10, r[t * RESULTS + SUM16], r[t * RESULTS + GROUP_SUM]);
    /* Tile k of 8 is tile k % 2 of 2 in its tile of 16; rank 0 reads rank 5 (8k + 5); any(value > 60)
     * only in the last (61..63), all(value >= 8) in every tile but the first. */
    for (int t = 0; t < THREADS; t += 8)
        printf("tile8 at %2d: %d of %d in its tile16, rank 0 reads %2d, any %d, all %d\n", t,
               r[t * RESULTS + META8] / 10, r[t * RESULTS + META8] % 10, r[t * RESULTS + NEIGHBOUR8],
               r[t * RESULTS + VOTES8] / 10, r[t * RESULTS + VOTES8] % 10);
    /* Tiles of 4 from 0: multiples of 3 at ranks 0 and 3 (0x9), 2 (0x4), 1 (0x2), then again. */
    printf("tile4 ballots of value %% 3 == 0:");
    for (int t = 0; t < THREADS; t += 4) printf(" 0x%x", r[t * RESULTS + BALLOT4]);
    printf("\n");
    /* value % 5 == 0: in warp 0 threads 0, 5, ..., 30 (7 of them, sum 105; multiples of 10 at ranks
     * 0, 2, 4, 6: 0x55); in warp 1 threads 35, ..., 60 (6, sum 285; 40, 50, 60 at ranks 1, 3, 5: 0x2a). */
    for (int t = 0; t < THREADS; t += 5)
        printf("thread %2d in the branch: rank %d of %d, sum %3d, ballot 0x%02x, last %d\n", t,
               r[t * RESULTS + COALESCED] % 10, r[t * RESULTS + COALESCED] / 10, r[t * RESULTS + COALESCED_SUM],
               r[t * RESULTS + COALESCED_BALLOT], r[t * RESULTS + COALESCED_LAST]);
    /* After the branch that only lanes 16..31 took, the warp's 32 lanes are together again. */
    printf("after a branch with a shuffle of its own: groups of %d and %d\n", r[REJOINED], r[63 * RESULTS + REJOINED]);
    /* The grid: thread t of block 1 is thread 64 + t of 128. */
    const int *b1 = host + THREADS * RESULTS;
    printf("grid: block 1 thread 0 is %d of %d, thread 63 is %d\n", b1[GRID_RANK] / 1000, b1[GRID_RANK] % 1000,
           b1[63 * RESULTS + GRID_RANK] / 1000);
    cudaFree(out);
    free(host);
    return EXIT_SUCCESS;
}
