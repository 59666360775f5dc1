/* advice.c — the troubleshooting checklist of day 30, applied to an estimate against a
 * service-level target: which rows the prediction shows (a latency row only when its target is
 * missed), what bounds the workload and which change moves that bound, each with the number that
 * justifies it (computed by running the model again with the change). */
#include "perfmodel.h"

#include <limits.h>
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

/* The largest batch, from w->batch up to e->max_batch, whose TPOT meets `target` (TPOT grows
 * with the batch, so the first batch that misses ends the search); w->batch when none larger does. */
static int largest_batch_meeting(const perfmodel_shape *m, const perfmodel_hardware *h, const perfmodel_workload *w,
                                 const perfmodel_prediction *e, double target)
{
    int64_t meets = w->batch, misses = (e->max_batch < INT_MAX / 2 ? e->max_batch : INT_MAX / 2) + 1;
    while (misses - meets > 1) {
        perfmodel_workload middle = *w;
        middle.batch = (int)(meets + (misses - meets) / 2);
        if (again(m, h, middle).tpot_s <= target)
            meets = middle.batch;
        else
            misses = middle.batch;
    }
    return (int)meets;
}

int perfmodel_suggest_next_steps(const perfmodel_shape *m, const perfmodel_hardware *h, const perfmodel_workload *w,
                                 const perfmodel_prediction *e, const perfmodel_targets *targets, char lines[][256],
                                 int max)
{
    Advice a = {lines, 0, max};
    double gb = 1e-9, ms = 1e3;

    /* 1. does it fit? */
    if (e->weights_bytes > e->usable_bytes) {
        perfmodel_workload int8 = *w, int4 = *w;
        int8.weights = DTYPE_INT8, int4.weights = DTYPE_INT4;
        double devices = ceil(e->weights_bytes / e->usable_bytes);
        say(&a,
            "[out of memory] the weights alone (%.1f GB) exceed the usable memory (%.1f of %.1f GB): quantize them "
            "(int8: %.1f GB, int4: %.1f GB) or split them over %.0f devices (tensor parallelism)",
            e->weights_bytes * gb, e->usable_bytes * gb, e->capacity_bytes * gb, again(m, h, int8).weights_bytes * gb,
            again(m, h, int4).weights_bytes * gb, devices);
    } else if (!e->fits) {
        perfmodel_workload fp8_kv = *w;
        fp8_kv.kv = DTYPE_FP8;
        say(&a,
            "[out of memory] the KV cache of batch %d x %d tokens (%.1f GB) does not fit beside the weights: at most "
            "%lld sequences fit; an fp8 KV cache would need %.1f GB; paging (day 21) stops reserving the full context",
            w->batch, w->prompt + w->gen, e->kv_bytes_total * gb, (long long)e->max_batch,
            again(m, h, fp8_kv).kv_bytes_total * gb);
    }

    /* 2. decode: a latency row only when TPOT misses its target */
    double intensity = e->decode_step_flops / e->decode_step_bytes;
    int tpot_missed = e->tpot_s > targets->tpot_s;
    if (e->decode_bound[0] == 'm') {
        if (tpot_missed && e->max_batch > w->batch) {
            perfmodel_workload bigger = *w;
            bigger.batch = e->max_batch < 2 * (int64_t)w->batch ? (int)e->max_batch : 2 * w->batch;
            perfmodel_prediction b = again(m, h, bigger);
            say(&a,
                "[high TPOT at a small batch] TPOT %.3g ms misses the %.3g ms target; decode is memory-bound (%.1f "
                "FLOP/byte, ridge %.0f), every weight read for %d token%s: batch more to share the reads (batch %d: "
                "%.0f tokens/s, not %.0f), read fewer bytes to cut TPOT",
                e->tpot_s * ms, targets->tpot_s * ms, intensity, e->ridge_flop_per_byte, w->batch,
                w->batch == 1 ? "" : "s", bigger.batch, bigger.batch / b.tpot_s, w->batch / e->tpot_s);
        } else if (!tpot_missed && e->max_batch > w->batch) {
            int most = largest_batch_meeting(m, h, w, e, targets->tpot_s);
            perfmodel_workload bigger = *w;
            bigger.batch = most;
            say(&a,
                "decode is memory-bound (%.1f FLOP/byte, ridge %.0f) and TPOT %.3g ms meets the %.3g ms target: up to "
                "batch %d keeps it (%.0f tokens/s instead of %.0f; %lld fit)",
                intensity, e->ridge_flop_per_byte, e->tpot_s * ms, targets->tpot_s * ms, most,
                most / again(m, h, bigger).tpot_s, w->batch / e->tpot_s, (long long)e->max_batch);
        }
        if (tpot_missed && w->weights != DTYPE_INT8 && w->weights != DTYPE_INT4) {
            perfmodel_workload int8 = *w;
            int8.weights = DTYPE_INT8;
            perfmodel_prediction q = again(m, h, int8);
            say(&a, "weight-only int8 would cut the bytes of a decode step from %.2f to %.2f GB: TPOT %.3g -> %.3g ms",
                e->decode_step_bytes * gb, q.decode_step_bytes * gb, e->tpot_s * ms, q.tpot_s * ms);
        }
        double kv_read = w->batch * (e->decode_context + 1.0) * e->kv_bytes_per_token;
        if (tpot_missed && kv_read > 0.3 * e->decode_step_bytes)
            say(&a,
                "[slower as the context grows] the KV cache is %.0f%% of a decode step's bytes: a smaller KV type "
                "(fp8), fewer KV heads (GQA) or shorter contexts cut it",
                100.0 * kv_read / e->decode_step_bytes);
    } else {
        say(&a,
            "[throughput flat in the batch] decode is compute-bound at batch %d (%.1f FLOP/byte above the ridge %.0f): "
            "more sequences no longer come free (TPOT %.3g ms, target %.3g); a faster compute type or more devices "
            "raise throughput",
            w->batch, intensity, e->ridge_flop_per_byte, e->tpot_s * ms, targets->tpot_s * ms);
    }

    /* 3. prefill: the TTFT row only when TTFT misses its target */
    if (e->ttft_s > targets->ttft_s) {
        if (e->prefill_bound[0] == 'c')
            say(&a,
                "[high TTFT on long prompts] TTFT %.3g ms misses the %.3g ms target; prefill is compute-bound (%.0f "
                "FLOP/byte): it falls only with more FLOP/s (a lower-precision tensor type, more devices) or fewer "
                "prompt tokens to compute (prefix caching)",
                e->ttft_s * ms, targets->ttft_s * ms, e->prefill_flops / e->prefill_bytes);
        else
            say(&a,
                "TTFT %.3g ms misses the %.3g ms target; prefill of %d tokens is memory-bound (%.1f FLOP/byte): fewer "
                "bytes (quantized weights) or more bandwidth cut it",
                e->ttft_s * ms, targets->ttft_s * ms, w->prompt, e->prefill_flops / e->prefill_bytes);
    }

    /* 4. the machine */
    if (!h->is_cpu && w->weights == DTYPE_FP32)
        say(&a, "FP32 weights on a GPU use neither the tensor cores (%.0f TFLOP/s in fp16) nor half the bytes: serve in bf16/fp16",
            h->fp16_tensor_flops * 1e-12);
    if (h->is_cpu)
        say(&a, "this is one core: the engine's --threads N adds cores; bandwidth grows less than FLOP/s, so decode gains less than prefill");
    return a.count;
}
