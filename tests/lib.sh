# SPDX-License-Identifier: MIT
# What the shell tests share, sourced first: a failure count with fail(),
# a check counter, and tl_scratch for a scratch directory removed on exit.
#	. "$(dirname "$0")/lib.sh"
#	tl_scratch pmemtest-roof

fails=0
n=0

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# tl_scratch NAME: $T is a new directory under $TMPDIR, removed on exit.
tl_scratch() {
	T=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX") || exit 99
	trap 'rm -rf "$T"' EXIT INT TERM
}

# tl_masked MASK PROGRAM [ARGS...]: run-masked.sh, except that a 77 (the
# tracer refused, KFLUSH_TEST_ALLOW_NO_TRACE=1) does not stop a chain of
# them: it is kept in tl_skip, which the script exits with at the end, so
# the proof that did not run is a SKIP.
tl_skip=0
tl_masked() {
	"${srcdir:-.}/tests/run-masked.sh" "$@"
	tl_r=$?
	[ "$tl_r" -eq 77 ] && { tl_skip=77; return 0; }
	return "$tl_r"
}

# tl_preload SHIM PROGRAM: PROGRAM is to run with SHIM preloaded. Exit 99
# when SHIM is not built, 77 when PROGRAM (or libtool's real binary behind
# its wrapper) is built with AddressSanitizer, whose runtime must be loaded
# before any LD_PRELOAD library and whose own string functions an
# instrumented program calls directly.
tl_preload() {
	[ -f "$1" ] || { echo "FAIL: $1 not built"; exit 99; }
	if tl_asan "$2"; then
		echo "SKIP: $(basename "$2") is built with AddressSanitizer: nothing can be preloaded before its runtime"
		exit 77
	fi
}

# tl_asan PROGRAM: whether PROGRAM, or libtool's real binary behind its
# wrapper, is built with AddressSanitizer.
tl_asan() {
	for tl_b in "$1" "$(dirname "$1")/.libs/$(basename "$1")"; do
		[ -f "$tl_b" ] && ldd "$tl_b" 2>/dev/null | grep -q libasan && return 0
	done
	return 1
}
