#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Proves the header's claim for memcpy_flushcache()/memcpy_nontemporal():
# a literal size 4, 8, 16, 32, 48, 64, 80 or 96 compiles to exactly the
# movnti stores it needs, no other store and no call or jump; a constant
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

fail=0
for n in 4 8 16 32 48 64 80 96; do
	if [ "$n" -eq 4 ]; then want=1; else want=$((n / 8)); fi
	for kind in fc nt; do
		f=probe_${kind}_$n
		insns=$(body "$f")
		if [ -z "$insns" ]; then
			echo "FAIL: $f not found in $prog"
			fail=1
			continue
		fi
		got=$(printf '%s\n' "$insns" | grep -c '^movnti')
		branches=$(printf '%s\n' "$insns" | grep -E '^(call|j[a-z]*)[ \t]' || true)
		# Any other instruction whose destination (last operand) is memory.
		stores=$(printf '%s\n' "$insns" | grep -v '^movnti' |
			grep -E '^(mov|stos|movs|vmov|xchg)[a-z0-9]*[ \t].*\([^)]*\)$' || true)
		if [ "$got" -ne "$want" ]; then
			echo "FAIL: $f has $got movnti, expected $want"
			fail=1
		fi
		if [ -n "$branches" ]; then
			echo "FAIL: $f calls or jumps:"
			printf '  %s\n' "$branches"
			fail=1
		fi
		if [ -n "$stores" ]; then
			echo "FAIL: $f stores other than with movnti:"
			printf '  %s\n' "$stores"
			fail=1
		fi
		[ "$fail" -eq 0 ] && echo "ok: $f: $got movnti, no call"
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
