#!/bin/sh
# SPDX-License-Identifier: MIT
#
# libkflush-pmem's PMEM_NO_FLUSH, as PMDK's libpmem reads it: once, in its
# constructor, from the environment the program started with. So
# tests/test_pmem_noflush, which links the drop-in as a client does, is
# started once per setting:
#  - PMEM_NO_FLUSH=1: PMDK never flushes; every libpmem call traced with
#    flushing off, and libkflush-pmem2's byte granularity, which copies the
#    same way;
#  - PMEM_NO_FLUSH=0: PMDK always flushes, eADR or not;
#  - unset, empty, "yes", "01", " 1", "true": pmem_init() compares with
#    "0" and "1" only, so these leave it to pmem_has_auto_flush(), this
#    host's answer, which the program asks the real libpmem for.
# KFLUSH_TEST_PMEM_FLUSH is this script's reading of PMDK's rule where the
# host does not matter; the program checks the real libpmem, traced in the
# same environment, against it. tests/test_pmem_eadr.sh has the eADR cases.
# Exit 77 (skip) when the tracer cannot run (KFLUSH_TEST_ALLOW_NO_TRACE=1).
set -u

prog=tests/test_pmem_noflush
if [ ! -x "$prog" ]; then
	echo "FAIL: $prog not built"
	exit 99
fi
. "$(dirname "$0")/lib.sh"
tl_scratch kflush-noflush

skip=0
# run LABEL [VAR=VALUE...] -- [ARGS...]: the program in a clean environment plus those.
run() {
	label=$1
	shift
	set -- env -u PMEM_NO_FLUSH -u KFLUSH_TEST_PMEM_FLUSH -u KFLUSH_TEST_AUTO_FLUSH "$@"
	n=$((n + 1))
	"$@" >"$T/out" 2>&1
	case $? in
	0) echo "ok: $label: $(tail -n 1 "$T/out")" ;;
	77) skip=77; echo "SKIP: $label: $(grep -m 1 'no tracer' "$T/out")" ;;
	*) cat "$T/out"; fail "$label" ;;
	esac
}

run "PMEM_NO_FLUSH=1, flushing off" PMEM_NO_FLUSH=1 KFLUSH_TEST_PMEM_FLUSH=0 "$prog"
run "PMEM_NO_FLUSH=0, flushing on" PMEM_NO_FLUSH=0 KFLUSH_TEST_PMEM_FLUSH=1 "$prog" \
	--filter '!(pmem2_byte)/*'
run "PMEM_NO_FLUSH unset, this host's eADR" "$prog" --filter '!(pmem2_byte)/*'
for v in "" yes 01 " 1" true; do
	run "PMEM_NO_FLUSH='$v', as unset" PMEM_NO_FLUSH="$v" "$prog" --filter 'mode/*'
done

if [ "$fails" -gt 0 ]; then
	echo "$fails of $n runs failed"
	exit 1
fi
exit "$skip"
