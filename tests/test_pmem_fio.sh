#!/bin/sh
# SPDX-License-Identifier: MIT
#
# A real libpmem client on the drop-in: fio's libpmem engine (Debian's fio
# 3.33) writes a file with PMEM_IS_PMEM_FORCE=1 and verifies every block
# with crc32c, at several block sizes, direct=0 and 1, in threads, with
# libkflush-pmem.so.1 preloaded. Proof that the drop-in's copies ran, not
# libpmem's: its KFLUSH_PMEM_STATS report must count exactly the writes
# fio's job makes (size / bs per job) and their bytes. Then the drop-in put
# first in the library path as libpmem.so.1, LD_DEBUG=bindings showing fio
# bound to it, and a drop-in told to forward to itself refusing to.
# Exit 77 (skip) without fio.
set -u

if ! command -v fio >/dev/null 2>&1; then
	echo "SKIP: fio is not installed (apt-get install fio)"
	exit 77
fi
dropin=$(pwd)/pmem/.libs/libkflush-pmem.so.1
if [ ! -f "$dropin" ]; then
	echo "FAIL: $dropin not built"
	exit 99
fi
. "$(dirname "$0")/lib.sh"
tl_scratch kflush-fio
# fio drops state files in its working directory: not in the build tree.
cd "$T" || exit 99

# A sanitizer build of the drop-in needs its runtime first in the preload
# list (preloaded alone when the drop-in comes from the library path); fio
# itself is not ours to leak-check.
preload=$dropin
asan=$(ldd "$dropin" | awk '/libasan/ { print $3 }')
if [ -n "$asan" ]; then
	preload="$asan $dropin"
	export ASAN_OPTIONS=detect_leaks=0
fi

size=$((4 * 1024 * 1024))
# run_fio OUT ARGS...: fio under the drop-in with its counters on; stderr
# to OUT.err. Each job writes its own file in $T/d.
run_fio() {
	out=$1
	shift
	rm -rf "$T/d" && mkdir "$T/d" || exit 99
	LD_PRELOAD="$preload" PMEM_IS_PMEM_FORCE=1 KFLUSH_PMEM_STATS=1 \
		fio --name=job --ioengine=libpmem --directory="$T/d" --size=$size \
		--rw=write --verify=crc32c --verify_fatal=1 --verify_state_save=0 --thread \
		--output-format=terse "$@" >"$out" 2>"$out.err"
}

# count OUT REGEX: calls and bytes summed over the drop-in's report lines.
count() {
	awk -v re="$2" '$1 == "libkflush-pmem:" && $2 ~ re { c += $3; b += $5 }
		END { printf "%d %d\n", c, b }' "$1.err"
}

o=$T/out
for bs in 256 4096 65536 1048576; do
	# direct=0 and 1 in one thread, and direct=1 in two.
	for mode in "0 1" "1 1" "1 2"; do
		direct=${mode% *} jobs=${mode#* }
		name="bs=$bs direct=$direct numjobs=$jobs"
		run_fio "$o" --bs=$bs --direct=$direct --numjobs=$jobs
		rc=$?
		if [ $rc -ne 0 ]; then
			fail "$name: fio exited $rc: $(head -c 400 "$o.err")"
			continue
		fi
		got=$(count "$o" '^pmem_memcpy')
		want="$((jobs * size / bs)) $((jobs * size))"
		if [ "$got" != "$want" ]; then
			fail "$name: drop-in counted '$got' pmem_memcpy calls/bytes, fio's job writes '$want'"
			continue
		fi
		echo "ok: $name: '$got' pmem_memcpy calls/bytes through libkflush-pmem, crc32c verified"
	done
done

# The drop-in first in the library path under libpmem's name: fio's own
# symbol lookups must bind to it (the dynamic linker says so), and the
# mapping calls still reach PMDK's libpmem.
mkdir "$T/lib" && ln -s "$dropin" "$T/lib/libpmem.so.1" || exit 99
rm -rf "$T/d" && mkdir "$T/d" || exit 99
LD_PRELOAD=$asan LD_LIBRARY_PATH=$T/lib LD_DEBUG=bindings PMEM_IS_PMEM_FORCE=1 KFLUSH_PMEM_STATS=1 \
	fio --name=job --ioengine=libpmem --directory="$T/d" --size=1m --bs=64k --rw=write \
	--verify=crc32c --verify_fatal=1 --verify_state_save=0 --thread --output-format=terse >"$o" 2>"$o.err"
rc=$?
if [ $rc -ne 0 ]; then
	fail "library path: fio exited $rc"
elif ! grep -q "binding file fio \[0\] to $T/lib/libpmem.so.1 \[0\]: normal symbol \`pmem_memcpy' \[LIBPMEM_1.0\]" "$o.err"; then
	fail "library path: LD_DEBUG=bindings shows no pmem_memcpy@LIBPMEM_1.0 bound to the drop-in"
elif [ "$(count "$o" '^pmem_map_file$')" = "0 0" ]; then
	fail "library path: pmem_map_file did not go through the drop-in"
else
	echo "ok: as libpmem.so.1 in the library path: fio binds pmem_memcpy@LIBPMEM_1.0 to the drop-in"
fi

# Told that the real libpmem is the drop-in itself, it must refuse to
# forward (and say why) rather than recurse.
rm -rf "$T/d" && mkdir "$T/d" || exit 99
LD_PRELOAD=$asan KFLUSH_PMEM_LIBPMEM=$T/lib/libpmem.so.1 LD_LIBRARY_PATH=$T/lib \
	PMEM_IS_PMEM_FORCE=1 \
	fio --name=job --ioengine=libpmem --directory="$T/d" --size=1m --bs=64k --rw=write \
	--thread --output-format=terse >"$o" 2>"$o.err"
if ! grep -q "is libkflush-pmem itself, not PMDK's libpmem" "$o.err" "$o"; then
	fail "self-forwarding: no refusal message"
else
	echo "ok: a drop-in pointed at itself refuses to forward"
fi

exit $((fails != 0))
