/* SPDX-License-Identifier: MIT */
/* The roof strategies built for one ISA each (roof_avx2.c, roof_avx512.c). */
#ifndef PMEMTEST_ROOF_ISA_H
#define PMEMTEST_ROOF_ISA_H

#include <stddef.h>

void roof_avx2_copy(void *dst, const void *src, size_t len);
void roof_avx2_fill(void *dst, size_t len, const void *pattern);
void roof_avx512_copy(void *dst, const void *src, size_t len);
void roof_avx512_fill(void *dst, size_t len, const void *pattern);
/* Two streams: the two halves' lines in turn (roof.c, ROOF_TWO_STREAMS_MIN). */
void roof_avx2_x2_copy(void *dst, const void *src, size_t len);
void roof_avx512_x2_copy(void *dst, const void *src, size_t len);

#endif /* PMEMTEST_ROOF_ISA_H */
