#!/bin/sh
# SPDX-License-Identifier: MIT
# pmemtest's roofs and the bound-vs-fastest report (pmemtest(1), Roofs),
# read back with jq. The strategies a roof must try are computed here from
# /proc/cpuinfo, the roof a cell gets from the roof cells' own medians, the
# bound variant from the binding rule under KFLUSH_HWCAPS forcing; none of
# it from pmemtest's code. No timing is asserted: the roof error is forced
# with PMEMTEST_TEST_ROOF_SCALE, which slows every roof sample down.
set -u

PMEMTEST=${PMEMTEST:-./pmemtest/pmemtest}
command -v jq > /dev/null 2>&1 || { echo "SKIP: no jq (tools/quickstart.sh installs it)"; exit 77; }
. "$(dirname "$0")/lib.sh"
tl_scratch pmemtest-roof

ok() {
	echo "ok $n - $*"
}

run() { # out-file args...: exit status 0 wanted
	out=$1
	shift
	timeout 300 "$PMEMTEST" "$@" > "$out" 2> "$T/err"
	rc=$?
	[ "$rc" -eq 0 ] || { fail "pmemtest $*: exit $rc: $(head -c 300 "$T/err")"; return 1; }
}

# The store strategies this CPU has (pmemtest(1), ROOFS), from its flags.
flags=" $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2) "
has() { case $flags in *" $1 "*) return 0 ;; esac; return 1; }
nt="movnti sse2"
has avx2 && nt="$nt avx2"
has avx512f && nt="$nt avx512"
has movdir64b && nt="$nt movdir64b"
# Cached stores written back: the best write-back instruction the CPU has
# (clflush is in every x86-64 CPU) and no other, a line at a time, and
# with AVX2 in 512-byte steps too.
if has clwb; then wb=cached_clwb
elif has clflushopt; then wb=cached_clflushopt
else wb=cached_clflush; fi
nt="$nt $wb"
has avx2 && nt="$nt ${wb}_512"
zero="$nt rep_stosb rep_stosq rep_stosb_page rep_stosq_page"
has clzero && zero="$zero clzero"
echo "# this CPU's store strategies: $nt; zeroing: $zero"
# As a sorted JSON array, for jq.
jarr() { printf '%s\n' $1 | jq -R . | jq -sc 'sort'; }
NT=$(jarr "$nt")
ZERO=$(jarr "$zero")

# Every roof contender's strategy, every cell's roof and roof verdict,
# checked against the cells' own numbers: the roof of (mode, cache, layout,
# size) is the roof cell of that (mode, cache, layout, size) with the
# highest GB/s, never another layout's; a contender is a roof error exactly
# when it is more than 3 % above that, and then has no x_roof.
cells_ok='
	def key: [.mode, .cache, .layout, .size];
	(.results | map(select(.class == "roof")) | group_by(key)
	 | map({key: (.[0] | key | tostring), value: max_by(.gbps)}) | from_entries) as $best
	| (.results | all(has("roof_strategy") and has("roof_error") and has("over_roof")))
	and (.results | all(
		$best[key | tostring] as $b
		| if $b == null then .roof_strategy == null and .roof_error == false
		  else .roof_strategy == $b.roof_strategy
		   and (if .class != "roof" and .gbps > 1.03 * $b.gbps
			then .roof_error and .x_roof == null and (.over_roof - .gbps / $b.gbps | fabs) < 1e-6
			else (.roof_error | not) and .over_roof == null end)
		  end))
	and ([.results[] | select(.roof_error)] | length) == (.roof_errors | length)'

