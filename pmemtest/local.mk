bin_PROGRAMS += pmemtest/pmemtest
pmemtest_pmemtest_SOURCES = pmemtest/main.c pmemtest/pmemtest.h \
	pmemtest/util.c pmemtest/util.h \
	pmemtest/stats.c pmemtest/stats.h \
	pmemtest/devices.c pmemtest/devices.h \
	pmemtest/info.c \
	pmemtest/init_bench.c pmemtest/init_bench.h \
	pmemtest/init_target.c pmemtest/init_report.c pmemtest/init_verify.c \
	pmemtest/init_dump.c \
	pmemtest/replay.c pmemtest/replay.h pmemtest/replay_impl.h \
	pmemtest/kmodel.c pmemtest/kmodel.h \
	pmemtest/bench.h pmemtest/bench.c pmemtest/bench_report.c \
	pmemtest/copy_bench.h pmemtest/copy_bench.c pmemtest/copy_bench_sp.c \
	pmemtest/copy_bench_str.c \
	pmemtest/clear_bench.c
pmemtest_pmemtest_CFLAGS = $(AM_CFLAGS) $(PMEM2_CFLAGS) $(DAXCTL_CFLAGS) $(NDCTL_CFLAGS) $(JSONC_CFLAGS) -pthread
pmemtest_pmemtest_LDADD = lib/libkflush.la pmemtest/libreplay_avx2.la pmemtest/libreplay_avx512.la \
	$(PMEM2_LIBS) $(DAXCTL_LIBS) $(NDCTL_LIBS) $(JSONC_LIBS) -lm
pmemtest_pmemtest_LDFLAGS = $(AM_LDFLAGS) -pthread

# The "wide" replay method, built with its own ISA flags like lib/.
noinst_LTLIBRARIES += pmemtest/libreplay_avx2.la pmemtest/libreplay_avx512.la
pmemtest_libreplay_avx2_la_SOURCES = pmemtest/replay_wide_avx2.c pmemtest/replay_wide.h
pmemtest_libreplay_avx2_la_CFLAGS = $(AM_CFLAGS) $(AVX2_CFLAGS)
pmemtest_libreplay_avx512_la_SOURCES = pmemtest/replay_wide_avx512.c pmemtest/replay_wide.h
pmemtest_libreplay_avx512_la_CFLAGS = $(AM_CFLAGS) $(AVX512_CFLAGS)
