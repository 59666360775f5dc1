/* llama.c — the toy Llama's command line: runs a model (a llama2.c checkpoint, or a
 * named shape with seeded weights) on a batch of seeded prompts and reports what serving
 * is judged by — time to first token, time per output token, tokens per second — as
 * `name: value unit` lines. Built by `make build/tools/llama`; run through tools/llama.
 *
 *   tools/llama --shape 15M --seed 1 --prompt-tokens 32 --gen 64
 *   tools/llama --shape 110M --weights int8 --batch 8
 *   tools/llama --shape 110M --weights int4 --group-size 64      (day 25's INT4: a scale and a zero point a group)
 *   tools/llama --shape 15M --write-checkpoint /tmp/15M.bin && tools/llama --checkpoint /tmp/15M.bin
 *   tools/llama --shape 15M --weights int8 --write-checkpoint /tmp/15M-q8.bin      (version 2, runq.c's format)
 *   tools/llama --checkpoint /tmp/15M-q8.bin --activations int8 --print-tokens     (runq.c's arithmetic)
 *
 * There is no tokenizer: prompts are token ids drawn from the seeded generator, and
 * --print-tokens shows the ids generated. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "llama.h"

/* ----------------------------------------------------------------------------------
 * Options */

typedef struct {
    const char *checkpoint, *shape, *write_path, *weights, *activations;
    uint64_t seed, sample_seed;
    int prompt_tokens, gen, batch, threads, group_size, version, print_tokens, sample_seed_given, repeat;
    float temperature;
} Options;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: tools/llama (--checkpoint FILE | --shape NAME [--seed N]) [options]\n"
            "\n"
            "Runs the book's toy Llama on `batch` seeded prompts and prints TTFT, TPOT and tokens/s.\n"
            "\n"
            "  --checkpoint FILE      a llama2.c checkpoint, memory-mapped: version 0 or 1 (FP32) or 2 (INT8,\n"
            "                         runq.c's format); version 0's weights are copied onto cache lines,\n"
            "                         version 2's in the order a decode step reads them\n"
            "  --shape NAME           seeded weights of a named shape: %s\n"
            "  --seed N               the weights' seed (default 1)\n"
            "  --prompt-tokens N      prompt length per sequence (default 32)\n"
            "  --gen N                tokens to generate per sequence (default 64)\n"
            "  --batch N              sequences decoded together (default 1)\n"
            "  --weights fp32|int8|int4  weight format (default: the model's, fp32 for --shape); int8: weight-only,\n"
            "                         group-wise scales; int4: weight-only, a scale and a zero point per group,\n"
            "                         two values a byte (day 25's format)\n"
            "  --group-size N         INT8 or INT4 values per scale; must divide dim and hidden_dim, and be even\n"
            "                         for INT4 (default 64, halved until it divides them, as llama2.c's export.py does)\n"
            "  --activations fp32|int8  int8: quantize each matrix multiplication's input as runq.c does and\n"
            "                         multiply INT8 by INT8 (needs INT8 weights; default fp32)\n"
            "  --threads N            threads (default 1: measurements are single-threaded)\n"
            "  --temperature T        0 = greedy (default); else sample softmax(logits / T)\n"
            "  --sample-seed N        the prompts' and the sampler's seed (default: --seed)\n"
            "  --print-tokens         print each sequence's generated token ids\n"
            "  --repeat N             run N times on fresh sequences; times are the medians (default 1)\n"
            "  --write-checkpoint F   write the model to F and stop (FP32 as version 1, INT8 as version 2; INT4\n"
            "                         has no llama2.c format)\n"
            "  --write-version 0|1|2  the checkpoint version written: 0 or 1 for FP32, 2 for INT8 weights\n"
            "  --help                 this text\n",
            llama_named_shape_list());
}

static void die(const char *format, const char *detail)
{
    fprintf(stderr, "llama: ");
    fprintf(stderr, format, detail);
    fprintf(stderr, "\n");
    exit(2);
}

