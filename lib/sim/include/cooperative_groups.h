/* cooperative_groups.h (simulator) — CUDA's cooperative groups, made of the simulator's barriers and
 * warp collectives.
 *
 * A group is a set of threads that synchronise and exchange values together: the block
 * (this_thread_block()), a tile of 1 to 32 consecutive lanes of a warp (tiled_partition<N>(parent) or
 * tiled_partition(parent, n)), the lanes of a warp that arrive together at one place
 * (coalesced_threads()) and the parts of a tile split by a predicate or a label (binary_partition,
 * labeled_partition), and the grid (this_grid()). Each operation is the primitive CUDA's own header
 * compiles it to: block.sync() is __syncthreads(), tile.sync() is __syncwarp(the tile's lanes),
 * tile.shfl_down(v, d) is __shfl_down_sync(the tile's lanes, v, d, the tile's size), tile.any(p) a ballot
 * of the tile's lanes. So the simulator's checks of those primitives — races in shared memory,
 * barriers not every thread reaches, collectives a named lane never joins — apply unchanged, and
 * their messages name the primitive and the line of the program that called the group.
 *
 * Blocks run independently (one per core at most), so no barrier can span the grid: grid.sync()
 * stops the launch with an error that says so (a GPU needs a cooperative launch for it, which the
 * simulator does not run).
 * Tiles of several warps (thread_block_tile<64> to <1024>, from tiled_partition<N>(block) or from a larger
 * tile) are simulated with what CUDA gives them: sync(), a barrier of just the tile's warps (tiles.c: the
 * block's other warps run on, and the race detector takes it as ordering the tile's threads only), the
 * ranks and sizes, shfl(value, rank) from one rank (every thread names the same), any, all and
 * cg::reduce. CUDA has no shfl_up, shfl_down, shfl_xor, ballot or match for them (a compile error says
 * so), nor tiled_partition(block, n) with n above 32. On a GPU of compute capability below 8.0 (SIM_GPU)
 * they need the block made from block_tile_memory scratch (this_thread_block(scratch)), as in CUDA.
 * cg::reduce is in cooperative_groups/reduce.h and the scans in cooperative_groups/scan.h, as in CUDA. */
#ifndef SIM_COOPERATIVE_GROUPS_H
#define SIM_COOPERATIVE_GROUPS_H

#include "cuda_runtime.h"

/* Operations that wait for other threads take the place of the call, for the simulator's messages:
 * these defaults are evaluated where the program calls them. */
#define SIM_CALL_SITE const char *file = __builtin_FILE(), int line = __builtin_LINE()

namespace cooperative_groups {
class thread_group;
class thread_block;
class coalesced_group;
template <unsigned int Size, typename ParentT> class thread_block_tile;
template <unsigned int MaxBlockSize = 1024> struct block_tile_memory;
template <unsigned int MaxBlockSize>
thread_block this_thread_block(block_tile_memory<MaxBlockSize> &scratch, SIM_CALL_SITE);
template <unsigned int Size, typename ParentT>
thread_block_tile<Size, ParentT> tiled_partition(const ParentT &parent, SIM_CALL_SITE);
coalesced_group coalesced_threads(SIM_CALL_SITE);
thread_group tiled_partition(const thread_group &parent, unsigned int tile_size, SIM_CALL_SITE);
thread_group tiled_partition(const thread_block &parent, unsigned int tile_size, SIM_CALL_SITE);
coalesced_group tiled_partition(const coalesced_group &parent, unsigned int tile_size, SIM_CALL_SITE);
} /* namespace cooperative_groups */