# A cell over the roof after the rounds asked for ($R) is measured again
# before it is called an error (pmemtest(1), ROOFS): from the samples of
# the first $R rounds alone, wherever a contender is more than 3 % above
# its own group's best roof median at its size, every cell of that size
# must have rounds 0..R+A-1, A being 3R+1 but at least 41; every other
# cell exactly 0..R-1. In copy-bench's sweep, bulk and set, and in
# clear-bench, a cold size runs the least multiple of n from A instead, n
# being its m contenders or, when fewer of their spans fit the buffer side
# by side, that many: in copy-bench's fixed layout a span is calls - 1
# strides of the size rounded up to a line, plus the size, rounded up to a
# page; in clear-bench it is the bytes a sample clears, rounded up to a
# page; in copy-bench's other layouts, whose offsets are random, any n
# from 1 to m passes, or A.
confirm_ok='
	.options.repeat as $R
	| .options.buffer as $buf
	| .command as $cmd
	| def key: [.mode, .cache, .layout, .size] | tostring;
	  def med: sort | if length % 2 == 1 then .[length / 2 | floor]
			  else (.[length / 2 - 1] + .[length / 2]) / 2 end;
	  def first_gbps: .bytes / ([.samples[] | select(.round < $R) | .ns] | med);
	  def up(a): (. + a - 1) / a | floor * a;
	  def span: ((.calls - 1) * (.size | up(64)) + .size) | up(4096);
	(.results | group_by(key) | map({key: (.[0] | key), value: length}) | from_entries) as $m
	| (.results | map(select(.class == "roof")) | group_by(key)
	 | map({key: (.[0] | key), value: (map(first_gbps) | max)}) | from_entries) as $roof
	| def over: .class != "roof" and $roof[key] != null and first_gbps > 1.03 * $roof[key];
	  def again: [3 * $R + 1, 41] | max;
	  # n spans: one per contender, or as many as fit the buffer
	  def pooled(sp): ([$m[key], ($buf / sp | floor)] | min) as $n
		| [range(0; $R + (again | up($n)))];
	  def plain: [range(0; $R + again)];
	  def pool_rule: .cache == "cold" and ($cmd == "clear-bench" or ($cmd == "copy-bench"
			 and (.mode == "sweep" or .mode == "bulk" or .mode == "set")));
	([.results[] | select(over) | key] | unique) as $again
	| .results | all(
		([.samples[].round] | sort) as $r
		| if (key as $k | any($again[]; . == $k) | not) then $r == [range(0; $R)]
		  elif (pool_rule | not) then $r == plain
		  elif $cmd == "clear-bench" then
			$r == pooled(.bytes | up(4096))
		  elif .layout == "fixed" then
			$r == pooled(span)
		  else $r == plain or any(range(1; $m[key] + 1); . as $n
			| $r == [range(0; $R + (again | up($n)))]) end)'

# The numbers of a size measured again are of its second pass alone
# (pmemtest(1), ROOFS): every cell's median_ns is the median of its samples
# from round R on where any cell of its size has a sample there, else of
# all of them, and counted_from_round says which.
counted_ok='
	.options.repeat as $R
	| def key: [.mode, .cache, .layout, .size] | tostring;
	  def med: sort | if length % 2 == 1 then .[length / 2 | floor]
			  else (.[length / 2 - 1] + .[length / 2]) / 2 end;
	([.results[] | select(any(.samples[]; .round >= $R)) | key] | unique) as $again
	| .results | length > 0 and all(
		(key as $k | if any($again[]; . == $k) then $R else 0 end) as $from
		| .counted_from_round == $from
		and (.median_ns - ([.samples[] | select(.round >= $from) | .ns] | med) | fabs) < 1e-6)'

check_confirm() { # file what
	n=$((n + 1))
	if jq -e "$confirm_ok" "$1" > /dev/null; then
		ok "$2: exactly the sizes with a cell over the roof after $(jq .options.repeat "$1") rounds ran again, every contender"
	else
		fail "$2: the cells measured again are not those over the roof: $(jq -c '[.results[] |
			{contender, size, layout, rounds: (.samples | length)}]' "$1" | head -c 600)"
	fi
	n=$((n + 1))
	if jq -e "$counted_ok" "$1" > /dev/null; then
		ok "$2: the sizes measured again count their second pass alone, the others every sample"
	else
		fail "$2: medians not of the rounds counted: $(jq -c '[.results[] | {contender, size,
			counted_from_round, median_ns, ns: [.samples[] | [.round, .ns]]}]' "$1" | head -c 600)"
	fi
}

# roof contenders "roof:PREFIX(strategy)" (and "roof:name" for zero-only ones)
strategies_of='[.results[] | select(.class == "roof") | .contender
		| capture("^roof:(?:[a-z_]+\\()?(?<s>[a-z0-9_]+)\\)?$").s] | unique | sort'

