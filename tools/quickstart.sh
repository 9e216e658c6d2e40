#!/bin/sh
# SPDX-License-Identifier: MIT
# The README's quick start. Works from a fresh clone on Debian 12 as root:
# installs the Debian packages it needs when they are missing, builds out of
# tree in build/, then runs the requested job.
#
#   tools/quickstart.sh bench   build, then pmemtest's main job on the embedded default
#   tools/quickstart.sh check   build, then the test suite
#   tools/quickstart.sh check-sanitizers   the same suite in an ASan+UBSan build (build-san/)
set -eu

job=${1:-}
case "$job" in
bench|check|check-sanitizers) ;;
*) echo "usage: $0 bench|check|check-sanitizers" >&2; exit 2 ;;
esac

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

packages="build-essential autoconf automake libtool pkg-config libpmem2-dev
	libdaxctl-dev libndctl-dev libcriterion-dev libjson-c-dev libcapstone-dev clang mandoc
	groff-base jq gnuplot-nox libpmem1 fio libpmemobj-dev pmdk-tools strace"
missing=
for p in $packages; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "quickstart: missing Debian packages:$missing (run as root, or apt-get install them)" >&2
		exit 1
	fi
	echo "quickstart: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

# An in-tree ./configure stops every out-of-tree build ("source directory
# already configured"). Both builds below must be out of tree (the plain
# and the sanitizer build cannot share the source directory), so the
# in-tree configuration is what goes: make distclean removes it and the
# in-tree objects, and nothing else.
if [ -f config.status ]; then
	echo "quickstart: the source tree was configured in place; running make distclean there so build/ can be used"
	if [ -f Makefile ]; then make distclean >/dev/null; else rm -f config.status config.h config.log; fi
fi

jobs=$(nproc 2>/dev/null || echo 2)
build() {
	dir=$1
	shift
	[ -x configure ] || autoreconf -fi
	mkdir -p "$dir"
	# Reconfigure when the flags changed or configure is newer than the build.
	if [ ! -f "$dir/config.status" ] || [ configure -nt "$dir/config.status" ] ||
	   [ "$(cat "$dir/.quickstart-flags" 2>/dev/null)" != "$*" ]; then
		(cd "$dir" && ../configure --enable-werror "$@")
		echo "$*" >"$dir/.quickstart-flags"
	fi
	make -C "$dir" -j"$jobs"
}

case "$job" in
bench)
	build build
	exec build/pmemtest/pmemtest init-bench
	;;
check)
	build build
	make -C build -j"$jobs" check
	;;
check-sanitizers)
	build build-san --enable-sanitizers
	make -C build-san -j"$jobs" check
	;;
esac
