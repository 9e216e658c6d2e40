/* SPDX-License-Identifier: MIT */
/*
 * The one pseudo-random generator of pmemtest's --seed: copy-bench's
 * sizes and offsets, init-bench's verification pfns, buffer contents.
 * Repeatable from the seed, not for anything that needs real randomness.
 */
#ifndef PMEMTEST_RNG_H
#define PMEMTEST_RNG_H

#include <stdint.h>

/*
 * The state for a --seed: any 64-bit seed, 0 included. splitmix64's
 * finaliser spreads neighbouring seeds apart; xorshift needs a state
 * that is not 0, and only one seed maps there.
 */
static inline uint64_t rng_start(uint64_t seed)
{
	uint64_t z = seed + 0x9E3779B97F4A7C15ULL;

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	z ^= z >> 31;
	return z ? z : 1;
}

/* xorshift64*: plenty for picking sizes, offsets and pfns. */
static inline uint64_t rng_next(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

#endif /* PMEMTEST_RNG_H */