check_strategies() { # file what expected-json
	n=$((n + 1))
	got=$(jq -c "$strategies_of" "$1")
	if [ "$got" != "$3" ]; then
		fail "$2: roof strategies $got, this CPU has $3"
	elif ! jq -e --argjson s "$3" '[.results[] | .roof_strategy | select(. != null)] | length > 0
			and all(. as $x | $s | index($x))' "$1" > /dev/null; then
		fail "$2: a cell's roof_strategy is none of $3"
	else
		ok "$2: the roof tried exactly $3"
	fi
	n=$((n + 1))
	if jq -e "$cells_ok" "$1" > /dev/null; then
		ok "$2: every cell's roof is its best roof strategy; roof errors are exactly the cells > 1.03x it"
	else
		fail "$2: roof_strategy/roof_error/x_roof disagree with the roof cells' medians"
	fi
}

# Where the cold samples ran (pmemtest(1), ROOFS), from the offsets they
# carry: in the first R rounds every contender of a round on the same span
# of the cold walk, and the next round on another when two fit the buffer
# (a fixed copy's span as above, a clear's its bytes; the random layouts'
# spans are not known here, so only the first rule holds them); in the
# pooled second pass one offset per pool span and no two spans alike. Hot
# samples carry none.
paired_ok='
	.options.repeat as $R | .options.buffer as $buf | .command as $cmd
	| def key: [.mode, .layout, .size] | tostring;
	  def up(a): (. + a - 1) / a | floor * a;
	  def span: if $cmd == "clear-bench" then .bytes | up(4096)
		    elif .layout == "fixed" then ((.calls - 1) * (.size | up(64)) + .size) | up(4096)
		    else null end;
	[.results[] | select(.cache == "cold")] as $c
	| ($c | length > 0)
	and ([.results[] | select(.cache != "cold") | .samples[] | has("offset")] | any | not)
	and ($c | all(.samples | all(.offset | type == "number" and . >= 0)))
	and ($c | group_by(key) | all((.[0] | span) as $sp
		| [.[] | .samples[] | select(.round < $R)] | group_by(.round)
		| all(map(.offset) | unique | length == 1)
		  and (if $sp != null and $buf >= 2 * $sp
		       then map(.[0].offset) as $o | all(range(1; $o | length); $o[.] != $o[. - 1])
		       else true end)))
	and ($c | group_by(key) | all([.[] | .samples[] | select(has("span"))] | group_by(.span)
		| all(map(.offset) | unique | length == 1)
		  and (map(.[0].offset) | unique | length) == length))'

check_paired() { # file what
	n=$((n + 1))
	if jq -e "$paired_ok" "$1" > /dev/null; then
		ok "$2: every contender of a cold round on the round's span, another span each round"
	else
		fail "$2: cold rounds not on one span each: $(jq -c '[.results[] | select(.cache == "cold")
			| {contender, size, layout, o: [.samples[] | [.round, .offset]]}]' "$1" | head -c 600)"
	fi
}

# copy-bench: sweep (copy roofs) and struct-page (fill roofs).
if run "$T/copy.json" --json -q copy-bench --mode sweep --sizes 64,4096 --layout fixed,random \
	--repeat 2 --buffer 16M; then
	check_strategies "$T/copy.json" "copy-bench sweep" "$NT"
	check_confirm "$T/copy.json" "copy-bench sweep"
	check_paired "$T/copy.json" "copy-bench sweep"
	# The random layout's roofs run in its own rounds (pmemtest(1), ROOFS):
	# at 4 KiB on its calls (the lines inside each copy, credited with the
	# copies' bytes), below on the fixed layout's calls of the size (every
	# call exactly the size), where the contenders' sizes vary.
	n=$((n + 1))
	if jq -e '[.results[] | select(.layout == "random")] as $r
		| ($r | map(select(.class == "roof")) | map(.size) | unique) == [64, 4096]
		and ($r | map(select(.size == 64)) | all(if .class == "roof"
			then .bytes == .calls * 64 else .bytes != .calls * 64 end))
		and ($r | map(select(.size == 4096)) | group_by(.cache)
		     | all(map(.bytes) | unique | length == 1))' \
			"$T/copy.json" > /dev/null; then
		ok "copy-bench sweep: the random layout has its own roof at 64 B (the fixed calls) and 4096 B (its own calls)"
	else
		fail "copy-bench sweep: random-layout cells $(jq -c '[.results[] | select(.layout == "random")
			| {contender, size, calls, bytes}]' "$T/copy.json" | head -c 600)"
	fi
