#!/bin/sh
# SPDX-License-Identifier: MIT
# The one output schema of pmemtest(1) (OUTPUT), read back with jq: every
# command's --json has the same envelope (schema version, versions, time,
# host, CPU, kernel, clock, DRAM or not, options) and results of the same
# shape, with every sample; every --csv is one header and rows of as many
# fields, nothing else. The expectations are written here from the man page
# and from the options each run is given, not taken from pmemtest.
set -u

PMEMTEST=${PMEMTEST:-./pmemtest/pmemtest}
command -v jq > /dev/null 2>&1 || { echo "SKIP: no jq (tools/quickstart.sh installs it)"; exit 77; }
. "$(dirname "$0")/lib.sh"
tl_scratch pmemtest-schema

run() { # out-file args...
	out=$1
	shift
	if ! timeout 120 "$PMEMTEST" "$@" > "$out" 2> "$T/err"; then
		fail "pmemtest $*: exit $?: $(head -c 300 "$T/err")"
		return 1
	fi
}

# The envelope, and the keys every result has (pmemtest(1), OUTPUT).
envelope='
	def num: type == "number";
	def str: type == "string";
	.schema_version == 1 and (.command == $cmd) and (.pmemtest_version | str) and
	(.libkflush_version | str) and
	(.timestamp | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$")) and
	(.host | str) and (.cpu.model_name | str) and (.cpu.family | num) and
	(.cpu.model | num) and (.cpu.features | type == "array") and
	(.cpu.features | all(str)) and
	# KFLUSH_CPU_RULES=0, exactly, turns the per-CPU rules off (libkflush(7)).
	(.cpu.cpu_rules == ($ENV.KFLUSH_CPU_RULES != "0")) and (.kernel.release | str) and
	(.kernel.machine == "x86_64") and
	(.options | type == "object") and (.notes | type == "array")'
results='
	(.results | length > 0) and
	(.results | all(
		(.contender | type == "string") and
		(.class | IN("kflush", "peer", "roof", "ref")) and
		(.size | type == "number") and (.bytes > 0) and
		(.median_ns > 0) and (.min_ns <= .median_ns) and (.median_ns <= .max_ns) and
		(.gbps > 0) and
		# A bench cell over the roof runs 3R+1 more rounds, at least 41
		# (pmemtest(1), ROOFS); cold on a span pool, the least multiple
		# of its contenders from there.
		([.samples[].round] | sort | . == [range(0; $repeat)] or
		 ($cmd != "init-bench" and length >= $repeat + ([3 * $repeat + 1, 41] | max) and
		  . == [range(0; length)])) and
		(.samples | all((.round | type == "number") and (.ns | type == "number" and . > 0) and
				((has("span") | not) or (.span | type == "number" and . >= 0)) and
				((has("offset") | not) or (.offset | type == "number" and . >= 0)))) and
		(.roof_error | type == "boolean") and
		(if .roof_error then (.over_roof > 1.03) and .x_roof == null else .over_roof == null end) and
		(.roof_strategy == null or (.roof_strategy as $s | $strategies | index($s) != null)))) and
	(.roof_errors | type == "array") and
	(.roof_errors | length) == ([.results[] | select(.roof_error)] | length)'

# The roof's store strategies this CPU has (pmemtest(1), ROOFS), from its
# flags: a roof_strategy must be one of them.
flags=" $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2) "
strategies="movnti sse2 rep_stosb rep_stosq rep_stosb_page rep_stosq_page cached_clwb cached_clflushopt
	cached_clflush"
for f in avx2:avx2 avx2:avx2_x2 avx2:cached_clwb_512 avx2:cached_clflushopt_512 \
	 avx2:cached_clflush_512 avx512f:avx512 avx512f:avx512_x2 movdir64b:movdir64b \
	 movdir64b:movdir64b_x2 clzero:clzero; do
	case $flags in *" ${f%%:*} "*) strategies="$strategies ${f#*:}" ;; esac
done
STRATEGIES=$(printf '%s\n' $strategies | jq -R . | jq -sc .)
# The benches' bound-vs-fastest entries.
bound='(.bound | type == "array") and (.bound | all((.operation | type == "string") and
	(.cache | IN("hot", "cold")) and (.bound | type == "string") and
	(.measured | type == "boolean")))'

