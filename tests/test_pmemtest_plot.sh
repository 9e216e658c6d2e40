#!/bin/sh
# SPDX-License-Identifier: MIT
# pmemtest plot (issue 12): a bench's CSV becomes a PNG or an SVG with one
# 640 x 420 panel per mode, cache state and layout, ceil(sqrt(n)) columns
# (pmemtest(1)). The panel count comes from the options the CSV was made
# with; the image is read back byte by byte (PNG signature, IHDR size).
set -u

PMEMTEST=${PMEMTEST:-./pmemtest/pmemtest}
srcdir=${srcdir:-.}
command -v gnuplot > /dev/null 2>&1 ||
	{ echo "SKIP: no gnuplot (tools/quickstart.sh installs gnuplot-nox)"; exit 77; }
export PMEMTEST_PLOT_GP="$srcdir/tools/plot.gp"
. "$(dirname "$0")/lib.sh"
tl_scratch pmemtest-plot

# png_size FILE: "WIDTH HEIGHT" from the IHDR chunk, or nothing when FILE
# does not start with the PNG signature and an IHDR.
png_size() {
	sig=$(od -An -tx1 -N16 "$1" | tr -d ' \n')
	[ "$sig" = 89504e470d0a1a0a0000000d49484452 ] || return
	od -An -tu1 -j16 -N8 "$1" |
		awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4, $5 * 16777216 + $6 * 65536 + $7 * 256 + $8 }'
}

# plot_png WHAT CSV PANELS [plot options]: the PNG next to CSV has the size
# PANELS panels give.
plot_png() {
	what=$1 csv=$2 panels=$3
	shift 3
	n=$((n + 1))
	cols=$(awk -v p="$panels" 'BEGIN { c = int(sqrt(p)); if (c * c < p) c++; print c }')
	rows=$(( (panels + cols - 1) / cols ))
	want="$((640 * cols)) $((420 * rows))"
	rm -f "${csv%.csv}.png"
	if ! "$PMEMTEST" -q plot "$@" "$csv" > "$T/out" 2> "$T/err"; then
		fail "$what: pmemtest plot exit $?: $(cat "$T/err")"
		return
	fi
	got=$(png_size "${csv%.csv}.png")
	if [ -z "$got" ]; then
		fail "$what: ${csv%.csv}.png is not a PNG: $(od -An -c -N8 "${csv%.csv}.png" 2>&1)"
	elif [ "$got" != "$want" ]; then
		fail "$what: a $got image, expected $want ($panels panels)"
	else
		echo "ok $n - $what: a PNG of $got pixels, $panels panels"
	fi
}

# clear-bench, hot and cold: two panels (clear/hot/extent, clear/cold/extent).
if "$PMEMTEST" --csv clear-bench --extents 4K,64K --repeat 2 --buffer 8M > "$T/clear.csv" 2> "$T/err"; then
	plot_png "clear-bench hot and cold" "$T/clear.csv" 2
	plot_png "clear-bench --cache cold only" "$T/clear.csv" 1 --cache cold
	# Where it was built and not installed, pmemtest finds the source
	# tree's script by itself (the installed one first, when there is one).
	PMEMTEST_PLOT_GP=
	plot_png "plot without PMEMTEST_PLOT_GP, in the build tree" "$T/clear.csv" 2
	PMEMTEST_PLOT_GP="$srcdir/tools/plot.gp"
else
	fail "clear-bench --csv: $(cat "$T/err")"
fi

# copy-page has one size: two panels of one point each, on an axis around
# it, and nothing for gnuplot to warn about ("empty x range" before).
if "$PMEMTEST" --csv copy-bench --mode copy-page --repeat 2 --buffer 4M > "$T/page.csv" 2> "$T/err"; then
	plot_png "copy-bench copy-page, one size a panel" "$T/page.csv" 2
	if grep -qi 'warning' "$T/err"; then
		fail "copy-page plot: gnuplot warned: $(head -c 300 "$T/err")"
	fi
else
	fail "copy-bench --mode copy-page --csv: $(cat "$T/err")"
fi

# copy-bench sweep, hot and cold, fixed and random: four panels.
if "$PMEMTEST" --csv copy-bench --mode sweep --sizes 64,4K --layout fixed,random --repeat 2 \
	--buffer 4M > "$T/copy.csv" 2> "$T/err"; then
	plot_png "copy-bench sweep, 2 cache states x 2 layouts" "$T/copy.csv" 4
	n=$((n + 1))
	if ! "$PMEMTEST" --output "$T/copy.svg" plot "$T/copy.csv" 2> "$T/err"; then
		fail "plot --output x.svg: $(cat "$T/err")"
	elif ! head -c 200 "$T/copy.svg" | grep -q '<svg' ||
	     ! grep -q 'width="1280" height="840"' "$T/copy.svg"; then
		fail "plot --output x.svg: not a 1280 x 840 SVG: $(head -c 300 "$T/copy.svg")"
	else
		echo "ok $n - --output x.svg: an SVG of 1280 x 840"
	fi
else
	fail "copy-bench --csv: $(cat "$T/err")"
fi

