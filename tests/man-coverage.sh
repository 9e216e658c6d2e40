#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Every exported symbol (the global: lists of lib/libkflush.map) and every
# inline function of include/kflush.h meant for users must have a man page,
# man/<name>.3: a real page whose NAME section lists the name, or a
# ".so man3/<page>.3" stub pointing at one. The page must also be listed in
# man/local.mk, or it would be neither installed nor distributed. The
# registry's page, kflush_variant_count(3), must list every operation of
# enum kflush_op and every variant type.
#
# $srcdir comes from the test harness; run by hand it defaults to the
# directory above this script.
set -u

srcdir=${srcdir:-$(dirname "$0")/..}
map=$srcdir/lib/libkflush.map
header=$srcdir/include/kflush.h
mandir=$srcdir/man
mk=$mandir/local.mk

for f in "$map" "$header" "$mk"; do
	if [ ! -r "$f" ]; then
		echo "man-coverage: cannot read $f" >&2
		exit 99
	fi
done

# Symbols between "global:" and "local:" (or the end of the node), in every
# version node; comments stripped.
exported=$(sed -e 's,/\*.*\*/,,g' -e 's,#.*,,' "$map" | awk '
	/global:/ { g = 1; sub(/.*global:/, "") }
	/local:/  { g = 0 }
	/}/       { g = 0 }
	g {
		n = split($0, w, /[ \t;]+/)
		for (i = 1; i <= n; i++)
			if (w[i] ~ /^[A-Za-z_][A-Za-z0-9_]*$/)
				print w[i]
	}')

# Inline functions defined in the header. The name is the identifier in
# front of the first "(" once attributes are removed, on the "static
# inline" line or the next one. kflush_movnti_<N>, kflush_movntdq_n and
# kflush_xmm_load are the store helpers of the constant-size paths, not
# interface.
inline=$(awk '
	function name_of(s,    m) {
		gsub(/__attribute__[ \t]*\(\([^)]*\)\)/, "", s)
		if (match(s, /[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/)) {
			m = substr(s, RSTART, RLENGTH)
			sub(/[ \t]*\($/, "", m)
			return m
		}
		return ""
	}
	pending {
		pending = 0
		n = name_of($0)
		if (n != "")
			print n
		next
	}
	/^static[ \t].*(inline|__inline__)/ {
		n = name_of($0)
		if (n != "")
			print n
		else
			pending = 1
	}' "$header" | grep -Ev '^kflush_(movnti_[0-9]*|movntdq_n|xmm_load)$')

if [ -z "$exported" ]; then
	echo "man-coverage: no exported symbols found in $map" >&2
	exit 99
fi
for must in memcpy_flushcache memcpy_nontemporal; do
	if ! printf '%s\n' "$inline" | grep -qx "$must"; then
		echo "man-coverage: $must not found as an inline function in $header" >&2
		exit 99
	fi
done

# Does the NAME section of page $1 list $2?
name_lists() {
	awk -v sym="$2" '
		/^\.SH/ { in_name = ($0 ~ /^\.SH[ \t]+"?NAME"?[ \t]*$/); next }
		in_name {
			n = split($0, w, /[ \t,]+/)
			for (i = 1; i <= n; i++) {
				gsub(/\\f[BIRP]/, "", w[i])
				if (w[i] == sym)
					found = 1
			}
		}
		END { exit !found }' "$1"
}

fail=0
checked=0
for sym in $exported $inline; do
	checked=$((checked + 1))
	page=$mandir/$sym.3
	if [ ! -f "$page" ]; then
		echo "FAIL: $sym: no man page man/$sym.3"
		fail=1
		continue
	fi
	if ! grep -q "man/$sym\.3\([^A-Za-z0-9_.]\|$\)" "$mk"; then
		echo "FAIL: $sym: man/$sym.3 is not listed in man/local.mk"
		fail=1
	fi
	target=$page
	so=$(sed -n '1s/^\.so[ \t]\{1,\}//p' "$page")
	if [ -n "$so" ]; then
		# ".so man3/x.3" is relative to the top of the installed man tree.
		target=$mandir/${so##*/}
		if [ ! -f "$target" ]; then
			echo "FAIL: $sym: man/$sym.3 includes $so, which does not exist"
			fail=1
			continue
		fi
		if sed -n 1p "$target" | grep -q '^\.so'; then
			echo "FAIL: $sym: man/$sym.3 includes $so, itself a .so stub"
			fail=1
			continue
		fi
	fi
	if ! name_lists "$target" "$sym"; then
		echo "FAIL: $sym: the NAME section of ${target#"$srcdir"/} does not list it"
		fail=1
	fi
done

# The registry page lists every operation of the header's enum kflush_op
# and every variant type beside it.
registry_page=$mandir/kflush_variant_count.3
ops=$(sed -n '/^enum kflush_op {/,/^}/s/^[ \t]*\(KFLUSH_OP_[A-Z0-9_]*\).*/\1/p' "$header")
fn_types=$(sed -n 's/^typedef .*(\*\(kflush_[a-z0-9_]*_fn\))(.*/\1/p' "$header")
if [ -z "$ops" ] || [ -z "$fn_types" ]; then
	echo "man-coverage: no enum kflush_op or variant types found in $header" >&2
	exit 99
fi
for name in $ops $fn_types; do
	checked=$((checked + 1))
	if ! grep -q "^\.B[RI]* $name\( \|$\)" "$registry_page"; then
		echo "FAIL: $name: not listed in man/kflush_variant_count.3"
		fail=1
	fi
done

if [ "$fail" = 0 ]; then
	echo "man-coverage: all $checked public functions, operations and variant types have a man page"
fi
exit $fail
