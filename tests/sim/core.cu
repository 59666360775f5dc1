/* core.cu — tests of the simulator's core: built-in variables over odd grids, barriers
 * ordering shared-memory traffic, shared memory per block, launch-configuration errors,
 * memory-copy errors, faults inside kernels, and the error state CUDA keeps.
 * Built by lib/sim/tools/simcc like any program, so it also tests the launch rewriting. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <sim_metrics.h>
#include <cstring>
#include <string>

/* Everything the test printed to stderr so far (for tests that expect a message). */
static std::string captured_stderr()
{
    fflush(stderr);
    std::string text;
    FILE *f = cr_get_redirected_stderr();
    char buffer[4096];
    for (size_t n; (n = fread(buffer, 1, sizeof buffer, f)) > 0;) text.append(buffer, n);
    return text;
}
#define EXPECT_MESSAGE(text, fragment) \
    cr_assert((text).find(fragment) != std::string::npos, "expected \"%s\" in the message:\n%s", fragment, (text).c_str())

/* ---------------------------------------------------------------------------------
 * Built-in variables */

__global__ void record_coordinates(int *out, int *visits)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    int width = gridDim.x * blockDim.x, height = gridDim.y * blockDim.y;
    int index = (z * height + y) * width + x;
    out[index] = x + 1000 * y + 1000000 * z;
    atomicAdd(&visits[index], 1);
}

Test(builtins, odd_three_dimensional_grid, .timeout = 10)
{
    dim3 grid(3, 5, 2), block(7, 3, 2);
    int width = 21, height = 15, depth = 4, total = width * height * depth;
    int *out, *visits;
    cudaMalloc(&out, total * sizeof(int));
    cudaMalloc(&visits, total * sizeof(int));
    cudaMemset(visits, 0, total * sizeof(int));
    record_coordinates<<<grid, block>>>(out, visits);
    cr_assert_eq(cudaGetLastError(), cudaSuccess);
    int *host = new int[total], *host_visits = new int[total];
    cudaMemcpy(host, out, total * sizeof(int), cudaMemcpyDeviceToHost);
    cudaMemcpy(host_visits, visits, total * sizeof(int), cudaMemcpyDeviceToHost);
    for (int z = 0; z < depth; z++)
        for (int y = 0; y < height; y++)
            for (int x = 0; x < width; x++) {
                int i = (z * height + y) * width + x;
                cr_assert_eq(host_visits[i], 1, "element (%d,%d,%d) visited %d times", x, y, z, host_visits[i]);
                cr_assert_eq(host[i], x + 1000 * y + 1000000 * z, "element (%d,%d,%d)", x, y, z);
            }
    delete[] host, delete[] host_visits;
}

__global__ void record_dimensions(unsigned *out)
{
    if (blockIdx.x == 1 && threadIdx.x == 2) {
        out[0] = blockDim.x, out[1] = blockDim.y, out[2] = blockDim.z;
        out[3] = gridDim.x, out[4] = gridDim.y, out[5] = gridDim.z, out[6] = warpSize;
    }
}

Test(builtins, dimensions_and_integer_configuration, .timeout = 10)
{
    unsigned *out, host[7];
    cudaMalloc(&out, sizeof host);
    record_dimensions<<<4, 64>>>(out);   /* plain integers become dim3(n, 1, 1) */
    cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost);
    unsigned want[7] = {64, 1, 1, 4, 1, 1, 32};
    for (int i = 0; i < 7; i++) cr_assert_eq(host[i], want[i], "field %d: %u, want %u", i, host[i], want[i]);
}

/* ---------------------------------------------------------------------------------
 * Launch arguments */

__global__ void store_arguments(int *out, int a, float b, char c) { out[0] = a, out[1] = (int)(b * 10), out[2] = c; }

Test(launch, arguments_converted_and_evaluated_once, .timeout = 10)
{
    int *out, host[3], evaluations = 0;
    cudaMalloc(&out, sizeof host);
    double a = 7.9;
    store_arguments<<<2,
                      32>>>(out, a, (evaluations++, 2.5), 'x');   /* a multi-line launch */
    cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost);
    cr_assert_eq(evaluations, 1, "the argument expressions ran %d times; CUDA evaluates them once", evaluations);
    cr_assert_eq(host[0], 7, "a double passed to an int parameter is converted: got %d", host[0]);
    cr_assert_eq(host[1], 25);
    cr_assert_eq(host[2], 'x');
}

