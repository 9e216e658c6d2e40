#!/bin/sh
# SPDX-License-Identifier: MIT
# pmemtest's command line as its users expect it (issue 12): targets that are
# not namespaces fail at once (never a hang), --dev is refused where it would
# be ignored, option sets that measure nothing are errors, write errors on
# stdout are reported as they happened, global options work after the
# command, one name per idea, and "pmemtest help". Expectations are written
# here, from the issue, not read from pmemtest. Tiny sizes keep it fast.
set -u

PMEMTEST=${PMEMTEST:-./pmemtest/pmemtest}
. "$(dirname "$0")/lib.sh"
tl_scratch pmemtest-cli

# expect CODE PATTERN -- ARGS: within 20 s, exit CODE and exactly one stderr
# line matching PATTERN (124 from timeout means pmemtest hung).
expect() {
	code=$1 pat=$2
	shift 3
	n=$((n + 1))
	timeout 20 "$PMEMTEST" "$@" > "$T/out" 2> "$T/err" < /dev/null
	rc=$?
	lines=$(wc -l < "$T/err")
	if [ "$rc" -eq 124 ]; then
		fail "pmemtest $*: hung (killed after 20 s)"
	elif [ "$rc" -ne "$code" ]; then
		fail "pmemtest $*: exit $rc, expected $code ($(head -c 300 "$T/err"))"
	elif [ "$lines" -ne 1 ]; then
		fail "pmemtest $*: $lines lines on stderr, expected one: $(head -c 300 "$T/err")"
	elif ! grep -q -- "$pat" "$T/err"; then
		fail "pmemtest $*: stderr does not say '$pat': $(cat "$T/err")"
	else
		echo "ok $n - pmemtest $* -> $code: $(cat "$T/err")"
	fi
}

# ok_run DESC -- ARGS: exit 0 within 60 s; stdout kept in $T/out.
ok_run() {
	desc=$1
	shift 2
	n=$((n + 1))
	timeout 60 "$PMEMTEST" "$@" > "$T/out" 2> "$T/err" < /dev/null
	rc=$?
	if [ "$rc" -ne 0 ]; then
		fail "$desc: pmemtest $*: exit $rc ($(head -c 300 "$T/err"))"
		return 1
	fi
	echo "ok $n - $desc"
}

# Paths whose open() would block or that are no namespace.
mkfifo "$T/fifo" || exit 99
expect 1 "is a fifo" -- --dev "$T/fifo" init-bench --repeat 1
mkdir "$T/dir"
expect 1 "is a directory" -- --dev "$T/dir" init-bench --repeat 1
if command -v python3 > /dev/null 2>&1 &&
   python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$T/sock"; then
	expect 1 "is a socket" -- --dev "$T/sock" init-bench --repeat 1
else
	echo "# skip: no python3 to make a unix socket"
fi
expect 1 "not a devdax device" -- --dev /dev/tty init-bench --repeat 1

# --dev where the command cannot use it.
for cmd in copy-bench clear-bench info; do
	expect 2 "$cmd does not use --dev" -- --dev "$T/fifo" $cmd
done

# Every command's option mistakes: one line naming the option, exit 2 (not
# the whole usage text), and lists and numbers that hold nothing usable.
for cmd in init-bench copy-bench clear-bench plot info; do
	expect 2 "$cmd: unknown option '--bogus'" -- $cmd --bogus
done
for opt in "copy-bench --mode" "copy-bench -r" "clear-bench --extents" "plot --mode" \
	   "init-bench --size"; do
	# shellcheck disable=SC2086
	expect 2 "option '${opt#* }' needs an argument" -- $opt
