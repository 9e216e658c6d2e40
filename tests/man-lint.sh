#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Every man page in man/ must be free of warnings: "mandoc -Tlint
# -Wwarning" when mandoc is installed, else "groff -man -ww -z". A ".so"
# alias stub is not linted (mandoc calls .so fragile by design, and
# neither tool can resolve man3/ in the source tree); it must be that one
# line and name an existing real page instead.
#
# $srcdir comes from the test harness; run by hand it defaults to the
# directory above this script. MANDOC and GROFF override the tools.
set -u

srcdir=${srcdir:-$(dirname "$0")/..}
mandir=$srcdir/man

if [ -n "${MANDOC-}" ] || MANDOC=$(command -v mandoc); then
	lint() { "$MANDOC" -Tlint -Wwarning "$1" 2>&1; }
	tool=mandoc
elif [ -n "${GROFF-}" ] || GROFF=$(command -v groff); then
	lint() { "$GROFF" -man -ww -z "$1" 2>&1; }
	tool=groff
else
	echo "man-lint: neither mandoc nor groff is installed; skipping"
	exit 77
fi

fail=0
pages=0
for page in "$mandir"/*.[1-8]; do
	[ -f "$page" ] || continue
	pages=$((pages + 1))
	rel=man/${page##*/}
	if sed -n 1p "$page" | grep -q '^\.so'; then
		target=$(sed -n '1s/^\.so[ \t]\{1,\}//p' "$page")
		if [ "$(wc -l <"$page")" -ne 1 ]; then
			echo "FAIL: $rel: a .so stub must be one line"
			fail=1
		elif [ ! -f "$mandir/${target##*/}" ]; then
			echo "FAIL: $rel: .so target $target does not exist"
			fail=1
		fi
		continue
	fi
	out=$(lint "$page")
	rc=$?
	if [ -n "$out" ] || [ "$rc" -ne 0 ]; then
		echo "FAIL: $rel ($tool exit $rc):"
		printf '%s\n' "$out"
		fail=1
	fi
done

if [ "$pages" = 0 ]; then
	echo "man-lint: no pages found in $mandir" >&2
	exit 99
fi
[ "$fail" = 0 ] && echo "man-lint: $pages pages clean under $tool"
exit $fail
