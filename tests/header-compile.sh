#!/bin/sh
# SPDX-License-Identifier: MIT
#
# <kflush.h> must compile cleanly, with -Wall -Wextra -pedantic -Werror, as
# C99, C11, C17 and GNU11 with gcc and clang, and as C++11, C++17 and C++20
# with g++ and clang++. Each mode builds, at -O2:
#   - use.c: the inline memcpy_flushcache()/memcpy_nontemporal() paths for
#     every constant size, a run-time size and the out-of-line calls; the
#     object must contain movnti and movntdq, so both inline paths were
#     really compiled;
#   - fault.c: an SA_SIGINFO handler that calls kflush_fault_handler(). In
#     the strict C modes siginfo_t exists only with a POSIX feature macro,
#     so it is built with -D_POSIX_C_SOURCE=200809L there, and as is in the
#     others; the declaration must be visible either way.
# Under C11 the header is also built with the feature macros for which glibc
# defines SA_SIGINFO but not siginfo_t; under GNU11 with -mavx2, where the
# movntdq path must come out VEX-encoded, and without SSE2 registers
# (-mgeneral-regs-only, clang -mno-sse2), where only movnti may remain.
# A compiler that is not installed is skipped with one line.
# Exit status: 0 pass, 1 fail, 77 no compiler at all.

srcdir=${srcdir:-$(dirname "$0")/..}
objdump=${OBJDUMP:-objdump}
flags="-Wall -Wextra -pedantic -Werror -O2 -I$srcdir/include"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/kflush-header.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

# Valid as C and as C++: the same file is compiled both ways.
cat >"$tmp/use.c" <<'EOF'
#include <kflush.h>

static char dst[256], src[256];

int main(int argc, char **argv)
{
	size_t n = (size_t)argc + 100;

	(void)argv;
	memcpy_flushcache(dst, src, 4);
	memcpy_flushcache(dst, src, 8);
	memcpy_flushcache(dst, src, 16);
	memcpy_flushcache(dst, src, 32);
	memcpy_flushcache(dst, src, 48);
	memcpy_flushcache(dst, src, 64);
	memcpy_flushcache(dst, src, 80);
	memcpy_flushcache(dst, src, 96);
	memcpy_flushcache(dst, src, 24);
	memcpy_flushcache(dst, src, n);
	memcpy_nontemporal(dst + 128, src, 64);
	kflush_memset_flushcache(dst, 0, sizeof(dst));
	kflush_drain();
	return (int)(kflush_cpu_features() & 1) + dst[0];
}
EOF

cat >"$tmp/fault.c" <<'EOF'
#include <kflush.h>
#include <signal.h>
#include <string.h>

static void on_fault(int sig, siginfo_t *info, void *uc)
{
	if (kflush_fault_handler(sig, info, uc))
		return;
	signal(sig, SIG_DFL);
}

int main(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	return sigaction(SIGSEGV, &sa, NULL) != 0;
}
EOF

have_objdump=1
if ! command -v "$objdump" >/dev/null 2>&1; then
	echo "note: $objdump not found: the movnti/movntdq check is skipped"
	have_objdump=0
fi

fail=0
ran=0

# build COMPILER LANG STD [EXTRA...]: compile both probes in one mode.
build() {
	cc=$1 lang=$2 std=$3
	shift 3
	tag="$cc -std=$std"
	o=$tmp/use-$cc-$std.o
	# shellcheck disable=SC2086
	if ! out=$("$cc" -x "$lang" -std="$std" $flags -c "$tmp/use.c" -o "$o" 2>&1); then
		echo "FAIL: $tag: <kflush.h> does not compile:"
		printf '%s\n' "$out" | sed 's/^/  /'
		fail=1
		return
	fi
	if [ "$have_objdump" -eq 1 ]; then
		dis=$("$objdump" -d "$o")
		for insn in movnti movntdq; do
			if ! printf '%s\n' "$dis" | grep -q "$insn[[:space:]]"; then
				echo "FAIL: $tag: no $insn in the object: the inline path was not compiled"
				fail=1
				return
			fi
		done
	fi
	# shellcheck disable=SC2086
	if ! out=$("$cc" -x "$lang" -std="$std" $flags "$@" -c "$tmp/fault.c" \
		   -o "$tmp/fault-$cc-$std.o" 2>&1); then
		echo "FAIL: $tag $*: a kflush_fault_handler() caller does not compile:"
		printf '%s\n' "$out" | sed 's/^/  /'
		fail=1
		return
	fi
	echo "ok: $tag"
}