fi
if run "$T/sp.json" --json -q copy-bench --mode struct-page --span 1M --repeat 2 --buffer 8M; then
	check_strategies "$T/sp.json" "copy-bench struct-page" "$NT"
	check_confirm "$T/sp.json" "copy-bench struct-page"
fi
# clear-bench: every zeroing strategy.
if run "$T/clear.json" --json -q clear-bench --extents 4K --repeat 2 --buffer 8M; then
	check_strategies "$T/clear.json" "clear-bench" "$ZERO"
	check_confirm "$T/clear.json" "clear-bench"
	check_paired "$T/clear.json" "clear-bench"
fi

# From 8 KiB a copy's roof also runs the vector and movdir64b stores in two
# streams, the halves' lines in turn (pmemtest(1), ROOFS): "..._x2", for
# copies only, and none below 8 KiB.
x2=""
has avx2 && x2="$x2 avx2_x2"
has avx512f && x2="$x2 avx512_x2"
has movdir64b && x2="$x2 movdir64b_x2"
COPY2=$(jarr "$nt$x2")
if run "$T/bulk.json" --json -q copy-bench --mode bulk --sizes 1M --repeat 2 --buffer 16M; then
	check_strategies "$T/bulk.json" "copy-bench bulk" "$COPY2"
	check_confirm "$T/bulk.json" "copy-bench bulk"
	check_paired "$T/bulk.json" "copy-bench bulk"
fi
n=$((n + 1))
if run "$T/x2.json" --json -q copy-bench --mode sweep --sizes 4K,8K --layout fixed --cache cold \
	--repeat 1 --buffer 8M; then
	if jq -e --argjson x2 "$(jarr "$x2")" 'def x2(sz): [.results[] | select(.class == "roof"
		and .size == sz) | .contender | capture("\\((?<s>[a-z0-9_]+_x2)\\)$").s] | sort;
		x2(4096) == [] and x2(8192) == $x2' "$T/x2.json" > /dev/null; then
		ok "copy-bench: two-stream roofs from 8 KiB only: $x2"
	else
		fail "copy-bench: two-stream roofs: $(jq -c '[.results[] | select(.class == "roof") |
			[.size, .contender]]' "$T/x2.json" | head -c 400)"
	fi
fi

# init-bench: the roof row is the fill strategy with the lowest median.
n=$((n + 1))
if run "$T/init.json" --json -q init-bench --size 64M --mode devdax --methods fixed,roof --repeat 2; then
	if ! jq -e --argjson s "$NT" '
		(.results[] | select(.contender == "roof")) as $r
		| ([$r.roof_strategies[].strategy] | sort) == $s
		and $r.roof_strategy == ($r.roof_strategies | min_by(.median_ns) | .strategy)
		and (.results | all(.roof_strategy == $r.roof_strategy and has("roof_error")))
		and (.roof_errors | type == "array")' "$T/init.json" > /dev/null; then
		fail "init-bench: the roof is not the best of $NT: $(jq -c '.results[] |
			select(.contender == "roof") | {roof_strategy, roof_strategies}' "$T/init.json")"
	else
		ok "init-bench: roof = lowest median of $NT"
	fi
fi

# The roof error, forced: every roof sample a million times slower. The
# errors are printed as such, never as a ratio, and the exit status stays 0.
n=$((n + 1))
if PMEMTEST_TEST_ROOF_SCALE=1e6 run "$T/err.txt" -q copy-bench --mode sweep --sizes 4096 \
	--layout fixed --cache cold --repeat 1 --buffer 8M; then
	if ! grep -q '^roof error: memcpy_flushcache:[a-z0-9_]*\((bound)\)\{0,1\} [0-9.]*x the roof ([a-z0-9_]*) at 4 KiB cold (sweep, fixed): the roof is not the maximum$' "$T/err.txt"; then
		fail "forced roof error: no roof error line: $(grep -m3 'roof' "$T/err.txt")"
	elif grep '^ *4K  memcpy_flushcache' "$T/err.txt" | grep -qv ' ERROR$'; then
		fail "forced roof error: a contender above the roof printed with a ratio: $(grep -m1 '4K  memcpy' "$T/err.txt")"
	else
		ok "forced roof error: lines printed, x roof shows ERROR, exit 0"
	fi
