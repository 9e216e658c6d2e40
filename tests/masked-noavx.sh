#!/bin/sh
# SPDX-License-Identifier: MIT
# The flush-family sweeps and the persistence proof without AVX2, AVX-512
# and MOVDIR64B (movnti bound).
exec "${srcdir:-.}/tests/run-masked.sh" -avx512f,-avx2,-movdir64b \
	tests/test_flushcache tests/test_flush_rec tests/test_persistence