namespace sim {
namespace groups {

struct access;   /* below: what the group-making functions read of a group */

enum : unsigned { coalesced_group_id = 1, grid_group_id = 3, thread_block_id = 4 };   /* CUDA's get_type() values */

template <typename T> using plain = typename std::remove_cv<typename std::remove_reference<T>::type>::type;

static inline unsigned block_rank()
{
    uint3 t = threadIdx, d = blockDim;
    return (t.z * d.y + t.y) * d.x + t.x;
}
static inline unsigned block_size()
{
    uint3 d = blockDim;
    return d.x * d.y * d.z;
}
static inline unsigned long long grid_blocks()
{
    uint3 g = gridDim;
    return (unsigned long long)g.x * (g.y * g.z);
}
static inline unsigned long long grid_block_rank()
{
    uint3 b = blockIdx, g = gridDim;
    return ((unsigned long long)b.z * g.y + b.y) * g.x + b.x;
}
static inline unsigned lane() { return block_rank() % 32; }
static inline unsigned lanes_below() { return (1u << lane()) - 1; }
static inline unsigned count(unsigned lanes) { return (unsigned)__builtin_popcount(lanes); }

/* PTX's fns: the position of the |offset|-th set bit of `mask`, counting from `base` (included) up
 * when offset > 0 and down when offset < 0; for offset 0, base itself if its bit is set; else 0xffffffff. */
static inline unsigned find_set_bit(unsigned mask, unsigned base, int offset)
{
    if (offset == 0) return (mask >> base) & 1 ? base : 0xffffffffu;
    int remaining = offset > 0 ? offset - 1 : -offset - 1, step = offset > 0 ? 1 : -1;
    for (int position = (int)base; position >= 0 && position < 32; position += step)
        if ((mask >> position) & 1) {
            if (remaining == 0) return (unsigned)position;
            remaining--;
        }
    return 0xffffffffu;
}

/* A shuffle of any trivially copyable value: up to 8 bytes in one exchange, larger ones 8 bytes at a
 * time (CUDA's groups shuffle such values in pieces too). */
template <typename T>
static inline T exchange(sim_collective_kind kind, unsigned mask, const T &value, int argument, int width,
                         const char *file, int line)
{
    static_assert(std::is_trivially_copyable<T>::value, "a group can shuffle only trivially copyable values");
    static_assert(sizeof(T) <= 32, "shuffling values of more than 32 bytes through a group is not simulated");
    if constexpr (sizeof(T) <= 8) {
        return sim::shuffle(file, line, kind, mask, value, argument, width);
    } else {
        unsigned long long pieces[(sizeof(T) + 7) / 8] = {};
        memcpy(pieces, &value, sizeof value);
        for (unsigned long long &piece : pieces)
            piece = sim_warp_collective(kind, mask, piece, argument, width, file, line);
        T result;
        memcpy(&result, pieces, sizeof result);
        return result;
    }
}
static inline unsigned ballot(unsigned mask, int predicate, const char *file, int line)
{
    return (unsigned)sim_warp_collective(COLLECTIVE_BALLOT, mask, predicate != 0, 0, 32, file, line);
}
static inline void sync_lanes(unsigned mask, const char *file, int line)
{
    sim_warp_collective(COLLECTIVE_SYNCWARP, mask, 0, 0, 32, file, line);
}

[[noreturn]] static inline void grid_sync_fails(const char *file, int line)
{
    sim_kernel_fail(cudaErrorLaunchFailure,
        "%s:%d: grid.sync() (cooperative groups' this_grid().sync()) waits until every block of the grid\n"
        "     has arrived, but the simulator runs blocks independently, one per core at most: no barrier can span\n"
        "     the grid here.\n"
        "     On a GPU grid.sync() needs a cooperative launch (cudaLaunchCooperativeKernel, every block resident\n"
        "     at once), which the simulator does not run; in a kernel launched with <<< >>> it fails there too.\n"
        "     End the kernel where the grid must synchronise and launch a second one: the boundary between two\n"
        "     launches in one stream is a grid-wide barrier.", file, line);
}

/* The lanes of `mask` whose `bits` equal this lane's (what __match_any_sync gives), found value by value:
 * the lowest lane not yet matched shows its value, and the lanes that hold it vote. Also which of the
 * distinct values, in the order of their lowest lanes, this lane's is, and how many there are. */
struct match { unsigned int lanes, index, values; };
static inline match match_values(unsigned int mask, unsigned long long bits, const char *file, int line)
{
    match m = {0, 0, 0};
    for (unsigned int remaining = mask; remaining; m.values++) {
        int lowest = __builtin_ctz(remaining);
        unsigned long long shown = sim_warp_collective(COLLECTIVE_SHFL, mask, bits, lowest, 32, file, line);
        unsigned int same = ballot(mask, bits == shown, file, line) & remaining;
        if ((same >> lane()) & 1) m.lanes = same, m.index = m.values;
        remaining &= ~same;
    }
    return m;
}
/* `mask` if every lane of it holds the same bits, else 0 (what __match_all_sync gives). */
static inline unsigned int match_all_values(unsigned int mask, unsigned long long bits, const char *file, int line)
{
    unsigned long long shown = sim_warp_collective(COLLECTIVE_SHFL, mask, bits, __builtin_ctz(mask), 32, file, line);
    return ballot(mask, bits == shown, file, line) == mask ? mask : 0;
}
template <typename T> static inline unsigned long long match_bits(T value)
{
    static_assert(std::is_arithmetic<T>::value, "match_any and match_all compare values of arithmetic types");
    return to_bits(value);
}

/* cg::reduce's and the scans' check, as CUDA's: op takes and returns the value's type. */
template <typename Value, typename Op> static constexpr bool op_type_matches()
{
    return std::is_same<plain<Value>, plain<decltype(std::declval<Op &>()(std::declval<plain<Value>>(),
                                                                         std::declval<plain<Value>>()))>>::value;
}
template <typename> struct never : std::false_type {};

static inline void check_tile_size(unsigned size, const char *file, int line)
{
    if (size == 0 || size > 32 || (size & (size - 1)))
        sim_kernel_fail(cudaErrorLaunchFailure,
            "%s:%d: tiled_partition(group, %u): a tile has 1, 2, 4, 8, 16 or 32 threads (with any other size\n"
            "     the kernel stops on a GPU too; tiles of 64 to 1024 threads are made with tiled_partition<N>(block))",
            file, line, size);
}

/* What every tile of Size lanes does: a tile is Size consecutive lanes of one warp, starting at a
 * multiple of Size, so its collectives name just those lanes (a tile of 8 at lanes 8..15: 0x0000ff00). */
template <unsigned int Size> class tile_operations {
    static_assert(Size >= 1 && (Size & (Size - 1)) == 0,
                  "a thread_block_tile has a power of two from 1 to 1024 threads (CUDA refuses other sizes too)");

public:
    static unsigned sim_lanes() { return (~0u >> (32 - Size)) << (lane() & ~(Size - 1)); }
    static unsigned int thread_rank() { return block_rank() & (Size - 1); }
    static constexpr unsigned int num_threads() { return Size; }
    static constexpr unsigned int size() { return Size; }
    static void sync(SIM_CALL_SITE) { sync_lanes(sim_lanes(), file, line); }

    template <typename T> plain<T> shfl(T &&value, int source_rank, SIM_CALL_SITE) const
    {
        return exchange<plain<T>>(COLLECTIVE_SHFL, sim_lanes(), value, source_rank, Size, file, line);
    }
    template <typename T> plain<T> shfl_down(T &&value, unsigned int delta, SIM_CALL_SITE) const
    {
        return exchange<plain<T>>(COLLECTIVE_SHFL_DOWN, sim_lanes(), value, (int)delta, Size, file, line);
    }
    template <typename T> plain<T> shfl_up(T &&value, unsigned int delta, SIM_CALL_SITE) const
    {
        return exchange<plain<T>>(COLLECTIVE_SHFL_UP, sim_lanes(), value, (int)delta, Size, file, line);
    }
    template <typename T> plain<T> shfl_xor(T &&value, unsigned int lane_mask, SIM_CALL_SITE) const
    {
        return exchange<plain<T>>(COLLECTIVE_SHFL_XOR, sim_lanes(), value, (int)lane_mask, Size, file, line);
    }
    int any(int predicate, SIM_CALL_SITE) const { return groups::ballot(sim_lanes(), predicate, file, line) != 0; }
    int all(int predicate, SIM_CALL_SITE) const
    {
        return groups::ballot(sim_lanes(), predicate, file, line) == sim_lanes();
    }
    /* Bit r of the result: whether the tile's thread of rank r voted true. */
    unsigned int ballot(int predicate, SIM_CALL_SITE) const
    {
        return groups::ballot(sim_lanes(), predicate, file, line) >> (lane() & ~(Size - 1));
    }
    /* Bit r: whether the thread of rank r holds the same value as this one. */
    template <typename T> unsigned int match_any(T value, SIM_CALL_SITE) const
    {
        return match_values(sim_lanes(), match_bits(value), file, line).lanes >> (lane() & ~(Size - 1));
    }
    /* Every rank's bit if all hold the same value (and all_equal true), else 0. */
    template <typename T> unsigned int match_all(T value, int &all_equal, SIM_CALL_SITE) const
    {
        unsigned int lanes = match_all_values(sim_lanes(), match_bits(value), file, line);
        all_equal = lanes != 0;
        return lanes >> (lane() & ~(Size - 1));
    }
};

/* The lanes of the running thread's warp that the block has (all 32 unless the block's size is not a
 * multiple of 32). */
static inline unsigned warp_lanes()
{
    unsigned first = block_rank() & ~31u, count = block_size() - first;
    return count >= 32 ? 0xffffffffu : (1u << count) - 1;
}

/* A tile of several warps: Size consecutive threads of the block from a multiple of Size. Its sync() is a
 * barrier of its warps (tiles.c); its collectives combine each warp's part through the simulator's slots
 * between two such barriers, as CUDA's pass them through the block's scratch memory. */
template <unsigned int Size> class large_tile_operations {
    static_assert((Size & (Size - 1)) == 0 && Size <= 1024,
                  "a thread_block_tile has a power of two from 1 to 1024 threads (CUDA refuses other sizes too)");

public:
    static unsigned int first_warp() { return (block_rank() & ~(Size - 1)) / 32; }
    static unsigned int warps()
    {
        unsigned int threads = block_size() - first_warp() * 32;
        return ((threads < Size ? threads : Size) + 31) / 32;
    }
    /* Every thread gets the warps' parts, from the tile's first warp's up, combined by `combine`. */
    template <typename T, typename Combine>
    static T across_warps(const T &part, Combine combine, bool deposits, const char *file, int line)
    {
        static_assert(std::is_trivially_copyable<T>::value && sizeof(T) <= 32,
                      "a tile of more than 32 threads passes values of up to 32 bytes here");
        if (deposits) sim_tile_deposit(block_rank() / 32, &part, sizeof part);
        sim_tile_sync(Size, file, line);
        T result;
        sim_tile_read(first_warp(), &result, sizeof result);
        for (unsigned int warp = first_warp() + 1; warp < first_warp() + warps(); warp++) {
            T other;
            sim_tile_read(warp, &other, sizeof other);
            result = combine(result, other);
        }
        sim_tile_sync(Size, file, line);   /* nobody deposits again before everyone has read */
        return result;
    }

    static unsigned sim_lanes() { return warp_lanes(); }   /* of the running thread's warp */
    static unsigned int thread_rank() { return block_rank() & (Size - 1); }
    static constexpr unsigned int num_threads() { return Size; }
    static constexpr unsigned int size() { return Size; }
    static void sync(SIM_CALL_SITE) { sim_tile_sync(Size, file, line); }

    /* The value of the thread of rank source_rank. CUDA defines it only when every thread of the tile names
     * the same rank (the Programming Guide's thread_block_tile class), so each lane first checks that it
     * names the rank its warp's first lane names; then each warp deposits that rank (the warp that holds
     * the source with the value), every thread reads every warp's rank back, and a tile whose warps named
     * two ranks is stopped. */
    template <typename T> plain<T> shfl(T &&value, int source_rank, SIM_CALL_SITE) const
    {
        struct named { unsigned int source, thread; plain<T> value; };
        static_assert(std::is_trivially_copyable<plain<T>>::value && sizeof(named) <= 32,
                      "a tile of more than 32 threads shuffles values of up to 24 bytes here");
        unsigned int source = (unsigned)source_rank & (Size - 1);
        unsigned int lanes = warp_lanes(), first_lane = (unsigned)__builtin_ctz(lanes);
        unsigned int shown =
            (unsigned)sim_warp_collective(COLLECTIVE_SHFL, lanes, source, (int)first_lane, 32, file, line);
        if (source != shown) sources_differ(source, block_rank() - lane() + first_lane, shown, file, line);
        named part = {source, block_rank(), value};
        bool holds_source = source / 32 == thread_rank() / 32;
        if (holds_source ? thread_rank() == source : lane() == first_lane)
            sim_tile_deposit(block_rank() / 32, &part, sizeof part);
        sim_tile_sync(Size, file, line);
        named result = {};
        for (unsigned int warp = first_warp(); warp < first_warp() + warps(); warp++) {
            named other;
            sim_tile_read(warp, &other, sizeof other);
            if (other.source != source) sources_differ(source, other.thread, other.source, file, line);
            if (warp == first_warp() + source / 32) result = other;
        }
        sim_tile_sync(Size, file, line);   /* nobody deposits again before everyone has read */
        return result.value;
    }
    [[noreturn]] static void sources_differ(unsigned int mine, unsigned int other_thread, unsigned int theirs,
                                            const char *file, int line)
    {
        sim_kernel_fail(cudaErrorLaunchFailure,
            "%s:%d: shfl in a tile of %u threads: thread %u of the block names rank %u as the source,\n"
            "     thread %u names rank %u. In a tile of more than 32 threads every thread must name the same rank:\n"
            "     CUDA leaves the result undefined otherwise. A shuffle from ranks of each thread's own choosing\n"
            "     needs a tile of at most 32 threads (a warp), or shared memory and tile.sync().",
            file, line, Size, block_rank(), mine, other_thread, theirs);
    }
    int any(int predicate, SIM_CALL_SITE) const
    {
        int part = groups::ballot(warp_lanes(), predicate, file, line) != 0;
        return across_warps(part, [](int a, int b) { return a | b; }, lane() == 0, file, line);
    }
    int all(int predicate, SIM_CALL_SITE) const
    {
        int part = groups::ballot(warp_lanes(), predicate, file, line) == warp_lanes();
        return across_warps(part, [](int a, int b) { return a & b; }, lane() == 0, file, line);
    }
    template <typename T> plain<T> shfl_down(T &&value, unsigned int, SIM_CALL_SITE) const
    {
        static_assert(never<T>::value, "shfl_down: CUDA's tiles of more than 32 threads have no shfl_up, shfl_down "
                                       "or shfl_xor (shfl from one rank, any, all and cg::reduce they have)");
        return value;
    }
    template <typename T> plain<T> shfl_up(T &&value, unsigned int, SIM_CALL_SITE) const
    {
        static_assert(never<T>::value, "shfl_up: CUDA's tiles of more than 32 threads have no shfl_up, shfl_down "
                                       "or shfl_xor (shfl from one rank, any, all and cg::reduce they have)");
        return value;
    }
    template <typename T> plain<T> shfl_xor(T &&value, unsigned int, SIM_CALL_SITE) const
    {
        static_assert(never<T>::value, "shfl_xor: CUDA's tiles of more than 32 threads have no shfl_up, shfl_down "
                                       "or shfl_xor (shfl from one rank, any, all and cg::reduce they have)");
        return value;
    }
    template <typename P> unsigned int ballot(P, SIM_CALL_SITE) const
    {
        static_assert(never<P>::value, "ballot: CUDA's tiles of more than 32 threads have no ballot, match_any or "
                                       "match_all (a 32-bit mask cannot name their threads)");
        return 0;
    }
    template <typename T> unsigned int match_any(T, SIM_CALL_SITE) const
    {
        static_assert(never<T>::value, "match_any: CUDA's tiles of more than 32 threads have no ballot, match_any "
                                       "or match_all (a 32-bit mask cannot name their threads)");
        return 0;
    }
    template <typename T> unsigned int match_all(T, int &, SIM_CALL_SITE) const
    {
        static_assert(never<T>::value, "match_all: CUDA's tiles of more than 32 threads have no ballot, match_any "
                                       "or match_all (a 32-bit mask cannot name their threads)");
        return 0;
    }
};

/* The operations of a tile of Size threads: one warp's lanes, or several warps. */
template <unsigned int Size>
using tile_base = typename std::conditional<(Size <= 32), tile_operations<Size>, large_tile_operations<Size>>::type;

template <unsigned int Size, typename ParentT> struct can_partition : std::false_type {};
template <unsigned int Size> struct can_partition<Size, cooperative_groups::thread_block> : std::true_type {};
template <unsigned int Size, unsigned int ParentSize, typename GrandParentT>
struct can_partition<Size, cooperative_groups::thread_block_tile<ParentSize, GrandParentT>> : std::true_type {};

template <unsigned int Size, typename ParentT> struct smaller_than_parent : std::true_type {};
template <unsigned int Size, unsigned int ParentSize, typename GrandParentT>
struct smaller_than_parent<Size, cooperative_groups::thread_block_tile<ParentSize, GrandParentT>>
    : std::integral_constant<bool, (Size < ParentSize)> {};

} /* namespace groups */
} /* namespace sim */

