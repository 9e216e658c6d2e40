# SPDX-License-Identifier: MIT
# GB/s against size from `pmemtest --csv copy-bench` or `clear-bench` output
# (the "median" rows: bytes / median ns), one panel per mode, cache state and
# layout, so a panel holds a handful of lines instead of thirty tangled ones:
# the bound libkflush variant thick, the best peer (the PMDK or glibc
# contender with the highest mean GB/s in that panel) thick and dashed, the
# roof dotted, every other contender thin and grey.
#
#   pmemtest plot x.csv                      (what pmemtest(1) documents)
#   gnuplot -e "in='x.csv'; out='x.png'" tools/plot.gp
#
# out ending in .svg gives SVG, anything else PNG. Each panel is 640 x 420
# pixels; n panels are laid out in ceil(sqrt(n)) columns. Optional filters:
#   mode='sweep'  cache='cold'  layout='fixed'
# The "mix" layout has no size axis and is left out.

if (!exists("in")) { print "usage: gnuplot -e \"in='x.csv'; out='x.png'\" tools/plot.gp"; exit status 2 }
if (!exists("out")) { out = in . ".png" }
# The CSV's name in messages (pmemtest plot passes the file as /dev/fd/N).
if (!exists("name")) { name = in }
if (!exists("mode")) { mode = "" }
if (!exists("cache")) { cache = "" }
if (!exists("layout")) { layout = "" }

# The median rows kept: columns 3 mode, 4 cache, 5 layout, 6 size,
# 7 contender, 8 class, 14 gbps.
sel = sprintf("$1==\"median\" && $5!=\"mix\" && (\"%s\"==\"\" || $3==\"%s\") && (\"%s\"==\"\" || $4==\"%s\") && (\"%s\"==\"\" || $5==\"%s\")", \
	mode, mode, cache, cache, layout, layout)
panels = system(sprintf("awk -F, '%s {print $3\"/\"$4\"/\"$5}' '%s' | awk '!seen[$0]++'", sel, in))
if (strlen(panels) == 0) { print "plot.gp: no median rows to plot in " . name; exit status 1 }
n = words(panels)
cols = int(ceil(sqrt(n)))
rows = int(ceil(real(n) / cols))

# In panel p: the contenders, and which of them is the bound variant, the
# best peer and the roof, the roof strategy with the best mean (empty when there is none).
conts(p) = system(sprintf("awk -F, '%s && $3\"/\"$4\"/\"$5==\"%s\" {print $7}' '%s' | awk '!seen[$0]++'", sel, p, in))
bound(p) = system(sprintf("awk -F, '%s && $3\"/\"$4\"/\"$5==\"%s\" && $7 ~ /[(]bound[)]/ {print $7; exit}' '%s'", sel, p, in))
roof(p) = system(sprintf("awk -F, '%s && $3\"/\"$4\"/\"$5==\"%s\" && $8==\"roof\" {s[$7]+=$14; c[$7]++} END {for (k in s) if (s[k]/c[k] > m) {m = s[k]/c[k]; b = k}; print b}' '%s'", sel, p, in))
peer(p) = system(sprintf("awk -F, '%s && $3\"/\"$4\"/\"$5==\"%s\" && $8==\"peer\" {s[$7]+=$14; c[$7]++} END {for (k in s) if (s[k]/c[k] > m) {m = s[k]/c[k]; b = k}; print b}' '%s'", sel, p, in))
span(p) = system(sprintf("awk -F, '%s && $3\"/\"$4\"/\"$5==\"%s\" {if (!n++ || $6 < lo) lo = $6; if ($6 > hi) hi = $6} END {print lo, hi}' '%s'", sel, p, in))
series(p, k) = sprintf("< awk -F, -v k='%s' '%s && $3\"/\"$4\"/\"$5==\"%s\" && $7==k {print $6\",\"$14}' '%s' | sort -t, -k1,1n", k, sel, p, in)

if (out[strlen(out) - 3:] eq ".svg") {
	set terminal svg size 640 * cols, 420 * rows noenhanced font ",10" background "white"
} else {
	set terminal pngcairo size 640 * cols, 420 * rows noenhanced font ",9" background "white"
}
set output out
set datafile separator ","
set logscale x 2
set format x "%.0b%BB"
set xlabel "size (bytes per call or extent)"
set ylabel "GB/s"
set grid xtics ytics lc rgb "#dddddd"
set key top left Left reverse font ",8" samplen 2
set yrange [0:*]

set multiplot layout rows, cols title sprintf("%s  (DRAM stands in for pmem)", in)
do for [i = 1:n] {
	p = word(panels, i)
	c = conts(p)
	b = bound(p)
	r = roof(p)
	e = peer(p)
	set title p
	# A panel of one size (copy-page's page, one clear extent) has no line
	# to draw: every contender is a point there, on an axis around it.
	z = span(p)
	if (word(z, 1) eq word(z, 2)) {
		set xrange [real(word(z, 1)) / 2 : real(word(z, 2)) * 2]
		grey = "linespoints pt 7 ps 0.5"
	} else {
		set autoscale x
		grey = "lines"
	}
	# The others first, thin and grey under one key entry, then the roof,
	# the best peer and the bound variant on top. The command is built, as
	# a plot clause for a missing line would still read its (empty) data.
	o = ""
	do for [j = 1:words(c)] { k = word(c, j); if (!(k eq b || k eq e || k eq r)) { o = o . " " . k } }
	cmd = ""
	if (words(o)) { cmd = cmd . ", for [j = 1:words(o)] series(p, word(o, j)) using 1:2 with " . grey . " lw 1 lc rgb '#bbbbbb' title (j == 1 ? 'others' : '')" }
	if (strlen(r)) { cmd = cmd . ", series(p, r) using 1:2 with lines lw 2 dt 3 lc rgb 'black' title r" }
	if (strlen(e)) { cmd = cmd . ", series(p, e) using 1:2 with linespoints lw 3 dt 2 pt 6 ps 0.6 lc rgb '#d62728' title e . ' (best peer)'" }
	if (strlen(b)) { cmd = cmd . ", series(p, b) using 1:2 with linespoints lw 3 pt 7 ps 0.6 lc rgb '#1f77b4' title b" }
	eval("plot " . cmd[3:])
}
unset multiplot
