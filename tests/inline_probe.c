// SPDX-License-Identifier: MIT
/*
 * Probes for tests/inline-nocall.sh: one out-of-line function per
 * fixed-size fast path, the size a literal, so the disassembly shows what
 * memcpy_flushcache() and memcpy_nontemporal() compile to. main() runs each
 * once so the probes are known to copy, too.
 *
 * Built without sanitizer flags: their checks would add calls the header
 * does not make.
 */
#include <stdio.h>
#include <string.h>

#include "kflush.h"

#define PROBE __attribute__((noinline, used))

#define PROBES(n)								\
	PROBE void probe_fc_##n(void *d, const void *s);			\
	PROBE void probe_nt_##n(void *d, const void *s);			\
	PROBE void probe_fc_##n(void *d, const void *s) { memcpy_flushcache(d, s, n); }	\
	PROBE void probe_nt_##n(void *d, const void *s) { memcpy_nontemporal(d, s, n); }

PROBES(4) PROBES(8) PROBES(16) PROBES(32) PROBES(48) PROBES(64) PROBES(80) PROBES(96)
/* A constant without a fast path: must call the library. */
PROBES(24)

/* A run-time size: must call the library. */
PROBE void probe_fc_var(void *d, const void *s, size_t n);
PROBE void probe_fc_var(void *d, const void *s, size_t n)
{
	memcpy_flushcache(d, s, n);
}

/* kflush_drain() is inline too: one sfence, no call. */
PROBE void probe_drain(void);
PROBE void probe_drain(void)
{
	kflush_drain();
}

#ifdef __OPTIMIZE__
/* Marks an optimised build: at -O0 no size is a constant inside the inline. */
PROBE void probe_optimized(void);
PROBE void probe_optimized(void)
{
}
#endif

int main(void)
{
	static const struct {
		size_t n;
		void (*fc)(void *, const void *), (*nt)(void *, const void *);
	} probes[] = {
#define P(n) { n, probe_fc_##n, probe_nt_##n }
		P(4), P(8), P(16), P(32), P(48), P(64), P(80), P(96), P(24),
#undef P
	};
	/* dst + 16 takes the movntdq path, dst + 19 the movnti one. */
	static const size_t doffs[] = { 16, 19 };
	unsigned char src[128], dst[160] __attribute__((aligned(64)));
	int bad = 0;

	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = (unsigned char)(i * 7 + 1);
	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		for (int k = 0; k < 4; k++) {
			const int nt = k & 1;
			const size_t o = doffs[k >> 1];

			memset(dst, 0, sizeof(dst));
			(nt ? probes[i].nt : probes[i].fc)(dst + o, src + 1);
			kflush_drain();
			if (memcmp(dst + o, src + 1, probes[i].n) || dst[o - 1] || dst[o + probes[i].n]) {
				fprintf(stderr, "probe_%s_%zu copied wrongly to dst+%zu\n",
					nt ? "nt" : "fc", probes[i].n, o);
				bad = 1;
			}
		}
	}
	memset(dst, 0, sizeof(dst));
	probe_fc_var(dst, src, 100);
	probe_drain();
	if (memcmp(dst, src, 100) || dst[100]) {
		fprintf(stderr, "probe_fc_var copied wrongly\n");
		bad = 1;
	}
	return bad;
}
