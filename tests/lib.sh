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
