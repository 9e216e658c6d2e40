#!/bin/sh
# SPDX-License-Identifier: MIT
# The persistence proof of every flush-copy and flush variant, with
# clflush as the bound write-back (the variants' edges go through it).
run() { "${srcdir:-.}/tests/run-masked.sh" -clwb,-clflushopt "$@"; }
run tests/test_persistence &&
run tests/test_flushcache --filter='flushcache/kflush_*' &&
run tests/test_move_persistence &&
run tests/test_flags_persistence
