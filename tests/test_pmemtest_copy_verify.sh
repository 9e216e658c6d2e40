#!/bin/sh
# SPDX-License-Identifier: MIT
# copy-bench's check of what each contender stored (copy_verify.c) must be
# able to fail. tests/libbadcopy.so, preloaded, makes glibc's memcpy,
# memmove or memset wrong at one length (KFLUSH_TEST_BAD_CALL), so
# copy-bench's glibc contenders really store the wrong bytes: a call one
# byte short, or one byte past its end. Each run must exit 1 with a
# message that names the contender and the byte, relative to the call, that
# is wrong. The same library broken at a length no call has must leave the
# run passing. tests/test_bench.sh runs every mode and every contender
# with nothing broken. No timing is looked at.
set -u

PMEMTEST=${PMEMTEST:-./pmemtest/pmemtest}
shim=./tests/.libs/libbadcopy.so
. "$(dirname "$0")/lib.sh"
# Under ASan an instrumented pmemtest calls the runtime's own memcpy:
# nothing preloaded can break its copies. test_bench.sh still runs the
# check there, on every contender.
tl_preload "$shim" "$PMEMTEST"
tl_scratch pmemtest-copy-verify

# bad "FUNCTION LENGTH HOW" WANT-RC WANT-MESSAGE-ERE ARGS...: one run of
# copy-bench with that call broken, tiny and quiet.
bad() {
	spec=$1 rc_want=$2 re=$3
	shift 3
	n=$((n + 1))
	KFLUSH_TEST_BAD_CALL=$spec LD_PRELOAD=$shim "$PMEMTEST" --quiet copy-bench --repeat 1 \
		--only glibc "$@" >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" -ne "$rc_want" ]; then
		fail "$spec, copy-bench $*: exit $rc, want $rc_want"
		sed 's/^/  | /' "$T/err"
	elif [ -n "$re" ] && ! grep -Eq "$re" "$T/err"; then
		fail "$spec, copy-bench $*: no message matching /$re/"
		sed 's/^/  | /' "$T/err"
	else
		echo "ok: $spec: copy-bench $*: exit $rc${re:+: $(grep -E -m 1 "$re" "$T/err")}"
	fi
}

short='stored the wrong bytes .*: byte \+999 of the call is 0x[0-9a-f]+, want 0x[0-9a-f]+$'
over='stored the wrong bytes .*: byte \+1000 of the call .*\(outside the call\)$'
bad "memcpy 1000 short" 1 "^pmemtest: copy-bench: glibc:memcpy\+flush $short" \
	--mode sweep --sizes 1000 --layout fixed
bad "memcpy 1000 over" 1 "^pmemtest: copy-bench: glibc:memcpy\+flush $over" \
	--mode sweep --sizes 1000 --layout fixed
bad "memset 1000 short" 1 "^pmemtest: copy-bench: glibc:memset\+flush $short" \
	--mode set --sizes 1000 --layout fixed
bad "memmove 1000 short" 1 "^pmemtest: copy-bench: glibc:memmove\+flush $short" \
	--mode move --sizes 1000 --layout down
bad "memmove 1000 over" 1 "^pmemtest: copy-bench: glibc:memmove\+flush $over" \
	--mode move --sizes 1000 --layout up
bad "memcpy 4096 over" 1 \
	'^pmemtest: copy-bench: glibc:memcpy stored the wrong bytes \(copy-page .*: byte \+4096 of the call .*\(outside the call\)$' \
	--mode copy-page
bad "memcpy 100 short" 1 \
	'^pmemtest: copy-bench: glibc:memcpy stored the wrong bytes \(copy-safe .*: byte \+99 of the call' \
	--mode copy-safe --sizes 100
# Broken where no call is: the same runs pass.
bad "memcpy 999 short" 0 "" --mode sweep,copy-page --sizes 1000,4096 --layout fixed
bad "memset 999 over" 0 "" --mode set --sizes 1000 --layout fixed
bad "memmove 999 short" 0 "" --mode move --sizes 1000 --layout down,up

if [ "$fails" -gt 0 ]; then
	echo "$fails of $n runs failed"
	exit 1
fi
echo "$n runs as expected"
