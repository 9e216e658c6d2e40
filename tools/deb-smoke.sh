#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Build the Debian packages from the committed tree (HEAD: uncommitted
# changes are not in them), check them with lintian, install them into a
# freshly debootstrapped Debian 12 root, and there run "pmemtest info" and
# a program built with pkg-config against the installed libkflush-dev.
# Debian 12, as root, with the archive reachable (CI runs it from .ci/run).
#
#   tools/deb-smoke.sh [--nocheck] [WORKDIR]
#
# --nocheck builds with DEB_BUILD_OPTIONS=nocheck (no make check inside the
# package build; CI has run the same suite just before). WORKDIR (default
# /tmp/kflush-deb) holds the build, the packages and the root; it is
# removed and made again. Exit 0 ok, 1 failure, 2 usage.
set -eu

nocheck=
case "${1:-}" in
--nocheck) nocheck=nocheck; shift ;;
-*) echo "usage: $0 [--nocheck] [WORKDIR]" >&2; exit 2 ;;
esac
[ $# -le 1 ] || { echo "usage: $0 [--nocheck] [WORKDIR]" >&2; exit 2; }
work=${1:-/tmp/kflush-deb}
top=$(cd "$(dirname "$0")/.." && pwd)
[ "$(id -u)" -eq 0 ] || { echo "deb-smoke: must run as root (debootstrap, chroot)" >&2; exit 1; }

root=$work/root
mounts="proc sys dev"
dbs=
unmount() {
	# A failure before the root is needed would leave debootstrap
	# writing into it after exit: let it finish, as a success waits
	# for it too. (Killing it is worse: it signals its whole process
	# group, this script with it, and leaves its children running.)
	[ -z "$dbs" ] || wait "$dbs" 2>/dev/null || :
	for d in $mounts; do
		if mountpoint -q "$root/$d" 2>/dev/null; then umount "$root/$d"; fi
	done
}
trap unmount EXIT
# Never remove a root that still has the host's /dev or /proc under it.
unmount
for d in $mounts; do
	if mountpoint -q "$root/$d" 2>/dev/null; then
		echo "deb-smoke: $root/$d is still mounted" >&2
		exit 1
	fi
done
rm -rf "$work"
mkdir -p "$work/src"

export DEBIAN_FRONTEND=noninteractive
mirror=$(sed -n 's/^URIs: //p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
mirror=${mirror:-http://deb.debian.org/debian}
need=
for p in debootstrap lintian dpkg-dev debhelper; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' || need="$need $p"
done
apt-get update -qq
if [ -n "$need" ]; then
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $need >/dev/null
fi

# The root is fetched while the packages build: one is the network, the
# other the CPU.
t0=$(date +%s)
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1 &
dbs=$!

git -C "$top" archive --format=tar --prefix=libkflush/ HEAD | tar -x -C "$work/src"
cd "$work/src/libkflush"
apt-get build-dep -y -qq ./ >"$work/build-dep.log" 2>&1 ||
	{ cat "$work/build-dep.log"; exit 1; }
jobs=$(nproc 2>/dev/null || echo 2)
echo "deb-smoke: dpkg-buildpackage -us -uc -b${nocheck:+ (nocheck)}"
if ! DEB_BUILD_OPTIONS="parallel=$jobs${nocheck:+ $nocheck}" dpkg-buildpackage -us -uc -b \
	>"$work/build.log" 2>&1; then
	tail -50 "$work/build.log"
	echo "deb-smoke: FAIL: the package build failed (log: $work/build.log)"
	exit 1
fi
t1=$(date +%s)
echo "deb-smoke: built in $((t1 - t0)) s: $(cd "$work/src" && ls ./*.deb | grep -v dbgsym | tr '\n' ' ')"

# The drop-ins dlopen the real PMDK libraries by the full paths compiled
# into them, which dpkg-shlibdeps cannot see: the package that holds each
# such path here must be in libkflush-pmem's Depends, or a machine without
# it gets a drop-in that cannot forward.
mkdir "$work/pmem-deb"
dpkg-deb -x "$work"/src/libkflush-pmem_*_amd64.deb "$work/pmem-deb"
deps=" $(dpkg-deb -f "$work"/src/libkflush-pmem_*_amd64.deb Depends | sed 's/([^)]*)//g; s/[,|]/ /g' | tr -s ' ') "
real=$(strings -a "$work"/pmem-deb/usr/lib/*/libkflush-pmem*.so.* | grep -E '^/.*/libpmem2?\.so\.1$' | sort -u)
[ "$(printf '%s\n' "$real" | grep -c .)" -eq 2 ] ||
	{ echo "deb-smoke: FAIL: expected the real libpmem.so.1 and libpmem2.so.1 paths in the drop-ins, found: $real"; exit 1; }
for path in $real; do
	pkg=$(dpkg -S "$path" 2>/dev/null | sed -n '1s/[:,].*//p')
	[ -n "$pkg" ] || { echo "deb-smoke: FAIL: no package here holds $path, which a drop-in loads"; exit 1; }
	case "$deps" in
	*" $pkg "*) ;;
	*) echo "deb-smoke: FAIL: a drop-in loads $path (package $pkg), which libkflush-pmem does not depend on (Depends:$deps)"
	   exit 1 ;;
	esac
done
echo "deb-smoke: libkflush-pmem depends on what its drop-ins load:$(for p in $real; do printf ' %s' "$p"; done)"

# Lintian: every tag left is an error here (the overrides in debian/ say
# why each overridden one stays). Its own TMPDIR: lintian 2.116 leaves its
# mldbm-elf-* databases behind, six or so in /tmp a run.
mkdir -p "$work/lintian-tmp"
lintian_ok=1
TMPDIR=$work/lintian-tmp lintian --fail-on error,warning "$work"/src/libkflush_*_amd64.changes \
	>"$work/lintian.log" 2>&1 || lintian_ok=
rm -rf "$work/lintian-tmp"
if [ -z "$lintian_ok" ]; then
	cat "$work/lintian.log"
	echo "deb-smoke: FAIL: lintian"
	exit 1
fi
echo "deb-smoke: lintian: no error or warning left$(grep -v 'root privileges' "$work/lintian.log" | sed 's/^/; /' | tr -d '\n')"

dbs_rc=0
wait "$dbs" || dbs_rc=$?
dbs=
if [ "$dbs_rc" -ne 0 ]; then
	tail -20 "$work/debootstrap.log"
	echo "deb-smoke: FAIL: debootstrap"
	exit 1
fi
t2=$(date +%s)
echo "deb-smoke: fresh root ready $((t2 - t0)) s after the start"

cp /etc/apt/sources.list.d/debian.sources "$root/etc/apt/sources.list.d/" 2>/dev/null &&
	rm -f "$root/etc/apt/sources.list"
mkdir -p "$root/tmp/debs"
cp "$work"/src/*.deb "$root/tmp/debs/"
rm -f "$root"/tmp/debs/*-dbgsym_*.deb
for d in $mounts; do mount --bind "/$d" "$root/$d"; done

cat >"$root/tmp/smoke.c" <<'PROG'
#include <stdio.h>
#include <string.h>
#include <kflush.h>

int main(void)
{
	static char src[4096], dst[4096];

	memset(src, 0x5a, sizeof(src));
	kflush_memcpy_flushcache(dst, src, sizeof(dst));
	kflush_drain();
	if (memcmp(dst, src, sizeof(dst)) != 0) {
		fprintf(stderr, "smoke: the copy differs\n");
		return 1;
	}
	printf("%s\n", kflush_version(NULL, NULL, NULL));
	return 0;
}
PROG

# In the root: install the four packages (and what they depend on) from the
# archive, plus a compiler and pkg-config; nothing of the build tree.
cat >"$root/tmp/smoke.sh" <<'SMOKE'
set -eu
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends /tmp/debs/*.deb gcc libc6-dev pkgconf >/tmp/install.log 2>&1 ||
	{ cat /tmp/install.log; exit 1; }
echo "root: installed: $(dpkg-query -W -f='${Package} ${Version}, ' libkflush0 libkflush-dev pmemtest libkflush-pmem)"
pmemtest --version
pmemtest info >/tmp/info.txt
head -5 /tmp/info.txt
cc -o /tmp/smoke /tmp/smoke.c $(pkg-config --cflags --libs libkflush)
got=$(/tmp/smoke)
want=$(pkg-config --modversion libkflush)
[ "$got" = "$want" ] || { echo "root: kflush_version() says $got, pkg-config says $want"; exit 1; }
echo "root: a pkg-config build runs on libkflush $got"
# /lib is /usr/lib on Debian 12: compare where both lead.
loaded=$(ldd /tmp/smoke | awk '$1 == "libkflush.so.0" { print $3 }')
[ -n "$loaded" ] && [ "$(readlink -f "$loaded")" = "$(readlink -f /usr/lib/x86_64-linux-gnu/libkflush.so.0)" ] ||
	{ echo "root: the program does not load the packaged libkflush.so.0"; ldd /tmp/smoke; exit 1; }
man -w kflush_clear_pages >/dev/null 2>&1 || test -L /usr/share/man/man3/kflush_clear_pages.3.gz ||
	{ echo "root: the kflush_clear_pages(3) alias is missing"; exit 1; }
# Each drop-in loads its real library up front and says on stderr when it
# cannot: a clean preload is silent.
for l in libkflush-pmem.so.1 libkflush-pmem2.so.1; do
	test -e /usr/lib/x86_64-linux-gnu/$l || { echo "root: no $l"; exit 1; }
	err=$(LD_PRELOAD=$l /bin/true 2>&1) && [ -z "$err" ] ||
		{ echo "root: $l does not preload cleanly: $err"; exit 1; }
done
echo "root: libkflush-pmem.so.1 and libkflush-pmem2.so.1 preload"
SMOKE
if ! chroot "$root" /bin/sh /tmp/smoke.sh; then
	echo "deb-smoke: FAIL: in the fresh root"
	exit 1
fi
echo "deb-smoke: ok in $(($(date +%s) - t0)) s"
