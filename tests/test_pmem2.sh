#!/bin/sh
# SPDX-License-Identifier: MIT
#
# libkflush-pmem2.so.1, the drop-in for PMDK's libpmem2.so.1, under a real
# libpmem2 client (tests/pmem2_client: pmem2_map_new on a file, every
# pmem2_get_*_fn function with every PMEM2_F_MEM_* flag, bytes checked in
# the map and in the file), at each store granularity PMEM2_FORCE_GRANULARITY
# gives the map:
#  - its ABI is the real library's (objdump -T, symbols and version node);
#  - the client's six function pointers lie in the drop-in (dladdr), and its
#    KFLUSH_PMEM_STATS report counts those functions at the map's
#    granularity and at no other;
#  - the msync calls strace sees, phase by phase, are exactly those the
#    real libpmem2 makes for the same client (and, from PMDK's persist.c:
#    some in every flushing phase at page granularity, none at cache-line
#    or byte granularity);
#  - write-back versus fence only (cache line versus byte) shows here as
#    the flavour the counters name; tests/test_pmem2_persistence traces the
#    instructions;
#  - put first in the library path as libpmem2.so.1 it is what the client
#    binds to, and what the real libpmem2's own calls to the getters bind
#    to, and pointed at itself it refuses to forward.
# Exit 77 (skip) without the real libpmem2, strace (or ptrace) or objdump.
set -u

dropin=$(pwd)/pmem/.libs/libkflush-pmem2.so.1
client=$(pwd)/tests/pmem2_client
real=$(sed -n 's/^#define KFLUSH_LIBPMEM2_PATH "\(.*\)"$/\1/p' config.h)
for tool in strace objdump; do
	if ! command -v $tool >/dev/null 2>&1; then
		echo "SKIP: $tool not found (apt-get install $tool)"
		exit 77
	fi
done
if ! strace -o /dev/null true 2>/dev/null; then
	echo "SKIP: strace cannot trace here (ptrace refused)"
	exit 77
fi
if [ -z "$real" ] || [ ! -f "$real" ]; then
	echo "SKIP: the real libpmem2.so.1 ('$real') is not installed (apt-get install libpmem2)"
	exit 77
fi
if [ ! -f "$dropin" ] || [ ! -x "$client" ]; then
	echo "FAIL: $dropin or $client not built"
	exit 99
fi
. "$(dirname "$0")/lib.sh"
tl_scratch kflush-pmem2

# A sanitizer build of the drop-in needs its runtime first in the preload list.
preload=$dropin
asan=$(ldd "$dropin" | awk '/libasan/ { print $3 }')
if [ -n "$asan" ]; then
	preload="$asan $dropin"
	export ASAN_OPTIONS=detect_leaks=0
fi

defined() {
	objdump -T "$1" | awk '/ D[FO] / && index($0, "*UND*") == 0 { print $(NF-1), $NF }' | sort
}
defined "$real" >"$T/abi.real"
defined "$dropin" >"$T/abi.dropin"
if ! readelf -d "$dropin" | grep -q 'Library soname: \[libkflush-pmem2.so.1\]'; then
	fail "soname is not libkflush-pmem2.so.1"
elif [ ! -s "$T/abi.real" ]; then
	fail "no symbols read from $real"
elif ! diff -u "$T/abi.real" "$T/abi.dropin"; then
	fail "the drop-in's symbols differ from $real (- libpmem2, + drop-in)"
else
	echo "ok: ABI: $(wc -l <"$T/abi.real") symbols as in $real"
fi

# msyncs OUT: "phase count" for every phase the client announced, in order.
msyncs() {
	awk '/write\(-1, "kflush-phase / {
			sub(/.*"kflush-phase /, ""); sub(/".*/, ""); p = $0
			if (!(p in n)) { order[k++] = p; n[p] = 0 }
		}
		/msync\(/ && p != "" { n[p]++ }
		END { for (i = 0; i < k; i++) printf "%s %d\n", order[i], n[order[i]] }' "$1"
}