fi
n=$((n + 1))
if PMEMTEST_TEST_ROOF_SCALE=1e6 run "$T/err.json" --json -q copy-bench --mode sweep --sizes 4096 \
	--layout fixed --cache cold --repeat 1 --buffer 8M; then
	if jq -e '([.results[] | select(.class == "kflush")] | length > 0 and
			all(.roof_error and .x_roof == null and .over_roof > 1.03)) and
		(.roof_errors | length > 0 and all(.over_roof > 1.03 and (.roof_strategy | type == "string")))' \
		"$T/err.json" > /dev/null && jq -e "$cells_ok" "$T/err.json" > /dev/null; then
		ok "forced roof error: JSON roof_error, over_roof, roof_errors; exit 0"
	else
		fail "forced roof error: JSON lacks the errors: $(jq -c '.roof_errors' "$T/err.json" | head -c 300)"
	fi
	check_confirm "$T/err.json" "forced roof error"
	n=$((n + 1))
	if jq -e '[.results[] | select(.class == "kflush") | .samples | length] | length > 0 and all(. == 42)' \
		"$T/err.json" > /dev/null && grep -q '^roof check: [0-9]* cells\{0,1\} more than 3 % above the roof after 1 round: every contender of their size ran 41 more' "$T/err.txt"; then
		ok "forced roof error: every contender ran 41 more rounds, and the text says so"
	else
		fail "forced roof error: contenders not measured again: $(grep -m1 'roof check' "$T/err.txt")"
	fi
fi
# A forced run of --repeat 1: every contender over the roof ran 41 more
# rounds and is still an error.
check_forced_again() { # file what
	check_confirm "$1" "$2, forced roof error"
	n=$((n + 1))
	if jq -e '[.results[] | select(.class != "roof")] | length > 0 and
			all(.roof_error and (.samples | length) == 42)' "$1" > /dev/null; then
		ok "forced roof error: $2 measured every contender again and kept the errors"
	else
		fail "forced roof error: $2: $(jq -c '[.results[] | {contender, roof_error,
			n: (.samples | length)}]' "$1" | head -c 400)"
	fi
}
# The span pool of pmemtest(1), ROOFS, from the spans the samples carry
# (--repeat 1), n spans for m cold contenders (n = $2): each round of the
# second pass puts the m contenders on the n spans as evenly as can be
# (with n = m, each on a span of its own: a Latin square), and each
# contender is on every span equally often; the first pass and the hot
# cells name none.
latin_ok='[.results[] | select(.cache == "cold")] as $c | ($c | length) as $m |
	(if $n > 0 then $n else $m end) as $n |
	($c | all(.samples | all(if .round == 0 then has("span") | not
				 else (.span | type == "number" and . >= 0 and . < $n) end))) and
	([$c[].samples[] | select(.round > 0)] | group_by(.round) |
	 all(map(.span) | group_by(.) | map(length) |
	     length == $n and min == ($m / $n | floor) and max == ($m / $n | ceil))) and
	($c | all([.samples[] | select(.round > 0) | .span] | group_by(.) |
		  map(length) as $k | ($k | length) == $n and ($k | unique | length) == 1)) and
	([.results[] | select(.cache == "hot") | .samples[] | has("span")] | any | not)'

check_latin() { # file what [spans, default one per contender]
	n=$((n + 1))
	if jq -e --argjson n "${3:-0}" "$latin_ok" "$1" > /dev/null; then
		ok "$2: each round spreads the contenders over the ${3:-m} spans, each contender on every span alike"
	else
		fail "$2: spans not a Latin square: $(jq -c '[.results[] | select(.cache == "cold") |
			[.samples[] | .span]]' "$1" | head -c 400)"
	fi
}

# At 64 B the spans are a MiB each (16384 calls of a line), and a 32 MiB
# buffer holds one per contender: cold, the second pass runs on that pool,
# m contenders for the least multiple of m rounds from 41; hot, 41 rounds
# on the hot window (confirm_ok).
n=$((n + 1))
if PMEMTEST_TEST_ROOF_SCALE=1e6 run "$T/pool.json" --json -q copy-bench --mode sweep --sizes 64 \
	--layout fixed --repeat 1 --buffer 32M; then
	if jq -e '([.results[] | select(.cache == "cold")] | length) as $m | $m > 4 and
			(.results | all(if .cache == "hot" then (.samples | length) == 42
			 else .calls == 16384 and (.samples | length) == 1 + ((41 + $m - 1) / $m | floor) * $m
			 end))' "$T/pool.json" > /dev/null; then
		ok "forced roof error on a span pool: every cold contender ran the least multiple of their number from 41, every hot one 41"
	else
		fail "forced roof error on a span pool: $(jq -c '[.results[] | {contender, calls,
			n: (.samples | length)}]' "$T/pool.json" | head -c 400)"
	fi
	check_confirm "$T/pool.json" "forced roof error on a span pool"
	check_latin "$T/pool.json" "forced roof error on a span pool"
	check_paired "$T/pool.json" "forced roof error on a span pool"
