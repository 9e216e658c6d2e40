/* SPDX-License-Identifier: MIT */
/* The roof strategies built for one ISA each (roof_avx2.c, roof_avx512.c). */
#ifndef PMEMTEST_ROOF_ISA_H
#define PMEMTEST_ROOF_ISA_H

#include <stddef.h>

void roof_avx2_copy(void *dst, const void *src, size_t len);
void roof_avx2_fill(void *dst, size_t len, const void *pattern);
void roof_avx512_copy(void *dst, const void *src, size_t len);
void roof_avx512_fill(void *dst, size_t len, const void *pattern);

#endif /* PMEMTEST_ROOF_ISA_H */