static long parse_whole(const char *option, const char *text, long smallest, long largest)
{
    char *end;
    errno = 0;
    long value = text ? strtol(text, &end, 10) : 0;
    if (!text || !*text || *end || errno || value < smallest || value > largest) {
        fprintf(stderr, "llama: %s takes a whole number from %ld to %ld, not '%s'\n", option, smallest, largest,
                text ? text : "(nothing)");
        exit(2);
    }
    return value;
}

/* the options that take a value; an option not here and not a flag is unknown */
static const char *const valued_options[] = {
    "--checkpoint", "--shape", "--seed", "--sample-seed", "--prompt-tokens", "--gen", "--batch", "--threads",
    "--group-size", "--write-version", "--repeat", "--weights", "--activations", "--write-checkpoint", "--temperature",
};

static int takes_value(const char *option)
{
    for (size_t i = 0; i < sizeof valued_options / sizeof valued_options[0]; i++)
        if (!strcmp(option, valued_options[i])) return 1;
    return 0;
}

static Options parse_options(int argc, char **argv)
{
    Options o = {.seed = 1, .prompt_tokens = 32, .gen = 64, .batch = 1, .threads = 1, .version = -1, .repeat = 1,
                 .activations = "fp32"};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) usage(stdout), exit(0);
        else if (!strcmp(a, "--print-tokens")) o.print_tokens = 1;
        else if (!takes_value(a)) die("unknown option '%s' (see --help)", a);
        else if (!value) die("%s needs a value (see --help)", a);
        else if (!strcmp(a, "--checkpoint")) o.checkpoint = value, i++;
        else if (!strcmp(a, "--shape")) o.shape = value, i++;
        else if (!strcmp(a, "--seed")) o.seed = (uint64_t)parse_whole(a, value, 0, LONG_MAX), i++;
        else if (!strcmp(a, "--sample-seed")) o.sample_seed = (uint64_t)parse_whole(a, value, 0, LONG_MAX), o.sample_seed_given = 1, i++;
        else if (!strcmp(a, "--prompt-tokens")) o.prompt_tokens = (int)parse_whole(a, value, 1, INT_MAX / 2), i++;
        else if (!strcmp(a, "--gen")) o.gen = (int)parse_whole(a, value, 1, INT_MAX / 2), i++;
        else if (!strcmp(a, "--batch")) o.batch = (int)parse_whole(a, value, 1, 1 << 20), i++;
        else if (!strcmp(a, "--threads")) o.threads = (int)parse_whole(a, value, 1, 1024), i++;
        else if (!strcmp(a, "--group-size")) o.group_size = (int)parse_whole(a, value, 1, 1 << 20), i++;
        else if (!strcmp(a, "--write-version")) o.version = (int)parse_whole(a, value, 0, 2), i++;
        else if (!strcmp(a, "--repeat")) o.repeat = (int)parse_whole(a, value, 1, 1000), i++;
        else if (!strcmp(a, "--weights")) o.weights = value, i++;
        else if (!strcmp(a, "--activations")) o.activations = value, i++;
        else if (!strcmp(a, "--write-checkpoint")) o.write_path = value, i++;
        else {   /* --temperature */
            char *end;
            o.temperature = strtof(value, &end);
            if (!*value || *end || !(o.temperature >= 0.0f) || isinf(o.temperature))
                die("--temperature takes a number >= 0, not '%s'", value);
            i++;
        }
    }
    if (!o.checkpoint == !o.shape) die("%s", "give one model: --checkpoint FILE or --shape NAME (see --help)");
    if (o.weights && strcmp(o.weights, "fp32") && strcmp(o.weights, "int8") && strcmp(o.weights, "int4"))
        die("--weights is fp32, int8 or int4, not '%s'", o.weights);
    if (strcmp(o.activations, "fp32") && strcmp(o.activations, "int8"))
        die("--activations is fp32 or int8, not '%s'", o.activations);
    if (!o.sample_seed_given) o.sample_seed = o.seed;
    return o;
}

