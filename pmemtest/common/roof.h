/* SPDX-License-Identifier: MIT */
/* The machine's roofs: what plain stores of the same bytes reach, same run. */
#ifndef PMEMTEST_ROOF_H
#define PMEMTEST_ROOF_H

#include <stddef.h>
#include <stdint.h>

/*
 * The machine's own roof: bytes/second of plain 64-byte non-temporal stores
 * of `pattern` (64 bytes, non-zero, the same data the contender writes) over
 * [dst, dst+len), len a multiple of 64, dst 64-byte aligned; one sfence at
 * the end. Returns elapsed ns.
 */
uint64_t roof_nt_fill_timed(void *dst, size_t len, const void *pattern);
/* The same stores, untimed and unfenced, for batches. */
void roof_nt_fill(void *dst, size_t len, const void *pattern);
/* The same with the widest NT store (64 B zmm, else 2 x 32 B ymm); returns
 * its name. Untimed, unfenced. */
const char *roof_nt_fill_wide(void *dst, size_t len, const void *pattern);

/*
 * The copy roof: a plain streaming copy of [src, src+len) to dst with the
 * widest non-temporal store the CPU has (AVX-512, else AVX2, else movnti),
 * unaligned loads batched into registers (32 lines with AVX-512, 8 with
 * AVX2) before the stores, one sfence at the end. dst 64-byte
 * aligned, len a multiple of 64. Returns elapsed ns.
 */
uint64_t roof_nt_copy_timed(void *dst, const void *src, size_t len);
/* Name of the store roof_nt_copy_timed() uses on this CPU ("avx512", ...). */
const char *roof_nt_copy_name(void);
/* The same copy, untimed and unfenced, for batches of calls. */
void roof_nt_copy(void *dst, const void *src, size_t len);

/* The clear roof: one rep stosb of zero over [dst, dst+len). Returns ns. */
uint64_t roof_rep_stosb_timed(void *dst, size_t len);
/* The same, untimed. */
void roof_rep_stosb(void *dst, size_t len);

#endif /* PMEMTEST_ROOF_H */
