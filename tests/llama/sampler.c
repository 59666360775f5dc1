/* sampler.c — choosing tokens: greedy is the argmax (the first of equals); a seed fixes the
 * draws; the draws follow softmax(logits / temperature) (a chi-square test); and the seeded
 * generator is the xorshift64* stream it claims to be. */
#include <criterion/criterion.h>
#include <math.h>

#include "llama.h"

/* A sampler, or the test fails saying why it could not be built. */
static void build(llama_sampler *s, int vocab_size, float temperature, uint64_t seed)
{
    char error[256];
    cr_assert(llama_build_sampler(s, vocab_size, temperature, seed, error, sizeof error) == 0, "%s", error);
}

Test(sampler, greedy_is_the_argmax, .timeout = 5)
{
    float logits[5] = {0.5f, 3.0f, -1.0f, 3.0f, 2.9f};
    llama_sampler s;
    build(&s, 5, 0.0f, 1);
    cr_assert(llama_sample(&s, logits) == 1, "greedy picked %d; the largest logit is at 1 (and again at 3: the first wins)", llama_sample(&s, logits));
    cr_assert(llama_argmax(logits, 1) == 0);
    llama_free_sampler(&s);
}

Test(sampler, a_seed_repeats_its_draws, .timeout = 5)
{
    float logits[50];
    for (int i = 0; i < 50; i++) logits[i] = sinf((float)i);
    llama_sampler a, b, c;
    build(&a, 50, 1.0f, 42), build(&b, 50, 1.0f, 42), build(&c, 50, 1.0f, 43);
    int same = 0, differs = 0;
    for (int i = 0; i < 200; i++) {
        int x = llama_sample(&a, logits), y = llama_sample(&b, logits), z = llama_sample(&c, logits);
        same += x == y;
        differs += x != z;
        cr_assert(x >= 0 && x < 50);
    }
    cr_assert(same == 200, "the same seed gave different tokens (%d of 200 equal)", same);
    cr_assert(differs > 100, "seeds 42 and 43 gave nearly the same tokens (%d of 200 differ)", differs);
    llama_free_sampler(&a), llama_free_sampler(&b), llama_free_sampler(&c);
}

/* Pearson's chi-square over 8 outcomes (7 degrees of freedom): the critical value at
 * p = 0.001 is 24.32. A sampler that ignored the temperature, or was off by one token,
 * scores in the thousands. */
static double chi_square(float temperature, uint64_t seed)
{
    enum { N = 8, DRAWS = 40000 };
    float logits[N] = {1.0f, 2.0f, 0.5f, -1.0f, 3.0f, 0.0f, 2.5f, 1.5f};
    double expected[N], total = 0;
    for (int i = 0; i < N; i++) total += expected[i] = exp(logits[i] / temperature);
    int counts[N] = {0};
    llama_sampler s;
    build(&s, N, temperature, seed);
    for (int d = 0; d < DRAWS; d++) counts[llama_sample(&s, logits)]++;
    llama_free_sampler(&s);
    double chi = 0;
    for (int i = 0; i < N; i++) {
        double e = expected[i] / total * DRAWS;
        chi += (counts[i] - e) * (counts[i] - e) / e;
    }
    return chi;
}

Test(sampler, draws_follow_softmax_at_the_temperature, .timeout = 10)
{
    float temperatures[] = {0.7f, 1.0f, 2.0f};
    for (int t = 0; t < 3; t++) {
        double chi = chi_square(temperatures[t], 7 + t);
        cr_assert(chi < 24.32, "temperature %g: chi-square %g against softmax(logits / T) (critical 24.32)", temperatures[t], chi);
    }
}

Test(sampler, the_generator_is_xorshift64_star, .timeout = 5)
{
    /* llama2.c's random_u32: state ^= state >> 12; ^= << 25; ^= >> 27; (state * 0x2545F4914F6CDD1D) >> 32 */
    uint64_t state = 1, copy = 1;
    for (int i = 0; i < 5; i++) {
        copy ^= copy >> 12, copy ^= copy << 25, copy ^= copy >> 27;
        uint32_t expected = (uint32_t)((copy * 0x2545F4914F6CDD1Dull) >> 32);
        cr_assert(llama_random_u32(&state) == expected, "draw %d", i);
    }
    cr_assert(llama_seed_generator(0) != 0 && llama_seed_generator(1) != llama_seed_generator(2), "seeds map to distinct, non-zero states");
    float u = llama_random_unit(&state);
    cr_assert(u >= 0.0f && u < 1.0f);
}
