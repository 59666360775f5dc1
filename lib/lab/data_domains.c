/* data_domains.c — what each number of the book's data tables may hold (data/models.csv,
 * data/gpus.csv), in one list that every reader through lib/lab applies: a driver's
 * lab_table_number_or_exit and lib/perfmodel's lab_table_checked_number. A bad cell (0 heads, a
 * negative or NaN bandwidth, half a head) is then refused with its row and column wherever it is
 * read, never turned into a division by zero, an inf or a count that lies. The simulator reads
 * gpus.csv itself, with the ranges its own columns need (lib/sim/device.c). */
#include "table.h"

#include <string.h>

typedef struct data_field { const char *file, *column; lab_domain domain; } data_field;

static const data_field data_fields[] = {
    /* a model's shape: whole numbers, at least one of each (experts and the flags may be empty) */
    {"models.csv", "layers", {1, 1000, 1, 0, "layers"}},
    {"models.csv", "hidden_size", {1, 1 << 20, 1, 0, "hidden units"}},
    {"models.csv", "attention_heads", {1, 4096, 1, 0, "attention heads"}},
    {"models.csv", "kv_heads", {1, 4096, 1, 0, "key/value heads"}},
    {"models.csv", "head_dim", {1, 4096, 1, 0, "elements in a head"}},
    {"models.csv", "intermediate_size", {1, 1 << 24, 1, 0, "MLP units"}},
    {"models.csv", "vocab_size", {1, 1 << 24, 1, 0, "tokens in the vocabulary"}},
    {"models.csv", "experts", {1, 1024, 1, 1, "experts"}},
    {"models.csv", "experts_per_token", {1, 1024, 1, 1, "experts a token"}},
    {"models.csv", "qkv_bias", {0, 1, 1, 1, "(0 or 1) Q/K/V biases"}},
    {"models.csv", "tied_embeddings", {0, 1, 1, 1, "(0 or 1) tied embeddings"}},
    {"models.csv", "parameters", {1, 1e14, 1, 1, "parameters"}},
    /* a GPU: capacities, bandwidths and rates are positive (a Tensor Core rate may be empty: the GPU
     * has none for that type) */
    {"gpus.csv", "memory_gib", {0.001, 1e6, 0, 0, "GiB of memory"}},
    {"gpus.csv", "memory_bandwidth_gb_per_s", {0.001, 1e7, 0, 0, "GB/s of memory bandwidth"}},
    {"gpus.csv", "fp32_tflops", {0.001, 1e5, 0, 0, "FP32 TFLOP/s"}},
    {"gpus.csv", "fp16_tensor_tflops", {0.001, 1e6, 0, 1, "FP16 Tensor Core TFLOP/s"}},
    {"gpus.csv", "bf16_tensor_tflops", {0.001, 1e6, 0, 1, "BF16 Tensor Core TFLOP/s"}},
    {"gpus.csv", "fp8_tensor_tflops", {0.001, 1e6, 0, 1, "FP8 Tensor Core TFLOP/s"}},
    {"gpus.csv", "tf32_tensor_tflops", {0.001, 1e6, 0, 1, "TF32 Tensor Core TFLOP/s"}},
    {"gpus.csv", "int8_tensor_tops", {0.001, 1e6, 0, 1, "INT8 Tensor Core TOP/s"}},
    {"gpus.csv", "boost_clock_mhz", {1, 1e5, 0, 0, "MHz of boost clock"}},
    {"gpus.csv", "l2_cache_mib", {0.001, 1e5, 0, 0, "MiB of L2 cache"}},
    /* a GPU's counts and the per-SM limits day 03's occupancy calculator divides by: whole, and at
     * least one (the reserved shared memory a block costs may be 0: it is before compute capability 8.0) */
    {"gpus.csv", "sms", {1, 1 << 16, 1, 0, "SMs"}},
    {"gpus.csv", "fp32_cores", {1, 1 << 24, 1, 0, "FP32 cores"}},
    {"gpus.csv", "max_warps_per_sm", {1, 1 << 16, 1, 0, "warps an SM holds"}},
    {"gpus.csv", "max_threads_per_sm", {1, 1 << 20, 1, 0, "threads an SM holds"}},
    {"gpus.csv", "max_blocks_per_sm", {1, 1 << 16, 1, 0, "blocks an SM holds"}},
    {"gpus.csv", "registers_per_sm", {1, 1 << 24, 1, 0, "registers of an SM"}},
    {"gpus.csv", "max_registers_per_thread", {1, 1 << 16, 1, 0, "registers a thread may have"}},
    {"gpus.csv", "register_allocation_unit", {1, 1 << 16, 1, 0, "registers in an allocation unit"}},
    {"gpus.csv", "sm_subpartitions", {1, 64, 1, 0, "sub-partitions of an SM"}},
    {"gpus.csv", "shared_memory_per_sm_kib", {1, 1 << 20, 1, 0, "KiB of shared memory per SM"}},
    {"gpus.csv", "shared_memory_per_block_kib", {1, 1 << 20, 1, 0, "KiB of shared memory per block"}},
    {"gpus.csv", "shared_memory_allocation_unit_bytes", {1, 1 << 20, 1, 0, "bytes in a shared-memory allocation unit"}},
    {"gpus.csv", "shared_memory_reserved_per_block_bytes", {0, 1 << 20, 1, 0, "bytes reserved per block"}},
};

const lab_domain *lab_data_domain(const char *path, const char *column)
{
    const char *slash = strrchr(path, '/');
    const char *file = slash ? slash + 1 : path;
    for (size_t i = 0; i < sizeof data_fields / sizeof *data_fields; i++)
        if (strcmp(data_fields[i].file, file) == 0 && strcmp(data_fields[i].column, column) == 0)
            return &data_fields[i].domain;
    return NULL;
}
