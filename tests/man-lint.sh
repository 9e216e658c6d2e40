#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Every man page in man/ must be free of warnings: "mandoc -Tlint
# -Wwarning" when mandoc is installed, else "groff -man -ww -z". And:
#   - an alias is a symlink to a real page in man/, listed in MAN_ALIASES
#     (man/local.mk) with that target, and each MAN_ALIASES entry exists
#     (in a dist tarball, where tar followed the links, a copy of it); a
#     ".so" stub is refused: outside an installed man tree "man -l" and
#     mandoc cannot resolve man3/ and render it blank (issue 13);
#   - every page, alias or not, renders to text (mandoc or groff -Tutf8);
#   - no page uses \(pc, which is a centred dot, not a percent sign.
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

if [ "$tool" = mandoc ]; then
	render() { "$MANDOC" -Tutf8 "$1" 2>/dev/null; }
else
	render() { "$GROFF" -man -Tutf8 "$1" 2>/dev/null; }
fi

# "man/<alias>.3:<page>.3" words of MAN_ALIASES, joined across lines.
aliases=$(sed -n '/^MAN_ALIASES[ \t]*=/,/^[ \t]*$/p' "$mandir/local.mk" |
	tr '\\\t' '  ' | tr ' ' '\n' | grep '^man/.*:')
if [ -z "$aliases" ]; then
	echo "man-lint: no MAN_ALIASES in $mandir/local.mk" >&2
	exit 99
fi
fail=0
copies=0
for a in $aliases; do
	if [ -L "$srcdir/${a%%:*}" ]; then
		:
	elif [ -f "$srcdir/${a%%:*}" ] && [ ! -e "$srcdir/.git" ] &&
	     cmp -s "$srcdir/${a%%:*}" "$mandir/${a#*:}"; then
		copies=$((copies + 1))
	else
		echo "FAIL: ${a%%:*}: listed in MAN_ALIASES but not a symlink in man/"
		fail=1
	fi
done

pages=0
for page in "$mandir"/*.[1-8]; do
	[ -f "$page" ] || continue
	pages=$((pages + 1))
	rel=man/${page##*/}
	if grep -q '\\(pc' "$page"; then
		echo "FAIL: $rel: \\(pc renders as a centred dot; write % for a percent sign"
		fail=1
	fi
	if [ "$(render "$page" | grep -c '[A-Za-z]')" -lt 5 ]; then
		echo "FAIL: $rel: renders blank with $tool (a .so stub? make it a symlink)"
		fail=1
	fi
	if printf '%s\n' $aliases | grep -q "^$rel:" && [ ! -L "$page" ]; then
		continue	# a tarball's copy, compared with its page above
	fi
	if [ -L "$page" ]; then
		target=$(readlink "$page")
		if ! printf '%s\n' $aliases | grep -qx "$rel:$target"; then
			echo "FAIL: $rel: a symlink to $target, not listed so in MAN_ALIASES"
			fail=1
		elif [ "${target#*/}" != "$target" ] || [ ! -f "$mandir/$target" ] ||
		     [ -L "$mandir/$target" ]; then
			echo "FAIL: $rel: must link to a real page beside it, not $target"
			fail=1
		fi
		continue
	fi
	if sed -n 1p "$page" | grep -q '^\.so'; then
		echo "FAIL: $rel: a .so stub renders blank outside an installed man tree; make it a symlink listed in MAN_ALIASES"
		fail=1
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
note=
[ "$copies" = 0 ] || note=" ($copies aliases as copies: a dist tarball)"
[ "$fail" = 0 ] && echo "man-lint: $pages pages clean under $tool$note"
exit $fail
