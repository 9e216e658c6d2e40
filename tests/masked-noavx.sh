#!/bin/sh
# SPDX-License-Identifier: MIT
# The flush-copy entry points bound as on a CPU without AVX2, AVX-512 and
# MOVDIR64B (movnti): data sweep and persistence proof. The variants
# themselves are swept unmasked.
run() { "${srcdir:-.}/tests/run-masked.sh" -avx512f,-avx2,-movdir64b "$@"; }
run tests/test_flushcache --filter='flushcache/kflush_*' &&
run tests/test_persistence --filter='persistence/@(entry_points|memcpy_persist_fences_once)'