template <typename T, int SCALE> __global__ void scale(T *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= SCALE;
}

Test(launch, template_kernel, .timeout = 10)
{
    double *x, host[5] = {1, 2, 3, 4, 5};
    cudaMalloc(&x, sizeof host);
    cudaMemcpy(x, host, sizeof host, cudaMemcpyHostToDevice);
    scale<double, 3><<<1, 8>>>(x, 5);
    cudaMemcpy(host, x, sizeof host, cudaMemcpyDeviceToHost);
    for (int i = 0; i < 5; i++) cr_assert_float_eq(host[i], 3.0 * (i + 1), 0);
    const char *not_a_launch = "a<<<b>>>(c)";   /* strings and comments are never rewritten: <<<x>>> */
    cr_assert_str_eq(not_a_launch, "a<<<b>>>(c)");
}

/* ---------------------------------------------------------------------------------
 * Barriers and shared memory */

__global__ void reverse_in_block(const int *in, int *out)
{
    __shared__ int tile[128];
    int t = threadIdx.x;
    tile[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();   /* without it, thread 0 would read tile[127] before thread 127 wrote it */
    out[blockIdx.x * blockDim.x + t] = tile[blockDim.x - 1 - t];
}

Test(barriers, order_shared_memory_traffic, .timeout = 10)
{
    int n = 128 * 3, *in, *out, host[384];
    for (int i = 0; i < n; i++) host[i] = i;
    cudaMalloc(&in, sizeof host), cudaMalloc(&out, sizeof host);
    cudaMemcpy(in, host, sizeof host, cudaMemcpyHostToDevice);
    reverse_in_block<<<3, 128>>>(in, out);
    cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost);
    for (int b = 0; b < 3; b++)
        for (int t = 0; t < 128; t++) cr_assert_eq(host[b * 128 + t], b * 128 + 127 - t, "block %d thread %d", b, t);
}

__global__ void tree_sum(const int *in, int *out)
{
    extern __shared__ int partial[];
    int t = threadIdx.x;
    partial[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (t < stride) partial[t] += partial[t + stride];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = partial[0];
}

Test(barriers, in_a_loop_with_dynamic_shared_memory, .timeout = 10)
{
    int blocks = 5, threads = 256, *in, *out, sums[5];
    int *host = new int[blocks * threads];
    for (int i = 0; i < blocks * threads; i++) host[i] = i % 97;
    cudaMalloc(&in, blocks * threads * sizeof(int)), cudaMalloc(&out, sizeof sums);
    cudaMemcpy(in, host, blocks * threads * sizeof(int), cudaMemcpyHostToDevice);
    tree_sum<<<blocks, threads, threads * sizeof(int)>>>(in, out);
    cr_assert_eq(cudaGetLastError(), cudaSuccess);
    cudaMemcpy(sums, out, sizeof sums, cudaMemcpyDeviceToHost);
    for (int b = 0; b < blocks; b++) {
        int want = 0;
        for (int t = 0; t < threads; t++) want += host[b * threads + t];
        cr_assert_eq(sums[b], want, "block %d: %d, want %d", b, sums[b], want);
    }
    delete[] host;
}

__global__ void read_before_write(int *out)
{
    __shared__ int value;
    if (threadIdx.x == 0) out[blockIdx.x] = value;   /* whatever the block finds there */
    __syncthreads();
    if (threadIdx.x == 0) value = 12345;
}

Test(shared_memory, is_per_block_and_starts_as_garbage, .timeout = 10)
{
    int *out, host[4];
    cudaMalloc(&out, sizeof host);
    read_before_write<<<4, 32>>>(out);
    cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost);
    for (int b = 0; b < 4; b++) cr_assert_eq(host[b], -1, "block %d saw %d: shared memory leaked from another block", b, host[b]);
}

extern __shared__ float file_scope_dynamic[];
__shared__ int file_scope_static[4];