# use_only COMPILER STD MACRO: the header alone, under one feature macro.
use_only() {
	# shellcheck disable=SC2086
	if ! out=$("$1" -x c -std="$2" $flags "$3" -c "$tmp/use.c" -o "$tmp/macro.o" 2>&1); then
		echo "FAIL: $1 -std=$2 $3: <kflush.h> does not compile:"
		printf '%s\n' "$out" | sed 's/^/  /'
		fail=1
		return
	fi
	echo "ok: $1 -std=$2 $3"
}

# The first of the names given that is installed, or nothing.
pick() {
	for c in "$@"; do
		if command -v "$c" >/dev/null 2>&1; then
			echo "$c"
			return
		fi
	done
}

# isa CC FLAG WANT NOT WHAT: use.c built with FLAG must compile and, in its
# disassembly, match the ERE WANT and not the ERE NOT (WHAT says which).
# In AVX code the movntdq path must be VEX-encoded, as legacy SSE next to
# dirty upper ymm state is slow on Intel; without SSE2 registers only the
# movnti path may remain.
isa() {
	o=$tmp/use-isa-$1$2.o
	# shellcheck disable=SC2086
	if ! out=$("$1" -x c -std=gnu11 $flags "$2" -c "$tmp/use.c" -o "$o" 2>&1); then
		echo "FAIL: $1 $2: <kflush.h> does not compile:"
		printf '%s\n' "$out" | sed 's/^/  /'
		fail=1
		return
	fi
	[ "$have_objdump" -eq 1 ] || return
	dis=$("$objdump" -d --no-show-raw-insn "$o")
	if ! printf '%s\n' "$dis" | grep -Eq "$3" || printf '%s\n' "$dis" | grep -Eq "$4"; then
		echo "FAIL: $1 $2: not $5:"
		printf '%s\n' "$dis" | grep -E 'movnt' | sed 's/^/  /'
		fail=1
		return
	fi
	echo "ok: $1 $2: $5"
}

for family in gcc clang; do
	if [ "$family" = gcc ]; then
		cc=$(pick gcc)
		cxx=$(pick g++)
	else
		cc=$(pick clang clang-19 clang-18 clang-17 clang-16 clang-15 clang-14)
		cxx=$(pick clang++ clang++-19 clang++-18 clang++-17 clang++-16 clang++-15 clang++-14)
	fi
	if [ -z "$cc" ]; then
		echo "SKIP: $family (C) is not installed"
	else
		ran=1
		for std in c99 c11 c17; do
			build "$cc" c "$std" -D_POSIX_C_SOURCE=200809L
		done
		build "$cc" c gnu11
		isa "$cc" -mavx2 'vmovntdq[[:space:]]' '[[:space:]]movntdq[[:space:]]' "vmovntdq only"
		if [ "$family" = gcc ]; then nosse=-mgeneral-regs-only; else nosse=-mno-sse2; fi
		isa "$cc" "$nosse" '[[:space:]]movnti[[:space:]]' 'movntdq' "movnti only"
		# glibc defines SA_SIGINFO for POSIX.1-1990 and X/Open without a
		# version, but siginfo_t only from POSIX.1b and XPG5 on.
		for m in -D_POSIX_C_SOURCE=1 -D_XOPEN_SOURCE -D_POSIX_SOURCE; do
			use_only "$cc" c11 "$m"
		done
	fi
	if [ -z "$cxx" ]; then
		echo "SKIP: $family (C++) is not installed"
	else
		ran=1
		for std in c++11 c++17 c++20; do
			build "$cxx" c++ "$std"
		done
	fi
done

if [ "$ran" -eq 0 ]; then
	echo "SKIP: no C or C++ compiler found"
	exit 77
fi
exit $fail
