/* runtime.c — the rest of the host API: the device, synchronisation, kernel attributes and the
 * refusal of cooperative launches.
 * Every launch and copy finishes before the call that made it returns, so synchronising
 * only reports the error a failed kernel left behind. */
#include "internal.h"
#include "runtime.h"
#include "device.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sim_clear_errors(void);

/* ---------------------------------------------------------------------------------
 * The device */

cudaError_t cudaGetDeviceCount(int *count)
{
    if (!count) return sim_record_error(cudaErrorInvalidValue);
    *count = 1;
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int device)
{
    if (device != 0) {
        fprintf(stderr, "sim: cudaSetDevice(%d): the simulator has one device, number 0\n", device);
        return sim_record_error(cudaErrorInvalidDevice);
    }
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int *device)
{
    if (!device) return sim_record_error(cudaErrorInvalidValue);
    *device = 0;
    return cudaSuccess;
}

static unsigned int device_flags;   /* as cudaSetDeviceFlags last set them */

/* One way of waiting at most (auto, spin, yield or blocking sync), and no bit CUDA does not define. */
cudaError_t cudaSetDeviceFlags(unsigned int flags)
{
    unsigned int schedule = flags & cudaDeviceScheduleMask;
    if ((flags & ~(unsigned int)cudaDeviceMask) || (schedule & (schedule - 1))) {
        fprintf(stderr, "sim: cudaSetDeviceFlags(0x%x): not a valid set of flags (at most one of "
                "cudaDeviceScheduleSpin, Yield and BlockingSync, and only the cudaDevice... flags)\n", flags);
        return sim_record_error(cudaErrorInvalidValue);
    }
    device_flags = flags;
    return cudaSuccess;
}