__global__ void use_file_scope_shared(float *out)
{
    file_scope_dynamic[threadIdx.x] = threadIdx.x * 0.5f;
    if (threadIdx.x < 4) file_scope_static[threadIdx.x] = 10 * threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = file_scope_dynamic[blockDim.x - 1 - threadIdx.x] + file_scope_static[threadIdx.x % 4];
}

Test(shared_memory, declared_at_file_scope, .timeout = 10)
{
    float *out, host[64];
    cudaMalloc(&out, sizeof host);
    use_file_scope_shared<<<1, 64, 64 * sizeof(float)>>>(out);
    cr_assert_eq(cudaGetLastError(), cudaSuccess);
    cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost);
    for (int t = 0; t < 64; t++) cr_assert_float_eq(host[t], (63 - t) * 0.5f + 10 * (t % 4), 0, "thread %d", t);
}

__global__ void return_before_barrier(int n)
{
    if ((int)threadIdx.x >= n) return;
    __syncthreads();
}

Test(barriers, early_return_is_reported_not_hung, .timeout = 10, .init = cr_redirect_stderr)
{
    return_before_barrier<<<2, 64>>>(16);
    cr_assert_eq(cudaGetLastError(), cudaErrorLaunchFailure);
    std::string message = captured_stderr();
    EXPECT_MESSAGE(message, "kernel return_before_barrier");
    EXPECT_MESSAGE(message, "has already returned");
    EXPECT_MESSAGE(message, "core.cu:");
    /* A failed kernel leaves the context broken, as on a GPU: later calls fail too. */
    int *p;
    cr_assert_eq(cudaMalloc(&p, 4), cudaErrorLaunchFailure);
    cr_assert_eq(cudaDeviceReset(), cudaSuccess);
    cr_assert_eq(cudaMalloc(&p, 4), cudaSuccess);
}

__global__ void barrier_in_both_branches()
{
    if (threadIdx.x < 16) __syncthreads();
    else __syncthreads();
}

Test(barriers, different_barriers_are_reported, .timeout = 10, .init = cr_redirect_stderr)
{
    barrier_in_both_branches<<<1, 32>>>();
    cr_assert_eq(cudaGetLastError(), cudaErrorLaunchFailure);
    EXPECT_MESSAGE(captured_stderr(), "threads wait at different barriers");
}

/* ---------------------------------------------------------------------------------
 * Launch configuration errors: reported once, not sticky */

__global__ void empty_kernel() {}

Test(launch_errors, too_many_threads_per_block, .timeout = 10, .init = cr_redirect_stderr)
{
    empty_kernel<<<1, 1025>>>();
    cr_assert_eq(cudaGetLastError(), cudaErrorInvalidConfiguration);
    cr_assert_eq(cudaGetLastError(), cudaSuccess, "cudaGetLastError clears a launch error");
    empty_kernel<<<1, dim3(32, 32, 2)>>>();
    cr_assert_eq(cudaPeekAtLastError(), cudaErrorInvalidConfiguration);
    cr_assert_eq(cudaPeekAtLastError(), cudaErrorInvalidConfiguration, "peeking does not clear");
    cudaGetLastError();
    empty_kernel<<<1, dim3(1, 1, 65)>>>();
    cr_assert_eq(cudaGetLastError(), cudaErrorInvalidConfiguration);
    empty_kernel<<<1, 1024>>>();
    cr_assert_eq(cudaGetLastError(), cudaSuccess, "a configuration error is not sticky");
    EXPECT_MESSAGE(captured_stderr(), "the most a block may have is 1024");
}

Test(launch_errors, empty_or_oversized_grid, .timeout = 10, .init = cr_redirect_stderr)
{
    empty_kernel<<<0, 32>>>();
    cr_assert_eq(cudaGetLastError(), cudaErrorInvalidConfiguration);
    empty_kernel<<<dim3(1, 65536), 32>>>();
    cr_assert_eq(cudaGetLastError(), cudaErrorInvalidConfiguration);
    EXPECT_MESSAGE(captured_stderr(), "gridDim.x = 0");
}

