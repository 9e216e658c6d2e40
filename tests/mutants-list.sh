#!/bin/sh
# SPDX-License-Identifier: MIT
# tools/mutants.list stays in step with the code it mutates: every entry's
# text occurs exactly once in its file and no field is empty, so a change
# that leaves a mutant stale fails here at once rather than at the next
# hand-run of tools/mutants.sh. Skipped in a dist tarball (no tools/).
set -u

srcdir=${srcdir:-$(dirname "$0")/..}
if [ ! -f "$srcdir/tools/mutants.sh" ] || [ ! -f "$srcdir/tools/mutants.list" ]; then
	echo "mutants-list: SKIPPED: no tools/mutants.sh and tools/mutants.list (not a git checkout)"
	exit 77
fi
exec sh "$srcdir/tools/mutants.sh" --check-list