fi
# At 1 MiB a sweep sample copies 8 calls, a span of 8 MiB, and a 16 MiB
# buffer holds two: the second pass runs on those two, every contender
# equally often on each, the least even count of rounds from 41.
n=$((n + 1))
if PMEMTEST_TEST_ROOF_SCALE=1e6 run "$T/pool2.json" --json -q copy-bench --mode sweep --sizes 1M \
	--layout fixed --cache cold --repeat 1 --buffer 16M; then
	if jq -e '(.results | length) > 4 and
			(.results | all(.calls == 8 and (.samples | length) == 1 + 42))' \
			"$T/pool2.json" > /dev/null; then
		ok "forced roof error, two spans for more contenders: every contender ran 42 more rounds"
	else
		fail "forced roof error, two spans: $(jq -c '[.results[] | {contender, calls,
			n: (.samples | length)}]' "$T/pool2.json" | head -c 400)"
	fi
	check_confirm "$T/pool2.json" "forced roof error, two spans"
	check_latin "$T/pool2.json" "forced roof error, two spans" 2
	check_paired "$T/pool2.json" "forced roof error, two spans"
fi
if PMEMTEST_TEST_ROOF_SCALE=1e6 run "$T/sperr.json" --json -q copy-bench --mode struct-page \
	--span 1M --struct-page 64 --repeat 1 --buffer 8M; then
	check_forced_again "$T/sperr.json" "copy-bench struct-page"
fi
if PMEMTEST_TEST_ROOF_SCALE=1e6 run "$T/cerr.json" --json -q clear-bench --extents 4K --repeat 1 \
	--buffer 8M --cache cold; then
	check_forced_again "$T/cerr.json" "clear-bench"
fi
# A 4 KiB extent clears 8 MiB a cold sample: 256 MiB holds one area per
# contender (fewer than 32), so the cold second pass runs on that pool;
# the hot one, in the hot window, does not.
if PMEMTEST_TEST_ROOF_SCALE=1e6 run "$T/cpool.json" --json -q clear-bench --extents 4K --repeat 1 \
	--buffer 256M --cache both; then
	n=$((n + 1))
	if jq -e '([.results[] | select(.cache == "cold")] | length) as $m | $m > 4 and
			(.results | all((.samples | length) == if .cache == "hot" then 42
					 else 1 + ((41 + $m - 1) / $m | floor) * $m end))' \
			"$T/cpool.json" > /dev/null; then
		ok "clear-bench forced roof error on a pool: every cold contender ran the least multiple of their number from 41, every hot one 41"
	else
		fail "clear-bench forced roof error on a pool: $(jq -c '[.results[] | {contender,
			n: (.samples | length)}]' "$T/cpool.json" | head -c 400)"
	fi
	check_confirm "$T/cpool.json" "clear-bench forced roof error on a pool"
	check_latin "$T/cpool.json" "clear-bench forced roof error on a pool"
	check_paired "$T/cpool.json" "clear-bench forced roof error on a pool"
fi
n=$((n + 1))
if PMEMTEST_TEST_ROOF_SCALE=1e6 run "$T/ierr.txt" -q init-bench --size 64M --mode devdax \
	--methods fixed,roof --repeat 1; then
	if grep -q '^roof error: dax_pmem: fixed [0-9.]*x the roof ([a-z0-9_]*): the roof is not the maximum$' "$T/ierr.txt" &&
	   grep -q '^  fixed .* ERROR ' "$T/ierr.txt"; then
		ok "forced roof error: init-bench prints it, exit 0"
	else
		fail "forced roof error: init-bench: $(grep -m3 'roof\|fixed' "$T/ierr.txt")"
	fi
fi

