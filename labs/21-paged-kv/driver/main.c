/* main.c — Day 21 driver: grouped-query attention's saving, the toy Llama generating on your
 * paged cache, prefix sharing in parallel sampling, and a trace-driven comparison of paged
 * allocation with contiguous max-length allocation. Do not edit.
 *
 *   build/21-paged-kv/labs-sim/lab RESULTS.csv     (make check DAY=21 runs it)
 *
 * Prints, in order:
 *   1. KV bytes per token of every model of data/models.csv in FP16, with its KV heads and as
 *      if it had one per query head (multi-head attention), and the query heads each KV head
 *      serves, from your kv_head_of;
 *   2. the toy Llama ('tiny': 6 query heads on 2 KV heads) generating 24 tokens greedily on the
 *      engine's own cache and on yours, for several block sizes: the largest logit difference,
 *      whether the tokens agree, the blocks used;
 *   3. parallel sampling on the toy Llama: one prompt prefilled once and forked into 4 samples,
 *      the blocks held with sharing and without, the copies copy-on-write made, each beside your
 *      sampling_blocks_predicted;
 *   4. the trace: Llama-2-7B in FP16 on an A100-80GB (data/gpus.csv, data/models.csv), the
 *      memory the weights leave for the KV cache, and requests drawn from a seeded trace (prompt
 *      and output lengths exponential with ShareGPT's means as Kwon et al. 2023 report them: 161
 *      and 338 tokens), each caught at a random point of its output. Contiguous allocation
 *      reserves 2048 tokens a request; paged allocation (your sequence_append) takes blocks as
 *      tokens arrive; paged with sharing prefills each prompt once for 4 samples (your
 *      sequence_fork). Requests are admitted in order until the memory is full.
 * Writes one row per block size from 1 to 256 tokens:
 *   block_size,contiguous_waste_percent,paged_waste_percent,shared_waste_percent,
 *   contiguous_sequences,paged_sequences,shared_sequences,shared_copies
 * (waste: KV slots reserved or allocated that hold no token, over all slots reserved or
 * allocated; sequences: how many are held at once in the memory left; copies: copy-on-write
 * copies the shared run made). */
#include "lab.h"
#include "perfmodel.h"
#include "results.h"
#include "table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { RESERVED_TOKENS = 2048, LONGEST_PART = 1024, TRACE_REQUESTS = 3000, SAMPLES = 4, MAX_SEQUENCES = 4096 };
static const double PROMPT_MEAN = 161, OUTPUT_MEAN = 338;   /* ShareGPT's means (Kwon et al. 2023, section 6) */
static const int block_sizes[] = {1, 2, 4, 8, 16, 32, 64, 128, 256};
static char error[512];

/* ---------------------------------------------------------------------------------
 * 1. GQA: the KV cache per token */

static void print_gqa(const lab_table *models)
{
    printf("1. KV cache per token in FP16 (2 x layers x kv_heads x head_dim x 2 bytes), with each model's KV heads\n"
           "   and as multi-head attention would have it (one KV head per query head):\n");
    printf("   %-12s %6s %9s %12s %12s %8s\n", "model", "heads", "kv_heads", "KiB/token", "as MHA", "saving");
    for (int row = 0; row < models->rows; row++) {
        int layers = (int)lab_table_number_or_exit(models, row, "layers"), heads = (int)lab_table_number_or_exit(models, row, "attention_heads");
        int kv_heads = (int)lab_table_number_or_exit(models, row, "kv_heads"), head_dim = (int)lab_table_number_or_exit(models, row, "head_dim");
        double bytes = (double)llama_kv_cache_bytes(layers, kv_heads, head_dim, 2, 1, 1);
        double mha = (double)llama_kv_cache_bytes(layers, heads, head_dim, 2, 1, 1);
        printf("   %-12s %6d %9d %12.0f %12.0f %7.0fx\n", lab_table_text_or_exit(models, row, "name"), heads, kv_heads,
               bytes / 1024, mha / 1024, mha / bytes);
    }
    llama_config tiny;
    if (llama_named_shape("tiny", &tiny, error, sizeof error) == 0) {
        printf("   Your kv_head_of for the toy Llama's 'tiny' (%d query heads, %d KV heads): query head -> KV head",
               tiny.n_heads, tiny.n_kv_heads);
        for (int h = 0; h < tiny.n_heads; h++) printf("  %d->%d", h, kv_head_of(&tiny, h));
        printf("\n");
    }
    printf("\n");
}

