/* engine.c — Day 30 driver: the toy Llama (lib/llama) timed on this CPU, one thread, for the
 * predicted-against-measured comparison of main.c and the tests. Do not edit.
 * Times are this thread's CPU time (as lib/perfmodel's probes measure), medians of rounds:
 * a busy neighbour on the machine then moves them little. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "lab.h"
#include "timer.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { SEED = 30, MAX_ROUNDS = 32, MAX_BATCH = 64 };

static double thread_seconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

int build_toy_engine(llama_transformer *t, perfmodel_shape *shape, char *error, size_t error_size)
{
    llama_config c;
    if (llama_named_shape("15M", &c, error, error_size) != 0 ||
        llama_build_transformer_generated(t, &c, SEED, error, error_size) != 0)
        return -1;
    perfmodel_shape_from_config(&t->config, "toy Llama 15M", shape);
    return 0;
}

/* a seeded token of the vocabulary */
static int token_at(int sequence, int position, int vocab) { return (sequence * 101 + position * 13 + 1) % vocab; }

double measure_decode_step(const llama_transformer *t, int batch, int prompt, int rounds, int steps, char *error, size_t error_size)
{
    if (batch < 1 || batch > MAX_BATCH || rounds < 1 || rounds > MAX_ROUNDS || steps < 1 || prompt < 1) {
        snprintf(error, error_size, "measure_decode_step: batch 1 to %d, rounds 1 to %d, steps and prompt >= 1", MAX_BATCH, MAX_ROUNDS);
        return -1;
    }
    int vocab = t->config.vocab_size, sequences[MAX_BATCH], tokens[MAX_BATCH];
    int *prompt_tokens = malloc((size_t)prompt * sizeof(int));
    double times[MAX_ROUNDS];
    llama_session s;
    if (!prompt_tokens || llama_build_session(&s, t, batch, prompt + rounds * steps, 1, error, error_size) != 0) {
        free(prompt_tokens);
        return -1;
    }
    double result = -1;
    for (int i = 0; i < batch; i++) {
        for (int p = 0; p < prompt; p++) prompt_tokens[p] = token_at(i, p, vocab);
        sequences[i] = i, tokens[i] = token_at(i, prompt, vocab);
        if (!llama_prefill(&s, i, prompt_tokens, prompt, error, error_size)) goto done;
    }
    for (int r = 0; r < rounds; r++) {
        double start = thread_seconds();
        for (int step = 0; step < steps; step++) {
            const float *logits = llama_decode_batch(&s, sequences, tokens, batch, error, error_size);
            if (!logits) goto done;
            for (int i = 0; i < batch; i++) tokens[i] = llama_argmax(logits + (size_t)i * vocab, vocab);
        }
        times[r] = (thread_seconds() - start) / steps;
    }
    result = lab_median(times, rounds);
done:
    llama_free_session(&s);
    free(prompt_tokens);
    return result;
}

double measure_prefill(const llama_transformer *t, int prompt, int rounds, char *error, size_t error_size)
{
    if (rounds < 1 || rounds > MAX_ROUNDS || prompt < 1) {
        snprintf(error, error_size, "measure_prefill: rounds 1 to %d, prompt >= 1", MAX_ROUNDS);
        return -1;
    }
    int *tokens = malloc((size_t)prompt * sizeof(int));
    double times[MAX_ROUNDS];
    llama_session s;
    if (!tokens || llama_build_session(&s, t, 1, prompt, 1, error, error_size) != 0) {
        free(tokens);
        return -1;
    }
    double result = -1;
    for (int p = 0; p < prompt; p++) tokens[p] = token_at(0, p, t->config.vocab_size);
    for (int r = 0; r < rounds; r++) {
        llama_reset_sequence(&s, 0);
        double start = thread_seconds();
        if (!llama_prefill(&s, 0, tokens, prompt, error, error_size)) goto done;
        times[r] = thread_seconds() - start;
    }
    result = lab_median(times, rounds);
done:
    llama_free_session(&s);
    free(tokens);
    return result;
}
