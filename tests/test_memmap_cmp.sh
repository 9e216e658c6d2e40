#!/bin/sh
# SPDX-License-Identifier: MIT
# kflush-memmap-cmp, the QEMU rig's byte comparison, on an image made here:
# the info block the kernel writes at 4 KiB (NVDIMM_DAX_INFO, dataoff,
# npfns, mode 2) and, from 2 MiB on, the struct pages of pmemtest's own
# --replay-out, so the two sides agree. Then single bytes of the image are
# changed (a page[1] field, a pgmap pointer, an altmap page's refcount):
# each must be found, in its field, and fail the comparison.
set -u

PMEMTEST=${PMEMTEST:-./pmemtest/pmemtest}
CMP=${CMP:-./tools/vm/kflush-memmap-cmp}
. "$(dirname "$0")/lib.sh"
tl_scratch memmap-cmp-test

# 64 MiB devdax namespace, align 2M: 16384 pfns, data from 2 MiB (pfn 512):
# nd_pfn_init()'s ALIGN(8 KiB + 64 * 16382, 2 MiB).
"$PMEMTEST" --quiet init-bench --kernel 6.1 --mode devdax --size 64M --align 2M \
	--methods slow --repeat 1 --replay-out "$T/rp.bin" >/dev/null || exit 99
# The replay's own bytes, held to the kernel's sources before they serve as
# the reference below (test_pmemtest_oracle.c holds the data pages; these
# are the pages only --replay-out writes). word FILE PAGE WORD: one 8-byte
# word of the dump, as 16 hex digits.
word() {
	od -A n -t x8 -j $((96 + $2 * 64 + $3 * 8)) -N 8 "$1" | tr -d ' \n'
}
hdr=$(od -A n -t x8 -j 64 -N 8 "$T/rp.bin" | tr -d ' \n')
# Pages 0 and 1 hold the 8 KiB info block, the altmap's reserve:
# memmap_init_range() starts after it (mm/mm_init.c, "start_pfn +=
# altmap->reserve"), so nobody writes their struct pages.
# Pages 2..511 (the altmap's own pfns, up to vmem_altmap_offset()) get
# memmap_init_range()'s __init_single_page() and, MEMINIT_HOTPLUG in
# ZONE_DEVICE, __SetPageReserved(): flags of node 0, zone 4, last_cpupid
# reset and PG_reserved (6.1: bit 12) = 0x0027ffffc0001000; lru.next and
# lru.prev pointing at lru itself (INIT_LIST_HEAD, the page + 8); _mapcount
# -1 and _refcount 1 (init_page_count); all else 0. Page 512 is the first
# data pfn, a compound head: PG_head (6.1: bit 16) added, pgmap in word 1.
bad=
for pg in 0 1 2 300 511; do
	self=$((0x$hdr + pg * 64 + 8))
	for w in 0 1 2 3 4 5 6 7; do
		case $pg.$w in
		[01].*) want=0000000000000000 ;;
		*.0) want=0027ffffc0001000 ;;
		*.[12]) want=$(printf '%016x' $self) ;;
		*.6) want=00000001ffffffff ;;
		*) want=0000000000000000 ;;
		esac
		got=$(word "$T/rp.bin" $pg $w)
		[ "$got" = "$want" ] || bad="$bad page $pg word $w: $got, the kernel writes $want;"
	done
done
[ "$(word "$T/rp.bin" 512 0)" = 0027ffffc0011000 ] ||
	bad="$bad page 512 word 0: $(word "$T/rp.bin" 512 0), the kernel writes 0027ffffc0011000;"
[ "$(word "$T/rp.bin" 512 1)" = "$(od -A n -t x8 -j 72 -N 8 "$T/rp.bin" | tr -d ' \n')" ] ||
	bad="$bad page 512 word 1 is not the header's pgmap;"
if [ -n "$bad" ]; then
	fail "--replay-out's info-block, altmap and head pages:$bad"
else
	echo "ok - --replay-out's info-block, altmap and head pages hold the kernel's words"
fi

img=$T/nvdimm.img
truncate -s 64M "$img" || exit 99
# dataoff 0x200000, npfns 16384 - 512 = 0x3e00, mode 2, little-endian.
{
	printf 'NVDIMM_DAX_INFO\000'
	head -c 40 /dev/zero
	printf '\000\000\040\000\000\000\000\000'
	printf '\000\076\000\000\000\000\000\000'
	printf '\002\000\000\000'
} | dd of="$img" bs=4096 seek=1 conv=notrunc status=none || exit 99
dd if="$T/rp.bin" of="$img" bs=1M iflag=skip_bytes oflag=seek_bytes skip=96 seek=2097152 \
	conv=notrunc status=none || exit 99

# Every field (flags, words 1-5, _mapcount, _refcount, word 7) compared on
# every page: nothing skipped without a word.
if "$CMP" "$img" "$T/rp.bin" same >"$T/out" 2>&1 &&
   grep -q '16384 pages compared, 16382 the kernel wrote (non-zero), 0 differ' "$T/out" &&
   [ "$(grep -c ' compared 16384 mismatches 0$' "$T/out")" -eq 9 ]; then
	echo "ok - identical bytes: $(tail -n 1 "$T/out")"
else
	fail "identical image and replay did not compare equal: $(cat "$T/out")"
fi

# poke PAGE BYTE VALUE FIELD: one changed byte must fail in FIELD.
poke() {
	cp "$img" "$T/bad.img"
	printf "$3" | dd of="$T/bad.img" bs=1 seek=$((2097152 + $1 * 64 + $2)) conv=notrunc status=none
	if "$CMP" "$T/bad.img" "$T/rp.bin" bad >"$T/out" 2>&1; then
		fail "byte $2 of page $1 changed, but the comparison passed"
	elif ! grep -q "$4.* mismatch at page $1:" "$T/out" ||
	     ! grep -q '16384 pages compared, .* 1 differ' "$T/out"; then
		fail "byte $2 of page $1: not reported as one $4 mismatch: $(cat "$T/out")"
	else
		echo "ok - page $1 byte $2: $(grep "mismatch at page $1:" "$T/out")"
	fi
}
# page[1] of the second compound page (pfn 1025): compound_order 9 -> 8.
poke 1025 17 '\010' 'w2 zone_device_data'
# a compound head's pgmap pointer (pfn 1024; 512's is the reference), a tail's head pointer
poke 1024 8 '\377' 'w1 pgmap'
poke 700 9 '\377' 'w1 pgmap'
# an altmap page (pfn 3): _refcount 1 -> 2
poke 3 52 '\002' '_refcount'
# and each field no poke above reaches: a data page's flags, a tail's
# mapping (TAIL_MAPPING), index, private, _mapcount and memcg_data
poke 600 0 '\001' 'flags'
poke 700 24 '\001' 'w3 mapping'
poke 700 32 '\001' 'w4 index'
poke 700 40 '\001' 'w5 private'
poke 700 48 '\376' '_mapcount'
poke 700 56 '\001' 'w7 memcg_data'

[ "$fails" -eq 0 ] || exit 1
echo "all memmap-cmp checks passed"