/* ---------------------------------------------------------------------------------
 * 2. The toy Llama on your cache */

typedef struct generation {
    double largest_difference;   /* of any logit from the engine's own, NaN counting as infinite */
    int tokens_agree;            /* greedy tokens, each cache following its own logits */
    int blocks, failed;
} generation;

static generation generate(const llama_transformer *t, int block_size)
{
    enum { PROMPT = 5, TOKENS = 24 };
    generation g = {0, 1, 0, 0};
    int vocab = t->config.vocab_size, prompt[PROMPT] = {1, 9, 4, 33, 2};
    llama_session own, paged;
    paged_cache cache;
    if (llama_build_session(&own, t, 1, TOKENS, 1, error, sizeof error) != 0) return g.largest_difference = INFINITY, g;
    if (llama_build_session(&paged, t, 1, TOKENS, 1, error, sizeof error) != 0 ||
        paged_cache_build(&cache, (TOKENS + block_size - 1) / block_size, block_size, t->config.n_layers,
                          llama_kv_dim_of(&t->config), 1, TOKENS, &t->config, error, sizeof error) != 0) {
        llama_free_session(&own);
        return g.largest_difference = INFINITY, g;
    }
    paged.kv_hooks = paged_hooks(&cache);
    const float *a = llama_prefill(&own, 0, prompt, PROMPT, error, sizeof error);
    const float *b = llama_prefill(&paged, 0, prompt, PROMPT, error, sizeof error);
    for (int n = PROMPT; a && b; n++) {
        for (int i = 0; i < vocab; i++) {
            double d = fabs((double)a[i] - b[i]);
            if (!(d <= g.largest_difference)) g.largest_difference = isnan(d) ? INFINITY : d;
        }
        int mine = llama_argmax(a, vocab), yours = llama_argmax(b, vocab);
        g.tokens_agree &= mine == yours;
        if (n == TOKENS) break;
        a = llama_decode_batch(&own, (int[]){0}, &mine, 1, error, sizeof error);
        b = llama_decode_batch(&paged, (int[]){0}, &yours, 1, error, sizeof error);
    }
    g.blocks = paged_blocks_in_use(&cache), g.failed = (int)cache.failed_stores;
    paged_cache_free(&cache);
    llama_free_session(&own), llama_free_session(&paged);
    return g;
}

static int print_engine(const llama_transformer *t)
{
    printf("2. The toy Llama ('tiny', %d layers, %d query heads on %d KV heads) generating 24 tokens greedily after a\n"
           "   5-token prompt, on the engine's own cache and on your paged cache (your paged_store, paged_attend):\n",
           t->config.n_layers, t->config.n_heads, t->config.n_kv_heads);
    printf("   %10s %22s %14s %9s %14s\n", "block size", "largest logit diff.", "greedy tokens", "blocks", "stores refused");
    int good = 1;
    const int sizes[] = {1, 4, 16, 32};
    for (int i = 0; i < 4; i++) {
        generation g = generate(t, sizes[i]);
        printf("   %10d %22.3g %14s %9d %14d\n", sizes[i], g.largest_difference, g.tokens_agree ? "the same" : "DIFFER",
               g.blocks, g.failed);
        good &= g.largest_difference < 1e-4 && g.tokens_agree;
    }
    printf(good ? "   (each cache follows its own greedy tokens; the differences are float rounding, the order of a sum.)\n\n"
                : "   (a difference above 1e-4 is a bug in your cache or attention: the checks below say where.)\n\n");
    return good;
}

/* ---------------------------------------------------------------------------------
 * 3. Parallel sampling: one prompt, four samples */