# Options after the CSV: the command's options permute as everywhere else,
# not stopping at the first operand.
if [ -s "$T/copy.csv" ]; then
	n=$((n + 1))
	rm -f "$T/copy.png"
	if ! "$PMEMTEST" -q plot "$T/copy.csv" --cache cold --layout fixed 2> "$T/err" ||
	   [ "$(png_size "$T/copy.png")" != "640 420" ]; then
		fail "plot CSV --cache cold --layout fixed: $(cat "$T/err")"
	else
		echo "ok $n - options after the CSV file: one panel"
	fi
fi

# The file checked is the file plotted: a plot script that first puts a
# fifo where the CSV was named, then runs plot.gp, must still plot the CSV
# (by name, gnuplot would wait on the fifo for ever; timeout(1) ends it).
if [ -s "$T/copy.csv" ]; then
	n=$((n + 1))
	cp "$T/copy.csv" "$T/swap.csv"
	rm -f "$T/swap.png"
	cat > "$T/swap.gp" <<-EOF
	system("rm -f '$T/swap.csv' && mkfifo '$T/swap.csv'")
	load '$(cd "$srcdir" && pwd)/tools/plot.gp'
	EOF
	PMEMTEST_PLOT_GP="$T/swap.gp" timeout 60 "$PMEMTEST" -q plot "$T/swap.csv" 2> "$T/err"
	rc=$?
	if [ "$rc" -ne 0 ] || [ "$(png_size "$T/swap.png")" != "1280 840" ]; then
		fail "plot with the CSV's name swapped for a fifo after the check: exit $rc" \
			"$([ "$rc" -eq 124 ] && echo '(hung)'): $(head -c 300 "$T/err")"
	else
		echo "ok $n - the CSV's name swapped for a fifo after the check: the CSV plotted"
	fi
fi

# Where /dev/fd does not show the open file (no /proc mounted), gnuplot
# is given the path, as before: the plot is still made. A mount namespace
# with an empty /proc stands for such a machine (root only; skipped else,
# and in the sanitizer build, whose runtime reads /proc/self/maps).
if [ -s "$T/copy.csv" ]; then
	if tl_asan "$PMEMTEST"; then
		echo "# skipped: plot without /proc ($PMEMTEST is built with AddressSanitizer)"
	elif unshare --mount sh -c 'mount -t tmpfs none /proc' 2> /dev/null; then
		n=$((n + 1))
		rm -f "$T/copy.png"
		PMEMTEST_PLOT_GP="$(cd "$srcdir" && pwd)/tools/plot.gp" unshare --mount sh -c \
			'mount -t tmpfs none /proc && exec timeout 60 "$0" -q plot "$1"' \
			"$PMEMTEST" "$T/copy.csv" 2> "$T/err"
		rc=$?
		if [ "$rc" -ne 0 ] || [ "$(png_size "$T/copy.png")" != "1280 840" ]; then
			fail "plot without /proc: exit $rc: $(head -c 300 "$T/err")"
		else
			echo "ok $n - plot without /proc (no /dev/fd): the CSV plotted by its path"
		fi
	else
		echo "# skipped: plot without /proc (unshare --mount needs root)"
	fi
fi

# gnuplot failing halfway (a median row whose size is not a number, seen
# after it has opened its output) leaves an image that was there untouched.
if [ -s "$T/copy.csv" ]; then
	n=$((n + 1))
	awk -F, 'BEGIN { OFS = "," } $1 == "median" { $6 = "x" } { print }' "$T/copy.csv" > "$T/bad.csv"
	printf 'an image that was here\n' > "$T/bad.png"
	ls "${TMPDIR:-/tmp}" | grep '^pmemtest-plot-' | sort > "$T/tmp.before"
	"$PMEMTEST" plot "$T/bad.csv" > /dev/null 2> "$T/err"
	rc=$?
	ls "${TMPDIR:-/tmp}" | grep '^pmemtest-plot-' | sort > "$T/tmp.after"
	if [ "$rc" -ne 1 ]; then
		fail "plot of a CSV gnuplot fails on: exit $rc: $(cat "$T/err")"
	elif [ "$(cat "$T/bad.png")" != "an image that was here" ]; then
		fail "plot of a CSV gnuplot fails on: the image there was overwritten"
	elif ! cmp -s "$T/tmp.before" "$T/tmp.after"; then
		fail "plot of a CSV gnuplot fails on: its temporary image was left in ${TMPDIR:-/tmp}"
	else
		echo "ok $n - gnuplot failing leaves the image there as it was: $(tail -n 1 "$T/err")"
	fi
fi

# Errors: one line each.
n=$((n + 1))
"$PMEMTEST" plot "$T/missing.csv" > /dev/null 2> "$T/err"
rc=$?
if [ "$rc" -ne 1 ] || [ "$(wc -l < "$T/err")" -ne 1 ]; then
	fail "plot of a missing file: exit $rc, $(cat "$T/err")"
else
	echo "ok $n - plot of a missing file: $(cat "$T/err")"
fi
n=$((n + 1))
"$PMEMTEST" plot > /dev/null 2> "$T/err"
rc=$?
if [ "$rc" -ne 2 ] || [ "$(wc -l < "$T/err")" -ne 1 ]; then
	fail "plot without a file: exit $rc, $(cat "$T/err")"
else
	echo "ok $n - plot without a file: $(cat "$T/err")"
fi

if [ "$fails" -ne 0 ]; then
	echo "$fails checks failed"
	exit 1
fi
echo "all $n checks passed"
