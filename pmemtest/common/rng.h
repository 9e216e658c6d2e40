/* SPDX-License-Identifier: MIT */
/*
 * The one pseudo-random generator of pmemtest: from --seed, copy-bench's
 * sizes and offsets, init-bench's verification pfns, buffer contents; from
 * the round's number, the order contenders run in.
 * Repeatable from the seed, not for anything that needs real randomness.
 */
#ifndef PMEMTEST_RNG_H
#define PMEMTEST_RNG_H

#include <stddef.h>
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

/*
 * The order contenders run in round @round: a permutation of 0..n-1, new
 * each round and the same in every run, from a generator of its own (the
 * callers' sizes, offsets and pfns stay as they were). Not a rotation:
 * with a fixed sequence each contender always follows the same one, and
 * what that one leaves in the cache (NT stores evict, cached stores do
 * not) biased hot samples by up to 1.25x (hot 2 MiB clears, AMD EPYC).
 */
static inline void rng_round_order(size_t *order, size_t n, unsigned int round)
{
	uint64_t st = rng_start(round);

	for (size_t i = 0; i < n; i++)
		order[i] = i;
	for (size_t i = n; i > 1; i--) {	/* Fisher-Yates */
		size_t j = (size_t)(rng_next(&st) % i), t = order[i - 1];

		order[i - 1] = order[j];
		order[j] = t;
	}
}

#endif /* PMEMTEST_RNG_H */
