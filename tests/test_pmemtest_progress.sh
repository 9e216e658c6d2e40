#!/bin/sh
# SPDX-License-Identifier: MIT
# pmemtest's progress line and Ctrl-C (issue 12): the line (with an ETA)
# appears on stderr only when stderr is a terminal and --quiet is not given,
# fits the terminal's width, and SIGINT makes a bench print what it measured
# so far and exit 130. The terminal is script(1)'s pseudo-terminal, sized by
# stty; no check depends on how long anything takes.
set -u

PMEMTEST=${PMEMTEST:-./pmemtest/pmemtest}
case $PMEMTEST in /*) ;; *) PMEMTEST=$(pwd)/$PMEMTEST ;; esac
. "$(dirname "$0")/lib.sh"
tl_scratch pmemtest-progress

ok() {
	n=$((n + 1))
	echo "ok $n - $*"
}

small_copy="copy-bench --mode memcpy --sizes 64,4K --repeat 2 --buffer 4M"
# clear-bench's contenders cut to one family (the roofs always run): the
# line is what is checked here, and the whole set took most of this test's time.
small_clear="clear-bench --extents 4K,64K --repeat 2 --buffer 8M --only clear_page:"
small_init="init-bench --size 64M --repeat 3 --mode fsdax --methods slow,fixed"

# Not a terminal: no progress line, no carriage return, on stderr.
for args in "$small_copy" "$small_clear" "$small_init"; do
	# shellcheck disable=SC2086
	if ! "$PMEMTEST" $args > "$T/out" 2> "$T/err"; then
		fail "pmemtest $args: exit $?: $(head -c 300 "$T/err")"
	elif grep -q 'ETA' "$T/err" || [ "$(tr -cd '\r' < "$T/err" | wc -c)" -ne 0 ]; then
		fail "pmemtest $args: a progress line on a stderr that is no terminal: $(head -c 200 "$T/err")"
	else
		ok "${args%% *}: no progress line when stderr is a file"
	fi
done

# tty COLS ARGS...: run pmemtest on a pseudo-terminal COLS wide; the
# terminal's output (stdout and stderr, as a terminal shows them) in $T/tty.
tty_run() {
	cols=$1
	shift
	script -qec "stty cols $cols rows 24; exec \"$PMEMTEST\" $*" /dev/null \
		< /dev/null > "$T/tty" 2>&1
}

# progress_lines: each redraw of the line, escape sequences removed.
progress_lines() {
	tr '\r' '\n' < "$T/tty" | sed 's/\x1b\[K//g' | grep -a 'ETA'
}

if ! command -v script > /dev/null 2>&1 || ! script -qec true /dev/null < /dev/null > /dev/null 2>&1; then
	echo "# skip: no script(1) to give pmemtest a terminal; the terminal checks did not run"
else
	for args in "$small_copy" "$small_clear" "$small_init"; do
		cmd=${args%% *}
		for cols in 40 100; do
			if ! tty_run $cols "$args"; then
				fail "$cmd on a terminal: exit $?: $(head -c 300 "$T/tty")"
				continue
			fi
			lines=$(progress_lines)
			longest=$(printf '%s\n' "$lines" | awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }')
			if [ -z "$lines" ]; then
				fail "$cmd on a $cols-column terminal: no progress line: $(head -c 300 "$T/tty")"
			elif ! printf '%s\n' "$lines" | grep -q '100% ETA'; then
				fail "$cmd: the progress line never reached 100%: $(printf '%s\n' "$lines" | tail -1)"
			elif [ "$longest" -ge "$cols" ]; then
				fail "$cmd: a $longest-column progress line on a $cols-column terminal"
			else
				eval "longest_$cols=$longest"
				ok "$cmd: progress with ETA on a $cols-column terminal, $longest columns wide"
			fi
		done
		# shellcheck disable=SC2154
		if [ "${longest_100:-0}" -le "${longest_40:-0}" ]; then
			fail "$cmd: the line is no wider on 100 columns (${longest_100:-?}) than on 40 (${longest_40:-?})"
		fi
		unset longest_40 longest_100
		if ! tty_run 100 "--quiet $args"; then
			fail "$cmd --quiet on a terminal: exit $?"
		elif [ -n "$(progress_lines)" ]; then
			fail "$cmd --quiet: a progress line: $(progress_lines | tail -1)"
		else
			ok "$cmd --quiet: no progress line on a terminal"
		fi
	done
	# Work found on the way: with every roof sample slowed down, every
	# size is over the roof and measured again, and the total grows after
	# the line has shown its share of the work planned (the line used to
	# step back from 100 % to 83 % here). It must never go back, and show
	# 100 % only at the end.
	args="clear-bench --extents 4K,64K,2M --repeat 3 --buffer 8M --only clear_page:"
	if ! PMEMTEST_TEST_ROOF_SCALE=2 tty_run 100 "$args"; then
		fail "clear-bench measured again on a terminal: exit $?: $(head -c 300 "$T/tty")"
	elif ! grep -aq 'measured again\|ran .* more' "$T/tty"; then
		fail "clear-bench with PMEMTEST_TEST_ROOF_SCALE=2: nothing was measured again: $(tail -c 300 "$T/tty")"
	else
		pcts=$(progress_lines | sed -n 's/.* \([0-9]*\)% ETA.*/\1/p' | tr '\n' ' ')
		if ! printf '%s\n' $pcts | awk 'NR > 1 && $1 < last { bad = 1 } { last = $1 } END { exit bad || last != 100 }'; then
			fail "clear-bench measured again: the line stepped back or did not end at 100 %: $pcts"
		elif [ "$(printf '%s\n' $pcts | grep -c '^100$')" -ne 1 ]; then
			fail "clear-bench measured again: 100 % shown before the end: $pcts"
		else
			ok "clear-bench measured again: the line never steps back, 100 % once, at the end ($(printf '%s\n' $pcts | wc -l) redraws)"
		fi
	fi