namespace cooperative_groups {

/* Any group, its kind known at run time: what the others convert to (a function taking a thread_group
 * works on the block and on its tiles alike). */
class thread_group {
protected:
    unsigned int type;
    unsigned int mask = 0;              /* a tile's or coalesced group's lanes */
    unsigned int meta_rank = 0, meta_size = 1;
    bool tiled = false;                 /* made by tiled_partition: its lanes are consecutive */

    explicit thread_group(unsigned int kind) : type(kind) {}
    thread_group(unsigned int lanes, unsigned int rank, unsigned int count, bool is_tile)
        : type(sim::groups::coalesced_group_id), mask(lanes), meta_rank(rank), meta_size(count), tiled(is_tile) {}

    friend thread_group tiled_partition(const thread_group &parent, unsigned int tile_size, const char *file, int line);
    friend thread_group tiled_partition(const thread_block &parent, unsigned int tile_size, const char *file, int line);
    friend coalesced_group tiled_partition(const coalesced_group &parent, unsigned int tile_size, const char *file,
                                           int line);
    friend struct sim::groups::access;

public:
    unsigned long long size() const;
    unsigned long long num_threads() const { return size(); }
    unsigned long long thread_rank() const;
    void sync(SIM_CALL_SITE) const;
    unsigned int get_type() const { return type; }
};

/* The running thread's block. */
class thread_block : public thread_group {
    friend thread_block this_thread_block();
    template <unsigned int MaxBlockSize>
    friend thread_block this_thread_block(block_tile_memory<MaxBlockSize> &scratch, const char *file, int line);
    bool has_scratch = false;   /* made from block_tile_memory */
    thread_block() : thread_group(sim::groups::thread_block_id) {}

public:
    bool sim_has_scratch() const { return has_scratch; }
    static void sync(SIM_CALL_SITE) { sim_syncthreads_at(file, line); }
    static unsigned int size() { return sim::groups::block_size(); }
    static unsigned int num_threads() { return sim::groups::block_size(); }
    static unsigned int thread_rank() { return sim::groups::block_rank(); }
    static dim3 group_index() { return dim3(blockIdx); }
    static dim3 thread_index() { return dim3(threadIdx); }
    static dim3 group_dim() { return dim3(blockDim); }
    static dim3 dim_threads() { return dim3(blockDim); }
};

inline thread_block this_thread_block() { return thread_block(); }

/* Shared memory through which CUDA lets tiles of several warps (64 to 1024 threads) communicate, for
 * blocks of up to MaxBlockSize threads: `__shared__ cg::block_tile_memory<256> scratch;` then
 * this_thread_block(scratch). The simulator passes those values itself (tiles.c), so the scratch is
 * unused; a block made from it may be cut into such tiles on every compute capability (without it, on
 * 8.0 and later only, as in CUDA). */
template <unsigned int MaxBlockSize> struct block_tile_memory {
    static_assert(MaxBlockSize >= 1 && MaxBlockSize <= 1024, "block_tile_memory<MaxBlockSize>: 1 to 1024 threads");
    alignas(16) unsigned char scratch[(MaxBlockSize + 31) / 32 * 16];   /* unused here */
};
template <unsigned int MaxBlockSize>
thread_block this_thread_block(block_tile_memory<MaxBlockSize> &scratch, const char *file, int line)
{
    (void)scratch;
    if (sim::groups::block_size() > MaxBlockSize)
        sim_kernel_fail(cudaErrorLaunchFailure,
            "%s:%d: this_thread_block(block_tile_memory<%u>): the block has %u threads, more than the %u the\n"
            "     scratch memory was declared for", file, line, MaxBlockSize, sim::groups::block_size(), MaxBlockSize);
    thread_block block;
    block.has_scratch = true;
    return block;
}

/* The whole grid. Its ranks and sizes work; its barrier cannot (see grid_sync_fails). */
class grid_group : public thread_group {
    friend grid_group this_grid();
    grid_group() : thread_group(sim::groups::grid_group_id) {}

public:
    /* Only a cooperative launch makes a valid grid group, and the simulator runs none. */
    bool is_valid() const { return false; }
    void sync(SIM_CALL_SITE) const { sim::groups::grid_sync_fails(file, line); }
    static unsigned long long num_blocks() { return sim::groups::grid_blocks(); }
    static unsigned long long block_rank() { return sim::groups::grid_block_rank(); }
    static unsigned long long num_threads() { return num_blocks() * sim::groups::block_size(); }
    static unsigned long long size() { return num_threads(); }
    static unsigned long long thread_rank()
    {
        return block_rank() * sim::groups::block_size() + sim::groups::block_rank();
    }
    static dim3 dim_blocks() { return dim3(gridDim); }
    static dim3 group_dim() { return dim3(gridDim); }
    static dim3 block_index() { return dim3(blockIdx); }
    static dim3 dim_threads()
    {
        uint3 g = gridDim, b = blockDim;
        return dim3(g.x * b.x, g.y * b.y, g.z * b.z);
    }
    static dim3 thread_index()
    {
        uint3 i = blockIdx, b = blockDim, t = threadIdx;
        return dim3(i.x * b.x + t.x, i.y * b.y + t.y, i.z * b.z + t.z);
    }
};

inline grid_group this_grid() { return grid_group(); }

/* Lanes of one warp named by a mask: those that reached coalesced_threads() together, or a tile of them.
 * Ranks follow the lanes in order. */
class coalesced_group : public thread_group {
    friend coalesced_group coalesced_threads(const char *file, int line);
    friend thread_group tiled_partition(const thread_group &parent, unsigned int tile_size, const char *file, int line);
    friend coalesced_group tiled_partition(const coalesced_group &parent, unsigned int tile_size, const char *file,
                                           int line);
    friend struct sim::groups::access;

