#!/bin/sh
# SPDX-License-Identifier: MIT
# --dev's path swapped between pmemtest's look at it and its open(): the
# open file is what gets mapped, so it must meet the same rules as the
# path did (test_pmemtest_badinput.sh holds the path to them). The race is
# made certain by tests/libswappath.so, preloaded, which renames another
# file over the path just before pmemtest opens it. Each swap to a
# non-namespace must be exit 1 with one line that says the path changed,
# within two minutes (a fifo must not make it wait), and the swapped-in
# file untouched; a swap to another regular file must be replayed. With
# --force, a path swapped after the open must not lead the writes to the
# file swapped in; without /proc, the path reopened must be the same file.
set -u

PMEMTEST=${PMEMTEST:-./pmemtest/pmemtest}
shim=./tests/.libs/libswappath.so
. "$(dirname "$0")/lib.sh"
tl_preload "$shim" "$PMEMTEST"
tl_scratch pmemtest-dev-swap

# swap NAME CODE PATTERN -- ARGS: the --dev path $T/ns is a 16 MiB regular
# file until pmemtest opens it; then it is $T/NAME.
swap() {
	name=$1 code=$2 pat=$3
	shift 4
	n=$((n + 1))
	rm -rf "$T/ns"
	head -c 16777216 /dev/zero > "$T/ns"
	KFLUSH_TEST_SWAP="$T/ns" KFLUSH_TEST_SWAP_WITH="$T/$name" LD_PRELOAD=$shim timeout 120 "$PMEMTEST" --dev "$T/ns" \
		"$@" > "$T/out" 2> "$T/err"
	rc=$?
	if [ -e "$T/$name" ] || [ -L "$T/$name" ]; then
		fail "$name: not swapped in (the shim saw no open of $T/ns)"
	elif [ "$rc" -ne "$code" ]; then
		fail "$name: exit $rc, expected $code: $(head -c 300 "$T/err")"
	elif [ "$code" -ne 0 ] && [ "$(wc -l < "$T/err")" -ne 1 ]; then
		fail "$name: not one line on stderr: $(head -c 300 "$T/err")"
	elif ! grep -q -- "$pat" "$T/err" "$T/out"; then
		fail "$name: the output does not say '$pat': $(head -c 300 "$T/err")"
	else
		echo "ok $n - swapped to $name: exit $rc: $(grep -m 1 -h -- "$pat" "$T/err" "$T/out")"
	fi
}

changed="^pmemtest: $T/ns: changed while it was opened: "
mkfifo "$T/fifo" || exit 99
swap fifo 1 "${changed}is a fifo" -- init-bench --repeat 1 --methods slow
mkdir "$T/dir"
swap dir 1 "${changed}is a directory" -- init-bench --repeat 1 --methods slow
ln -s /dev/null "$T/null"
swap null 1 "${changed}character device 1:3 is not a devdax device" -- \
	init-bench --repeat 1 --methods slow
# A regular file of procfs: its size is a placeholder, not room for a memmap.
ln -s /proc/self/status "$T/proc"
swap proc 1 "${changed}is a file of the kernel's /proc" -- init-bench --repeat 1 --methods slow

# The control: another regular file, of its own size, which is what is described.
head -c 33554432 /dev/urandom > "$T/other"
sum=$(cksum < "$T/other")
swap other 0 "32.0 MiB\|32 MiB\|33554432" -- --quiet init-bench --repeat 1 --methods slow
[ "$(cksum < "$T/ns")" = "$sum" ] || fail "other: the swapped-in file changed without --force"

# --force, and the path swapped right after pmemtest opened it: what it
# writes goes to the file it described, now unlinked, never into the one
# the path names by then. Without /proc to reopen the described file
# through, the path is opened again and the other file refused.
# forced NAME CODE PATTERN [VAR=VALUE]
forced() {
	name=$1 code=$2 pat=$3
	n=$((n + 1))
	rm -rf "$T/ns"
	head -c 16777216 /dev/zero > "$T/ns"
	head -c 16777216 /dev/urandom > "$T/later"
	sum=$(cksum < "$T/later")
	env KFLUSH_TEST_SWAP_AFTER="$T/ns" KFLUSH_TEST_SWAP_WITH="$T/later" LD_PRELOAD=$shim ${4:-} timeout 120 \
		"$PMEMTEST" --quiet --force --dev "$T/ns" init-bench --memmap dev --methods slow \
		--repeat 1 > "$T/out" 2> "$T/err"
	rc=$?
	if [ -e "$T/later" ]; then
		fail "$name: not swapped (the shim saw no open of $T/ns)"
	elif [ "$rc" -ne "$code" ]; then
		fail "$name: exit $rc, expected $code: $(head -c 300 "$T/err")"
	elif [ -n "$pat" ] && ! grep -q -- "$pat" "$T/err"; then
		fail "$name: stderr does not say '$pat': $(head -c 300 "$T/err")"
	elif [ "$(cksum < "$T/ns")" != "$sum" ]; then
		fail "$name: --force wrote into the file swapped in after the look"
	else
		echo "ok $n - $name: exit $rc, the file swapped in untouched${pat:+: $(cat "$T/err")}"
	fi
}
forced "--force, swapped after the open" 0 ""
forced "--force, swapped after the open, no /proc" 1 \
	"^pmemtest: $T/ns: changed since it was described; nothing written$" KFLUSH_TEST_NO_PROC_FD=1

# Without /proc and nothing swapped: the path, opened again, is the file
# described, and the memmap is written into it.
n=$((n + 1))
rm -rf "$T/ns"
head -c 16777216 /dev/zero > "$T/ns"
zero=$(cksum < "$T/ns")
if ! KFLUSH_TEST_NO_PROC_FD=1 LD_PRELOAD=$shim timeout 120 "$PMEMTEST" --quiet --force \
	--dev "$T/ns" init-bench --memmap dev --methods slow --repeat 1 > "$T/out" 2> "$T/err"; then
	fail "--force without /proc: exit $?: $(head -c 300 "$T/err")"
elif [ "$(cksum < "$T/ns")" = "$zero" ]; then
	fail "--force without /proc: nothing was written into $T/ns"
else
	echo "ok $n - --force without /proc, nothing swapped: the memmap written into the file"
fi

[ "$fails" -eq 0 ] || exit 1
echo "dev swap: $n cases passed"
