#!/bin/sh
# SPDX-License-Identifier: MIT
# The persistence proof of every flush-copy and flush variant, with
# clflush as the bound write-back (the variants' edges go through it).
# A program's 77 (no tracer, KFLUSH_TEST_ALLOW_NO_TRACE=1) does not stop the
# others, and makes the script's status 77 too: the proof did not run.
. "$(dirname "$0")/lib.sh"
run() { tl_masked -clwb,-clflushopt "$@"; }
run tests/test_persistence &&
run tests/test_flushcache --filter='flushcache/kflush_*' &&
run tests/test_move_persistence &&
run tests/test_flags_persistence &&
exit $tl_skip