# check_json FILE COMMAND REPEAT CLOCK DRAM [extra jq condition]
check_json() {
	n=$((n + 1))
	extra=${6:-true}
	if ! jq -e --arg cmd "$2" --argjson repeat "$3" --arg clock "$4" --argjson dram "$5" \
		--argjson strategies "$STRATEGIES" \
		"($envelope) and ($results) and .clock == \$clock and
		 .dram_stands_in_for_pmem == \$dram and .options.repeat == \$repeat and ($extra)" \
		"$1" > /dev/null; then
		fail "$2 --json: not the schema: $(head -c 800 "$1")"
	else
		echo "ok $n - $2 --json: envelope and $(jq '.results | length' "$1") results of $3 samples"
	fi
}

# check_csv FILE COMMAND ROWS HEADER-PREFIX: a header, then exactly ROWS
# rows, every line with the header's number of fields, no '#' lines.
check_csv() {
	n=$((n + 1))
	if grep -q '^#' "$1"; then
		fail "$2 --csv: a '#' line: $(grep -m1 '^#' "$1")"
	elif ! head -1 "$1" | grep -q "^$4"; then
		fail "$2 --csv: header is not '$4...': $(head -1 "$1")"
	elif ! awk -F, 'NR == 1 { nf = NF } NF != nf { bad = 1 } END { exit bad || NR < 2 }' "$1"; then
		fail "$2 --csv: rows with another field count than the header's"
	elif [ "$(($(wc -l < "$1") - 1))" -ne "$3" ]; then
		fail "$2 --csv: $(($(wc -l < "$1") - 1)) rows, expected $3"
	else
		echo "ok $n - $2 --csv: a header and $3 rows of $(head -1 "$1" | awk -F, '{ print NF }') fields"
	fi
}

# check_csv_where FILE COMMAND CLOCK: a CSV has no notes, so every row says
# what every measurement must (pmemtest(1), OUTPUT): its last fields are the
# clock asked for (CLOCK; empty: init-bench, whose clock column is its own),
# the CPU, from /proc/cpuinfo's model name on, and 1: DRAM stood in for pmem.
cpu_model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1 | tr ',"' ';;')
check_csv_where() {
	n=$((n + 1))
	want="cpu,dram_stands_in_for_pmem"
	[ -n "$3" ] && want="clock,$want"
	if ! head -1 "$1" | grep -q ",$want\$"; then
		fail "$2 --csv: header does not end with ',$want': $(head -1 "$1")"
	elif ! awk -F, -v clock="$3" -v model="$cpu_model" 'NR > 1 {
		if ($NF != "1" || index($(NF - 1), model) != 1 ||
		    (clock != "" && $(NF - 2) != clock)) bad = 1 } END { exit bad || NR < 2 }' "$1"; then
		fail "$2 --csv: a row without ${3:+clock $3, }the CPU ($cpu_model...) or DRAM 1: $(sed -n 2p "$1")"
	else
		echo "ok $n - $2 --csv: every row says ${3:+its clock, }the CPU and DRAM"
	fi
}

# init-bench: 2 methods x 3 repeats on one embedded namespace, kernel 6.1;
# the kernel model replayed is in the options, every result and namespace,
# and so is how the pageblock-aligned pfns were written (the kernel's way
# unless --pageblock-copy says otherwise).
if run "$T/init.json" --json -q init-bench --size 64M --mode devdax --methods slow,fixed \
	--repeat 3 --kernel 6.1; then
	check_json "$T/init.json" init-bench 3 wall true \
		'.options.kernel == "6.1" and .options.pageblock_copy == "cached" and
		 .options.compound_head == "drain" and
		 (.results | length == 2) and
		 (.results | all(.kernel == "6.1" and .namespace == "dax_pmem")) and
		 (.namespaces | length == 1) and .namespaces[0].kernel == "6.1" and
		 ([.results[].contender] == ["slow", "fixed"])'
fi
# The methods' order (pmemtest(1), init-bench): every method once a round,
# its place there the sample's turn, and not the same order every round, so
# that no method always runs after the same one.
if run "$T/order.json" --json -q init-bench --size 64M --mode devdax \
	--methods slow,generic,fixed,memcpy,roof --repeat 6; then
	n=$((n + 1))
	if jq -e '[.results[] | .samples[] | .turn | type == "number"] | all and length == 30' \
		"$T/order.json" > /dev/null &&
	   jq -e '[.results[] | .samples[] | {round, turn}] | group_by(.round) |
		(length == 6) and all([.[].turn] | sort == [0, 1, 2, 3, 4])' "$T/order.json" > /dev/null &&
	   jq -e '[range(0; 6) as $r | [.results[] | .samples[] | select(.round == $r) | .turn]] |
		unique | length > 1' "$T/order.json" > /dev/null; then
		echo "ok $n - init-bench: each round runs every method once, in an order of its own"
	else
		fail "init-bench: the methods' turns are not a new permutation each round: $(jq -c '[.results[] | [.contender, [.samples[].turn]]]' "$T/order.json")"
	fi
