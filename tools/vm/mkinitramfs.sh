#!/bin/sh
# SPDX-License-Identifier: MIT
# Build the test guest's initramfs (cpio newc, gzip) from what is installed
# on this Debian host plus a freshly built libkflush tree:
#
#   mkinitramfs.sh SRCDIR BUILDDIR KVER WORKDIR OUT
#
# Nothing here is downloaded: busybox-static, ndctl, daxctl, mke2fs and the
# kernel's own modules come from the host; every shared library any of the
# binaries loads is found with ldd and copied to the path it has here, so
# the guest's ld.so finds it without a cache. The project's libraries go to
# /opt/kflush/lib (the guest's LD_LIBRARY_PATH), its programs to
# /opt/kflush/bin and /opt/kflush/tests. Libtool wrapper scripts are never
# copied: the real binaries live in .libs/.
set -eu

srcdir=$1
builddir=$2
kver=$3
work=$4
out=$5

root=$work/root
rm -rf "$root"
mkdir -p "$root/bin" "$root/dev" "$root/proc" "$root/sys" "$root/tmp" "$root/mnt/pmem" \
	"$root/etc" "$root/opt/kflush/bin" "$root/opt/kflush/lib" "$root/opt/kflush/tests" \
	"$root/lib/modules/$kver"

die() {
	echo "mkinitramfs: $*" >&2
	exit 1
}

is_elf() {
	[ "$(head -c 4 "$1" 2>/dev/null | od -An -c | tr -d ' ')" = '177ELF' ]
}

# The ELF behind a program in the build tree: itself, or libtool's real
# binary in .libs/ when the program is a wrapper script.
real_binary() {
	p=$1
	if is_elf "$p"; then
		echo "$p"
		return 0
	fi
	d=$(dirname "$p")
	b=$(basename "$p")
	for c in "$d/.libs/$b" "$d/.libs/lt-$b"; do
		if is_elf "$c"; then
			echo "$c"
			return 0
		fi
	done
	return 1
}

kflush_libdir=$builddir/lib/.libs
copied_libs=$work/copied-libs
: >"$copied_libs"

# Copy one shared library (a path on this host) into the guest, at the same
# path, unless it belongs to the build tree (then /opt/kflush/lib).
copy_lib() {
	lib=$1
	grep -qxF "$lib" "$copied_libs" && return 0
	echo "$lib" >>"$copied_libs"
	case "$lib" in
	"$builddir"/*) dest=/opt/kflush/lib/$(basename "$lib") ;;
	*) dest=$lib ;;
	esac
	mkdir -p "$root$(dirname "$dest")"
	cp -L "$lib" "$root$dest"
}

# Copy every library ldd says BIN loads. "not found" is fatal: a guest
# binary that cannot start would only show up as a confusing FAIL later.
copy_deps() {
	bin=$1
	deps=$(LD_LIBRARY_PATH=$kflush_libdir:$builddir/pmem/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} ldd "$bin" 2>&1) ||
		die "ldd $bin failed: $deps"
	if echo "$deps" | grep -q 'not found'; then
		die "$bin: missing libraries: $(echo "$deps" | grep 'not found' | tr -s ' \t' ' ')"
	fi
	echo "$deps" | awk '
		$2 == "=>" && $3 ~ /^\// { print $3; next }
		$1 ~ /^\// { print $1 }' | while read -r lib; do
		copy_lib "$lib"
	done
}

# install_bin SRC DESTDIR [NAME]
install_bin() {
	src=$1
	dest=$root$2/${3:-$(basename "$1")}
	cp -L "$src" "$dest"
	chmod 755 "$dest"
	copy_deps "$src"
}

# --- host tools ------------------------------------------------------------
busybox=
for b in /bin/busybox /usr/bin/busybox; do
	if [ -x "$b" ] && ! ldd "$b" >/dev/null 2>&1; then
		busybox=$b
		break
	fi
done
[ -n "$busybox" ] || die "no statically linked busybox (apt-get install busybox-static)"
cp "$busybox" "$root/bin/busybox"
ln -s busybox "$root/bin/sh"

for tool in ndctl daxctl mke2fs; do
	p=$(command -v "$tool" 2>/dev/null || true)
	[ -n "$p" ] || for d in /usr/sbin /sbin /usr/bin; do
		[ -x "$d/$tool" ] && p=$d/$tool
	done
	[ -n "$p" ] || die "$tool not found"
	install_bin "$p" /opt/kflush/bin
done
[ -f /etc/mke2fs.conf ] && cp /etc/mke2fs.conf "$root/etc/"

# --- kernel modules, dependencies first (modules.dep order) -----------------
moddir=/lib/modules/$kver
[ -f "$moddir/modules.dep" ] || die "$moddir/modules.dep missing"
modlist=$work/modules.order
builtin=$moddir/modules.builtin
[ -f "$builtin" ] || builtin=/dev/null
# Dependencies first, each module once (modules.dep lists a module's
# dependencies after the colon); modules built into the kernel are skipped.
awk -v dep="$moddir/modules.dep" -v want="libnvdimm nfit nd_btt nd_pmem device_dax dax_pmem crc16 mbcache jbd2 crc32c_generic ext4" '
	FNR == NR && FILENAME != dep { n = $1; sub(/.*\//, "", n); sub(/\.ko.*/, "", n); builtin[n] = 1; next }
	{
		p = $1; sub(/:$/, "", p)
		n = p; sub(/.*\//, "", n); sub(/\.ko.*/, "", n)
		path[n] = p
		deps[n] = ""
		for (i = 2; i <= NF; i++) {
			d = $i; sub(/.*\//, "", d); sub(/\.ko.*/, "", d)
			deps[n] = deps[n] " " d
		}
	}
	function add(n,    k, nd, ds) {
		if (n in done) return
		done[n] = 1
		if (!(n in path)) {
			if (n in builtin) return
			print "missing " n
			bad = 1
			return
		}
		nd = split(deps[n], ds, " ")
		for (k = 1; k <= nd; k++) add(ds[k])
		print path[n]
	}
	END { nw = split(want, w, " "); for (k = 1; k <= nw; k++) add(w[k]); exit bad }
' "$builtin" "$moddir/modules.dep" >"$modlist" ||
	die "kernel modules not found for $kver: $(grep '^missing' "$modlist" | tr '\n' ' ')"
: >"$root/etc/kflush-modules"
while read -r path; do
	base=$(basename "$path")
	case "$base" in
	*.ko) cp "$moddir/$path" "$root/lib/modules/$kver/$base" ;;
	*.ko.xz) xz -dc "$moddir/$path" >"$root/lib/modules/$kver/${base%.xz}" ;;
	*.ko.zst) zstd -qdc "$moddir/$path" >"$root/lib/modules/$kver/${base%.zst}" ;;
	*.ko.gz) gzip -dc "$moddir/$path" >"$root/lib/modules/$kver/${base%.gz}" ;;
	*) die "unknown module format: $path" ;;
	esac
	echo "/lib/modules/$kver/${base%.ko*}.ko" >>"$root/etc/kflush-modules"
