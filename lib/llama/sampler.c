/* sampler.c — choosing the next token from the logits: greedy (the largest logit; what
 * tests and benchmarks use, so that runs repeat exactly) or a draw from
 * softmax(logits / temperature) with the seeded generator (the same seed, the same text). */
#include "llama.h"

#include <stdlib.h>

#include "blocks.h"

void llama_build_sampler(Sampler *sampler, int vocab_size, float temperature, uint64_t seed)
{
    sampler->temperature = temperature;
    sampler->state = llama_seed_generator(seed);
    sampler->vocab_size = vocab_size;
    sampler->probabilities = malloc((size_t)vocab_size * sizeof(float));
}

void llama_free_sampler(Sampler *sampler)
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

int llama_sample(Sampler *sampler, const float *logits)
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
