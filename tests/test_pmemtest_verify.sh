#!/bin/sh
# SPDX-License-Identifier: MIT
# init-bench's verification must be able to fail. PMEMTEST_TEST_CORRUPT
# (test only) flips one byte of one struct page among the verifier's
# samples after a method's run and says which; the run must then exit 1,
# the verifier must name that method, pfn and byte, and "verified" must be
# false for that method alone in the JSON, CSV and table. Without the
# hook every checked method must come out verified. No timing is looked at.
set -u

PMEMTEST=${PMEMTEST:-./pmemtest/pmemtest}
. "$(dirname "$0")/lib.sh"
tl_scratch pmemtest-verify
CHECKED="slow generic fixed wide pmem2 memcpy"

# The JSON on one line, so grep can read it whatever json-c's layout.
flat() {
	tr -d ' \n\t' < "$1"
}

# verdict FILE METHOD: that method's "verified" (true, false or null).
verdict() {
	flat "$1" | grep -o "\"contender\":\"$2\",\"class\":\"[a-z]*\",\"nt\":[a-z]*,\"verified\":[a-z]*" |
		sed 's/.*"verified"://'
}

# csv_verified FILE METHOD: the distinct "verified" cells of its rows (- empty).
csv_verified() {
	awk -F, -v m="$2" '$9 == m { print $14 == "" ? "-" : $14 }' "$1" | sort -u | tr '\n' ' ' |
		sed 's/ $//'
}

# Which methods this CPU runs: wide needs AVX2 or AVX-512F.
"$PMEMTEST" --json init-bench --size 16M --mode fsdax --repeat 1 > "$T/probe" 2> "$T/err" ||
	{ echo "FAIL: probe run failed: $(cat "$T/err")"; exit 1; }
usable=
for m in $CHECKED; do
	if [ -n "$(verdict "$T/probe" $m)" ]; then
		usable="$usable $m"
	else
		echo "# method $m: not usable on this CPU ($(grep -o "method $m skipped.*" "$T/err")), not checked"
	fi
done

# Without the hook: every checked method verified, the roof not checked,
# in both embedded namespaces.
n=$((n + 1))
if ! "$PMEMTEST" --quiet --json init-bench --size 64M --repeat 2 > "$T/out" 2> "$T/err"; then
	fail "run without the hook failed: $(cat "$T/err")"
else
	bad=
	for m in $usable; do
		v=$(verdict "$T/out" $m | sort -u)
		[ "$v" = true ] || bad="$bad $m=$v"
	done
	[ "$(verdict "$T/out" roof | sort -u)" = null ] || bad="$bad roof=$(verdict "$T/out" roof)"
	[ "$(flat "$T/out" | grep -o '"verified":true,"kernel"' | wc -l)" -eq 2 ] ||
		bad="$bad namespace-verdicts"
	if [ -n "$bad" ]; then
		fail "without the hook:$bad: $(head -c 600 "$T/out")"
	else
		echo "ok $n - without the hook every method is verified:$usable; roof null"
	fi
fi