done
expect 2 "plot: --json does not apply" -- --json plot "$T/missing.csv"
expect 2 "plot: --csv does not apply" -- plot --csv "$T/missing.csv"
expect 2 "--mode '': no name in it" -- copy-bench --mode ''
expect 2 "--layout ',': no name in it" -- copy-bench --layout ,
# --seed, the same in both commands that take one: any 64-bit value, decimal
# or 0x hex; no sign, no blank, nothing after the digits, nothing above 2^64-1.
for cmd in copy-bench init-bench; do
	for bad in -1 +1 ' 1' 1x 0x 0x-1 '0x 1' 0xg 18446744073709551616 0x10000000000000000; do
		expect 2 "--seed '$bad'" -- $cmd --seed "$bad"
	done
done

# Options that leave nothing to measure.
expect 2 "nothing to measure" -- clear-bench --cache hot --extents 1G
expect 2 "nothing to measure" -- clear-bench --extents 2G --buffer 8M
expect 2 "nothing to measure" -- copy-bench --only zzz --mode copy-safe --repeat 1
# A size or extent asked for that nothing runs, beside others that run: named,
# not left out of the table. Each mode's range and the hot limit (1 MiB) are
# pmemtest(1)'s; a cold span must fit --buffer.
expect 2 "--sizes 2 GiB: no selected mode" -- copy-bench --mode sweep --sizes 64,2G --repeat 1
expect 2 "--sizes 4 MiB: no selected mode" -- copy-bench --mode sweep --cache hot \
	--sizes 64K,4M --repeat 1
expect 2 "--sizes 8 KiB: no selected mode" -- copy-bench --mode copy-page --sizes 4K,8K \
	--repeat 1
expect 2 "--sizes 100 KiB: no selected mode" -- copy-bench --mode bulk,memcpy --sizes 1M,100K,100 \
	--repeat 1
expect 2 "--sizes 2 MiB: no selected mode" -- copy-bench --mode bulk --sizes 1M,2M --buffer 1M \
	--repeat 1
# The mix layout draws its own sizes (1 B..4 KiB): --sizes 4K is not run by it.
expect 2 "--sizes 4 KiB: no selected mode" -- copy-bench --mode sweep --layout mix --sizes 4K \
	--repeat 1
expect 2 "--extents 1 GiB: fits no cache state" -- clear-bench --cache hot --extents 4K,1G \
	--repeat 1
expect 2 "--extents 64 MiB: fits no cache state" -- clear-bench --extents 4K,64M --buffer 8M \
	--repeat 1

# --struct-page: what the message says is what is accepted.
expect 2 "multiples of 8 from 8 to 4096" -- copy-bench --struct-page 65
expect 2 "multiples of 8 from 8 to 4096" -- copy-bench --struct-page 5000
ok_run "--struct-page 72 (a multiple of 8) runs" -- copy-bench --mode struct-page \
	--struct-page 72 --buffer 4M --span 64K --repeat 1

# --buffer larger than memory: one line, before anything is mapped.
expect 2 "buffer 1 TiB" -- copy-bench --buffer 1T
expect 2 "buffer 1 TiB" -- clear-bench --buffer 1T

# A full stdout: the real error, exit 1.
for args in "info" "copy-bench --mode copy-safe --repeat 1 --sizes 8" \
	    "--csv clear-bench --repeat 1 --buffer 8M --extents 4K --cache hot"; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	timeout 60 "$PMEMTEST" $args > /dev/full 2> "$T/err"
	rc=$?
	if [ "$rc" -ne 1 ] || [ "$(wc -l < "$T/err")" -ne 1 ] ||
	   ! grep -q "No space left on device" "$T/err"; then
		fail "pmemtest $args > /dev/full: exit $rc, stderr: $(cat "$T/err")"
	else
		echo "ok $n - pmemtest $args > /dev/full -> 1: $(cat "$T/err")"
	fi
done

# Global options after the command mean the same as before it.
if ok_run "init-bench --json" -- init-bench --json -q --size 1G --repeat 1 --methods fixed; then
	grep -q '^{' "$T/out" || fail "init-bench --json: stdout is not JSON: $(head -c 200 "$T/out")"
	[ -s "$T/err" ] && fail "init-bench -q: stderr not quiet: $(head -c 200 "$T/err")"
