# SPDX-License-Identifier: MIT
# GB/s against size, one line per contender, from `pmemtest --csv copy-bench`
# or `pmemtest --csv clear-bench` output (the "median" rows: bytes / median ns).
#
#   gnuplot -e "in='x.csv'; out='x.png'" tools/plot.gp
#
# Optional filters (a full copy-bench CSV has many groups):
#   mode='sweep'  cache='cold'  layout='fixed'  match='pmdk|avx512'
# A line is one mode/cache/layout/contender; the "mix" layout has no size
# axis and is left out.

if (!exists("in")) { print "usage: gnuplot -e \"in='x.csv'; out='x.png'\" tools/plot.gp"; exit }
if (!exists("out")) { out = in . ".png" }
if (!exists("mode")) { mode = "" }
if (!exists("cache")) { cache = "" }
if (!exists("layout")) { layout = "" }
if (!exists("match")) { match = "" }

# The awk filter of the median rows: columns 3 mode, 4 cache, 5 layout,
# 6 size, 7 contender, 14 gbps.
sel = sprintf("$1==\"median\" && $5!=\"mix\" && (\"%s\"==\"\" || $3==\"%s\") && (\"%s\"==\"\" || $4==\"%s\") && (\"%s\"==\"\" || $5==\"%s\") && (\"%s\"==\"\" || $7 ~ /%s/)", \
	mode, mode, cache, cache, layout, layout, match, match)
keys = system(sprintf("awk -F, '%s {print $3\"/\"$4\"/\"$5\"/\"$7}' '%s' | awk '!seen[$0]++'", sel, in))
if (strlen(keys) == 0) { print "plot.gp: no median rows match in ", in; exit }

series(k) = sprintf("< awk -F, -v k='%s' '%s && $3\"/\"$4\"/\"$5\"/\"$7==k {print $6\",\"$14}' '%s' | sort -t, -k1,1n", k, sel, in)

set terminal pngcairo size 1600,1000 noenhanced font ",10"
set output out
set datafile separator ","
set logscale x 2
set format x "%.0b%BB"
set xlabel "size (bytes per call or extent)"
set ylabel "GB/s (bytes / median time)"
set title sprintf("%s  (DRAM stands in for pmem)", in)
set grid xtics ytics
set key outside right top Left reverse
set yrange [0:*]

# Eight colours, then the same colours dashed, so no two lines look alike.
colours = "#1f77b4 #d62728 #2ca02c #9467bd #ff7f0e #17becf #8c564b #e377c2"
plot for [i=1:words(keys)] series(word(keys, i)) using 1:2 with linespoints \
	lc rgb word(colours, (i - 1) % 8 + 1) dt 1 + (i - 1) / 8 pt ((i - 1) % 13 + 1) ps 0.6 title (word(keys, i))