__global__ void touch_dynamic_shared(int bytes)
{
    extern __shared__ unsigned char buffer[];
    if (threadIdx.x == 0) buffer[bytes - 1] = 1;
}

Test(launch_errors, dynamic_shared_memory_limits, .timeout = 10, .init = cr_redirect_stderr)
{
    touch_dynamic_shared<<<1, 32, 48 * 1024>>>(48 * 1024);
    cr_assert_eq(cudaGetLastError(), cudaSuccess, "48 KiB needs no opt-in");
    touch_dynamic_shared<<<1, 32, 64 * 1024>>>(64 * 1024);
    cr_assert_eq(cudaGetLastError(), cudaErrorInvalidValue, "more than 48 KiB needs cudaFuncSetAttribute");
    cr_assert_eq(cudaFuncSetAttribute(touch_dynamic_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, 100 * 1024), cudaSuccess);
    touch_dynamic_shared<<<1, 32, 100 * 1024>>>(100 * 1024);
    cr_assert_eq(cudaGetLastError(), cudaSuccess, "after opting in, 100 KiB works");
    cr_assert_eq(cudaFuncSetAttribute(touch_dynamic_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, 300 * 1024),
                 cudaErrorInvalidValue, "an H100 block cannot have 300 KiB");
    EXPECT_MESSAGE(captured_stderr(), "cudaFuncSetAttribute");
}

__global__ void too_much_static_shared(float *out)
{
    __shared__ float a[8192], b[8192];   /* 64 KiB of static shared memory: nvcc refuses this */
    a[threadIdx.x] = 1, b[threadIdx.x] = 2;
    out[0] = a[0] + b[0];
}

Test(launch_errors, static_shared_memory_over_48_kib, .timeout = 10, .init = cr_redirect_stderr)
{
    float *out;
    cudaMalloc(&out, 4);
    too_much_static_shared<<<1, 32>>>(out);
    cr_assert_eq(cudaGetLastError(), cudaErrorLaunchOutOfResources);
    EXPECT_MESSAGE(captured_stderr(), "static __shared__ variables need 65536 bytes");
}

/* ---------------------------------------------------------------------------------
 * Device memory */

Test(memory, copies_in_every_direction, .timeout = 10)
{
    int host[8] = {1, 2, 3, 4, 5, 6, 7, 8}, back[8] = {0}, copy[8];
    int *a, *b;
    cudaMalloc(&a, sizeof host), cudaMalloc(&b, sizeof host);
    cr_assert_eq(cudaMemcpy(a, host, sizeof host, cudaMemcpyHostToDevice), cudaSuccess);
    cr_assert_eq(cudaMemcpy(b, a, sizeof host, cudaMemcpyDeviceToDevice), cudaSuccess);
    cr_assert_eq(cudaMemcpy(back, b, sizeof host, cudaMemcpyDeviceToHost), cudaSuccess);
    cr_assert_eq(cudaMemcpy(copy, back, sizeof host, cudaMemcpyHostToHost), cudaSuccess);
    cr_assert_eq(cudaMemset(a, 0, 4 * sizeof(int)), cudaSuccess);
    cr_assert_eq(cudaMemcpy(back, a, sizeof host, cudaMemcpyDefault), cudaSuccess, "Default infers the direction");
    for (int i = 0; i < 8; i++) {
        cr_assert_eq(copy[i], i + 1);
        cr_assert_eq(back[i], i < 4 ? 0 : i + 1);
    }
    cr_assert_eq(cudaFree(a), cudaSuccess);
    cr_assert_eq(cudaFree(NULL), cudaSuccess, "freeing NULL is allowed");
}

/* SIM_DEVICE_RESERVE_GIB bounds the address space reserved for device memory (lib/sim/memory.c): seen by
 * cudaHostRegister, which refuses an address inside the reservation as device memory. Filling 16 GiB to
 * reach the bound would cost this machine the memory, so the edge is probed instead. */
static cudaError_t register_at(char *address)
{
    cudaError_t status = cudaHostRegister(address, 4096, cudaHostRegisterDefault);
    if (status == cudaSuccess) cudaHostUnregister(address);
    return status;
}