static void print_sampling(const llama_transformer *t)
{
    enum { PROMPT = 22, GENERATED = 16, BLOCK = 4 };
    int vocab = t->config.vocab_size, tokens[PROMPT];
    for (int i = 0; i < PROMPT; i++) tokens[i] = (int)((5u * (unsigned)i + 2u) % (unsigned)vocab);
    llama_session s;
    paged_cache cache;
    int capacity = PROMPT + GENERATED;
    int per_sample = (capacity + BLOCK - 1) / BLOCK;
    printf("3. Parallel sampling: a %d-token prompt prefilled once and forked into %d samples of %d tokens each\n"
           "   (block size %d), on the toy Llama:\n", PROMPT, SAMPLES, GENERATED, BLOCK);
    if (llama_build_session(&s, t, SAMPLES, capacity, 1, error, sizeof error) != 0 ||
        paged_cache_build(&cache, SAMPLES * per_sample, BLOCK, t->config.n_layers, llama_kv_dim_of(&t->config), SAMPLES,
                          capacity, &t->config, error, sizeof error) != 0) {
        printf("   could not build it: %s\n\n", error);
        return;
    }
    s.kv_hooks = paged_hooks(&cache);
    const float *logits = llama_prefill(&s, 0, tokens, PROMPT, error, sizeof error);
    int after_prompt = paged_blocks_in_use(&cache), sequences[SAMPLES], next[SAMPLES], ok = logits != NULL;
    for (int i = 0; ok && i < SAMPLES; i++) {
        sequences[i] = i, next[i] = (llama_argmax(logits, vocab) + 7 * i) % vocab;   /* four different first tokens */
        if (i > 0) ok = paged_session_fork(&s, &cache, 0, i, error, sizeof error) == 0;
    }
    int after_fork = paged_blocks_in_use(&cache);
    for (int step = 0; ok && step < GENERATED; step++) {
        logits = llama_decode_batch(&s, sequences, next, SAMPLES, error, sizeof error);
        ok = logits != NULL;
        for (int i = 0; ok && i < SAMPLES; i++) next[i] = llama_argmax(logits + (size_t)i * vocab, vocab);
    }
    if (!ok) {
        printf("   the engine refused a step: %s\n\n", error);
    } else {
        int separate = SAMPLES * per_sample;   /* each sample with its own copy of the prompt */
        int predicted_copies = 0, used = paged_blocks_in_use(&cache);
        int predicted = sampling_blocks_predicted(PROMPT, GENERATED, SAMPLES, BLOCK, &predicted_copies);
        printf("   blocks: after the prompt %d, after forking %d, after %d tokens each %d (counted; predicted by\n"
               "   your sampling_blocks_predicted: %d); copy-on-write copies: %lld (counted; predicted: %d); stores\n"
               "   refused: %lld. Without sharing %d blocks: sharing takes %.1f%% fewer (without it, %.0f%% more).\n\n",
               after_prompt, after_fork, GENERATED, used, predicted, cache.copies, predicted_copies,
               cache.failed_stores, separate, 100.0 * (separate - used) / separate, 100.0 * (separate - used) / used);
    }
    paged_cache_free(&cache);
    llama_free_session(&s);
}

/* ---------------------------------------------------------------------------------
 * 4. The trace: contiguous against paged allocation */

typedef struct request {
    int prompt, output;          /* the request's lengths */
    int generated[SAMPLES];      /* tokens of output each sample holds at the moment it is caught */
} request;

static int exponential_length(uint64_t *state, double mean)
{
    double u = llama_random_unit(state);
    int n = (int)ceil(-mean * log(1.0 - u));
    return n < 1 ? 1 : n > LONGEST_PART ? LONGEST_PART : n;
}

static request *draw_trace(void)
{
    request *trace = malloc(TRACE_REQUESTS * sizeof(request));
    uint64_t state = llama_seed_generator(2023);
    for (int i = 0; trace && i < TRACE_REQUESTS; i++) {
        trace[i].prompt = exponential_length(&state, PROMPT_MEAN);
        trace[i].output = exponential_length(&state, OUTPUT_MEAN);
        for (int k = 0; k < SAMPLES; k++) trace[i].generated[k] = (int)(llama_random_unit(&state) * (trace[i].output + 1));
    }
    return trace;
}

typedef struct admission {
    int sequences;
    double waste_percent;
    long long copies;
    const char *stopped;         /* why admission stopped early, or NULL */
} admission;

/* Slots of the pool holding a token: each block in use counted once, as full as its fullest holder. */
static double filled_slots(const paged_cache *cache)
{
    int *filled = calloc((size_t)cache->pool.blocks, sizeof(int));
    if (!filled) return NAN;
    for (int s = 0; s < cache->sequences; s++) {
        const kv_sequence *q = &cache->sequence[s];
        for (int i = 0; i < q->block_count; i++) {
            int in_block = q->length - i * cache->pool.block_size;
            if (in_block > cache->pool.block_size) in_block = cache->pool.block_size;
            int b = q->block_table[i];
            if (b >= 0 && b < cache->pool.blocks && in_block > filled[b]) filled[b] = in_block;
        }
    }
    double sum = 0;
    for (int b = 0; b < cache->pool.blocks; b++) sum += filled[b];
    free(filled);
    return sum;
}

