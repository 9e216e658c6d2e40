#!/bin/sh
# SPDX-License-Identifier: MIT
# Mutation testing, run by hand (never in CI): apply one small realistic bug
# at a time from tools/mutants.list to a scratch copy of the committed tree,
# rebuild, run the tests that guard that code, and count the mutants the
# suite kills. A survivor is either a missing test or a change that cannot
# alter behaviour; the list says which for every known survivor.
#
#   tools/mutants.sh [-k] [ID ...]     (default: every mutant in the list)
#     -k   keep the scratch tree and its logs
#   tools/mutants.sh --check-list      only check the list against the
#                                      working tree, build nothing (make check)
#
# Exit 0 when every mutant not marked "equivalent" was killed, 1 otherwise,
# 2 on usage errors, when an entry's fields do not split as written, or when
# a mutant's text is not found exactly once (the list has gone stale against
# the code). --check-list: 0, or 1 when stale.
set -u

keep= check_list=
while [ $# -gt 0 ]; do
	case "$1" in
	-k) keep=1; shift ;;
	--check-list) check_list=1; shift ;;
	-h|--help) sed -n '3,17p' "$0"; exit 0 ;;
	-*) echo "usage: $0 [-k] [ID ...] | --check-list" >&2; exit 2 ;;
	*) break ;;
	esac
done

top=$(cd "$(dirname "$0")/.." && pwd)
[ -r "$top/tools/mutants.list" ] || { echo "mutants: cannot read $top/tools/mutants.list" >&2; exit 2; }
command -v perl >/dev/null 2>&1 || { echo "mutants: perl is needed (Debian: perl-base)" >&2; exit 2; }
tab=$(printf '\t')

# apply PATH OLD [NEW]: replace the one occurrence of OLD in PATH with NEW
# (literal text; \n and \t in the list stand for a newline and a tab);
# without NEW only look. Status 3 unless OLD occurs exactly once.
apply() {
	MUT_OLD=$2 MUT_NEW=${3-} MUT_WRITE=${3+1} perl -0777 -n -e '
		BEGIN { $o = $ENV{MUT_OLD}; $n = $ENV{MUT_NEW}; for ($o, $n) { s/\\n/\n/g; s/\\t/\t/g; } }
		$c = () = /\Q$o\E/g;
		if ($c == 1 && $ENV{MUT_WRITE}) {
			s/\Q$o\E/$n/;
			open(F, ">", $ARGV) && (print F $_) && close(F) or exit 2;
		}
		END { exit($c == 1 ? 0 : 3) if $? == 0 }' "$1"
}

# format_errors LIST: one line for each entry whose fields read cannot split
# as written. A tab is IFS white space, so an empty field before a non-empty
# one collapses (an empty NEW would take the note's text), and a real tab
# inside a field, where \t was meant, hands the rest of it to the next.
format_errors() {
	awk -F"$tab" '$1 ~ /^(#|$)/ { next }
		NF > 6 { print "mutants: " $1 ": more than six fields (a tab inside OLD or NEW is written \\t)"; next }
		NF < 4 || (NF > 4 && $5 == "") || $2 == "" || $3 == "" || $4 == "" {
			print "mutants: " $1 ": an empty field (omit NEW only when nothing follows it)" }' "$1"
}

