#!/bin/sh
# SPDX-License-Identifier: MIT
# The persistence proof of every variant, and the write-back checks, with
# clflushopt as the bound write-back (the variants' edges go through it).
run() { "${srcdir:-.}/tests/run-masked.sh" -clwb "$@"; }
run tests/test_persistence &&
run tests/test_flush_rec &&
run tests/test_flushcache --filter='flushcache/kflush_*'
