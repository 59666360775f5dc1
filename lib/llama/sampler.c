/* sampler.c — choosing the next token from the logits: greedy (the largest logit; what
 * tests and benchmarks use, so that runs repeat exactly) or a draw from
 * softmax(logits / temperature) with the seeded generator (the same seed, the same text). */
#include "llama.h"

#include <stdio.h>
#include <stdlib.h>

#include "blocks.h"

int llama_build_sampler(llama_sampler *sampler, int vocab_size, float temperature, uint64_t seed, char *error, size_t error_size)
{
    sampler->temperature = temperature;
    sampler->state = llama_seed_generator(seed);
    sampler->vocab_size = vocab_size;
    sampler->probabilities = calloc((size_t)vocab_size, sizeof(float));
    if (!sampler->probabilities) {
        snprintf(error, error_size, "out of memory for a sampler over %d tokens", vocab_size);
        return -1;
    }
    return 0;
}

void llama_free_sampler(llama_sampler *sampler)
{
    free(sampler->probabilities);
    sampler->probabilities = NULL;
}

int llama_argmax(const float *values, int n)
{
    int best = 0;
    for (int i = 1; i < n; i++)
        if (values[i] > values[best]) best = i;   /* the first of equal values wins */
    return best;
}

int llama_sample(llama_sampler *sampler, const float *logits)
{
    int n = sampler->vocab_size;
    if (sampler->temperature <= 0.0f || !sampler->probabilities) return llama_argmax(logits, n);
    float *p = sampler->probabilities;
    for (int i = 0; i < n; i++) p[i] = logits[i] / sampler->temperature;
    llama_softmax(p, n);
    /* invert the cumulative distribution at a uniform draw */
    float draw = llama_random_unit(&sampler->state), cumulative = 0.0f;
    for (int i = 0; i < n; i++) {
        cumulative += p[i];
        if (draw < cumulative) return i;
    }
    return n - 1;   /* the draw fell past a cumulative sum that rounded below 1 */
}
