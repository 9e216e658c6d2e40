#!/bin/sh
# SPDX-License-Identifier: MIT
#
# libpmemobj on the drop-in: tests/pmemobj_client creates a pool and runs
# transactions (allocations, snapshots, frees, aborts, overlapping
# memmoves) with libkflush-pmem.so.1 preloaded and PMEM_IS_PMEM_FORCE=1,
# so libpmemobj takes its pmem paths: pmem_memcpy/memmove/memset with
# flags, pmem_flush, pmem_drain. Its KFLUSH_PMEM_STATS report must show
# those calls. Then it is killed (SIGKILL) in the middle of a transaction
# three times; each time the pool is reopened (recovery), the client's
# invariants are checked and `pmempool check` must call it consistent.
# Exit 77 (skip) without the client (libpmemobj-dev) or pmempool
# (pmdk-tools).
set -u

client=./tests/pmemobj_client
dropin=$(pwd)/pmem/.libs/libkflush-pmem.so.1
if [ ! -x "$client" ]; then
	echo "SKIP: tests/pmemobj_client not built (apt-get install libpmemobj-dev, then configure)"
	exit 77
fi
if ! command -v pmempool >/dev/null 2>&1; then
	echo "SKIP: pmempool not installed (apt-get install pmdk-tools)"
	exit 77
fi
. "$(dirname "$0")/lib.sh"
tl_scratch kflush-pmemobj
pool=$T/pool

preload=$dropin
asan=$(ldd "$dropin" | awk '/libasan/ { print $3 }')
if [ -n "$asan" ]; then
	preload="$asan $dropin"
	export ASAN_OPTIONS=detect_leaks=0
fi

client() {
	LD_PRELOAD="$preload" PMEM_IS_PMEM_FORCE=1 KFLUSH_PMEM_STATS=1 "$client" "$@"
}

check_pool() {
	if ! pmempool check -v "$pool" >"$T/check" 2>&1 || ! grep -q ': consistent$' "$T/check"; then
		fail "$1: pmempool check: $(tail -n 3 "$T/check")"
	else
		echo "ok: $1: pmempool check: $(tail -n 1 "$T/check")"
	fi
}

if ! client run "$pool" 0 300 >"$T/out" 2>"$T/err"; then
	fail "first run: $(cat "$T/err" "$T/out" | head -c 400)"
else
	echo "ok: 300 transactions: $(cat "$T/out")"
	for f in pmem_memcpy pmem_memmove pmem_memset pmem_flush pmem_drain; do
		if ! grep -q "^libkflush-pmem: $f [1-9][0-9]* calls" "$T/err"; then
			fail "libpmemobj made no $f call through the drop-in"
		fi
	done
	echo "ok: libpmemobj called through the drop-in:" \
		"$(awk '$1 == "libkflush-pmem:" && $3 ~ /^[0-9]+$/ { printf "%s %s, ", $2, $3 }' "$T/err")"
fi
check_pool "after a clean run"

# Killed inside transaction K; done must then be K (the torn one rolled back).
first=300
for k in 17 123 250; do
	client run "$pool" $first 1000 $((first + k)) >"$T/out" 2>"$T/err"
	rc=$?
	if [ $rc -ne 137 ]; then
		fail "crash run at $((first + k)): exit $rc, expected 137 (SIGKILL)"
		continue
	fi
	if ! client verify "$pool" >"$T/out" 2>"$T/err"; then
		fail "reopen after a kill in transaction $((first + k)): $(cat "$T/err" "$T/out" | head -c 400)"
		continue
	fi
	if ! grep -q "^consistent: $((first + k)) transactions done" "$T/out"; then
		fail "after a kill in transaction $((first + k)): $(cat "$T/out")"
	else
		echo "ok: killed in transaction $((first + k)), reopened: $(cat "$T/out")"
	fi
	check_pool "after the kill in transaction $((first + k))"
	first=$((first + k))
done

exit $((fails != 0))