fi
expect 1 "is a fifo" -- init-bench --dev "$T/fifo" --repeat 1
expect 1 "is a fifo" -- init-bench --dev="$T/fifo" --repeat 1
if ok_run "clear-bench --csv after the command" -- clear-bench --csv --repeat 1 --buffer 8M \
	--extents 4K --cache hot; then
	head -1 "$T/out" | grep -q ',' || fail "clear-bench --csv: no CSV header: $(head -1 "$T/out")"
fi

# Short options: -V and -c are the global ones everywhere.
ok_run "-V is the version" -- -V && grep -q '^pmemtest' "$T/out" || fail "-V: $(cat "$T/out")"
expect 2 "unknown option '-V'" -- init-bench -V avx2
expect 2 "unexpected argument 'hot'" -- copy-bench -c hot
# movnti: the x86-64 baseline variant, on every CPU.
ok_run "--variant, long only" -- init-bench -q --size 1G --repeat 1 --methods generic \
	--variant movnti

# One name per idea: --repeat everywhere, --rounds its alias.
if ok_run "init-bench --seed 2^64-1" -- init-bench --json -q --size 1G --repeat 1 --methods fixed \
	--seed 0xffffffffffffffff; then
	grep -q '"seed":18446744073709551615[,}]' "$T/out" ||
		fail "init-bench --seed 0xffffffffffffffff: $(grep -o '"seed":[^,]*' "$T/out")"
fi
if ok_run "copy-bench -S 0" -- copy-bench --json -S 0 --mode struct-page --struct-page 64 \
	--cache hot --repeat 1 --buffer 8M; then
	grep -q '"seed":0[,}]' "$T/out" || fail "copy-bench -S 0: $(grep -o '"seed":[^,]*' "$T/out")"
fi
# pmemtest(1): the same seed draws the same sizes, another seed others. The
# bytes a random-layout cell copies are the sum of the sizes it drew.
drawn() {
	"$PMEMTEST" --json copy-bench --seed "$1" --mode sweep --layout random --sizes 100 \
		--cache hot --repeat 1 --only movnti 2> /dev/null |
		grep -o '"bytes":[0-9]*' | head -1
}
a=$(drawn 7) b=$(drawn 7) c=$(drawn 8)
n=$((n + 1))
if [ -z "$a" ] || [ "$a" != "$b" ] || [ "$a" = "$c" ]; then
	fail "copy-bench --seed: seed 7 drew $a then $b, seed 8 $c"
else
	echo "ok $n - copy-bench --seed: seed 7 drew the same sizes twice ($a), seed 8 others ($c)"
fi
# Leading zeros are decimal, not C's octal: 010 is ten.
if ok_run "copy-bench --seed 010" -- copy-bench --json --seed 010 --mode struct-page \
	--struct-page 64 --cache hot --repeat 1 --buffer 8M; then
	grep -q '"seed":10[,}]' "$T/out" || fail "copy-bench --seed 010: $(grep -o '"seed":[^,]*' "$T/out")"
fi
ok_run "init-bench --rounds (alias)" -- init-bench -q --size 1G --rounds 1 --methods fixed
ok_run "clear-bench --repeat" -- clear-bench --repeat 1 --buffer 8M --extents 4K --cache hot
for cmd in init-bench copy-bench clear-bench; do
	n=$((n + 1))
	help=$("$PMEMTEST" $cmd --help)
	if ! printf '%s\n' "$help" | grep -q -- '--repeat N' ||
	   ! printf '%s\n' "$help" | grep -q -- '--rounds'; then
		fail "$cmd --help: no --repeat N with --rounds as its alias"
	elif ! printf '%s\n' "$help" | grep -q -- '--clock wall|cpu .*wall clock (default'; then
		fail "$cmd --help: --clock's default is not the wall clock: $(printf '%s\n' "$help" | grep -- --clock)"
	else
		echo "ok $n - $cmd: --repeat, alias --rounds, --clock default wall"
	fi
