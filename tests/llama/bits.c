/* bits.c — the engine's answers as bits, for comparing two machines (make test-arm64 runs it built
 * for x86-64 and for arm64, and the two outputs must be the same text).
 *
 * Each weight format sums in one documented order whatever the SIMD width (tests/llama/order.c holds
 * every path to it), and the blocks call the C library's expf and sqrtf, which glibc computes alike on
 * both; so the logits, not only the greedy tokens, should agree to the bit. Greedy tokens alone would
 * be a weak witness (an argmax survives most low-bit differences), so each line also carries an
 * FNV-1a hash of the bits of every logit the run produced, and of the double-precision reference's.
 *
 * Prints one line per run: the format, the tokens both sequences generated, the hash. Exits 1 with a
 * message when the engine refuses something (nothing here should be refused). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llama.h"

enum { SEQUENCES = 2, PROMPT = 8, STEPS = 8 };

static char error[256];

static const uint64_t FNV_OFFSET_BASIS = 0xcbf29ce484222325ull;

static uint64_t hash_bytes(uint64_t hash, const void *bytes, size_t n)
{
    const unsigned char *p = bytes;
    for (size_t i = 0; i < n; i++) hash = (hash ^ p[i]) * 0x100000001b3ull;
    return hash;
}

static void give_up(const char *what)
{
    fprintf(stderr, "bits: %s: %s\n", what, error);
    exit(1);
}

/* The same seeded prompts for every run. */
static void seeded_prompts(int prompts[SEQUENCES][PROMPT], int vocab_size)
{
    uint64_t state = llama_seed_generator(7);
    for (int i = 0; i < SEQUENCES; i++)
        for (int p = 0; p < PROMPT; p++) prompts[i][p] = (int)(llama_random_u32(&state) % (uint32_t)vocab_size);
}

/* Prefills two seeded prompts together, then decodes STEPS greedy tokens for both. */
static void run(const char *label, const llama_transformer *t, int int8_activations)
{
    llama_session s;
    if (llama_build_session(&s, t, SEQUENCES, PROMPT + STEPS + 1, 1, error, sizeof error)) give_up("a session");
    if (int8_activations && llama_set_int8_activations(&s, 1, error, sizeof error)) give_up("INT8 activations");
    int prompts[SEQUENCES][PROMPT], sequences[SEQUENCES], lengths[SEQUENCES], next[SEQUENCES];
    const int *tokens[SEQUENCES];
    seeded_prompts(prompts, t->config.vocab_size);
    for (int i = 0; i < SEQUENCES; i++) sequences[i] = i, lengths[i] = PROMPT, tokens[i] = prompts[i];
    size_t vocab = (size_t)t->config.vocab_size;
    const float *logits = llama_prefill_batch(&s, sequences, tokens, lengths, SEQUENCES, error, sizeof error);
    if (!logits) give_up("the prefill");
    uint64_t hash = hash_bytes(FNV_OFFSET_BASIS, logits, SEQUENCES * vocab * sizeof *logits);
    int generated[SEQUENCES][STEPS];
    for (int step = 0; step < STEPS; step++) {
        for (int i = 0; i < SEQUENCES; i++) next[i] = generated[i][step] = llama_argmax(logits + i * vocab, (int)vocab);
        logits = llama_decode_batch(&s, sequences, next, SEQUENCES, error, sizeof error);
        if (!logits) give_up("a decode step");
        hash = hash_bytes(hash, logits, SEQUENCES * vocab * sizeof *logits);
    }
    printf("%-22s", label);
    for (int i = 0; i < SEQUENCES; i++) {
        printf(" |");
        for (int step = 0; step < STEPS; step++) printf(" %d", generated[i][step]);
    }
    printf(" | logits %016llx\n", (unsigned long long)hash);
    llama_free_session(&s);
}

/* The double-precision reference's logits after each token of the first prompt, as one hash. */
static void print_reference(const llama_transformer *t)
{
    int prompts[SEQUENCES][PROMPT];
    seeded_prompts(prompts, t->config.vocab_size);
    size_t bytes = (size_t)PROMPT * (size_t)t->config.vocab_size * sizeof(double);
    double *reference = malloc(bytes);
    if (!reference) {
        snprintf(error, sizeof error, "no memory");
        give_up("the reference's logits");
    }
    if (llama_reference_forward(t, prompts[0], PROMPT, reference, error, sizeof error)) give_up("the reference");
    printf("%-22s | logits %016llx\n", "reference (double)",
           (unsigned long long)hash_bytes(FNV_OFFSET_BASIS, reference, bytes));
    free(reference);
}

int main(void)
{
    llama_config config;
    if (llama_named_shape("15M", &config, error, sizeof error)) give_up("the shape");
    llama_transformer t;
    if (llama_build_transformer_generated(&t, &config, 1, error, sizeof error)) give_up("the weights");
    run("fp32", &t, 0);
    print_reference(&t);
    llama_free_transformer(&t);

    const struct { const char *label; int int4, int8_activations; } quantized[] = {
        {"int8 weights", 0, 0}, {"int8 weights and acts", 0, 1}, {"int4 weights", 1, 0}};
    for (size_t q = 0; q < sizeof quantized / sizeof quantized[0]; q++) {
        if (llama_build_transformer_generated(&t, &config, 1, error, sizeof error)) give_up("the weights");
        int group = llama_int8_group_size(&config, 64);
        if ((quantized[q].int4 ? llama_quantize_transformer_int4 : llama_quantize_transformer)(&t, group, error,
                                                                                               sizeof error))
            give_up("quantizing");
        run(quantized[q].label, &t, quantized[q].int8_activations);
        llama_free_transformer(&t);
    }
    return 0;
}
