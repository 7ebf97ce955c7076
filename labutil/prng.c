/* SPDX-License-Identifier: MIT */
#include "prng.h"

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

void cidk__prng_seed(struct cidk__prng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

uint64_t cidk__prng_next(struct cidk__prng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

uint64_t cidk__prng_below(struct cidk__prng *r, uint64_t bound)
{
	uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
	uint64_t x;

	do
		x = cidk__prng_next(r);
	while (x >= limit);
	return x % bound;
}

void cidk__prng_shuffle(struct cidk__prng *r, unsigned int *v, unsigned int n)
{
	for (unsigned int i = n; i > 1; i--) {
		unsigned int j = (unsigned int)cidk__prng_below(r, i);
		unsigned int t = v[i - 1];

		v[i - 1] = v[j];
		v[j] = t;
	}
}
