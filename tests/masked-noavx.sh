#!/bin/sh
# SPDX-License-Identifier: MIT
# The flush-copy entry points bound as on a CPU without AVX2, AVX-512 and
# MOVDIR64B (movnti), then with only the kernel-port baselines left: data
# sweep and persistence proof. The variants themselves are swept unmasked.
# A program's 77 (no tracer, KFLUSH_TEST_ALLOW_NO_TRACE=1) does not stop the
# others, and makes the script's status 77 too: the proof did not run.
. "$(dirname "$0")/lib.sh"
run() {
	mask=$1
	shift
	tl_masked "$mask" tests/test_flushcache --filter='flushcache/kflush_*' &&
	tl_masked "$mask" tests/test_persistence \
		--filter='persistence/@(entry_points|memcpy_persist_fences_once)' &&
	tl_masked "$mask" tests/test_memmove --filter='memmove/kflush_*' &&
	tl_masked "$mask" tests/test_move_persistence \
		--filter='move_persistence/entry_point'
}
run -avx512f,-avx2,-movdir64b &&
run -avx512f,-avx2,-movdir64b,-sse2,-clwb,-clflushopt &&
exit $tl_skip
