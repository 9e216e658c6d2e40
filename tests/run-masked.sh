#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-masked.sh MASK PROGRAM...
# Runs each PROGRAM with KFLUSH_HWCAPS=MASK, so libkflush binds as on a CPU
# without the masked features (masking is read once, at load). Fails on
# the first program that fails; 77 (skip) only if every program skipped.

if [ $# -lt 2 ]; then
	echo "usage: $0 MASK PROGRAM..." >&2
	exit 99
fi
KFLUSH_HWCAPS=$1
export KFLUSH_HWCAPS
shift

status=77
for prog; do
	echo "== KFLUSH_HWCAPS=$KFLUSH_HWCAPS $prog"
	"$prog"
	rc=$?
	case $rc in
	0) status=0 ;;
	77) ;;
	*) echo "FAIL: $prog under KFLUSH_HWCAPS=$KFLUSH_HWCAPS (exit $rc)"; exit "$rc" ;;
	esac
done
exit $status
