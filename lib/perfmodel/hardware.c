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

int perfmodel_load_gpu(const char *name, Hardware *h, char *error, size_t error_size)
{
    table *t = lab_table_read(lab_data_path("gpus.csv"), error, error_size);
    if (!t) return -1;
    int row = -1;
    for (int r = 0; r < t->rows && row < 0; r++)
        if (strcasecmp(lab_table_text(t, r, "key"), name) == 0 || strcasecmp(lab_table_text(t, r, "name"), name) == 0) row = r;
    if (row < 0) {
        int used = snprintf(error, error_size, "unknown hardware '%s'; use cpu (this machine, measured) or a GPU of "
                            "data/gpus.csv:", name);
        for (int r = 0; r < t->rows && used > 0 && (size_t)used < error_size; r++)
            used += snprintf(error + used, error_size - (size_t)used, " %s", lab_table_text(t, r, "key"));
        lab_table_free(t);
        return -1;
    }
    memset(h, 0, sizeof *h);
    snprintf(h->name, sizeof h->name, "%s", lab_table_text(t, row, "name"));
    snprintf(h->key, sizeof h->key, "%s", lab_table_text(t, row, "key"));
    /* the table's units: GB (1e9 bytes), GB/s, TFLOP/s (dense) */
    h->memory_bytes = lab_table_number(t, row, "memory_gb") * 1e9;
    h->bandwidth = lab_table_number(t, row, "memory_bandwidth_gb_per_s") * 1e9;
    h->fp32_flops = lab_table_number(t, row, "fp32_tflops") * 1e12;
    h->fp16_tensor_flops = lab_table_number(t, row, "fp16_tensor_tflops") * 1e12;
    h->bf16_tensor_flops = lab_table_number(t, row, "bf16_tensor_tflops") * 1e12;
    h->fp8_tensor_flops = lab_table_number(t, row, "fp8_tensor_tflops") * 1e12;
    h->dequantizing_flops = NAN;
    lab_table_free(t);
    return 0;
}

void perfmodel_measure_cpu(Hardware *h, size_t working_set_bytes)
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
