#!/bin/sh
# SPDX-License-Identifier: MIT
# Run the memcpy and page tests with features masked, so each variant
# family gets bound (not only called directly) at least once. The "bound"
# tests assert the precedence against the masked feature set, and that
# KFLUSH_HWCAPS really masked what it names; "entry_points" runs the
# exported page functions through what was bound (memcpy's "bound" test
# does that itself). The sweeps are left out: they call every usable
# variant directly and ran unmasked already.
status=0
run() {
	"${srcdir:-.}/tests/run-masked.sh" "$caps" "$@" || status=1
}
for caps in "-fsrm" "-fsrm,-erms,-avx512f" "-erms,-rep_good,-avx512f,-avx2"; do
	run ./tests/test_memcpy --verbose --filter '*/bound'
	run ./tests/test_pages --verbose --filter '*/bound'
	run ./tests/test_pages --filter '*/entry_points'
done
exit $status
