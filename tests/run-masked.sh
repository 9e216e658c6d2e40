#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-masked.sh MASK PROGRAM [ARGS...]
# Runs PROGRAM with KFLUSH_HWCAPS=MASK, so libkflush binds as it would on a
# CPU without the masked features (the mask is read once, at load), and
# exits with its status.

if [ $# -lt 2 ]; then
	echo "usage: $0 MASK PROGRAM [ARGS...]" >&2
	exit 99
fi
KFLUSH_HWCAPS=$1
export KFLUSH_HWCAPS
shift
echo "== KFLUSH_HWCAPS=$KFLUSH_HWCAPS $*"
exec "$@"