/* The weight format asked for, applied to the model as loaded: FP32 is quantized when INT8
 * or INT4 is asked for; an INT8 (version-2) checkpoint stays as it is, and cannot become
 * FP32 or INT4. */
static void apply_weight_format(llama_transformer *t, const Options *o)
{
    char error[1024];
    if (t->format == WEIGHTS_INT8) {
        if (o->weights && strcmp(o->weights, "int8"))
            die("%s holds INT8 weights (a version-2 checkpoint); they cannot be run in another format: dequantizing does "
                "not give back the original weights (leave out --weights, or give an FP32 checkpoint)", o->checkpoint);
        if (o->group_size && o->group_size != t->group_size) {
            snprintf(error, sizeof error, "%s was quantized with group size %d; --group-size %d cannot regroup INT8 "
                     "weights (leave out --group-size)", o->checkpoint, t->group_size, o->group_size);
            die("%s", error);
        }
        return;
    }
    if (!o->weights || !strcmp(o->weights, "fp32")) {
        if (o->group_size) die("%s", "--group-size applies to INT8 and INT4 weights: add --weights int8 or --weights int4");
        return;
    }
    int group_size = o->group_size ? o->group_size : llama_int8_group_size(&t->config, 64);
    int failed = !strcmp(o->weights, "int4") ? llama_quantize_transformer_int4(t, group_size, error, sizeof error)
                                             : llama_quantize_transformer(t, group_size, error, sizeof error);
    if (failed) die("--group-size: %s", error);
}

/* ----------------------------------------------------------------------------------
 * Timing and progress */

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* A progress line on stderr, once a run has taken 2 s, at most twice a second. */
static void show_progress(double start, long long done, long long total, const char *what)
{
    static double last;
    double now = now_s();
    if (now - start < 2.0 || now - last < 0.5 || done == total) return;
    last = now;
    int terminal = isatty(STDERR_FILENO);
    fprintf(stderr, "%sprogress: %lld/%lld %s, %.1f s%s", terminal ? "\r" : "", done, total, what, now - start,
            terminal ? "   " : "\n");
}