static int append_tokens(paged_cache *cache, int sequence, int tokens)
{
    for (int i = 0; i < tokens; i++)
        if (sequence_append(cache, sequence) != 0) return -1;
    return 0;
}

/* Requests admitted in order while the memory lasts; with `samples` > 1 each prompt is stored
 * once and forked. */
static admission admit_paged(const request *trace, long long budget_tokens, int block_size, int samples)
{
    admission a = {0, NAN, 0, NULL};
    paged_cache cache;
    int blocks = (int)(budget_tokens / block_size);
    if (paged_cache_build(&cache, blocks, block_size, 1, 1, MAX_SEQUENCES, RESERVED_TOKENS, NULL, error, sizeof error) != 0) {
        a.stopped = error;
        return a;
    }
    int next = 0;
    for (int r = 0; r < TRACE_REQUESTS; r++) {
        if (next + samples > MAX_SEQUENCES) {
            a.stopped = "every sequence slot is in use";
            break;
        }
        int first = next, fits = append_tokens(&cache, first, trace[r].prompt) == 0;
        for (int k = 1; fits && k < samples; k++) sequence_fork(&cache, first, first + k);
        for (int k = 0; fits && k < samples; k++) fits = append_tokens(&cache, first + k, trace[r].generated[k]) == 0;
        if (!fits) {   /* this request does not fit: give back what it took, and stop */
            for (int k = 0; k < samples; k++) sequence_free(&cache, first + k);
            break;
        }
        next += samples;
    }
    if (next > 0 && paged_blocks_in_use(&cache) > 0) {
        double allocated = (double)paged_blocks_in_use(&cache) * block_size;
        a.waste_percent = 100.0 * (allocated - filled_slots(&cache)) / allocated;
    }
    a.sequences = next;
    a.copies = cache.copies;
    paged_cache_free(&cache);
    return a;
}

static admission admit_contiguous(const request *trace, long long budget_tokens)
{
    admission a = {0, NAN, 0, NULL};
    double held = 0;
    long long reserved = 0;
    for (int r = 0; r < TRACE_REQUESTS && reserved + RESERVED_TOKENS <= budget_tokens; r++) {
        reserved += RESERVED_TOKENS;
        held += trace[r].prompt + trace[r].generated[0];
        a.sequences++;
    }
    if (reserved > 0) a.waste_percent = 100.0 * (reserved - held) / reserved;
    return a;
}

/* The KV tokens the book's one memory budget leaves (lib/perfmodel: weights, KV cache and activations
 * within PERFMODEL_MEMORY_UTILIZATION of the capacity) for Llama-2-7B in FP16 on an A100-80GB, one
 * sequence of RESERVED_TOKENS in flight for the activations. -1 with the reason on stderr. */