for gran in PAGE CACHE_LINE BYTE; do
	g=$(echo $gran | tr 'A-Z' 'a-z')
	f=$T/file.$g
	# The real libpmem2: the reference for the msyncs.
	if ! PMEM2_FORCE_GRANULARITY=$gran strace -f -qq -e trace=msync,write -o "$T/st.real.$g" \
	    "$client" "$f" >"$T/out.real.$g" 2>&1; then
		fail "$g: the client fails on the real libpmem2: $(tail -3 "$T/out.real.$g")"
		continue
	fi
	LD_PRELOAD="$preload" KFLUSH_PMEM_STATS=1 PMEM2_FORCE_GRANULARITY=$gran \
		strace -f -qq -e trace=msync,write -o "$T/st.drop.$g" \
		"$client" "$f" >"$T/out.drop.$g" 2>&1
	rc=$?
	o=$T/out.drop.$g
	if [ $rc -ne 0 ]; then
		fail "$g: the client exited $rc under the drop-in: $(grep -m3 -v '^libkflush' "$o")"
		continue
	fi
	if ! grep -qx "granularity: $g" "$o"; then
		fail "$g: the map's granularity is not $g: $(grep granularity "$o")"
		continue
	fi
	echo "ok: $g: bytes right in the map and the file under the drop-in"
	# Every pointer in the drop-in, whatever path the loader gave it.
	n=$(grep -c "^[a-z]*_fn: $dropin\$" "$o")
	if [ "$n" -ne 6 ]; then
		fail "$g: $n of the 6 pmem2_get_*_fn pointers lie in the drop-in: $(grep '_fn:' "$o" | tr '\n' ' ')"
	else
		echo "ok: $g: all 6 returned functions lie in $dropin (dladdr)"
	fi
	# Its counters: each of the six at this granularity, none at another.
	for fn in memcpy_fn memmove_fn memset_fn persist_fn flush_fn drain_fn; do
		c=$(awk -v k="$fn/$g" '$1 == "libkflush-pmem2:" && $2 == k { print $3 }' "$o")
		if [ -z "$c" ] || [ "$c" -eq 0 ]; then
			fail "$g: KFLUSH_PMEM_STATS counts no $fn/$g call"
		fi
	done
	other=$(awk -v g="$g" '$1 == "libkflush-pmem2:" && $2 ~ /_fn\// && $2 !~ "/" g "$"' "$o")
	if [ -n "$other" ]; then
		fail "$g: functions of another granularity ran: $other"
	else
		echo "ok: $g: KFLUSH_PMEM_STATS: $(awk -v k="memcpy_fn/$g" '$2 == k { print $3 }' "$o") memcpy_fn/$g calls, none of another granularity"
	fi
	msyncs "$T/st.real.$g" >"$T/ms.real.$g"
	msyncs "$T/st.drop.$g" >"$T/ms.drop.$g"
	total=$(awk '{ s += $NF } END { print s + 0 }' "$T/ms.drop.$g")
	if ! diff -u "$T/ms.real.$g" "$T/ms.drop.$g" >"$T/ms.diff"; then
		fail "$g: msyncs per phase differ from the real libpmem2's (- real, + drop-in): $(grep '^[-+][a-z]' "$T/ms.diff" | head -6 | tr '\n' ' ')"
	elif [ "$g" = page ]; then
		# PMDK: persist, flush and every copy without NOFLUSH msync; drain does not.
		bad=$(awk '($1 ~ /^mem/ && $0 !~ /NOFLUSH/ || $1 == "persist" || $1 == "flush") && $NF == 0 ||
			($0 ~ /NOFLUSH/ || $1 == "drain") && $NF != 0' "$T/ms.drop.$g")
		if [ -n "$bad" ]; then
			fail "page: msyncs in the wrong phases: $(echo "$bad" | tr '\n' ' ')"
		else
			echo "ok: page: $total msyncs, phase by phase as the real libpmem2's (none for NOFLUSH or drain)"
		fi
	elif [ "$total" -ne 0 ]; then
		fail "$g: $total msyncs, want none"
	else
		echo "ok: $g: no msync, as with the real libpmem2"
	fi
done

# First in the library path under libpmem2's name: the client binds to it,
# and so do the real libpmem2's own calls to the getters (its synchronous
# data mover's, behind pmem2_memcpy_async), though it was opened
# RTLD_LOCAL: the dynamic linker says so (libkflush-pmem2(7)).
mkdir "$T/lib" && ln -s "$dropin" "$T/lib/libpmem2.so.1" || exit 99
LD_PRELOAD=$asan LD_LIBRARY_PATH=$T/lib PMEM2_FORCE_GRANULARITY=CACHE_LINE \
	LD_BIND_NOW=1 LD_DEBUG=bindings LD_DEBUG_OUTPUT=$T/bind \
	"$client" "$T/file.lp" >"$T/out.lp" 2>&1
rc=$?
cat "$T"/bind.* >"$T/bind" 2>/dev/null
if [ $rc -ne 0 ]; then
	fail "library path: the client exited $rc: $(head -3 "$T/out.lp")"
elif [ "$(grep -c "^[a-z]*_fn: $T/lib/libpmem2.so.1\$" "$T/out.lp")" -ne 6 ]; then
	fail "library path: the functions are not the drop-in's: $(grep '_fn:' "$T/out.lp" | tr '\n' ' ')"
else
	echo "ok: as libpmem2.so.1 first in the library path, the client runs on the drop-in"
fi
unbound=
for fn in memcpy memmove memset persist; do
	grep -qF "binding file $real [0] to $T/lib/libpmem2.so.1 [0]: normal symbol \`pmem2_get_${fn}_fn' [LIBPMEM2_1.0]" \
		"$T/bind" || unbound="$unbound pmem2_get_${fn}_fn"
done
if [ -n "$unbound" ]; then
	fail "library path: the real libpmem2's calls to$unbound do not bind to the drop-in"
else
	echo "ok: the real libpmem2's own pmem2_get_{memcpy,memmove,memset,persist}_fn calls bind to the drop-in"
fi

# A call that arrives before the drop-in's constructor filled its slots
# (tests/pmem2_early.c, preloaded after the drop-in, so its constructor runs
# first: the dynamic linker's own account says whether it did) takes the
# slow path, which must hand the real function every argument register
# unchanged: PMDK's pmem2_perror() prints them all. With the real library
# missing the call fails with ENOSYS (38 on Linux) instead (libkflush-pmem2(7)).
early=$(pwd)/tests/.libs/libpmem2early.so
want_perror='early perror: 1 2 3 4 5 0.5 1.5 2.5 3.5 4.5 5.5 6.5 7.5 6 8.5: '
for mode in perror source missing; do
	o=$T/out.early.$mode
	rm -f "$T"/init.*
	case $mode in
	missing) lib=$T/no-such-libpmem2.so.1 m=source ;;
	*) lib=$real m=$mode ;;
	esac
	LD_PRELOAD="$preload $early" KFLUSH_TEST_PMEM2_EARLY=$m KFLUSH_PMEM_LIBPMEM2=$lib \
		LD_DEBUG=libs LD_DEBUG_OUTPUT=$T/init \
		"$client" "$T/file.early" >"$o" 2>&1
	rc=$?
	order=$(cat "$T"/init.* 2>/dev/null | awk '/calling init:/ { print $NF }' |
		awk -v a="$early" -v b="$dropin" '$0 == a { ea = NR } $0 == b { eb = NR }
			END { print (ea && eb && ea < eb) ? "early-first" : "not" }')
	if [ "$order" != early-first ]; then
		fail "early $mode: the dynamic linker did not run $early's constructor before the drop-in's"
		continue
	fi
	# What the client's output must hold, and what that proves.
	case $mode in
	perror) want=$want_perror
		ok="a pmem2_perror() before the drop-in's constructor gets all 15 arguments through the slow path" ;;
	source) want="early source: 0 0 $((3 << 20))"
		ok="pmem2_source_from_anon() before the drop-in's constructor works, and the client after it" ;;
	missing) want="early source: -38 38 0"
		ok="with the real libpmem2 missing an early call fails with ENOSYS, and says why" ;;
	esac
	bad=
	grep -qxF "$want" "$o" || bad="want '$want', got '$(grep -m1 '^early ' "$o")'"
	# Without the real library the client itself fails; otherwise it must not.
	[ $mode = missing ] || [ $rc -eq 0 ] || bad="exit $rc${bad:+; }$bad"
	[ $mode != missing ] || grep -q "libkflush-pmem2: $lib: cannot load the real libpmem2" "$o" ||
		bad="${bad:+$bad; }no load error: $(head -3 "$o" | tr '\n' ' ')"
	if [ -n "$bad" ]; then
		fail "early $mode: $bad"
	else
		echo "ok: $ok"
	fi
done

# Pointed at itself it must refuse, and say so, rather than jump in a circle.
LD_PRELOAD=$asan KFLUSH_PMEM_LIBPMEM2=$T/lib/libpmem2.so.1 LD_LIBRARY_PATH=$T/lib \
	"$client" "$T/file.self" >"$T/out.self" 2>&1
rc=$?
if [ $rc -eq 0 ] || ! grep -q "is libkflush-pmem2 itself, not PMDK's libpmem2" "$T/out.self"; then
	fail "self-forwarding: exit $rc and no refusal message: $(head -3 "$T/out.self")"
else
	echo "ok: a drop-in pointed at itself refuses to forward (client exit $rc)"
fi

exit $((fails != 0))