fi
if run "$T/init.csv" --csv -q init-bench --size 64M --mode devdax --methods slow,fixed --repeat 3; then
	check_csv "$T/init.csv" init-bench 6 "namespace,mode,map,"
	check_csv_where "$T/init.csv" init-bench ""
fi
# --pageblock-copy stream and prefetch, --compound-head cached: the choice
# in the JSON options and in the line above the table, the run verified,
# and no hint line for what was changed.
path_case() { # option, choice, JSON key, mode, what the line above the table says, hint's start
	n=$((n + 1))
	if run "$T/pb.json" --json -q init-bench --size 64M --mode "$4" --methods fixed --repeat 1 \
		"--$1" "$2" &&
	   run "$T/pb.txt" -q init-bench --size 64M --mode "$4" --methods fixed --repeat 1 "--$1" "$2"; then
		if jq -e --arg k "$3" --arg c "$2" '.options[$k] == $c and (.namespaces | all(.verified))' \
			"$T/pb.json" > /dev/null &&
		   grep -q "^  $5\$" "$T/pb.txt" &&
		   grep -q '^  fixed .* yes$' "$T/pb.txt" &&
		   ! grep -q "^  $6" "$T/pb.txt"; then
			echo "ok $n - init-bench --$1 $2: in the options and the text, verified"
		else
			fail "init-bench --$1 $2: $(jq -c .options "$T/pb.json") $(grep -e pageblock -e compound "$T/pb.txt")"
		fi
	fi
}
path_case pageblock-copy stream pageblock_copy fsdax \
	'pageblock-aligned pfns: generic, fixed and pmem2 stream them .*(--pageblock-copy stream); the kernel copies them through the cache' \
	'pageblocks: fixed copies'
path_case pageblock-copy prefetch pageblock_copy fsdax \
	'pageblock-aligned pfns: copied through the cache as the kernel does, .*(--pageblock-copy prefetch); the kernel does not prefetch them' \
	'pageblocks: fixed copies'
path_case compound-head cached compound_head devdax \
	'compound pages: generic, fixed and pmem2 copy page\[1\] and page\[2\] through the cache .*(--compound-head cached); the kernel streams them and drains first' \
	'compound pages: fixed drains'

# clear-bench: one extent, hot, 2 rounds, --clock cpu. A hot sample clears
# its area again and again, 32 MiB in all (pmemtest(1), clear-bench): a
# page per call, whole MiB.
if run "$T/clear.json" --json clear-bench --extents 4K --cache hot --repeat 2 --buffer 8M \
	--clock cpu; then
	check_json "$T/clear.json" clear-bench 2 cpu true \
		'.options.extents == [4096] and .options.cache == ["hot"] and ('"$bound"') and
		 (.bound | length > 0) and
		 (.results | all(.size == 4096 and .cache == "hot" and .bytes >= 33554432 and
				 .bytes % 1048576 == 0 and .calls * 4096 == .bytes))'
fi
# The same cold: its samples carry the offset of their area (pmemtest(1),
# OUTPUT SCHEMA), the hot ones above none.
if run "$T/clearc.json" --json -q clear-bench --extents 4K --cache cold --repeat 2 --buffer 8M; then
	check_json "$T/clearc.json" clear-bench 2 wall true \
		'.options.cache == ["cold"] and (.results | all(.cache == "cold" and
		 (.samples | all(.offset | type == "number"))))'
fi
# CSV rows: per contender, one per round and one median (the CSV's own
# sample rows, counted: a cell over the roof may have run more rounds).
if run "$T/clear.csv" --csv -q clear-bench --extents 4K --cache hot --repeat 2 --buffer 8M \
	--clock cpu; then
	conts=$(jq '.results | length' "$T/clear.json")
	samples=$(grep -c '^sample,' "$T/clear.csv")
	n=$((n + 1))
	if [ "$(grep -c '^median,' "$T/clear.csv")" -ne "$conts" ]; then
		fail "clear-bench --csv: $(grep -c '^median,' "$T/clear.csv") median rows, $conts contenders"
	elif ! awk -F, '$1 == "sample" { c[$7]++ } END { for (k in c) if (c[k] != 2 && c[k] != 43) exit 1 }' \
		"$T/clear.csv"; then
		fail "clear-bench --csv: a contender with neither 2 nor 43 sample rows"
	else
		echo "ok $n - clear-bench --csv: one median row per contender, 2 or 43 samples each"
	fi
	check_csv "$T/clear.csv" clear-bench $((conts + samples)) "row,bench,mode,"
	check_csv_where "$T/clear.csv" clear-bench cpu
