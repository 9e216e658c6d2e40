#!/bin/sh
# SPDX-License-Identifier: MIT
# pmemtest's one destructive path: with --force, init-bench --memmap dev on
# a regular file changes exactly the byte range it announces, first byte
# to last, and nothing else; the size stays. Without --force nothing
# changes. Whole images are compared before and after; no timing is used.
set -u

PMEMTEST=${PMEMTEST:-./pmemtest/pmemtest}
. "$(dirname "$0")/lib.sh"
tl_scratch pmemtest-force

# A known pattern with no zero byte, so that the first and last bytes of
# any struct page array (flags' low byte and the last word's top byte:
# 0x00, 0x40 for PG_head, or 0xff of a kernel address) differ from it.
size=16777216
yes pmemtest-force-pattern | head -c $size > "$T/orig" || exit 99
[ "$(stat -c %s "$T/orig")" -eq $size ] || exit 99
if ! tr -d '\000' < "$T/orig" | cmp -s - "$T/orig"; then
	echo "FAIL: the pattern has a zero byte"
	exit 99
fi

# changed A B: "first last count" of the bytes that differ, 0-based.
changed() {
	cmp -l "$1" "$2" | awk 'NR == 1 { f = $1 } { l = $1 } END { if (NR) print f - 1, l - 1, NR }'
}

# force_run NAME "LO HI" ARGS...: one --force run on a fresh copy; LO HI is
# the range pmemtest(1)'s namespace model gives, worked out below by hand.
force_run() {
	name=$1 want=$2
	shift 2
	n=$((n + 1))
	cp "$T/orig" "$T/img"
	if ! "$PMEMTEST" --quiet --json --force --dev "$T/img" init-bench --memmap dev --repeat 1 \
		"$@" > "$T/out" 2> "$T/err"; then
		fail "$name: --force run failed: $(cat "$T/err")"
		return
	fi
	said=$(sed -n 's/.*--force: overwriting bytes \([0-9]*\)-\([0-9]*\) .*/\1 \2/p' "$T/err")
	json=$(tr -d ' \n' < "$T/out" |
		sed -n 's/.*"write_first":\([0-9]*\),"write_last":\([0-9]*\).*/\1 \2/p')
	got=$(changed "$T/orig" "$T/img")
	set -- $said
	if [ $# -ne 2 ]; then
		fail "$name: no announced range on stderr: $(cat "$T/err")"
		return
	fi
	lo=$1 hi=$2
	if [ "$json" != "$said" ]; then
		fail "$name: stderr announced $said, the JSON says $json"
	elif [ "$said" != "$want" ]; then
		fail "$name: announced $said, the namespace model gives $want"
	elif [ "$(stat -c %s "$T/img")" -ne $size ]; then
		fail "$name: the file size changed to $(stat -c %s "$T/img")"
	elif ! cmp -s -n "$lo" "$T/orig" "$T/img"; then
		fail "$name: bytes before $lo changed"
	elif ! cmp -s -i $((hi + 1)) "$T/orig" "$T/img"; then
		fail "$name: bytes after $hi changed"
	elif [ "${got% *}" != "$lo $hi" ]; then
		fail "$name: bytes ${got% *} changed (first, last), announced $lo $hi"
	else
		echo "ok $n - $name: changed bytes $lo-$hi (${got##* } of them) = announced; the rest of $size identical"
	fi
}

# The model (pmemtest(1), --memmap dev; drivers/nvdimm/pfn_devs.c
# nd_pfn_init()): the data starts at ALIGN(8 KiB + 64 B (or the struct page
# size, if larger) * the pfns after the 8 KiB info block, 2 MiB or the
# alignment if larger); the pfns before it are not initialised; devdax ends
# on a whole compound page. 16 MiB = 4096 pfns, 4094 after the info block:
#   64 B: 8 KiB + 262016 B -> 2 MiB = pfn 512: 512*64 .. 4096*64-1
#   80 B: 8 KiB + 327520 B -> 2 MiB (align 4K too): 512*80 .. 4096*80-1
#   56 B (--kernel 6.1): 8 KiB + 64*4094 -> 2 MiB: 512*56 .. 4096*56-1
# and two namespaces smaller than the file, whose array does not end on a
# cache line (the roof streams whole lines only inside it):
#   56 B, 4095 pfns: 512*56 .. 4095*56-1
#   80 B, align 4K, 4001 pfns: 512*80 .. 4001*80-1
force_run "fsdax 64" "32768 262143" --mode fsdax
force_run "fsdax 80" "40960 327679" --mode fsdax --struct-page 80
force_run "fsdax 56, all methods, 2 threads" "28672 229375" --mode fsdax --kernel 6.1 \
	--struct-page 56 --methods all --threads 2
force_run "devdax 2M 64" "32768 262143" --mode devdax
force_run "devdax 2M 56, all methods" "28672 229375" --mode devdax --kernel 6.1 --struct-page 56 \
	--methods all
force_run "devdax 4K 80" "40960 327679" --mode devdax --align 4K --struct-page 80
force_run "fsdax 56, 4095 pfns, all methods" "28672 229319" --mode fsdax --kernel 6.1 \
	--struct-page 56 --size $((4095 * 4096)) --methods all
force_run "fsdax 4K 80, 4001 pfns, all methods" "40960 320079" --mode fsdax --align 4K \
	--struct-page 80 --size $((4001 * 4096)) --methods all

# Without --force: refused, exit 2, and the whole image is unchanged.
n=$((n + 1))
cp "$T/orig" "$T/img"
"$PMEMTEST" --quiet --dev "$T/img" init-bench --memmap dev --repeat 1 > "$T/out" 2> "$T/err"
rc=$?
if [ "$rc" -ne 2 ] || ! grep -q "add --force" "$T/err"; then
	fail "--memmap dev without --force: exit $rc, expected 2 asking for --force: $(cat "$T/err")"
elif ! cmp -s "$T/orig" "$T/img" || [ "$(stat -c %s "$T/img")" -ne $size ]; then
	fail "--memmap dev without --force changed the file: $(changed "$T/orig" "$T/img")"
else
	echo "ok $n - --memmap dev without --force refused, image identical: $(cat "$T/err")"
fi
# Without --memmap and --force the file is only read, whatever runs.
n=$((n + 1))
cp "$T/orig" "$T/img"
if ! "$PMEMTEST" --dev "$T/img" init-bench --methods all --repeat 1 > "$T/out" 2> "$T/err"; then
	fail "read-only run failed: $(cat "$T/err")"
elif ! cmp -s "$T/orig" "$T/img" || [ "$(stat -c %s "$T/img")" -ne $size ]; then
	fail "a run without --force changed the file: $(changed "$T/orig" "$T/img")"
elif ! grep -q "is only read" "$T/err"; then
	fail "a run without --force did not say the file is only read: $(cat "$T/err")"
else
	echo "ok $n - without --force the image is identical"
fi
echo "$n checks, $fails failures"
[ "$fails" -eq 0 ]
