#!/bin/sh
# SPDX-License-Identifier: MIT
# The flush-family sweeps and the persistence proof with clflush as the write-back.
exec "${srcdir:-.}/tests/run-masked.sh" -clwb,-clflushopt \
	tests/test_flushcache tests/test_flush_rec tests/test_persistence