fi

# copy-bench: copy-safe mode, 2 sizes, 2 rounds (hot only: the mode's default;
# a mix row's size is its upper bound, the mode's own).
if run "$T/copy.json" --json copy-bench --mode copy-safe --sizes 64,128 --repeat 2 --buffer 4M; then
	check_json "$T/copy.json" copy-bench 2 wall true \
		'.options.mode == ["copy-safe"] and .options.sizes == [64, 128] and ('"$bound"') and
		 (.results | all(.layout == "mix" or .size == 64 or .size == 128))'
fi
if run "$T/copy.csv" --csv -q copy-bench --mode copy-safe --sizes 64,128 --repeat 2 --buffer 4M; then
	cells=$(jq '.results | length' "$T/copy.json")
	check_csv "$T/copy.csv" copy-bench $((cells * 3)) "row,bench,mode,"
	check_csv_where "$T/copy.csv" copy-bench wall
fi

# info: the same envelope; it measures nothing, so no clock and no DRAM flag.
n=$((n + 1))
if run "$T/info.json" --json info; then
	# The keys pmemtest(1) gives info instead of results.
	if jq -e --arg cmd info "($envelope) and .clock == null and
		.dram_stands_in_for_pmem == null and
		(.cpu_features | type == \"array\" and all(type == \"string\")) and
		(.cpu_features_masked | type == \"array\" and all(type == \"string\")) and
		(.cpu_features_masked - .cpu_features == []) and
		(.kflush_hwcaps == \$ENV.KFLUSH_HWCAPS) and (.kflush_cpu_rules == \$ENV.KFLUSH_CPU_RULES) and
		(.cache_line | type == \"number\" and . >= 16) and
		(.operations | length > 0) and
		(.operations | all((.op | type == \"string\") and (.variants | length > 0) and
			(.variants | all((.name | type == \"string\") and (.usable | type == \"boolean\"))) and
			(.bound as \$b | [.variants[] | select(.name == \$b and .usable)] | length == 1))) and
		(.devices | type == \"array\") and
		(.devices | all(([has(\"chardev\"), has(\"blockdev\")] | map(select(.)) | length == 1) and
			(.region | type == \"string\") and (.mode | type == \"string\") and
			(.size | type == \"number\") and (.align | type == \"number\") and
			(.map | IN(\"mem\", \"dev\", \"?\")) and (.numa_node | type == \"number\") and
			(has(\"target_node\") == has(\"chardev\")) and
			(.target_node | . == null or type == \"number\") and
			(.ndctl_namespace | type == \"boolean\")))" \
		"$T/info.json" > /dev/null; then
		echo "ok $n - info --json: the envelope and info's keys"
	else
		fail "info --json: not the schema: $(head -c 600 "$T/info.json")"
	fi
fi

# KFLUSH_CPU_RULES=0: cpu_rules false in the envelope, the variable as given.
n=$((n + 1))
if KFLUSH_CPU_RULES=0 timeout 120 "$PMEMTEST" --json info > "$T/info0.json" 2> "$T/err"; then
	if KFLUSH_CPU_RULES=0 jq -e --arg cmd info "($envelope) and .cpu.cpu_rules == false and
		.kflush_cpu_rules == \"0\"" "$T/info0.json" > /dev/null; then
		echo "ok $n - info --json under KFLUSH_CPU_RULES=0: cpu_rules false"
	else
		fail "info --json under KFLUSH_CPU_RULES=0: $(head -c 600 "$T/info0.json")"
	fi
else
	fail "KFLUSH_CPU_RULES=0 pmemtest --json info: exit $?: $(head -c 300 "$T/err")"
fi

# --output FILE: the same document in the file, nothing on stdout.
n=$((n + 1))
if run "$T/stdout" clear-bench --json --output "$T/out.json" --extents 4K --cache hot \
	--repeat 1 --buffer 8M; then
	if [ -s "$T/stdout" ]; then
		fail "--output: stdout not empty: $(head -c 200 "$T/stdout")"
	elif ! jq -e '.command == "clear-bench" and (.results | length > 0)' "$T/out.json" > /dev/null; then
		fail "--output: $T/out.json is not the document: $(head -c 300 "$T/out.json")"
	else
		echo "ok $n - --output FILE holds the JSON document"
	fi
fi

if [ "$fails" -ne 0 ]; then
	echo "$fails checks failed"
	exit 1
fi
echo "all $n checks passed"