done
ok_run "clear-bench's clock is the wall clock by default" -- clear-bench --repeat 1 \
	--buffer 8M --extents 4K --cache hot
grep -q 'clock: wall' "$T/out" || fail "clear-bench default clock: $(grep clock "$T/out")"

# pmemtest help [COMMAND].
ok_run "pmemtest help" -- help && grep -q 'init-bench' "$T/out" || fail "help: $(head -3 "$T/out")"
ok_run "pmemtest help copy-bench" -- help copy-bench && grep -q -- '--mode' "$T/out" ||
	fail "help copy-bench: $(head -3 "$T/out")"
expect 2 "unknown command 'zzz'" -- help zzz

# --list: what each bench can run, names as pmemtest(1) documents them.
n=$((n + 1))
if ! "$PMEMTEST" copy-bench --list > "$T/out" 2> "$T/err"; then
	fail "copy-bench --list: exit $?: $(cat "$T/err")"
else
	missing=
	for m in struct-page bulk sweep memcpy copy-safe copy-page move; do
		grep -q "^$m: " "$T/out" || missing="$missing $m"
	done
	for c in 'memcpy_flushcache:.*(bound)' 'pmdk:memcpy_nt' 'glibc:memcpy' 'roof:' 'copy_safe:' \
		 'copy_page:.*(bound)' 'memmove_flushcache:.*(bound)' 'pmdk:memmove_nt'; do
		grep -q "^ .*$c" "$T/out" || missing="$missing $c"
	done
	if [ -n "$missing" ]; then
		fail "copy-bench --list lacks:$missing: $(head -c 300 "$T/out")"
	else
		echo "ok $n - copy-bench --list: every mode and its contenders"
	fi
fi
n=$((n + 1))
if ! "$PMEMTEST" copy-bench --list --mode bulk --only pmdk > "$T/out" 2> "$T/err"; then
	fail "copy-bench --list --mode bulk --only pmdk: exit $?: $(cat "$T/err")"
elif [ "$(grep -c '^[a-z-]*: ' "$T/out")" -ne 1 ] || ! grep -q '^bulk: ' "$T/out" ||
     grep '^ ' "$T/out" | grep -v '^ *pmdk:\|^ *roof:' | grep -q . ||
     ! grep -q '^ *pmdk:memcpy_nt ' "$T/out"; then
	fail "copy-bench --list --mode bulk --only pmdk: not bulk with pmdk and roof only: $(cat "$T/out")"
else
	echo "ok $n - copy-bench --list follows --mode and --only"
fi
n=$((n + 1))
if ! "$PMEMTEST" clear-bench --list --extents 4K,2G --buffer 8M > "$T/out" 2> "$T/err"; then
	fail "clear-bench --list: exit $?: $(cat "$T/err")"
elif ! grep -q '^ *clear_pages:.*(bound)' "$T/out" || ! grep -q '^ *glibc:memset ' "$T/out" ||
     ! grep -q '^ *roof:rep_stosb ' "$T/out" || ! grep -q '^ *4096  *hot, cold$' "$T/out" ||
     ! grep -q '^ *2147483648  *none' "$T/out"; then
	fail "clear-bench --list: $(cat "$T/out")"
else
	echo "ok $n - clear-bench --list: contenders, and which extents fit which cache state"
fi
n=$((n + 1))
if ! "$PMEMTEST" init-bench --list > "$T/out" 2> "$T/err"; then
	fail "init-bench --list: exit $?: $(cat "$T/err")"
else
	missing=
	for m in slow generic fixed wide pmem2 memcpy roof 2026 6.1; do
		grep -q "^ *$m " "$T/out" || missing="$missing $m"
	done
	if [ -n "$missing" ]; then
		fail "init-bench --list lacks:$missing: $(cat "$T/out")"
	else
		echo "ok $n - init-bench --list: the seven methods and both kernel models"
	fi
fi

if [ "$fails" -ne 0 ]; then
	echo "$fails of $n checks failed"
	exit 1
fi
echo "all $n checks passed"
