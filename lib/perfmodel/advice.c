/* advice.c — the troubleshooting checklist of day 30, applied to an estimate: what bounds
 * this workload and which change moves that bound, each with the number that justifies it
 * (computed by running the model again with the change). */
#include "perfmodel.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

typedef struct {
    char (*lines)[256];
    int count, max;
} Advice;

static void say(Advice *a, const char *format, ...)
{
    if (a->count >= a->max) return;
    va_list args;
    va_start(args, format);
    vsnprintf(a->lines[a->count++], 256, format, args);
    va_end(args);
}

/* the same estimate with one thing changed */
static perfmodel_prediction again(const perfmodel_shape *m, const perfmodel_hardware *h, perfmodel_workload w)
{
    perfmodel_prediction e;
    perfmodel_estimate(m, h, &w, &e);
    return e;
}

int perfmodel_suggest_next_steps(const perfmodel_shape *m, const perfmodel_hardware *h, const perfmodel_workload *w, const perfmodel_prediction *e, char lines[][256], int max)
{
    Advice a = {lines, 0, max};
    double gb = 1e-9;

    /* 1. does it fit? */
    if (e->weights_bytes > e->usable_bytes) {
        perfmodel_workload int8 = *w, int4 = *w;
        int8.weights = DTYPE_INT8, int4.weights = DTYPE_INT4;
        double devices = ceil(e->weights_bytes / e->usable_bytes);
        say(&a, "the weights alone (%.1f GB) exceed the usable memory (%.1f of %.1f GB): quantize them (int8: %.1f GB, "
            "int4: %.1f GB) or split them over %.0f devices (tensor parallelism)",
            e->weights_bytes * gb, e->usable_bytes * gb, e->capacity_bytes * gb, again(m, h, int8).weights_bytes * gb,
            again(m, h, int4).weights_bytes * gb, devices);
    } else if (!e->fits) {
        perfmodel_workload fp8_kv = *w;
        fp8_kv.kv = DTYPE_FP8;
        say(&a, "the KV cache of batch %d x %d tokens (%.1f GB) does not fit beside the weights: at most %lld sequences fit; "
            "an fp8 KV cache would need %.1f GB; paging (day 21) stops reserving the full context per sequence",
            w->batch, w->prompt + w->gen, e->kv_bytes_total * gb, (long long)e->max_batch,
            again(m, h, fp8_kv).kv_bytes_total * gb);
    }

    /* 2. decode */
    if (e->decode_bound[0] == 'm') {
        double intensity = e->decode_step_flops / e->decode_step_bytes;
        if (e->max_batch > w->batch) {
            perfmodel_workload bigger = *w;
            bigger.batch = e->max_batch < 2 * (int64_t)w->batch ? (int)e->max_batch : 2 * w->batch;
            perfmodel_prediction b = again(m, h, bigger);
            say(&a, "decode is memory-bound (%.1f FLOP/byte, ridge %.0f): a step costs about the same for more sequences, "
                "so batch more (batch %d: %.0f tokens/s instead of %.0f; up to %lld fit)", intensity,
                e->ridge_flop_per_byte, bigger.batch, bigger.batch / b.tpot_s, w->batch / e->tpot_s, (long long)e->max_batch);
        }
        if (w->weights != DTYPE_INT8 && w->weights != DTYPE_INT4) {
            perfmodel_workload int8 = *w;
            int8.weights = DTYPE_INT8;
            perfmodel_prediction q = again(m, h, int8);
            say(&a, "weight-only int8 would cut the bytes of a decode step from %.2f to %.2f GB: TPOT %.3g -> %.3g ms",
                e->decode_step_bytes * gb, q.decode_step_bytes * gb, e->tpot_s * 1e3, q.tpot_s * 1e3);
        }
        double kv_read = w->batch * (e->decode_context + 1.0) * e->kv_bytes_per_token;
        if (kv_read > 0.3 * e->decode_step_bytes)
            say(&a, "the KV cache is %.0f%% of a decode step's bytes: a smaller KV type (fp8), fewer KV heads (GQA) or "
                "shorter contexts cut it", 100.0 * kv_read / e->decode_step_bytes);
    } else {
        say(&a, "decode is compute-bound at batch %d (%.1f FLOP/byte above the ridge %.0f): more sequences no longer come "
            "free; a faster compute type or more devices raise throughput", w->batch,
            e->decode_step_flops / e->decode_step_bytes, e->ridge_flop_per_byte);
    }

    /* 3. prefill */
    if (e->prefill_bound[0] == 'c')
        say(&a, "prefill is compute-bound (%.0f FLOP/byte): TTFT %.3g ms falls only with more FLOP/s (a lower-precision "
            "tensor type, more devices) or fewer prompt tokens to compute (prefix caching)",
            e->prefill_flops / e->prefill_bytes, e->ttft_s * 1e3);
    else
        say(&a, "prefill of %d tokens is memory-bound (%.1f FLOP/byte): prefill prompts together, or with decode steps "
            "(chunked prefill), so the weights are read once for more tokens", w->prompt, e->prefill_flops / e->prefill_bytes);

    /* 4. the machine */
    if (!h->is_cpu && w->weights == DTYPE_FP32)
        say(&a, "FP32 weights on a GPU use neither the tensor cores (%.0f TFLOP/s in fp16) nor half the bytes: serve in bf16/fp16",
            h->fp16_tensor_flops * 1e-12);
    if (h->is_cpu)
        say(&a, "this is one core: the engine's --threads N adds cores; bandwidth grows less than FLOP/s, so decode gains less than prefill");
    return a.count;
}