    explicit coalesced_group(unsigned int lanes, unsigned int rank = 0, unsigned int count = 1, bool is_tile = false)
        : thread_group(lanes, rank, count, is_tile) {}
    coalesced_group tile(unsigned int tile_size, const char *file, int line) const;

    /* A ballot of lanes, as bits by rank. */
    unsigned int by_rank(unsigned int lanes) const
    {
        unsigned int packed = 0, rank = 0;
        for (int lane = 0; lane < 32; lane++)
            if ((mask >> lane) & 1) packed |= ((lanes >> lane) & 1) << rank++;
        return packed;
    }
    unsigned int lane_of_rank(int rank) const
    {
        return rank == 0 ? (unsigned)__builtin_ffs((int)mask) - 1
                         : size() == 32 ? (unsigned)rank : sim::groups::find_set_bit(mask, 0, rank + 1);
    }
    /* Each lane reads lane `source`'s value (a source past lane 31 wraps, as in __shfl_sync). */
    template <typename T> T read_lane(const T &value, unsigned int source, const char *file, int line) const
    {
        return sim::groups::exchange<T>(COLLECTIVE_SHFL, mask, value, (int)source, 32, file, line);
    }
    /* shfl_up and shfl_down: a lane with no group lane that far away reads its own value. */
    static unsigned int or_own_lane(unsigned int source) { return source < 32 ? source : sim::groups::lane(); }

public:
    unsigned int num_threads() const { return sim::groups::count(mask); }
    unsigned int size() const { return num_threads(); }
    unsigned int thread_rank() const { return sim::groups::count(mask & sim::groups::lanes_below()); }
    unsigned int meta_group_rank() const { return meta_rank; }
    unsigned int meta_group_size() const { return meta_size; }
    void sync(SIM_CALL_SITE) const { sim::groups::sync_lanes(mask, file, line); }