/* Mapped pinned memory is always on, as with unified addressing on a real GPU. */
cudaError_t cudaGetDeviceFlags(unsigned int *flags)
{
    if (!flags) return sim_record_error(cudaErrorInvalidValue);
    *flags = device_flags | cudaDeviceMapHost;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attribute, int device)
{
    if (!value) return sim_record_error(cudaErrorInvalidValue);
    if (device != 0) return sim_record_error(cudaErrorInvalidDevice);
    const sim_device_limits *d = sim_device();
    switch (attribute) {
    case cudaDevAttrMaxThreadsPerBlock: *value = d->max_threads_per_block; break;
    case cudaDevAttrMaxBlockDimX: case cudaDevAttrMaxBlockDimY: case cudaDevAttrMaxBlockDimZ:
        *value = d->max_block_dim[attribute - cudaDevAttrMaxBlockDimX]; break;
    case cudaDevAttrMaxGridDimX: case cudaDevAttrMaxGridDimY: case cudaDevAttrMaxGridDimZ:
        *value = d->max_grid_dim[attribute - cudaDevAttrMaxGridDimX]; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *value = (int)d->shared_per_block; break;
    case cudaDevAttrTotalConstantMemory: *value = 64 * 1024; break;
    case cudaDevAttrWarpSize: *value = 32; break;
    case cudaDevAttrMaxRegistersPerBlock: *value = d->registers_per_block; break;
    case cudaDevAttrClockRate: *value = d->clock_khz; break;
    case cudaDevAttrMultiProcessorCount: *value = d->multiprocessor_count; break;
    case cudaDevAttrIntegrated: *value = 0; break;
    case cudaDevAttrCanMapHostMemory: *value = 1; break;     /* memory.c: mapped pinned memory */
    case cudaDevAttrComputeMode: *value = cudaComputeModeDefault; break;
    case cudaDevAttrConcurrentKernels: *value = 0; break;     /* launches run one after another here */
    case cudaDevAttrMemoryClockRate: *value = d->memory_clock_khz; break;
    case cudaDevAttrGlobalMemoryBusWidth: *value = d->memory_bus_width_bits; break;
    case cudaDevAttrL2CacheSize: *value = (int)d->l2_cache_bytes; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *value = d->max_threads_per_multiprocessor; break;
    case cudaDevAttrTextureAlignment: *value = 512; break;   /* what cudaMallocPitch aligns rows to */
    case cudaDevAttrTexturePitchAlignment: *value = 32; break;
    case cudaDevAttrUnifiedAddressing: *value = 1; break;    /* one address space: cudaMemcpyDefault works */
    case cudaDevAttrCanUseHostPointerForRegisteredMem: *value = 1; break;   /* memory.c: pinned memory */
    case cudaDevAttrHostRegisterSupported: *value = 1; break;
    case cudaDevAttrComputeCapabilityMajor: *value = d->major; break;
    case cudaDevAttrComputeCapabilityMinor: *value = d->minor; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *value = (int)d->shared_per_multiprocessor; break;
    case cudaDevAttrMaxRegistersPerMultiprocessor: *value = d->registers_per_multiprocessor; break;
    case cudaDevAttrManagedMemory: *value = 0; break;         /* unified memory is not simulated */
    case cudaDevAttrCooperativeLaunch: *value = 0; break;     /* nor cooperative launches */
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = (int)d->shared_per_block_optin; break;
    case cudaDevAttrMaxBlocksPerMultiprocessor: *value = d->max_blocks_per_multiprocessor; break;
    case cudaDevAttrReservedSharedMemoryPerBlock: *value = (int)d->shared_reserved_per_block; break;
    default: return sim_record_error(cudaErrorInvalidValue);
    }
    return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp *prop, int device)
{
    if (!prop) return sim_record_error(cudaErrorInvalidValue);
    if (device != 0) return sim_record_error(cudaErrorInvalidDevice);
    const sim_device_limits *d = sim_device();
    memset(prop, 0, sizeof *prop);
    snprintf(prop->name, sizeof prop->name, "%s", d->name);
    prop->totalGlobalMem = d->total_global_memory;
    prop->sharedMemPerBlock = d->shared_per_block;
    prop->sharedMemPerBlockOptin = d->shared_per_block_optin;
    prop->sharedMemPerMultiprocessor = d->shared_per_multiprocessor;
    prop->reservedSharedMemPerBlock = d->shared_reserved_per_block;
    prop->regsPerBlock = d->registers_per_block;
    prop->regsPerMultiprocessor = d->registers_per_multiprocessor;
    prop->warpSize = 32;
    prop->maxThreadsPerBlock = d->max_threads_per_block;
    for (int i = 0; i < 3; i++) {
        prop->maxThreadsDim[i] = d->max_block_dim[i];
        prop->maxGridSize[i] = d->max_grid_dim[i];
    }
    prop->totalConstMem = 64 * 1024;
    prop->major = d->major;
    prop->minor = d->minor;
    prop->multiProcessorCount = d->multiprocessor_count;
    prop->l2CacheSize = (int)d->l2_cache_bytes;
    prop->maxThreadsPerMultiProcessor = d->max_threads_per_multiprocessor;
    prop->maxBlocksPerMultiProcessor = d->max_blocks_per_multiprocessor;
    prop->memoryBusWidth = d->memory_bus_width_bits;
    prop->cooperativeLaunch = 0;
    prop->canUseHostPointerForRegisteredMem = 1;
    prop->canMapHostMemory = 1;
    prop->unifiedAddressing = 1;
    prop->integrated = 0;
    prop->concurrentKernels = 0;
    prop->managedMemory = 0;
    return cudaSuccess;
}

/* What a GPU without cooperative launch answers (cudaDevAttrCooperativeLaunch = 0): blocks run here
 * independently (not all at once), so a grid-wide barrier could never be released. */
cudaError_t sim_launch_cooperative(const void *kernel)
{
    const char *where = kernel ? sim_source_line((const char *)kernel + 1) : "";   /* the kernel's first line */
    fprintf(stderr, "sim: cudaLaunchCooperativeKernel(the kernel at %s): the simulated GPU has no cooperative launch "
            "(cudaDevAttrCooperativeLaunch is 0): its blocks run independently, not all at once, so grid.sync() could never "
            "return.\n     Check the attribute and take the path without a grid-wide barrier (two launches "
            "where the grid must synchronise).\n", *where ? where : "an unknown place");
    return sim_record_error(cudaErrorNotSupported);
}