static long long kv_budget_tokens(perfmodel_prediction *e)
{
    perfmodel_shape model;
    perfmodel_hardware gpu;
    char error[512];
    if (perfmodel_load_model_shape("Llama-2-7B", &model, error, sizeof error) != 0 ||
        perfmodel_load_gpu("a100-80gb", &gpu, error, sizeof error) != 0) {
        fprintf(stderr, "%s\n", error);
        return -1;
    }
    perfmodel_workload workload = {.weights = DTYPE_FP16, .kv = DTYPE_FP16, .batch = 1, .prompt = 1,
                                   .gen = RESERVED_TOKENS - 1};
    perfmodel_estimate(&model, &gpu, &workload, e);
    return (long long)(perfmodel_kv_room_bytes(e) / e->kv_bytes_per_token);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s RESULTS.csv\n", argv[0]);
        return 2;
    }
    printf("Day 21 — paged KV cache: blocks, block tables, sharing, and grouped-query attention\n\n");
    lab_table *models = lab_table_read_or_exit(lab_data_path("models.csv"));
    lab_table *gpus = lab_table_read_or_exit(lab_data_path("gpus.csv"));
    print_gqa(models);

    llama_transformer tiny;
    llama_config config;
    if (llama_named_shape("tiny", &config, error, sizeof error) != 0 ||
        llama_build_transformer_generated(&tiny, &config, 21, error, sizeof error) != 0) {
        fprintf(stderr, "the toy Llama could not be built: %s\n", error);
        return 1;
    }
    int engine_good = print_engine(&tiny);
    if (engine_good) print_sampling(&tiny);
    else printf("3. Parallel sampling: skipped until the toy Llama generates on your cache as on its own.\n\n");
    llama_free_transformer(&tiny);

    perfmodel_prediction budget_of;
    long long budget = kv_budget_tokens(&budget_of);
    if (budget <= 0) return 1;
    request *trace = draw_trace();
    if (!trace) {
        fprintf(stderr, "out of memory for the trace\n");
        return 1;
    }
    double prompt_sum = 0, output_sum = 0, held_sum = 0;
    for (int r = 0; r < TRACE_REQUESTS; r++)
        prompt_sum += trace[r].prompt, output_sum += trace[r].output, held_sum += trace[r].prompt + trace[r].generated[0];
    printf("4. The trace: Llama-2-7B in FP16 on an A100-80GB: %.1f GB of memory (80 GiB), %.1f GB usable beside the\n"
           "   runtime's reserve, %.2f GB of weights, %.0f KiB of KV cache a token: %lld tokens of KV cache fit in what\n"
           "   the weights and the activations leave (lib/perfmodel's memory budget, the book's one).\n"
           "   %d requests: prompts %.0f tokens and outputs %.0f on average (exponential, ShareGPT's means, at most %d\n"
           "   each); caught part-way through their outputs, they hold %.0f tokens on average. Contiguous allocation\n"
           "   reserves %d tokens a request; paged takes blocks as tokens arrive; with sharing, %d samples a prompt.\n",
           budget_of.capacity_bytes / 1e9, budget_of.usable_bytes / 1e9, budget_of.weights_bytes / 1e9,
           budget_of.kv_bytes_per_token / 1024, budget, TRACE_REQUESTS, prompt_sum / TRACE_REQUESTS,
           output_sum / TRACE_REQUESTS, LONGEST_PART, held_sum / TRACE_REQUESTS, RESERVED_TOKENS, SAMPLES);
    admission contiguous = admit_contiguous(trace, budget);
    printf("   %10s %12s %12s %12s %12s %12s %12s %8s\n", "block size", "contig. %", "paged %", "shared %",
           "contig. seqs", "paged seqs", "shared seqs", "copies");
    admission rows[sizeof block_sizes / sizeof block_sizes[0]][2];
    int plotted = 1;
    for (size_t i = 0; i < sizeof block_sizes / sizeof block_sizes[0]; i++) {
        rows[i][0] = admit_paged(trace, budget, block_sizes[i], 1);
        rows[i][1] = admit_paged(trace, budget, block_sizes[i], SAMPLES);
        printf("   %10d %12.1f %12.2f %12.2f %12d %12d %12d %8lld%s%s\n", block_sizes[i], contiguous.waste_percent,
               rows[i][0].waste_percent, rows[i][1].waste_percent, contiguous.sequences, rows[i][0].sequences,
               rows[i][1].sequences, rows[i][1].copies, rows[i][0].stopped ? "  stopped: " : "",
               rows[i][0].stopped ? rows[i][0].stopped : "");
        plotted &= rows[i][0].sequences > 0 && rows[i][1].sequences > 0;
    }
    printf("   (waste: slots reserved or allocated that hold no token. Contiguous: the same at every block size.)\n\n");
    free(trace);
    lab_table_free(models), lab_table_free(gpus);
    if (!plotted) {
        fflush(stdout);
        fprintf(stderr, "Your paged cache admitted no request of the trace (sequence_append or sequence_fork is not "
                        "working yet), so there is nothing to plot: the verdict below says which check fails.\n");
        return 1;
    }
    lab_results out = lab_results_open_or_exit(argv[1], "block_size,contiguous_waste_percent,paged_waste_percent,shared_waste_percent,"
                                            "contiguous_sequences,paged_sequences,shared_sequences,shared_copies");
    for (size_t i = 0; i < sizeof block_sizes / sizeof block_sizes[0]; i++)
        lab_results_row_or_exit(&out, "%d,%.4g,%.4g,%.4g,%d,%d,%d,%lld", block_sizes[i], contiguous.waste_percent,
                        rows[i][0].waste_percent, rows[i][1].waste_percent, contiguous.sequences, rows[i][0].sequences,
                        rows[i][1].sequences, rows[i][1].copies);
    lab_results_close_or_exit(&out);
    printf("Wrote waste and sequences held for block sizes %d .. %d.\n", block_sizes[0],
           block_sizes[sizeof block_sizes / sizeof block_sizes[0] - 1]);
    return 0;
}