static void end_progress(double start)
{
    if (now_s() - start >= 2.0 && isatty(STDERR_FILENO)) fprintf(stderr, "\n");
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* the median: one run disturbed by the rest of the machine does not move it */
static double median(double *values, int n)
{
    qsort(values, (size_t)n, sizeof *values, by_value);
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

static void check_finite(const float *logits, int rows, int vocab, const char *when)
{
    for (size_t i = 0; i < (size_t)rows * (size_t)vocab; i++)
        if (!isfinite(logits[i])) {
            fprintf(stderr, "llama: the model produced a non-finite logit (%g) %s: are the checkpoint's weights corrupt?\n",
                    logits[i], when);
            exit(1);
        }
}

/* ----------------------------------------------------------------------------------
 * main */

/* Prompt rows per prefill call: enough for 8 full steps, few enough to show progress. */
enum { PREFILL_CALL_ROWS = 8 * LLAMA_MAX_STEP_ROWS };

int main(int argc, char **argv)
{
    Options o = parse_options(argc, argv);
    char error[1024];
    llama_transformer t;
    llama_config config;
    double start = now_s();
    if (o.shape) {
        if (llama_named_shape(o.shape, &config, error, sizeof error) != 0) die("%s", error);
        if (llama_build_transformer_generated(&t, &config, o.seed, error, sizeof error) != 0) die("%s", error);
    } else if (llama_build_transformer_from_checkpoint(&t, o.checkpoint, error, sizeof error) != 0) die("%s", error);
    config = t.config;
    double load_s = now_s() - start;

    apply_weight_format(&t, &o);
    if (o.write_path) {
        int version = o.version >= 0 ? o.version : t.format == WEIGHTS_INT8 ? 2 : 1;
        if (llama_write_checkpoint(&t, o.write_path, version, error, sizeof error) != 0) die("--write-checkpoint: %s", error);
        if (t.format == WEIGHTS_INT8)
            printf("wrote: %s (version 2, INT8 in groups of %d, %lld parameters)\n", o.write_path, t.group_size,
                   (long long)llama_parameter_count(&config));
        else
            printf("wrote: %s (version %d, FP32, %lld parameters)\n", o.write_path, version, (long long)llama_parameter_count(&config));
        llama_free_transformer(&t);
        return 0;
    }

    long long context = (long long)o.prompt_tokens + o.gen;
    if (context > config.seq_len) {
        snprintf(error, sizeof error, "prompt %d + gen %d = %lld tokens does not fit the model's context (seq_len %d)",
                 o.prompt_tokens, o.gen, context, config.seq_len);
        die("%s", error);
    }
    llama_session s;
    if (llama_build_session(&s, &t, o.batch, (int)context, o.threads, error, sizeof error) != 0) die("%s", error);
    if (!strcmp(o.activations, "int8") && llama_set_int8_activations(&s, 1, error, sizeof error) != 0)
        die("--activations int8: %s", error);

    /* seeded prompts, one per sequence */
    uint64_t state = llama_seed_generator(o.sample_seed);
    int *prompts = malloc((size_t)o.batch * (size_t)o.prompt_tokens * sizeof(int));
    int *generated = malloc((size_t)o.batch * (size_t)o.gen * sizeof(int));
    const int **prompt_rows = malloc((size_t)o.batch * sizeof *prompt_rows);
    int *sequences = malloc((size_t)o.batch * sizeof(int)), *lengths = malloc((size_t)o.batch * sizeof(int));
    int *next = malloc((size_t)o.batch * sizeof(int));
    if (!prompts || !generated || !prompt_rows || !sequences || !lengths || !next)
        die("out of memory for %s prompts and generated tokens", "the batch's");
    for (int b = 0; b < o.batch; b++) {
        for (int k = 0; k < o.prompt_tokens; k++)
            prompts[(size_t)b * o.prompt_tokens + k] = (int)(llama_random_u32(&state) % (uint32_t)config.vocab_size);
        prompt_rows[b] = prompts + (size_t)b * o.prompt_tokens;
        sequences[b] = b;
        lengths[b] = o.prompt_tokens;
    }
    llama_sampler sampler;

    double *ttfts = malloc((size_t)o.repeat * sizeof(double)), *tpots = malloc((size_t)o.repeat * sizeof(double));
    double *totals = malloc((size_t)o.repeat * sizeof(double));
    double run_start = now_s();
    for (int r = 0; r < o.repeat; r++) {
        for (int b = 0; b < o.batch; b++) llama_reset_sequence(&s, b);
        if (llama_build_sampler(&sampler, config.vocab_size, o.temperature, o.sample_seed, error, sizeof error) != 0)
            die("%s", error);   /* each repeat draws the same */

        /* prefill: the prompts together, in calls of about PREFILL_CALL_ROWS rows (a sequence's
         * logits do not depend on which others share its call), so that a long prefill shows
         * its progress; the logits give each sequence's first token */
        double start_of_run = now_s();
        const float *logits = NULL;
        int per_call = PREFILL_CALL_ROWS / o.prompt_tokens > 0 ? PREFILL_CALL_ROWS / o.prompt_tokens : 1;
        for (int first = 0; first < o.batch; first += per_call) {
            int count = o.batch - first < per_call ? o.batch - first : per_call;
            logits = llama_prefill_batch(&s, sequences + first, prompt_rows + first, lengths + first, count, error, sizeof error);
            if (!logits) die("%s", error);
            check_finite(logits, count, config.vocab_size, "after the prompt");
            for (int b = 0; b < count; b++)
                next[first + b] = generated[(size_t)(first + b) * o.gen] =
                    llama_sample(&sampler, logits + (size_t)b * config.vocab_size);
            show_progress(run_start, first + count, o.batch, "prompts prefilled");
        }
        ttfts[r] = now_s() - start_of_run;

        /* decode: one step per further token, all sequences together */
        double decode_start = now_s();
        for (int step = 1; step < o.gen; step++) {
            logits = llama_decode_batch(&s, sequences, next, o.batch, error, sizeof error);
            if (!logits) die("%s", error);
            check_finite(logits, o.batch, config.vocab_size, "while decoding");
            for (int b = 0; b < o.batch; b++)
                next[b] = generated[(size_t)b * o.gen + step] = llama_sample(&sampler, logits + (size_t)b * config.vocab_size);
            show_progress(run_start, (long long)r * o.gen + step + 1, (long long)o.repeat * o.gen, "tokens generated");
        }
        tpots[r] = o.gen > 1 ? (now_s() - decode_start) / (o.gen - 1) : NAN;
        totals[r] = now_s() - start_of_run;
        llama_free_sampler(&sampler);
    }
    end_progress(run_start);
    double ttft = median(ttfts, o.repeat), tpot = median(tpots, o.repeat), total = median(totals, o.repeat);

    /* report */
    printf("model: %s (dim %d, hidden %d, %d layers, %d heads, %d kv heads, vocab %d, seq_len %d, %s classifier)\n",
           o.shape ? o.shape : o.checkpoint, config.dim, config.hidden_dim, config.n_layers, config.n_heads,
           config.n_kv_heads, config.vocab_size, config.seq_len, config.shared_classifier ? "tied" : "untied");
    printf("parameters: %lld\n", (long long)llama_parameter_count(&config));
    printf("weights: %s\n", t.format == WEIGHTS_INT4 ? "int4" : t.format == WEIGHTS_INT8 ? "int8" : "fp32");
    printf("activations: %s\n", s.int8_activations ? "int8" : "fp32");
    if (t.format != WEIGHTS_FP32) printf("group_size: %d values\n", t.group_size);
    printf("weights_bytes: %lld bytes\n", (long long)t.weights_bytes);
    printf("kv_cache_bytes: %lld bytes\n", (long long)llama_kv_cache_bytes(config.n_layers, config.n_kv_heads,
                                                                    llama_head_dim_of(&config), 4, context, o.batch));
    printf("activation_bytes: %lld bytes\n", (long long)s.activation_bytes);
    printf("threads: %d\n", o.threads);
    if (o.repeat > 1) printf("repeats: %d runs\n", o.repeat);
    printf("batch: %d sequences\n", o.batch);
    printf("prompt_tokens: %d tokens\n", o.prompt_tokens);
    printf("gen_tokens: %d tokens\n", o.gen);
    printf("load_time: %.1f ms\n", load_s * 1e3);
    printf("ttft: %.3f ms\n", ttft * 1e3);
    printf("prefill_tokens_per_s: %.1f tokens/s\n", o.batch * (double)o.prompt_tokens / ttft);
    if (o.gen > 1) {
        printf("tpot: %.3f ms\n", tpot * 1e3);
        printf("decode_tokens_per_s: %.1f tokens/s\n", o.batch / tpot);
    }
    printf("tokens_per_s: %.1f tokens/s\n", o.batch * (double)o.gen / total);
    if (o.print_tokens)
        for (int b = 0; b < o.batch; b++) {
            printf("generated_%d:", b);
            for (int k = 0; k < o.gen; k++) printf(" %d", generated[(size_t)b * o.gen + k]);
            printf("\n");
        }

    free(prompts), free(generated), free(prompt_rows), free(sequences), free(lengths), free(next);
    free(ttfts), free(tpots), free(totals);
    llama_free_session(&s);
    llama_free_transformer(&t);
    return 0;
}
