/* hardware.c — the machine side of the performance model: a GPU from data/gpus.csv, or
 * this CPU measured on the spot by cpu_probes.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "perfmodel.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cpu_probes.h"
#include "table.h"

/* The columns of data/gpus.csv the model reads, with the unit each is in; what each may hold is lib/lab's
 * (lab_data_domain): a capacity, a bandwidth and a rate are positive (a Tensor Core rate may be empty:
 * the GPU has none for that type). */
typedef struct gpu_field { const char *column; double unit; } gpu_field;
static const gpu_field gpu_fields[] = {
    {"memory_gib", 1073741824.0},        {"memory_bandwidth_gb_per_s", 1e9}, {"fp32_tflops", 1e12},
    {"fp16_tensor_tflops", 1e12},        {"bf16_tensor_tflops", 1e12},       {"fp8_tensor_tflops", 1e12},
};

int perfmodel_load_gpu(const char *name, perfmodel_hardware *h, char *error, size_t error_size)
{
    lab_table *t = lab_table_read(lab_data_path("gpus.csv"), error, error_size);
    if (!t) return -1;
    int key = lab_table_column(t, "key"), full_name = lab_table_column(t, "name");
    if (key < 0 || full_name < 0) {
        snprintf(error, error_size, "%s has no column %s", t->path, key < 0 ? "key" : "name");
        lab_table_free(t);
        return -1;
    }
#define CELL(r, c) t->cells[(size_t)(r) * (size_t)t->columns + (size_t)(c)]
    int row = -1;
    for (int r = 0; r < t->rows && row < 0; r++)
        if (strcasecmp(CELL(r, key), name) == 0 || strcasecmp(CELL(r, full_name), name) == 0) row = r;
    if (row < 0) {
        int used = snprintf(error, error_size, "unknown hardware '%s'; use cpu (this machine, measured) or a GPU of "
                            "data/gpus.csv:", name);
        for (int r = 0; r < t->rows && used > 0 && (size_t)used < error_size; r++)
            used += snprintf(error + used, error_size - (size_t)used, " %s", CELL(r, key));
        lab_table_free(t);
        return -1;
    }
    enum { FIELDS = sizeof gpu_fields / sizeof *gpu_fields };
    double v[FIELDS];
    for (int f = 0; f < FIELDS; f++) {
        const char *column = gpu_fields[f].column;
        if (lab_table_checked_number(t, row, column, lab_data_domain(t->path, column), &v[f], error, error_size) != 0) {
            lab_table_free(t);
            return -1;
        }
        v[f] *= gpu_fields[f].unit;   /* the table's units: GiB (2^30 bytes), GB/s, TFLOP/s (dense); NaN stays NaN */
    }
    memset(h, 0, sizeof *h);
    snprintf(h->name, sizeof h->name, "%s", CELL(row, full_name));
    snprintf(h->key, sizeof h->key, "%s", CELL(row, key));
#undef CELL
    h->memory_bytes = v[0], h->bandwidth = v[1], h->fp32_flops = v[2];
    h->fp16_tensor_flops = v[3], h->bf16_tensor_flops = v[4], h->fp8_tensor_flops = v[5];
    h->dequantizing_flops = NAN;
    lab_table_free(t);
    return 0;
}

void perfmodel_measure_cpu(perfmodel_hardware *h, size_t working_set_bytes)
{
    memset(h, 0, sizeof *h);
    snprintf(h->name, sizeof h->name, "this CPU (one core, measured)");
    snprintf(h->key, sizeof h->key, "cpu");
    h->is_cpu = 1;
    const size_t smallest = 8u << 20, largest = 1u << 30;
    size_t bytes = working_set_bytes < smallest ? smallest : working_set_bytes > largest ? largest : working_set_bytes;
    h->bandwidth_working_set = (double)bytes;
    h->bandwidth = perfmodel_stream_bandwidth(STREAM_READ, bytes, 5);
    h->fp32_flops = perfmodel_peak_fp32_flops();
    h->dequantizing_flops = perfmodel_dequantizing_fma_flops(0.05, 3);
    /* the engine computes in FP32 whatever its weights are stored in */
    h->fp16_tensor_flops = h->bf16_tensor_flops = h->fp8_tensor_flops = NAN;
    long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGE_SIZE);
    h->memory_bytes = (double)pages * (double)page_size;
}
