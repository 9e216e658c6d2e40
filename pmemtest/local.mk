bin_PROGRAMS += pmemtest/pmemtest
pmemtest_pmemtest_SOURCES = pmemtest/main.c
pmemtest_pmemtest_SOURCES += pmemtest/pmemtest.h pmemtest/stats.h pmemtest/stats.c \
	pmemtest/bench.h pmemtest/bench.c pmemtest/bench_report.c \
	pmemtest/copy_bench.h pmemtest/copy_bench.c pmemtest/copy_bench_sp.c \
	pmemtest/copy_bench_str.c \
	pmemtest/clear_bench.c
pmemtest_pmemtest_CFLAGS = $(AM_CFLAGS) $(PMEM2_CFLAGS) $(DAXCTL_CFLAGS) $(NDCTL_CFLAGS) $(JSONC_CFLAGS)
pmemtest_pmemtest_LDADD = lib/libkflush.la $(PMEM2_LIBS) $(DAXCTL_LIBS) $(NDCTL_LIBS) $(JSONC_LIBS)
pmemtest_pmemtest_LDADD += -lm
