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

if "$CMP" "$img" "$T/rp.bin" same >"$T/out" 2>&1 &&
   grep -q '16384 pages compared, 16382 the kernel wrote (non-zero), 0 differ' "$T/out"; then
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

[ "$fails" -eq 0 ] || exit 1
echo "all memmap-cmp checks passed"