Test(memory, the_reservation_follows_sim_device_reserve_gib, .timeout = 10, .init = cr_redirect_stderr)
{
    setenv("SIM_DEVICE_RESERVE_GIB", "16", 1);   /* before the first allocation of this test's process */
    char *device;
    cr_assert_eq(cudaMalloc(&device, 4096), cudaSuccess);
    cr_assert_eq(register_at(device + (15ull << 30)), cudaErrorInvalidValue, "15 GiB on: inside a 16 GiB reservation");
    cr_assert_eq(register_at(device + (17ull << 30)), cudaSuccess, "17 GiB on: past a 16 GiB reservation");
}

Test(memory, a_larger_reservation_holds_more, .timeout = 10, .init = cr_redirect_stderr)
{
    setenv("SIM_DEVICE_RESERVE_GIB", "32", 1);
    char *device;
    cr_assert_eq(cudaMalloc(&device, 4096), cudaSuccess);
    cr_assert_eq(register_at(device + (17ull << 30)), cudaErrorInvalidValue, "17 GiB on: inside a 32 GiB reservation");
    cr_assert_eq(register_at(device + (33ull << 30)), cudaSuccess, "33 GiB on: past a 32 GiB reservation");
}

Test(memory, a_bad_sim_device_reserve_gib_is_refused, .timeout = 10, .init = cr_redirect_stderr, .exit_code = 2)
{
    setenv("SIM_DEVICE_RESERVE_GIB", "100", 1);   /* not a power of two */
    char *device;
    cudaMalloc(&device, 4096);
}

Test(memory, copy_errors, .timeout = 10, .init = cr_redirect_stderr)
{
    int host[8], *device;
    cudaMalloc(&device, sizeof host);
    cr_assert_eq(cudaMemcpy(host, device, sizeof host, cudaMemcpyHostToDevice), cudaErrorInvalidValue,
                 "swapped destination and source");
    cr_assert_eq(cudaMemcpy(device, host, 2 * sizeof host, cudaMemcpyHostToDevice), cudaErrorInvalidValue,
                 "a copy past the end of the allocation");
    cr_assert_eq(cudaMemcpy(device + 4, host, 5 * sizeof(int), cudaMemcpyHostToDevice), cudaErrorInvalidValue,
                 "past the end from an offset");
    cr_assert_eq(cudaMemset(device, 0, 9 * sizeof(int)), cudaErrorInvalidValue);
    cr_assert_eq(cudaMemcpy(device, host, sizeof host, (cudaMemcpyKind)7), cudaErrorInvalidMemcpyDirection);
    cr_assert_eq(cudaFree(device + 1), cudaErrorInvalidValue, "not the start of an allocation");
    cr_assert_eq(cudaFree(device), cudaSuccess);
    cr_assert_eq(cudaFree(device), cudaErrorInvalidValue, "freed twice");
    cr_assert_eq(cudaMemcpy(host, device, sizeof host, cudaMemcpyDeviceToHost), cudaErrorInvalidValue,
                 "reading freed memory");
    cr_assert_eq(cudaGetLastError(), cudaErrorInvalidValue);
    std::string message = captured_stderr();
    EXPECT_MESSAGE(message, "did you swap the destination and the source");
    EXPECT_MESSAGE(message, "run 32 bytes past its end");
}

/* ---------------------------------------------------------------------------------
 * Faults inside a kernel become CUDA errors that name the thread */

__global__ void write_through(int *pointer)
{
    if (blockIdx.x == 2 && threadIdx.x == 5) *pointer = 1;
}

Test(faults, bad_pointer_is_an_illegal_address, .timeout = 10, .init = cr_redirect_stderr)
{
    write_through<<<4, 32>>>((int *)16);
    cr_assert_eq(cudaGetLastError(), cudaErrorIllegalAddress);
    cr_assert_eq(cudaDeviceSynchronize(), cudaErrorIllegalAddress, "sticky, as on a GPU");
    std::string message = captured_stderr();
    EXPECT_MESSAGE(message, "kernel write_through");
    EXPECT_MESSAGE(message, "block (2,0,0), thread (5,0,0)");
    EXPECT_MESSAGE(message, "core.cu:");
    EXPECT_MESSAGE(message, "a null pointer");
    cudaDeviceReset();
    write_through<<<1, 1>>>((int *)16);   /* block 0 never writes */
    cr_assert_eq(cudaGetLastError(), cudaSuccess, "the simulator works again after cudaDeviceReset");
}