# init-bench's targets (pmemtest(1), OUTPUT): the issue's limits, written
# here; each value is the ratio of two methods' medians in the same JSON
# (generic's, the roof's or pmem2's over fixed's), and met says whether the
# value is within its limit, or is null when fixed ran over the roof.
itargets_ok='
	. as $d | (.namespaces | length > 0) and (.namespaces | all(.name as $ns | .targets as $t
	| ($d.results | map(select(.namespace == $ns)) | map({key: .contender, value: .})
	   | from_entries) as $r
	| ([["generic/fixed", "generic", true, 1.3], ["fixed/roof", "roof", false, 0.95],
	    ["fixed/pmem2", "pmem2", false, 2.3]]
	   | map(select($r.fixed != null and $r[.[1]] != null))) as $want
	| ($t | map(.name)) == ($want | map(.[0]))
	and all($want[]; . as [$name, $ref, $at_most, $lim]
		| ($t[] | select(.name == $name)) as $e
		| ($r[$ref].median_ns / $r.fixed.median_ns) as $v
		| (($e.value - $v) | fabs) < 1e-9 * $v and $e.at_most == $at_most and $e.limit == $lim
		and (if $ref == "roof" and $r.fixed.roof_error then $e.met == null
		     else $e.met == (if $at_most then $v <= $lim else $v >= $lim end) end))))'
# The text's target lines: each verdict word agrees with its printed value
# and limit (values within rounding of the limit are not judged); a
# fixed/roof NOT met, with the kernel's cached pageblock copy (the
# default), is followed by the line naming it and --pageblock-copy, and
# only then.
itext_ok() { # file
	awk '/^  target / { n++; v = $5 + 0; lim = $4 + 0; w = $6 $7
		if (w != "(met)" && w != "(NOTmet)" && w != "(rooferror)") bad = 1
		if ($2 == "fixed/roof" && w == "(NOTmet)") short++
		if (w == "(rooferror)") next
		if ((v - lim) * (v - lim) < 0.005 * 0.005) next
		good = $3 == "<=" ? v <= lim : v >= lim
		if (good != (w == "(met)")) bad = 1 }
		/^  pageblocks: fixed copies each pageblock-aligned struct page through the cache, as the kernel does; --pageblock-copy stream times it without that, --pageblock-copy prefetch with its line fetched ahead$/ { hint++ }
		END { exit bad || n != 3 || hint != short }' "$1"
}
n=$((n + 1))
if run "$T/it.json" --json -q init-bench --size 64M --methods generic,fixed,pmem2,roof --repeat 2 &&
   run "$T/it.txt" -q init-bench --size 64M --mode fsdax --methods generic,fixed,pmem2,roof --repeat 2; then
	if ! jq -e "$itargets_ok" "$T/it.json" > /dev/null; then
		fail "init-bench targets: $(jq -c '[.namespaces[] | .targets]' "$T/it.json" | head -c 400)"
	elif ! itext_ok "$T/it.txt"; then
		fail "init-bench target lines: $(grep '^  target' "$T/it.txt")"
	else
		ok "init-bench targets: the ratios of the methods' medians, judged against the issue's limits"
	fi
fi
n=$((n + 1))
if PMEMTEST_TEST_ROOF_SCALE=1e6 run "$T/itr.json" --json -q init-bench --size 64M --mode devdax \
	--methods fixed,roof --repeat 1; then
	if jq -e "$itargets_ok" "$T/itr.json" > /dev/null &&
	   grep -q '^  target fixed/roof >= 0.95: [0-9.]* (roof error)$' "$T/ierr.txt"; then
		ok "forced roof error: init-bench's fixed/roof target has no verdict"
	else
		fail "forced roof error: init-bench targets: $(jq -c '[.namespaces[] | .targets]' "$T/itr.json" |
			head -c 300) $(grep '^  target' "$T/ierr.txt")"
	fi
fi
n=$((n + 1))
PMEMTEST_TEST_ROOF_SCALE=fast "$PMEMTEST" -q copy-bench --mode sweep --sizes 64 --repeat 1 \
	--buffer 8M > /dev/null 2> "$T/err"
rc=$?
if [ "$rc" -eq 2 ] && grep -q 'PMEMTEST_TEST_ROOF_SCALE' "$T/err"; then
	ok "PMEMTEST_TEST_ROOF_SCALE=fast: usage error"