    template <typename T> sim::groups::plain<T> shfl(T &&value, int source_rank, SIM_CALL_SITE) const
    {
        return read_lane<sim::groups::plain<T>>(value, lane_of_rank(source_rank), file, line);
    }
    template <typename T> sim::groups::plain<T> shfl_down(T &&value, unsigned int delta, SIM_CALL_SITE) const
    {
        using V = sim::groups::plain<T>;
        if (size() == 32)
            return sim::groups::exchange<V>(COLLECTIVE_SHFL_DOWN, mask, value, (int)delta, 32, file, line);
        unsigned int source = sim::groups::find_set_bit(mask, sim::groups::lane(), (int)delta + 1);
        return read_lane<V>(value, or_own_lane(source), file, line);
    }
    template <typename T> sim::groups::plain<T> shfl_up(T &&value, int delta, SIM_CALL_SITE) const
    {
        using V = sim::groups::plain<T>;
        if (size() == 32) return sim::groups::exchange<V>(COLLECTIVE_SHFL_UP, mask, value, delta, 32, file, line);
        unsigned int source = sim::groups::find_set_bit(mask, sim::groups::lane(), -(delta + 1));
        return read_lane<V>(value, or_own_lane(source), file, line);
    }
    int any(int predicate, SIM_CALL_SITE) const { return sim::groups::ballot(mask, predicate, file, line) != 0; }
    int all(int predicate, SIM_CALL_SITE) const { return sim::groups::ballot(mask, predicate, file, line) == mask; }
    /* Bit r of the result: whether the group's thread of rank r voted true. */
    unsigned int ballot(int predicate, SIM_CALL_SITE) const
    {
        if (size() == 32) return sim::groups::ballot(0xffffffffu, predicate, file, line);
        return by_rank(sim::groups::ballot(mask, predicate, file, line));
    }
    template <typename T> unsigned int match_any(T value, SIM_CALL_SITE) const
    {
        return by_rank(sim::groups::match_values(mask, sim::groups::match_bits(value), file, line).lanes);
    }
    template <typename T> unsigned int match_all(T value, int &all_equal, SIM_CALL_SITE) const
    {
        unsigned int lanes = sim::groups::match_all_values(mask, sim::groups::match_bits(value), file, line);
        all_equal = lanes != 0;
        return by_rank(lanes);
    }
};

/* The lanes of the running thread's warp that arrive at this call together (lib/sim/groups.c): on a
 * GPU, the lanes that are converged here, such as those that took the same branch. */
inline coalesced_group coalesced_threads(const char *file, int line)
{
    return coalesced_group(sim_coalesced_threads(file, line));
}

/* A tile whose parent's type is known when compiling: thread_block_tile<Size, thread_block> from
 * tiled_partition<Size>(block), thread_block_tile<Size, thread_block_tile<32, ...>> from a tile. */
template <unsigned int Size, typename ParentT = void>
class thread_block_tile : public sim::groups::tile_base<Size> {
    template <unsigned int S, typename P>
    friend thread_block_tile<S, P> tiled_partition(const P &parent, const char *file, int line);
    thread_block_tile() {}

public:
    static unsigned int meta_group_rank() { return ParentT::thread_rank() / Size; }
    static unsigned int meta_group_size() { return (ParentT::size() + Size - 1) / Size; }
    operator thread_block_tile<Size, void>() const
    {
        return thread_block_tile<Size, void>(meta_group_rank(), meta_group_size());
    }
};

/* What a tile is besides its operations: a tile of one warp's lanes is a thread_group too (a function
 * that takes a thread_group takes it); a tile of several warps is not, as in CUDA, whose compiler refuses
 * the conversion. Both know their place among their parent's tiles. */
template <unsigned int Size, bool = (Size <= 32)> class tile_as_group : public thread_group {
protected:
    tile_as_group(unsigned int rank, unsigned int count)
        : thread_group(sim::groups::tile_operations<Size>::sim_lanes(), rank, count, true) {}
};
template <unsigned int Size> class tile_as_group<Size, false> {
protected:
    unsigned int meta_rank, meta_size;
    tile_as_group(unsigned int rank, unsigned int count) : meta_rank(rank), meta_size(count) {}
};

/* A tile of Size lanes whatever its parent (thread_block_tile<32> tile = tiled_partition<32>(block)). */
template <unsigned int Size>
class thread_block_tile<Size, void> : public tile_as_group<Size>, public sim::groups::tile_base<Size> {
    template <unsigned int, typename> friend class thread_block_tile;
    friend thread_block_tile<1, void> this_thread();
    thread_block_tile(unsigned int rank, unsigned int count) : tile_as_group<Size>(rank, count) {}

public:
    template <typename ParentT>
    thread_block_tile(const thread_block_tile<Size, ParentT> &tile)
        : thread_block_tile(tile.meta_group_rank(), tile.meta_group_size()) {}
    using sim::groups::tile_base<Size>::sync;
    using sim::groups::tile_base<Size>::size;
    using sim::groups::tile_base<Size>::num_threads;
    using sim::groups::tile_base<Size>::thread_rank;
    unsigned int meta_group_rank() const { return this->meta_rank; }
    unsigned int meta_group_size() const { return this->meta_size; }
};

/* The block, or a tile, cut into tiles of Size consecutive threads; the calling thread gets its own. */
template <unsigned int Size, typename ParentT>
thread_block_tile<Size, ParentT> tiled_partition(const ParentT &parent, const char *file, int line)
{
    static_assert(sim::groups::can_partition<Size, ParentT>::value,
                  "tiled_partition<Size>(parent) takes a thread_block or a thread_block_tile (for other groups use "
                  "tiled_partition(parent, size))");
    static_assert(sim::groups::smaller_than_parent<Size, ParentT>::value,
                  "tiled_partition<Size>(tile): the new tiles must be smaller than the tile they are cut from");
    if constexpr (Size > 32 && std::is_same<ParentT, thread_block>::value)
        sim_tile_check_scratch(parent.sim_has_scratch(), Size, file, line);
    (void)parent, (void)file, (void)line;
    return thread_block_tile<Size, ParentT>();
}

/* The calling thread alone. */
inline thread_block_tile<1, void> this_thread() { return thread_block_tile<1, void>(0, 1); }

/* tiled_partition(parent, n): the size known only at run time, as CUDA computes it. */
inline thread_group tiled_partition(const thread_block &parent, unsigned int tile_size, const char *file, int line)
{
    sim::groups::check_tile_size(tile_size, file, line);
    unsigned int first = parent.thread_rank() & ~(tile_size - 1);
    unsigned int length = parent.size() - first < tile_size ? parent.size() - first : tile_size;
    unsigned int lanes = (~0u >> (32 - length)) << (sim::groups::lane() & ~(tile_size - 1));
    return thread_group(lanes, parent.thread_rank() / tile_size, (parent.size() + tile_size - 1) / tile_size, true);
}

inline coalesced_group coalesced_group::tile(unsigned int tile_size, const char *file, int line) const
{
    sim::groups::check_tile_size(tile_size, file, line);
    if (size() <= tile_size) return *this;
    if (tiled) {   /* consecutive lanes: cut like a block */
        unsigned int first = thread_rank() & ~(tile_size - 1);
        unsigned int length = size() - first < tile_size ? size() - first : tile_size;
        unsigned int lanes = (~0u >> (32 - length)) << (sim::groups::lane() & ~(tile_size - 1));
        return coalesced_group(lanes, thread_rank() / tile_size, size() / tile_size, true);
    }
    unsigned int lanes = 0, taken = 0;   /* ranks tile_size * k to tile_size * (k + 1) - 1, whatever their lanes */
    int skip = (int)(thread_rank() / tile_size * tile_size);
    for (int lane = 0; lane < 32; lane++)
        if ((mask >> lane) & 1) {
            if (skip <= 0 && taken < tile_size) lanes |= 1u << lane, taken++;
            skip--;
        }
    return coalesced_group(lanes, thread_rank() / tile_size, (size() + tile_size - 1) / tile_size, false);
}

inline coalesced_group tiled_partition(const coalesced_group &parent, unsigned int tile_size, const char *file,
                                       int line)
{
    return parent.tile(tile_size, file, line);
}

inline thread_group tiled_partition(const thread_group &parent, unsigned int tile_size, const char *file, int line)
{
    if (parent.get_type() == sim::groups::coalesced_group_id)
        return static_cast<const coalesced_group &>(parent).tile(tile_size, file, line);
    return tiled_partition(this_thread_block(), tile_size, file, line);
}

inline unsigned long long thread_group::size() const
{
    switch (type) {
    case sim::groups::coalesced_group_id: return sim::groups::count(mask);
    case sim::groups::thread_block_id: return thread_block::size();
    case sim::groups::grid_group_id: return grid_group::size();
    }
    return 0;
}

inline unsigned long long thread_group::thread_rank() const
{
    switch (type) {
    case sim::groups::coalesced_group_id: return sim::groups::count(mask & sim::groups::lanes_below());
    case sim::groups::thread_block_id: return thread_block::thread_rank();
    case sim::groups::grid_group_id: return grid_group::thread_rank();
    }
    return 0;
}

inline void thread_group::sync(const char *file, int line) const
{
    switch (type) {
    case sim::groups::coalesced_group_id: sim::groups::sync_lanes(mask, file, line); break;
    case sim::groups::thread_block_id: sim_syncthreads_at(file, line); break;
    case sim::groups::grid_group_id: sim::groups::grid_sync_fails(file, line);
    }
}

} /* namespace cooperative_groups */

