#!/bin/sh
# SPDX-License-Identifier: MIT
#
# libkflush-pmem on eADR, which this machine does not have. PMDK 1.12's
# pmem_has_auto_flush() (libpmem2/auto_flush_linux.c) is 1 only when every
# entry of /sys/bus/nd/devices that is a symlink named region* has a
# persistence_domain reading "cpu_cache\n", and 0 with no region at all;
# pmem_init() then does not flush unless PMEM_NO_FLUSH=0, and PMEM_NO_FLUSH=1
# never flushes. Each case runs tests/test_pmem_noflush in a mount
# namespace of its own (unshare -m: private propagation) with a tmpfs over
# /sys/bus/nd (over /sys/bus where there is no nd bus) holding a fake
# layout; the host's /sys is never touched. The program checks the real
# libpmem's answer and behaviour against this script's reading of PMDK,
# then the drop-in's against them.
# Exit 77 (skip) when not root, without unshare(1), when the namespace or
# the mount is refused, or when the tracer cannot run.
set -u

if [ "${1-}" = --inside ]; then
	# In the namespace: --inside LAYOUT PROGRAM ARGS...
	layout=$2
	shift 2
	if [ -d /sys/bus/nd ]; then
		nd=/sys/bus/nd
		mount -t tmpfs kflush-fake-nd "$nd" || exit 77
	else
		mount -t tmpfs kflush-fake-bus /sys/bus || exit 77
		nd=/sys/bus/nd
	fi
	mkdir -p "$nd/devices" "$nd/fake" || exit 99
	# region NAME DOMAIN: sysfs's shape, a symlink to the region's directory.
	region() {
		mkdir "$nd/fake/$1" && ln -s "../fake/$1" "$nd/devices/$1" &&
			echo "$2" >"$nd/fake/$1/persistence_domain" || exit 99
	}
	case $layout in
	eadr) region region0 cpu_cache ;;
	eadr2) region region0 cpu_cache; region region1 cpu_cache ;;
	mixed) region region0 cpu_cache; region region1 memory_controller ;;
	adr) region region0 memory_controller ;;
	none) ;;
	*) echo "unknown layout $layout"; exit 99 ;;
	esac
	exec "$@"
fi

prog=tests/test_pmem_noflush
if [ ! -x "$prog" ]; then
	echo "FAIL: $prog not built"
	exit 99
fi
if [ "$(id -u)" != 0 ]; then
	echo "SKIP: not root: a fake /sys/bus/nd needs a mount namespace"
	exit 77
fi
if ! command -v unshare >/dev/null 2>&1; then
	echo "SKIP: unshare not found (apt-get install util-linux)"
	exit 77
fi
if ! unshare -m true 2>/dev/null; then
	echo "SKIP: unshare -m refused here"
	exit 77
fi
. "$(dirname "$0")/lib.sh"
tl_scratch kflush-eadr

skip=0
# run LAYOUT AUTO_FLUSH FLUSH [VAR=VALUE...] [-- ARGS]: one program run in the fake sysfs.
run() {
	layout=$1 auto=$2 flush=$3
	shift 3
	label="$layout, $*"
	n=$((n + 1))
	unshare -m sh "$0" --inside "$layout" env -u PMEM_NO_FLUSH KFLUSH_TEST_AUTO_FLUSH="$auto" \
		KFLUSH_TEST_PMEM_FLUSH="$flush" "$@" >"$T/out" 2>&1
	case $? in
	0) echo "ok: $label: $(tail -n 1 "$T/out")" ;;
	77) skip=77; echo "SKIP: $label: $(tail -n 1 "$T/out")" ;;
	*) cat "$T/out"; fail "$label" ;;
	esac
}

# Every call with flushing off, reached through eADR alone.
run eadr 1 0 "$prog" --filter '!(pmem2_byte)/*'
for layout in eadr eadr2 mixed adr none; do
	case $layout in eadr*) auto=1 ;; *) auto=0 ;; esac
	run "$layout" "$auto" $((1 - auto)) "$prog" --filter 'mode/*'
	run "$layout" "$auto" $((1 - auto)) PMEM_NO_FLUSH=yes "$prog" --filter 'mode/*'
	run "$layout" "$auto" 1 PMEM_NO_FLUSH=0 "$prog" --filter 'mode/*'
	run "$layout" "$auto" 0 PMEM_NO_FLUSH=1 "$prog" --filter 'mode/*'
done

if [ "$fails" -gt 0 ]; then
	echo "$fails of $n runs failed"
	exit 1
fi
exit "$skip"