__global__ void deep_recursion(int depth, int *out)
{
    volatile char frame[4096];
    for (int i = 0; i < 4096; i++) frame[i] = (char)(depth + i);   /* every byte used: the frame stays */
    if (depth > 0) deep_recursion(depth - 1, out);
    out[0] = frame[depth];
}

Test(faults, stack_overflow_is_reported, .timeout = 10, .init = cr_redirect_stderr)
{
    int *out;
    cudaMalloc(&out, 4);
    deep_recursion<<<1, 2>>>(100, out);
    cr_assert_eq(cudaGetLastError(), cudaErrorLaunchOutOfResources);
    EXPECT_MESSAGE(captured_stderr(), "stack overflow");
}

/* A thread's steps (basic blocks) are counted from its start or its last barrier: SIM_MAX_STEPS
 * stops one that never ends, and a long kernel that passes barriers is not stopped. Each test runs
 * in a process of its own, which reads SIM_MAX_STEPS at its first launch. */
__global__ void spin(int rounds, int iterations, int *out)
{
    int sum = 0;
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < iterations; i++) sum += i ^ threadIdx.x;
        __syncthreads();
    }
    out[threadIdx.x] = sum;
}

Test(faults, a_thread_that_never_ends_is_stopped_after_sim_max_steps, .timeout = 10, .init = cr_redirect_stderr)
{
    setenv("SIM_MAX_STEPS", "20000", 1);
    int *out;
    cudaMalloc(&out, 64 * sizeof(int));
    spin<<<1, 64>>>(1, 30000, out);
    cr_assert_eq(cudaGetLastError(), cudaErrorLaunchTimeout);
    std::string said = captured_stderr();
    EXPECT_MESSAGE(said, "thread (0,0,0):");
    EXPECT_MESSAGE(said, "this thread has run 20000 steps");
    EXPECT_MESSAGE(said, "SIM_MAX_STEPS=N");
}

Test(faults, steps_are_counted_from_the_last_barrier, .timeout = 10)
{
    setenv("SIM_MAX_STEPS", "20000", 1);
    int *out;
    cudaMalloc(&out, 64 * sizeof(int));
    spin<<<1, 64>>>(8, 5000, out);   /* 40000 steps and more in all, fewer than 20000 between barriers */
    cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
}

Test(faults, a_bad_sim_max_steps_is_refused, .timeout = 10, .init = cr_redirect_stderr, .exit_code = 2)
{
    setenv("SIM_MAX_STEPS", "lots", 1);
    int *out;
    cudaMalloc(&out, 64 * sizeof(int));
    spin<<<1, 64>>>(1, 1, out);
}

/* ---------------------------------------------------------------------------------
 * Streams, events, error names */

Test(host_api, streams_and_events, .timeout = 10, .init = cr_redirect_stderr)
{
    cudaStream_t stream;
    cudaEvent_t start, stop;
    cr_assert_eq(cudaStreamCreate(&stream), cudaSuccess);
    cudaEventCreate(&start), cudaEventCreate(&stop);
    float ms;
    cr_assert_eq(cudaEventElapsedTime(&ms, start, stop), cudaErrorInvalidResourceHandle, "not recorded yet");
    cudaEventRecord(start, stream);
    empty_kernel<<<8, 64, 0, stream>>>();
    cudaEventRecord(stop, stream);
    cr_assert_eq(cudaStreamSynchronize(stream), cudaSuccess);
    cr_assert_eq(cudaEventElapsedTime(&ms, start, stop), cudaSuccess);
    cr_assert(ms >= 0, "elapsed %f ms", ms);
    cr_assert_eq(cudaStreamDestroy(stream), cudaSuccess);
    empty_kernel<<<1, 1, 0, stream>>>();
    cr_assert_eq(cudaGetLastError(), cudaErrorInvalidResourceHandle, "a destroyed stream");
}

