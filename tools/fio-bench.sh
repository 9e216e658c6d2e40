#!/bin/sh
# SPDX-License-Identifier: MIT
#
# PMDK's libpmem against the libkflush-pmem drop-in, side by side: fio's
# libpmem engine write bandwidth at bs 256, 4k, 64k and 1m, direct=0 and 1,
# and libpmemobj transactions per second (tests/pmemobj_client bench).
# Rounds interleave the two (real, drop-in; then drop-in, real; ...) and
# the table gives medians, the spread and the drop-in/libpmem ratio. A
# measurement, not a test: nothing passes or fails on a number.
#
#   tools/fio-bench.sh BUILDDIR        (or: make bench-pmem)
#
# KFLUSH_BENCH_ROUNDS (3), KFLUSH_BENCH_RUNTIME (seconds per point, 2),
# KFLUSH_BENCH_SIZE (the file, 256m: larger than any L3 here) and
# KFLUSH_BENCH_DIR (/dev/shm: DRAM stands in for pmem, with
# PMEM_IS_PMEM_FORCE=1) change the defaults.
# Exit 0 measured, 1 a run failed, 2 usage; 77 without fio.
set -u

if [ $# -ne 1 ] || [ ! -d "$1" ]; then
	echo "usage: $0 BUILDDIR" >&2
	exit 2
fi
b=$(cd "$1" && pwd)
rounds=${KFLUSH_BENCH_ROUNDS:-3}
runtime=${KFLUSH_BENCH_RUNTIME:-2}
size=${KFLUSH_BENCH_SIZE:-256m}
dir=${KFLUSH_BENCH_DIR:-/dev/shm}
dropin=$b/pmem/.libs/libkflush-pmem.so.1
client=$b/tests/pmemobj_client
case "$rounds$runtime" in
*[!0-9]*) echo "$0: KFLUSH_BENCH_ROUNDS and KFLUSH_BENCH_RUNTIME must be whole numbers" >&2; exit 2 ;;
esac
if ! command -v fio >/dev/null 2>&1; then
	echo "fio-bench: SKIPPED: fio is not installed (apt-get install fio)"
	exit 77
fi
if [ ! -f "$dropin" ]; then
	echo "fio-bench: $dropin not built (make -C $b)" >&2
	exit 1
fi
T=$(mktemp -d "$dir/kflush-fio-bench.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM

# with LIB CMD...: run CMD on PMDK's libpmem (real) or the drop-in.
with() {
	lib=$1
	shift
	if [ "$lib" = dropin ]; then
		LD_PRELOAD=$dropin PMEM_IS_PMEM_FORCE=1 "$@"
	else
		PMEM_IS_PMEM_FORCE=1 "$@"
	fi
}

# fio_gbs LIB BS DIRECT: write bandwidth in GB/s (terse v3 field 48, KiB/s).
fio_gbs() {
	with "$1" fio --name=bench --ioengine=libpmem --filename="$T/file" --size="$size" \
		--bs="$2" --direct="$3" --rw=write --thread --time_based --runtime="$runtime" \
		--buffer_pattern=0x5aa5c33c --output-format=terse >"$T/out" 2>&1 || return 1
	awk -F';' 'NF > 48 { printf "%.2f\n", $48 * 1024 / 1e9; ok = 1 } END { exit !ok }' "$T/out"
}

tx_s() {
	rm -f "$T/pool"
	with "$1" "$client" bench "$T/pool" "$runtime" >"$T/out" 2>&1 || return 1
	awk '$1 == "tx/s" { print $2; ok = 1 } END { exit !ok }' "$T/out"
}

# median, min and max of the numbers on stdin.
stats() {
	sort -g | awk '{ v[NR] = $1 } END {
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%s %s %s\n", m, v[1], v[NR] }'
}

# point NAME CMD...: interleaved rounds of CMD real / CMD dropin; one row.
point() {
	name=$1
	shift
	: >"$T/real"
	: >"$T/dropin"
	r=0
	while [ $r -lt "$rounds" ]; do
		order="real dropin"
		[ $((r % 2)) -eq 1 ] && order="dropin real"
		for lib in $order; do
			if ! v=$("$@" $lib); then
				echo "fio-bench: $name on $lib failed: $(tail -n 3 "$T/out")" >&2
				return 1
			fi
			echo "$v" >>"$T/$lib"
		done
		r=$((r + 1))
	done
	set -- $(stats <"$T/real") $(stats <"$T/dropin")
	awk -v n="$name" -v rm="$1" -v rl="$2" -v rh="$3" -v dm="$4" -v dl="$5" -v dh="$6" 'BEGIN {
		printf "%-22s %9s (%s-%s) %9s (%s-%s)  %5.2f\n", n, rm, rl, rh, dm, dl, dh, dm / rm }'
}
bw() { fio_gbs "$3" "$1" "$2"; }
tx() { tx_s "$1"; }

cpu=$(sed -n 's/^model name[ \t]*: //p' /proc/cpuinfo | head -n 1)
echo "libpmem (PMDK $(dpkg-query -W -f '${Version}' libpmem1 2>/dev/null || echo '?')) vs libkflush-pmem, $(fio --version)"
echo "CPU: $cpu, $(nproc) CPUs online, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "DRAM stands in for pmem: $size file in $dir, PMEM_IS_PMEM_FORCE=1;"
echo "$rounds interleaved rounds x $runtime s per point; median (min-max); ratio = drop-in / libpmem"
echo
printf "%-22s %-22s %-22s %s\n" "fio write, GB/s" "libpmem" "drop-in" "ratio"
fails=0
for direct in 0 1; do
	for bs in 256 4k 64k 1m; do
		point "bs=$bs direct=$direct" bw $bs $direct || fails=1
	done
done
if [ -x "$client" ]; then
	echo
	printf "%-22s %-22s %-22s %s\n" "libpmemobj" "libpmem" "drop-in" "ratio"
	point "transactions/s" tx || fails=1
else
	echo "libpmemobj: $client not built (needs libpmemobj-dev; make -C $b tests/pmemobj_client)"
fi
exit $fails