if [ -n "$check_list" ]; then
	errors=$(format_errors "$top/tools/mutants.list")
	[ -z "$errors" ] || printf '%s\n' "$errors"
	n=0 bad=$(printf '%s' "$errors" | grep -c .)
	while IFS="$tab" read -r id file tests old new note; do
		case "$id" in ''|'#'*) continue ;; esac
		n=$((n + 1))
		if [ ! -f "$top/$file" ]; then
			echo "mutants: $id: no file $file"
			bad=$((bad + 1))
		elif ! apply "$top/$file" "$old"; then
			echo "mutants: $id: its text is not found exactly once in $file"
			bad=$((bad + 1))
		fi
	done < "$top/tools/mutants.list"
	echo "mutants: $n entries, $bad stale"
	[ "$bad" -eq 0 ]
	exit
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/kflush-mutants.XXXXXX") || exit 2
cleanup() {
	if [ -n "$keep" ]; then echo "mutants: kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# The committed tree, so uncommitted edits never leak into the baseline.
git -C "$top" archive --format=tar HEAD | tar -x -C "$work" || exit 2
mkdir -p "$work/src" && (cd "$work" && find . -mindepth 1 -maxdepth 1 ! -name src -exec mv {} src/ \;)
src=$work/src
# The list as committed, so it always matches the tree it mutates.
list=$src/tools/mutants.list
build=$work/build
jobs=$(nproc 2>/dev/null || echo 2)

# A mutant read with its fields shifted would not be the bug the list names.
errors=$(format_errors "$list")
if [ -n "$errors" ]; then
	printf '%s\n' "$errors" >&2
	exit 2
fi

echo "mutants: configuring a scratch build in $work"
(cd "$src" && autoreconf -fi >/dev/null 2>&1) || { echo "mutants: autoreconf failed" >&2; exit 2; }
mkdir -p "$build"
(cd "$build" && "$src/configure" --enable-werror >"$work/configure.log" 2>&1) ||
	{ echo "mutants: configure failed (see $work/configure.log)" >&2; keep=1; exit 2; }
make -C "$build" -j"$jobs" all >"$work/build.log" 2>&1 &&
	make -C "$build" -j"$jobs" check TESTS= >>"$work/build.log" 2>&1 ||
	{ echo "mutants: the unmutated tree does not build" >&2; keep=1; exit 2; }

killed=0 survived=0 equivalent=0 stale=0 total=0
survivors=
while IFS="$tab" read -r id file tests old new note; do
	case "$id" in ''|'#'*) continue ;; esac
	if [ $# -gt 0 ]; then
		want=
		for w in "$@"; do [ "$w" = "$id" ] && want=1; done
		[ -n "$want" ] || continue
	fi
	total=$((total + 1))
	if ! cp "$src/$file" "$work/orig" 2>/dev/null; then
		echo "STALE   $id: no file $file"
		stale=$((stale + 1))
		continue
	fi
	if ! apply "$src/$file" "$old" "$new"; then
		echo "STALE   $id: the text is not found exactly once in $file"
		stale=$((stale + 1))
		continue
	fi
	log=$work/$id.log
	verdict=
	if ! make -C "$build" -j"$jobs" all >"$log" 2>&1 ||
	   ! make -C "$build" -j"$jobs" check TESTS= >>"$log" 2>&1; then
		verdict="NOBUILD"
	elif make -C "$build" check TESTS="$tests" >>"$log" 2>&1; then
		case "$note" in
		equivalent:*) verdict="EQUIV"; equivalent=$((equivalent + 1)) ;;
		*) verdict="SURVIVED"; survived=$((survived + 1)); survivors="$survivors $id" ;;
		esac
	else
		verdict="killed"
		killed=$((killed + 1))
	fi
	[ "$verdict" = NOBUILD ] && stale=$((stale + 1))
	printf '%-8s %s (%s)%s\n' "$verdict" "$id" "$file" "${note:+  -- $note}"
	cp "$work/orig" "$src/$file"
	# Put the objects back in step with the restored source.
	touch "$src/$file"
done <"$list"

make -C "$build" -j"$jobs" all >/dev/null 2>&1
echo
echo "mutants: $total run: $killed killed, $survived survived, $equivalent equivalent, $stale stale or not building"
[ -z "$survivors" ] || echo "mutants: survivors:$survivors"
score=$(awk -v k="$killed" -v s="$survived" 'BEGIN { if (k + s) printf "%.0f", 100 * k / (k + s); else print 0 }')
echo "mutants: score ${score}% of the non-equivalent mutants killed"
[ "$stale" -eq 0 ] || exit 2
[ "$survived" -eq 0 ]
