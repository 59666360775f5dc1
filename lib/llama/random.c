/* random.c — the engine's one source of randomness: xorshift64* (the generator llama2.c
 * samples with), seeded through splitmix64 so that nearby seeds (1, 2, 3 ...) give
 * unrelated streams. Weights, prompts and sampling all draw from it, so a seed names
 * the same bits on every machine. */
#include "llama.h"

uint64_t llama_seed_generator(uint64_t seed)
{
    uint64_t z = seed + 0x9E3779B97F4A7C15ull;   /* splitmix64 */
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return z ? z : 1;                            /* xorshift's state must not be 0 */
}

uint32_t llama_random_u32(uint64_t *state)
{
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return (uint32_t)((*state * 0x2545F4914F6CDD1Dull) >> 32);
}

float llama_random_unit(uint64_t *state)
{
    return (float)(llama_random_u32(state) >> 8) / 16777216.0f;   /* 24 random bits: exact in a float */
}