/* The program's kernels, listed by lib/sim/tools/cu2sim: the linker gathers the entries of every
 * file of a module into one section and names its ends (weak: a module may define no kernel). These
 * are the main program's; a shared library of a lab's code adds its own (lib/sim/code_module.c). */
extern const sim_listed_kernel __start_sim_kernels[] __attribute__((weak));
extern const sim_listed_kernel __stop_sim_kernels[] __attribute__((weak));

typedef struct kernel_list { const sim_listed_kernel *start, *stop; } kernel_list;
static kernel_list added_lists[8];
static int added_list_count;

/* Called by a module's constructor, before main and before any thread, so without a lock. */
void sim_add_kernel_list(const sim_listed_kernel *start, const sim_listed_kernel *stop)
{
    if (added_list_count == (int)(sizeof added_lists / sizeof *added_lists))
        sim_fatal("more than %d shared libraries list kernels", added_list_count);
    added_lists[added_list_count++] = (kernel_list){start, stop};
}

static const sim_listed_kernel *find_in(const sim_listed_kernel *start, const sim_listed_kernel *stop, const void *kernel)
{
    for (const sim_listed_kernel *k = start; k && k < stop; k++)
        if (k->address() == kernel) return k;
    return NULL;
}

const sim_listed_kernel *sim_find_listed_kernel(const void *kernel)
{
    const sim_listed_kernel *found = find_in(__start_sim_kernels, __stop_sim_kernels, kernel);
    for (int i = 0; !found && i < added_list_count; i++) found = find_in(added_lists[i].start, added_lists[i].stop, kernel);
    return found;
}

cudaError_t sim_unlisted_kernel(const void *kernel, const char *file, int line)
{
    const char *where = kernel ? sim_source_line((const char *)kernel + 1) : "";
    fprintf(stderr, "sim: cudaLaunchKernel at %s:%d: the kernel passed as a void * (%s%s) is not one the simulator\n"
            "     lists: it lists each kernel a .cu file defines, except templates and kernels overloaded in their\n"
            "     file. Pass the kernel itself, without the cast (cudaLaunchKernel(kernel<float>, ...)), or launch it\n"
            "     with <<< >>>.\n", file, line, kernel ? "defined at " : "a null pointer", *where ? where : kernel ? "an unknown place" : "");
    return sim_record_error(cudaErrorInvalidDeviceFunction);
}

cudaError_t cudaDeviceSynchronize(void) { return sim_device_synchronize(); }

cudaError_t cudaDeviceReset(void)
{
    sim_free_all_allocations();
    sim_clear_errors();
    return cudaSuccess;
}

/* ---------------------------------------------------------------------------------
 * Kernel attributes */

typedef struct kernel_attribute { const void *kernel; size_t max_dynamic_shared; } kernel_attribute;
static kernel_attribute attributes[256];
static int attribute_count;

size_t sim_max_dynamic_shared(const void *kernel)
{
    for (int i = 0; i < attribute_count; i++)
        if (attributes[i].kernel == kernel) return attributes[i].max_dynamic_shared;
    return sim_device()->shared_per_block;
}

cudaError_t sim_set_max_dynamic_shared(const void *kernel, int bytes)
{
    const sim_device_limits *d = sim_device();
    if (bytes < 0 || (size_t)bytes > d->shared_per_block_optin) {
        fprintf(stderr, "sim: cudaFuncSetAttribute(MaxDynamicSharedMemorySize, %d): this GPU allows at "
                "most %zu bytes per block\n", bytes, d->shared_per_block_optin);
        return sim_record_error(cudaErrorInvalidValue);
    }
    for (int i = 0; i < attribute_count; i++)
        if (attributes[i].kernel == kernel) {
            attributes[i].max_dynamic_shared = (size_t)bytes;
            return cudaSuccess;
        }
    if (attribute_count == (int)(sizeof attributes / sizeof attributes[0]))
        return sim_record_error(cudaErrorNotSupported);
    attributes[attribute_count++] = (kernel_attribute){kernel, (size_t)bytes};
    return cudaSuccess;
}