Test(host_api, events_count_the_launches_and_copies_between_them, .timeout = 10, .init = cr_redirect_stderr)
{
    int *x, host[64] = {0};
    cudaMalloc(&x, sizeof host);
    cudaEvent_t a, b, c;
    cudaEventCreate(&a), cudaEventCreate(&b), cudaEventCreate(&c);
    unsigned long long calls = sim_last_event_span().elapsed_times;
    cudaEventRecord(a);
    cudaMemcpy(x, host, sizeof host, cudaMemcpyHostToDevice);
    empty_kernel<<<1, 32>>>();
    cudaEventRecord(b);
    empty_kernel<<<1, 32>>>();
    empty_kernel<<<1, 32>>>();
    cudaMemcpy2D(host, 16, x, 16, 16, 4, cudaMemcpyDeviceToHost);   /* one copy a row */
    cudaEventRecord(c);
    float ms;
    cudaEventElapsedTime(&ms, b, c);
    sim_event_span span = sim_last_event_span();
    cr_assert(span.elapsed_times == calls + 1 && span.launches == 2 && span.copies == 4,
              "b to c: %llu launches and %llu copies, want 2 and 4", span.launches, span.copies);
    cudaEventElapsedTime(&ms, a, b);
    span = sim_last_event_span();
    cr_assert(span.elapsed_times == calls + 2 && span.launches == 1 && span.copies == 1,
              "a to b: %llu launches and %llu copies, want 1 and 1", span.launches, span.copies);
    cudaEventElapsedTime(&ms, b, b);
    span = sim_last_event_span();
    cr_assert(span.launches == 0 && span.copies == 0, "an event to itself encloses nothing");
    cudaEventDestroy(a), cudaEventDestroy(b), cudaEventDestroy(c);
    cudaFree(x);
}