namespace sim {
namespace groups {

/* For the functions that make coalesced groups out of others, and for cg::reduce: a group's lanes. */
struct access {
    static unsigned int lanes(const cooperative_groups::thread_group &group) { return group.mask; }
    static cooperative_groups::coalesced_group coalesced(unsigned int lanes, unsigned int rank, unsigned int count)
    {
        return cooperative_groups::coalesced_group(lanes, rank, count);
    }
};


/* Splitting lanes by a predicate, or by a label (an integer or a pointer): each thread gets the coalesced
 * group of those that have the same; its meta-group rank counts the groups in the order of their lowest
 * lanes (binary_partition: the false group is 0, the true one 1). */
static inline cooperative_groups::coalesced_group split(unsigned int lanes, bool predicate, const char *file, int line)
{
    unsigned int set = ballot(lanes, predicate, file, line);
    if (set == lanes || set == 0) return access::coalesced(lanes, 0, 1);
    return access::coalesced(lanes & (predicate ? set : ~set), predicate, 2);
}
template <typename LabelT>
static inline cooperative_groups::coalesced_group split(unsigned int lanes, LabelT label, const char *file, int line)
{
    static_assert(std::is_integral<LabelT>::value || std::is_pointer<LabelT>::value,
                  "labeled_partition's label must be an integer or a pointer");
    match m = match_values(lanes, to_bits(label), file, line);
    return access::coalesced(m.lanes, m.index, m.values);
}

} /* namespace groups */
} /* namespace sim */

