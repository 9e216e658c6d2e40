#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Proves the header's claim for memcpy_flushcache()/memcpy_nontemporal():
# a literal size 4 or 8 compiles to exactly the movnti stores it needs, no
# other store and no call or jump; 16, 32, 48, 64, 80 and 96 to one test of
# the destination's low four bits, one conditional jump, and on the two
# paths n/16 movntdq and n/8 movnti, no other store, no load wider than 8
# bytes (store forwarding from a record just built) and no call; a constant
# without a fast path (24) and a run-time size call kflush_memcpy_flushcache.
# Disassembles tests/inline_probe (built from tests/inline_probe.c).
# Run from the top build directory (as make check does).
# Exit status: 0 pass, 1 fail, 77 skip, 99 hard error.

prog=${INLINE_PROBE:-tests/inline_probe}
objdump=${OBJDUMP:-objdump}

if ! command -v "$objdump" >/dev/null 2>&1; then
	echo "SKIP: $objdump not found"
	exit 77
fi
if [ ! -f "$prog" ]; then
	echo "ERROR: $prog is not built"
	exit 99
fi
if ! "$prog"; then
	echo "FAIL: the probes do not copy correctly"
	exit 1
fi

dis=$("$objdump" -d --no-show-raw-insn "$prog") || exit 99

# The instructions of one function, one "mnemonic operands" per line.
body() {
	printf '%s\n' "$dis" | awk -v f="<$1>:" '
		$2 == f { on = 1; next }
		on && NF == 0 { exit }
		on {
			sub(/^[ \t]*[0-9a-f]+:[ \t]*/, "")
			sub(/^(notrack|bnd|rep|repz) /, "")
			print
		}'
}

if [ -z "$(body probe_optimized)" ]; then
	echo "SKIP: $prog was built without optimisation (no constant reaches the inline)"
	exit 77
fi

# count INSNS REGEX: how many lines of INSNS match REGEX.
count() {
	printf '%s\n' "$1" | grep -Ec "$2" || true
}

fail=0
for n in 4 8 16 32 48 64 80 96; do
	if [ "$n" -eq 4 ]; then want=1; else want=$((n / 8)); fi
	if [ "$n" -ge 16 ]; then want_dq=$((n / 16)) want_jcc=1; else want_dq=0 want_jcc=0; fi
	for kind in fc nt; do
		f=probe_${kind}_$n
		bad=0
		insns=$(body "$f")
		if [ -z "$insns" ]; then
			echo "FAIL: $f not found in $prog"
			fail=1
			continue
		fi
		got=$(count "$insns" '^movnti[ \t]')
		got_dq=$(count "$insns" '^movntdq[ \t]')
		got_jcc=$(count "$insns" '^j[a-ln-z][a-z]*[ \t]')
		got_test=$(count "$insns" '^test[bwlq]?[ \t]+\$0xf,%[a-z0-9]+$')
		calls=$(printf '%s\n' "$insns" | grep -E '^(call|jmp)[ \t]' || true)
		# Any other instruction whose destination (last operand) is memory.
		stores=$(printf '%s\n' "$insns" | grep -Ev '^movnt(i|dq)[ \t]' |
			grep -E '^(mov|stos|movs|vmov|xchg)[a-z0-9]*[ \t].*\([^)]*\)$' || true)
		if [ "$got" -ne "$want" ] || [ "$got_dq" -ne "$want_dq" ]; then
			echo "FAIL: $f has $got movnti and $got_dq movntdq, expected $want and $want_dq"
			bad=1
		fi
		if [ "$got_jcc" -ne "$want_jcc" ] || [ "$got_test" -ne "$want_jcc" ]; then
			echo "FAIL: $f has $got_jcc conditional jumps and $got_test alignment tests," \
				"expected $want_jcc of each:"
			printf '  %s\n' "$insns"
			bad=1
		fi
		if [ -n "$calls" ]; then
			echo "FAIL: $f calls or jumps:"
			printf '  %s\n' "$calls"
			bad=1
		fi
		# 16-byte loads would wait for a record just built with 8-byte stores.
		wide=$(printf '%s\n' "$insns" |
			grep -E '^v?(movdq[au]|movup[sd]|movap[sd]|lddqu)[ \t]+[^,]*\(' || true)
		if [ -n "$wide" ]; then
			echo "FAIL: $f loads more than 8 bytes at a time:"
			printf '  %s\n' "$wide"
			bad=1
		fi
		if [ -n "$stores" ]; then
			echo "FAIL: $f stores other than with movnti or movntdq:"
			printf '  %s\n' "$stores"
			bad=1
		fi
		[ "$bad" -eq 0 ] && echo "ok: $f: $got movnti, $got_dq movntdq, no call"
		[ "$bad" -eq 0 ] || fail=1
	done
done

for f in probe_fc_24 probe_nt_24 probe_fc_var; do
	# Directly, through the PLT, or (the header's noplt) through the GOT slot.
	if ! body "$f" | grep -Eq '^(call|jmp)[ \t].*<kflush_memcpy_flushcache(@plt|@[A-Z_0-9.]+)?>'; then
		echo "FAIL: $f does not call kflush_memcpy_flushcache:"
		body "$f" | sed 's/^/  /'
		fail=1
	else
		echo "ok: $f calls kflush_memcpy_flushcache"
	fi
done
# Up to the first ret (the padding after it is not code): sfence and ret only.
insns=$(body probe_drain | awk '{ print } /^ret/ { exit }' | grep -v '^endbr64')
if [ "$(printf '%s\n' "$insns" | tr '\n' ' ' | sed 's/[ \t]*$//')" != "sfence ret" ]; then
	echo "FAIL: probe_drain is not exactly one sfence:"
	printf '%s\n' "$insns" | sed 's/^/  /'
	fail=1
else
	echo "ok: probe_drain: one sfence, no call"
fi
exit $fail