# corrupt_one METHOD MODE SP [--memmap mem]: the hook on one method.
corrupt_one() {
	m=$1 mode=$2 sp=$3
	shift 3
	n=$((n + 1))
	what="$m ($mode, struct page $sp${*:+ $*})"
	PMEMTEST_TEST_CORRUPT=$m "$PMEMTEST" --quiet --json init-bench --size 64M --repeat 3 \
		--mode "$mode" --struct-page "$sp" "$@" > "$T/out" 2> "$T/err"
	rc=$?
	hook=$(sed -n "s/.*PMEMTEST_TEST_CORRUPT: .*: method $m: flipped byte \([0-9]*\) of the struct page of pfn \(0x[0-9a-f]*\) .*/\2 \1/p" "$T/err")
	set -- $hook
	if [ "$rc" -ne 1 ]; then
		fail "$what: exit $rc with a corrupted struct page, expected 1: $(cat "$T/err")"
		return
	elif [ $# -ne 2 ]; then
		fail "$what: the hook did not say what it flipped: $(cat "$T/err")"
		return
	fi
	pfn=$1 byte=$2
	if [ "$byte" -ne $((sp - 1)) ]; then
		fail "$what: the hook flipped byte $byte, not the last one ($((sp - 1)))"
	elif ! grep -q "method $m wrote the wrong struct page for pfn $pfn (byte $byte:" "$T/err"; then
		fail "$what: the verifier did not name pfn $pfn byte $byte: $(cat "$T/err")"
	elif ! grep -q "verification failed for $m: " "$T/err"; then
		fail "$what: no 'verification failed for $m' line: $(cat "$T/err")"
	elif [ "$(verdict "$T/out" $m)" != false ]; then
		fail "$what: JSON says verified=$(verdict "$T/out" $m) for the corrupted method"
	elif ! flat "$T/out" | grep -q '"verified":false,"kernel"'; then
		fail "$what: the namespace is not marked unverified: $(head -c 600 "$T/out")"
	else
		others=ok
		for o in $usable; do
			[ "$o" = "$m" ] && continue
			[ "$(verdict "$T/out" $o)" = true ] || others="$o=$(verdict "$T/out" $o)"
		done
		if [ "$others" != ok ]; then
			fail "$what: an untouched method is not verified: $others"
		else
			echo "ok $n - $what: caught at pfn $pfn byte $byte, verified false for $m only"
		fi
	fi
}

# Every checked method, over packed and line-sized struct pages, plain and
# compound pages, the memmap in the namespace and (vmemmap-optimised) not.
for m in $usable; do
	corrupt_one $m fsdax 64
	corrupt_one $m devdax 80
	corrupt_one $m devdax 56 --kernel 6.1
	corrupt_one $m devdax 64 --memmap mem
done

# All at once: each is caught and named; the CSV and the table say so too.
n=$((n + 1))
PMEMTEST_TEST_CORRUPT=all "$PMEMTEST" --quiet --csv init-bench --size 64M --repeat 2 \
	--mode devdax > "$T/out" 2> "$T/err"
rc=$?
bad=
for m in $usable; do
	grep -q "method $m wrote the wrong struct page" "$T/err" || bad="$bad $m:no-error"
	[ "$(csv_verified "$T/out" $m)" = 0 ] || bad="$bad $m:csv=$(csv_verified "$T/out" $m)"
done
[ "$(csv_verified "$T/out" roof)" = "-" ] || bad="$bad roof:csv=$(csv_verified "$T/out" roof)"
if [ "$rc" -ne 1 ] || [ -n "$bad" ]; then
	fail "PMEMTEST_TEST_CORRUPT=all: exit $rc,$bad: $(cat "$T/err") $(cat "$T/out")"
else
	echo "ok $n - PMEMTEST_TEST_CORRUPT=all: every method caught, CSV verified=0"
fi
n=$((n + 1))
PMEMTEST_TEST_CORRUPT=generic "$PMEMTEST" --quiet init-bench --size 64M --repeat 2 \
	--mode fsdax --methods slow,generic,roof > "$T/out" 2> "$T/err"
rc=$?
if [ "$rc" -ne 1 ] || ! grep -q '^  generic .* NO$' "$T/out" || ! grep -q '^  slow .* yes$' "$T/out" ||
   ! grep -q '^  roof .* -$' "$T/out"; then
	fail "table with generic corrupted: exit $rc: $(cat "$T/out") $(cat "$T/err")"
else
	echo "ok $n - the table marks generic NO, slow yes, roof -"
fi

# The hook refuses what it cannot do, as a usage error.
for bad in roof bogus ,; do
	n=$((n + 1))
	PMEMTEST_TEST_CORRUPT=$bad "$PMEMTEST" init-bench --size 16M --repeat 1 > "$T/out" 2> "$T/err"
	rc=$?
	if [ "$rc" -ne 2 ] || [ "$(wc -l < "$T/err")" -ne 1 ]; then
		fail "PMEMTEST_TEST_CORRUPT=$bad: exit $rc, expected 2 and one line: $(cat "$T/err")"
	else
		echo "ok $n - PMEMTEST_TEST_CORRUPT=$bad -> 2: $(cat "$T/err")"
	fi
done
echo "$n checks, $fails failures"
[ "$fails" -eq 0 ]