Test(host_api, error_names_and_strings_match_cuda, .timeout = 10)
{
    cr_assert_str_eq(cudaGetErrorString(cudaSuccess), "no error");
    cr_assert_str_eq(cudaGetErrorString(cudaErrorInvalidValue), "invalid argument");
    cr_assert_str_eq(cudaGetErrorString(cudaErrorInvalidConfiguration), "invalid configuration argument");
    cr_assert_str_eq(cudaGetErrorString(cudaErrorIllegalAddress), "an illegal memory access was encountered");
    cr_assert_str_eq(cudaGetErrorName(cudaErrorMemoryAllocation), "cudaErrorMemoryAllocation");
    cr_assert_eq((int)cudaErrorIllegalAddress, 700);
    cudaDeviceProp prop;
    cr_assert_eq(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
    cr_assert_eq(prop.multiProcessorCount, 132);
    cr_assert_eq(prop.maxThreadsPerBlock, 1024);
    cr_assert_eq(prop.sharedMemPerBlock, 48 * 1024);
    cr_assert_eq(prop.reservedSharedMemPerBlock, 1024, "compute capability 8.0 and later reserve 1 KiB a block");
}

/* ---------------------------------------------------------------------------------
 * The simulated GPU follows SIM_GPU; __constant__ memory */

Test(device, limits_follow_sim_gpu, .timeout = 10, .init = cr_redirect_stderr)
{
    setenv("SIM_GPU", "t4", 1);   /* before the first CUDA call of this test's process */
    cudaDeviceProp prop;
    cr_assert_eq(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
    cr_assert(strstr(prop.name, "T4") != NULL, "name: %s", prop.name);
    cr_assert_eq(prop.major, 7);
    cr_assert_eq(prop.minor, 5);
    cr_assert_eq(prop.multiProcessorCount, 40);
    cr_assert_eq(prop.maxThreadsPerMultiProcessor, 1024);
    cr_assert_eq(prop.sharedMemPerBlockOptin, 64 * 1024);
    cr_assert_eq(prop.reservedSharedMemPerBlock, 0, "Turing reserves none");
    cr_assert_eq(cudaFuncSetAttribute(touch_dynamic_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, 100 * 1024),
                 cudaErrorInvalidValue, "a T4 block cannot opt in to 100 KiB");
}

/* cudaDeviceGetAttribute answers what cudaGetDeviceProperties does, one value at a time, with CUDA's
 * enumerator values (programs written like NVIDIA's samples ask this way). */
Test(device, attributes_agree_with_properties, .timeout = 10)
{
    setenv("SIM_GPU", "a100-80gb", 1);
    cudaDeviceProp prop;
    cr_assert_eq(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
    struct { enum cudaDeviceAttr attribute; int want; } cases[] = {
        {cudaDevAttrMultiProcessorCount, prop.multiProcessorCount}, {cudaDevAttrComputeCapabilityMajor, prop.major},
        {cudaDevAttrComputeCapabilityMinor, prop.minor}, {cudaDevAttrMaxThreadsPerBlock, prop.maxThreadsPerBlock},
        {cudaDevAttrMaxBlockDimZ, prop.maxThreadsDim[2]}, {cudaDevAttrMaxGridDimY, prop.maxGridSize[1]},
        {cudaDevAttrWarpSize, 32}, {cudaDevAttrMaxSharedMemoryPerBlockOptin, (int)prop.sharedMemPerBlockOptin},
        {cudaDevAttrMaxRegistersPerMultiprocessor, prop.regsPerMultiprocessor}, {cudaDevAttrL2CacheSize, prop.l2CacheSize},
        {cudaDevAttrReservedSharedMemoryPerBlock, (int)prop.reservedSharedMemPerBlock},
        {cudaDevAttrComputeMode, cudaComputeModeDefault}, {cudaDevAttrClockRate, 1410000},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int value = -1;
        cr_assert_eq(cudaDeviceGetAttribute(&value, cases[i].attribute, 0), cudaSuccess);
        cr_assert_eq(value, cases[i].want, "attribute %d: %d, want %d", (int)cases[i].attribute, value, cases[i].want);
    }
    cr_assert_eq((int)cudaDevAttrComputeCapabilityMajor, 75, "CUDA's own enumerator values");
    int value;
    cr_assert_eq(cudaDeviceGetAttribute(&value, cudaDevAttrMultiProcessorCount, 1), cudaErrorInvalidDevice);
    cr_assert_eq(cudaDeviceGetAttribute(&value, (enum cudaDeviceAttr)12345, 0), cudaErrorInvalidValue);
#if !defined(__CUDA_RUNTIME_H__) || !defined(__DRIVER_TYPES_H__) || CUDART_VERSION < 13000
    cr_assert_fail("the macros CUDA's headers define are missing");
#endif
}

__constant__ float coefficients[4];
__device__ int launches_seen;

__global__ void polynomial(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0) launches_seen++;
    if (i < n) y[i] = coefficients[0] + x[i] * (coefficients[1] + x[i] * (coefficients[2] + x[i] * coefficients[3]));
}

Test(device, constant_memory_and_device_variables, .timeout = 10, .init = cr_redirect_stderr)
{
    float c[4] = {1, 2, 3, 4}, hx[8], hy[8], *x, *y;
    for (int i = 0; i < 8; i++) hx[i] = i * 0.5f;
    cr_assert_eq(cudaMemcpyToSymbol(coefficients, c, sizeof c), cudaSuccess);
    cudaMalloc(&x, sizeof hx), cudaMalloc(&y, sizeof hy);
    cudaMemcpy(x, hx, sizeof hx, cudaMemcpyHostToDevice);
    polynomial<<<1, 32>>>(x, y, 8);
    polynomial<<<1, 32>>>(x, y, 8);
    cr_assert_eq(cudaGetLastError(), cudaSuccess);
    cudaMemcpy(hy, y, sizeof hy, cudaMemcpyDeviceToHost);
    for (int i = 0; i < 8; i++) {
        float v = hx[i];
        cr_assert_float_eq(hy[i], 1 + v * (2 + v * (3 + v * 4)), 1e-5, "y[%d]", i);
    }
    int seen = 0;
    cr_assert_eq(cudaMemcpyFromSymbol(&seen, launches_seen, sizeof seen), cudaSuccess);
    cr_assert_eq(seen, 2);
    cr_assert_eq(cudaMemcpyToSymbol(coefficients, c, 2 * sizeof c), cudaErrorInvalidValue, "larger than the symbol");
}
