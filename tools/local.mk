# tools
EXTRA_DIST += tools/plot.gp