else
	fail "PMEMTEST_TEST_ROOF_SCALE=fast: exit $rc: $(cat "$T/err")"
fi

# Bound vs fastest. The bound variant must be what the library binds: the
# first usable variant of the operation's list (libkflush(7), Bind once)
# when KFLUSH_HWCAPS leaves no per-CPU rule a choice, and what
# pmemtest info says in every case.
bound_ok='
	(.bound | length > 0) and (.bound | all(
		. as $e | ($info.operations[] | select(.op == $e.operation) | .bound) == $e.bound
		and (if .measured then (.bound_is_fastest == (.fastest == .bound)) and .x_fastest >= 1
		     # issue 10: the bound variant at least 0.97x the fastest
		     and .target_met == (.bound_is_fastest or 1 / .x_fastest >= 0.97)
		     else .target_met == null end)))'
check_bound() { # file what
	n=$((n + 1))
	if jq -e --slurpfile i "$T/info.json" "\$i[0] as \$info | $bound_ok" "$1" > /dev/null; then
		ok "$2: every bound entry names the variant pmemtest info says is bound, its target judged at 0.97x"
	else
		fail "$2: bound entries disagree with pmemtest info: $(jq -c '[.bound[] | {operation, bound}]' "$1" | head -c 400)"
	fi
}
if run "$T/info.json" --json info; then
	check_bound "$T/copy.json" "copy-bench bound"
	check_bound "$T/clear.json" "clear-bench bound"
fi

mask=-avx512f,-avx2,-movdir64b
n=$((n + 1))
if KFLUSH_HWCAPS=$mask run "$T/info.json" --json info &&
   KFLUSH_HWCAPS=$mask run "$T/mb.json" --json -q copy-bench --mode sweep --sizes 64,4096 \
	--layout fixed --repeat 1 --buffer 8M &&
   KFLUSH_HWCAPS=$mask run "$T/mb.txt" -q copy-bench --mode sweep --sizes 64,4096 \
	--layout fixed --repeat 1 --buffer 8M; then
	want=$(jq -r '.operations[] | select(.op == "memcpy_flushcache") |
		[.variants[] | select(.usable)][0].name' "$T/info.json")
	got=$(jq -r '[.bound[] | select(.operation == "memcpy_flushcache") | .bound] | unique | join(",")' "$T/mb.json")
	if [ "$got" != "$want" ]; then
		fail "KFLUSH_HWCAPS=$mask: bound memcpy_flushcache '$got', the first usable variant is '$want'"
	elif ! grep -q "^  memcpy_flushcache >= 2 KiB cold: $want bound" "$T/mb.txt"; then
		fail "KFLUSH_HWCAPS=$mask: no '$want bound' line: $(grep -m2 'memcpy_flushcache' "$T/mb.txt")"
	else
		ok "KFLUSH_HWCAPS=$mask: memcpy_flushcache bound is $want in the JSON and the text"
	fi
	check_bound "$T/mb.json" "KFLUSH_HWCAPS=$mask bound"
fi

# copy-bench's roof target line (pmemtest(1), ROOFS): its count is the
# roof error lines printed, its cells the table's rows of contenders
# (not roofs) whose x roof is a ratio or ERROR, met only without errors.
roof_target_ok() { # file
	awk '/^ +(<=)?[0-9]+[KMG]? +[a-z]/ && NF >= 8 && $2 !~ /^roof:/ && $NF != "-" { cells++ }
		/^roof error: / { errs++ }
		/^target roof >= every contender \(within 3 %\): / { n++; e = $9; c = $13
			w = $NF; sub(/^\(/, "", w); sub(/\)$/, "", w); if ($(NF-1) == "(NOT") w = "NOT" }
		END { exit !(n == 1 && e == errs + 0 && c == cells + 0 &&
			     (errs ? w == "NOT" : w == "met")) }' "$1"
}
n=$((n + 1))
if roof_target_ok "$T/err.txt" && roof_target_ok "$T/mb.txt"; then
	ok "copy-bench's roof target line counts the roof errors and the cells with a roof"
else
	fail "roof target line: $(grep -h '^target roof' "$T/err.txt" "$T/mb.txt")"
fi


if [ "$fails" -ne 0 ]; then
	echo "$fails checks failed"
	exit 1
fi
echo "all $n checks passed"
