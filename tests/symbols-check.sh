#!/bin/sh
# SPDX-License-Identifier: MIT
#
# debian/libkflush0.symbols must list exactly the symbols of
# lib/libkflush.map, each with the version node it is in, and one entry per
# node (NODE@NODE). dpkg-gensymbols compares the file with the built
# library at package build time; this keeps it in step with the version
# script at every make check. Exit 77 without debian/ (a dist tarball).
set -u

srcdir=${srcdir:-$(dirname "$0")/..}
map=$srcdir/lib/libkflush.map
symbols=$srcdir/debian/libkflush0.symbols
if [ ! -f "$symbols" ]; then
	echo "symbols-check: SKIPPED: no $symbols (not a git checkout)"
	exit 77
fi
[ -r "$map" ] || { echo "symbols-check: cannot read $map" >&2; exit 99; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/kflush-symbols.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

# name@NODE for each global of each node, and NODE@NODE for the node.
sed -e 's,/\*.*\*/,,g' -e 's,#.*,,' "$map" | awk '
	/^[ \t]*[A-Za-z_][A-Za-z0-9_.]*[ \t]*\{/ { node = $1; sub(/\{.*/, "", node); print node "@" node }
	/global:/ { g = 1; next }
	/local:/ { g = 0 }
	/}/ { g = 0 }
	g {
		n = split($0, w, /[ \t;]+/)
		for (i = 1; i <= n; i++)
			if (w[i] ~ /^[A-Za-z_][A-Za-z0-9_]*$/)
				print w[i] "@" node
	}' | sort >"$tmp/map"
# Symbol lines start with a space; the first field is name@NODE.
sed -n 's/^ \([^ ]*\) .*/\1/p' "$symbols" | sort >"$tmp/deb"

if [ ! -s "$tmp/map" ]; then
	echo "symbols-check: no symbols found in $map" >&2
	exit 99
fi
if ! cmp -s "$tmp/map" "$tmp/deb"; then
	echo "FAIL: debian/libkflush0.symbols and lib/libkflush.map differ"
	echo "(< only in the map, > only in the symbols file)"
	diff "$tmp/map" "$tmp/deb" | grep '^[<>]'
	exit 1
fi
echo "symbols-check: $(wc -l <"$tmp/map") entries agree"
