/* trace.c — Day 26 driver: the request trace (its generator, which made data/requests-sharegpt-like.csv,
 * and its reader) and the serving set-up the simulator prices steps with. Do not edit.
 *
 * The generator: arrivals are a Poisson process (exponential gaps at the mean rate); prompt and
 * output lengths are exponential with the means Kwon et al. (SOSP 2023, section 6) report for
 * ShareGPT, 161 and 338 tokens, rounded up and clamped, as day 21's trace draws them. One splitmix64
 * stream from the seed draws, per request, the gap, the prompt and the output in that order.
 *   build/26-batching/labs-sim/lab --write-trace data/requests-sharegpt-like.csv   rewrites the file. */
#include "lab.h"
#include "perfmodel.h"
#include "table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const double PROMPT_MEAN = 161, OUTPUT_MEAN = 338;   /* ShareGPT (Kwon et al. 2023) */

static unsigned long long splitmix64(unsigned long long *state)
{
    unsigned long long z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Exponential with mean `mean`: -mean ln(1 - u), u uniform in [0, 1) from the top 53 bits. */
static double exponential(unsigned long long *state, double mean)
{
    double u = (double)(splitmix64(state) >> 11) * 0x1.0p-53;
    return -mean * log1p(-u);
}

static int length(unsigned long long *state, double mean, int longest)
{
    double tokens = ceil(exponential(state, mean));
    return tokens < 1 ? 1 : tokens > longest ? longest : (int)tokens;
}

void generate_trace(unsigned long long seed, int count, double rate_per_s, request *out)
{
    unsigned long long state = seed;
    double now = 0;
    for (int i = 0; i < count; i++) {
        now += exponential(&state, 1.0 / rate_per_s);
        int prompt = length(&state, PROMPT_MEAN, LONGEST_PROMPT);
        int output = length(&state, OUTPUT_MEAN, LONGEST_OUTPUT);
        out[i] = (request){now, prompt, output};
    }
}

int load_trace(const char *file_name, request **out, char *error, unsigned long error_size)
{
    lab_table *t = lab_table_read(lab_data_path(file_name), error, error_size);
    if (!t) return -1;
    request *requests = malloc((size_t)(t->rows ? t->rows : 1) * sizeof *requests);
    for (int i = 0; i < t->rows; i++) {
        requests[i] = (request){lab_table_number_or_exit(t, i, "arrival_s"), (int)lab_table_number_or_exit(t, i, "prompt_tokens"),
                                (int)lab_table_number_or_exit(t, i, "output_tokens")};
        if (requests[i].prompt_tokens < 1 || requests[i].output_tokens < 1 ||
            (i > 0 && requests[i].arrival_s < requests[i - 1].arrival_s)) {
            snprintf(error, error_size, "%s, request %d: lengths must be >= 1 and arrivals in order", file_name, i);
            free(requests), lab_table_free(t);
            return -1;
        }
    }
    int count = t->rows;
    lab_table_free(t);
    *out = requests;
    return count;
}

void scale_arrivals(const request *in, int count, double speedup, request *out)
{
    for (int i = 0; i < count; i++) out[i] = (request){in[i].arrival_s / speedup, in[i].prompt_tokens, in[i].output_tokens};
}

int serving_setup(cost_model *model, serving_limits *limits, char *error, unsigned long error_size)
{
    perfmodel_shape shape;
    perfmodel_hardware gpu;
    if (perfmodel_load_model_shape("Llama-2-7B", &shape, error, error_size) != 0) return -1;
    if (perfmodel_load_gpu("h100-sxm", &gpu, error, error_size) != 0) return -1;
    perfmodel_workload workload = {DTYPE_FP16, DTYPE_FP16, 1, 1, 1};
    perfmodel_prediction estimate;
    perfmodel_estimate(&shape, &gpu, &workload, &estimate);
    /* every matrix of every layer, and the classifier, for each token: 2 FLOPs a weight */
    double matrix_weights = (double)shape.layers * (double)perfmodel_active_layer_matrix_parameters(&shape) +
                            (double)shape.hidden * shape.vocab;
    *model = (cost_model){estimate.weights_bytes, estimate.kv_bytes_per_token, 2.0 * matrix_weights,
                          estimate.peak_flops, estimate.bandwidth};
    /* the book's one budget (lib/perfmodel): the capacity x PERFMODEL_MEMORY_UTILIZATION, less the
     * weights; the engine's activation buffers are left to the reserve */
    double usable = PERFMODEL_MEMORY_UTILIZATION * gpu.memory_bytes;
    *limits = (serving_limits){(long)floor((usable - estimate.weights_bytes) / estimate.kv_bytes_per_token),
                               SERVING_MAX_BATCH};
    return 0;
}
