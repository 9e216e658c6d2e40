#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-masked.sh MASK PROGRAM [ARGS...]
# Runs PROGRAM with KFLUSH_HWCAPS=MASK, so libkflush binds as it would on a
# CPU without the masked features (the mask is read once, at load), and
# exits with its status. A mask entry libkflush does not know would leave
# the run unmasked and still passing: its report on stderr fails the run.

if [ $# -lt 2 ]; then
	echo "usage: $0 MASK PROGRAM [ARGS...]" >&2
	exit 99
fi
KFLUSH_HWCAPS=$1
export KFLUSH_HWCAPS
shift
echo "== KFLUSH_HWCAPS=$KFLUSH_HWCAPS $*"
err=$(mktemp "${TMPDIR:-/tmp}/run-masked.XXXXXX") || exit 99
trap 'rm -f "$err"' EXIT
"$@" 2>"$err"
status=$?
cat "$err" >&2
if grep -q '^libkflush: KFLUSH_HWCAPS:' "$err"; then
	echo "FAIL: KFLUSH_HWCAPS=$KFLUSH_HWCAPS names a feature libkflush does not know" >&2
	status=1
fi
exit $status
