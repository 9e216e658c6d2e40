#!/bin/sh
# SPDX-License-Identifier: MIT
# The flush-family sweeps and the persistence proof with clflushopt as the write-back.
exec "${srcdir:-.}/tests/run-masked.sh" -clwb \
	tests/test_flushcache tests/test_flush_rec tests/test_persistence