namespace cooperative_groups {

inline coalesced_group binary_partition(const coalesced_group &group, bool predicate, SIM_CALL_SITE)
{
    return sim::groups::split(sim::groups::access::lanes(group), predicate, file, line);
}
template <unsigned int Size, typename ParentT>
coalesced_group binary_partition(const thread_block_tile<Size, ParentT> &tile, bool predicate, SIM_CALL_SITE)
{
    static_assert(Size <= 32, "binary_partition takes a tile of up to 32 threads (as in CUDA)");
    return sim::groups::split(tile.sim_lanes(), predicate, file, line);
}
template <typename LabelT> coalesced_group labeled_partition(const coalesced_group &group, LabelT label, SIM_CALL_SITE)
{
    return sim::groups::split(sim::groups::access::lanes(group), label, file, line);
}
template <typename LabelT, unsigned int Size, typename ParentT>
coalesced_group labeled_partition(const thread_block_tile<Size, ParentT> &tile, LabelT label, SIM_CALL_SITE)
{
    static_assert(Size <= 32, "labeled_partition takes a tile of up to 32 threads (as in CUDA)");
    return sim::groups::split(tile.sim_lanes(), label, file, line);
}

/* The free forms: cg::sync(g), cg::thread_rank(g), cg::group_size(g). */
template <class GroupT> inline void sync(const GroupT &group, SIM_CALL_SITE) { group.sync(file, line); }
template <class GroupT> inline auto thread_rank(const GroupT &group) -> decltype(group.thread_rank())
{
    return group.thread_rank();
}
template <class GroupT> inline auto group_size(const GroupT &group) -> decltype(group.num_threads())
{
    return group.num_threads();
}

} /* namespace cooperative_groups */

#endif