fi

# Ctrl-C: runs that cannot finish in time (--repeat 1000) get SIGINT after
# 3 s. Whether a sample was measured by then is the machine's business;
# either way the exit status is 130 and what stdout holds is complete.
interrupt() { # what args...
	what=$1
	shift
	n=$((n + 1))
	timeout --preserve-status -s INT 3 "$PMEMTEST" "$@" > "$T/out" 2> "$T/err"
	rc=$?
	if [ "$rc" -ne 130 ]; then
		fail "$what: exit $rc after SIGINT, expected 130: $(head -c 300 "$T/err")"
	elif grep -q 'interrupted before any sample' "$T/err"; then
		if [ -s "$T/out" ]; then
			fail "$what: nothing measured, yet stdout holds $(head -c 100 "$T/out")"
		else
			echo "ok $n - $what: SIGINT before the first sample: one line, exit 130"
		fi
	elif ! grep -q 'interrupted' "$T/err"; then
		fail "$what: exit 130 but stderr does not say it was interrupted: $(head -c 300 "$T/err")"
	else
		return 0
	fi
	return 1
}
if interrupt "copy-bench --json, SIGINT" --json copy-bench --mode sweep --repeat 1000 --buffer 8M; then
	if command -v jq > /dev/null 2>&1; then
		if jq -e '(.results | length > 0) and (.notes | any(test("interrupted")))' "$T/out" > /dev/null; then
			echo "ok $n - copy-bench --json, SIGINT: exit 130, $(jq '.results | length' "$T/out") results so far, noted as interrupted"
		else
			fail "copy-bench --json after SIGINT: not a document with results: $(head -c 300 "$T/out")"
		fi
	elif grep -q '"results"' "$T/out"; then
		echo "ok $n - copy-bench --json, SIGINT: exit 130 and a document (no jq to read it)"
	else
		fail "copy-bench --json after SIGINT: no results: $(head -c 300 "$T/out")"
	fi
fi
if interrupt "clear-bench --csv, SIGINT" --csv clear-bench --extents 4K --repeat 1000 --buffer 8M; then
	if head -1 "$T/out" | grep -q '^row,bench,' && [ "$(wc -l < "$T/out")" -ge 2 ] &&
	   awk -F, 'NF != 22 { bad = 1 } END { exit bad }' "$T/out"; then
		echo "ok $n - clear-bench --csv, SIGINT: exit 130, a header and $(($(wc -l < "$T/out") - 1)) whole rows"
	else
		fail "clear-bench --csv after SIGINT: $(head -c 300 "$T/out")"
	fi
fi
if interrupt "init-bench, SIGINT" init-bench --size 1G --repeat 1000 --mode fsdax; then
	if grep -q 'slow' "$T/out"; then
		echo "ok $n - init-bench, SIGINT: exit 130 and the table of the runs made"
	else
		fail "init-bench after SIGINT: no table: $(head -c 300 "$T/out")"
	fi
fi

if [ "$fails" -ne 0 ]; then
	echo "$fails checks failed"
	exit 1
fi
echo "all $n checks passed"
