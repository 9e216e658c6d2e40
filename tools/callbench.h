/* SPDX-License-Identifier: MIT */
/* The symbols tools/callbench_lib.c exports to tools/callbench.c. */
#ifndef CALLBENCH_H
#define CALLBENCH_H

#include <stddef.h>

typedef void (*copy_fn)(void *dst, const void *src, size_t n);

void cb_slot_copy64(void *dst, const void *src, size_t n);
void cb_slot_kflush(void *dst, const void *src, size_t n);
void cb_direct_copy64(void *dst, const void *src, size_t n);
void cb_ifunc_copy64(void *dst, const void *src, size_t n);
void cb_ifunc_kflush(void *dst, const void *src, size_t n);
extern copy_fn cb_ptr_copy64;
extern copy_fn cb_ptr_kflush;

#endif
