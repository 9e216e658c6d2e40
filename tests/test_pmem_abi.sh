#!/bin/sh
# SPDX-License-Identifier: MIT
#
# libkflush-pmem.so.1 has libpmem.so.1's ABI: its soname's major is 1, and
# the dynamic symbols it defines, with their version node, are exactly
# those of the real libpmem.so.1 (the one configure found, as recorded in
# config.h), read with objdump -T from both. Exit 77 (skip) without the
# real library or objdump.
set -u

dropin=pmem/.libs/libkflush-pmem.so.1
real=$(sed -n 's/^#define KFLUSH_LIBPMEM_PATH "\(.*\)"$/\1/p' config.h)
if ! command -v objdump >/dev/null 2>&1; then
	echo "SKIP: objdump not found (apt-get install binutils)"
	exit 77
fi
if [ -z "$real" ] || [ ! -f "$real" ]; then
	echo "SKIP: the real libpmem.so.1 ('$real') is not installed (apt-get install libpmem1)"
	exit 77
fi

# Defined (not UND) symbols with a version, as "version name".
defined() {
	objdump -T "$1" | awk '/ D[FO] / && index($0, "*UND*") == 0 { print $(NF-1), $NF }' | sort
}

fails=0
if ! readelf -d "$dropin" | grep -q 'Library soname: \[libkflush-pmem.so.1\]'; then
	echo "FAIL: soname is not libkflush-pmem.so.1"
	fails=1
fi
defined "$dropin" >abi.dropin.txt
defined "$real" >abi.real.txt
if ! diff -u abi.real.txt abi.dropin.txt; then
	echo "FAIL: the drop-in's symbols differ from $real (- libpmem, + drop-in)"
	fails=1
elif [ ! -s abi.real.txt ]; then
	echo "FAIL: no symbols read from $real"
	fails=1
else
	echo "ok: $(wc -l <abi.real.txt) symbols, as in $real: $(cut -d' ' -f1 abi.real.txt | sort -u | tr '\n' ' ')"
fi
rm -f abi.dropin.txt abi.real.txt
exit $fails