done <"$modlist"

# --- the project -----------------------------------------------------------
pm=$(real_binary "$builddir/pmemtest/pmemtest") || die "pmemtest not built in $builddir"
install_bin "$pm" /opt/kflush/bin pmemtest
# In the guest's library path, and at the build-tree path that tests
# dlopen() by name ("$(abs_top_builddir)/lib/.libs/libkflush.so").
mkdir -p "$root$kflush_libdir"
for lib in "$kflush_libdir"/libkflush.so*; do
	[ -e "$lib" ] || continue
	copy_lib "$lib"
	cp -L "$lib" "$root$lib"
done

for helper in kflush-vmpeek kflush-vmdax; do
	p=$(real_binary "$builddir/tools/vm/$helper") || die "$helper not built (make check-vm builds it)"
	install_bin "$p" /opt/kflush/bin "$helper"
done

# fio and the libpmem/libpmem2 drop-ins (guest check 8), with the real
# libraries the drop-ins dlopen() by full path (config.h), at that path.
fio=$(command -v fio 2>/dev/null || true)
[ -n "$fio" ] && install_bin "$fio" /opt/kflush/bin fio
for d in libkflush-pmem.so.1 libkflush-pmem2.so.1; do
	[ -e "$builddir/pmem/.libs/$d" ] || continue
	copy_lib "$builddir/pmem/.libs/$d"
	copy_deps "$builddir/pmem/.libs/$d"
done
for v in KFLUSH_LIBPMEM_PATH KFLUSH_LIBPMEM2_PATH; do
	r=$(sed -n "s/^#define $v \"\(.*\)\"\$/\1/p" "$builddir/config.h")
	[ -n "$r" ] && [ -f "$r" ] || continue
	copy_lib "$r"
	copy_deps "$r"
done
if p=$(real_binary "$builddir/tests/pmem2_client"); then
	install_bin "$p" /opt/kflush/bin pmem2_client
fi

ntests=0
for t in "$builddir"/tests/test_*; do
	[ -f "$t" ] && [ -x "$t" ] || continue
	case "$t" in *.o | *.log | *.trs | *.c) continue ;; esac
	p=$(real_binary "$t") || continue
	install_bin "$p" /opt/kflush/tests "$(basename "$t")"
	ntests=$((ntests + 1))
done

# Helpers the tests run by absolute build-tree path (posix_spawn of
# "$(abs_top_builddir)/tests/NAME"): the same path in the guest.
mkdir -p "$root$builddir/tests"
for h in "$builddir"/tests/*; do
	[ -f "$h" ] && [ -x "$h" ] || continue
	case "$(basename "$h")" in test_* | *.o | *.lo | *.la | *.log | *.trs | *.sh | *.c) continue ;; esac
	p=$(real_binary "$h") || continue
	install_bin "$p" "$builddir/tests" "$(basename "$h")"
done

install -m 755 "$srcdir/tools/vm/guest-init.sh" "$root/init"
cp "$srcdir/tools/vm/jsonflat.awk" "$root/etc/jsonflat.awk"

(cd "$root" && find . | "$busybox" cpio -o -H newc -R 0:0 2>/dev/null) | gzip -1 >"$out"
echo "mkinitramfs: $(du -k "$out" | cut -f1) KiB, $(wc -l <"$modlist") modules, $ntests test programs"
