# SPDX-License-Identifier: MIT
# pmemtest: main.c and info.c on top (the command line), then one folder
# per part: init/ (init-bench: options, target, storage, run, verification,
# report), replay/ (the kernel models and the replay methods), bench/
# (copy-bench and clear-bench: modes over a contender engine, results),
# common/ (errors and parsing, where results go, device discovery,
# statistics, the machine's roofs).
bin_PROGRAMS += pmemtest/pmemtest
pmemtest_common_sources = \
	pmemtest/common/cli.c pmemtest/common/cli_output.c pmemtest/common/cli.h \
	pmemtest/common/stats.c pmemtest/common/stats.h pmemtest/common/rng.h \
	pmemtest/common/roof.c pmemtest/common/roof.h pmemtest/common/roof_isa.h \
	pmemtest/common/roof_avx2.c pmemtest/common/roof_avx512.c \
	pmemtest/common/devices.c pmemtest/common/devices.h \
	pmemtest/common/output.c pmemtest/common/output.h \
	pmemtest/common/progress.c pmemtest/common/progress.h
pmemtest_replay_sources = \
	pmemtest/replay/methods.c pmemtest/replay/methods.h pmemtest/replay/replay.h \
	pmemtest/replay/kmodel.c pmemtest/replay/kmodel.h
pmemtest_init_sources = pmemtest/init/init.h \
	pmemtest/init/options.c pmemtest/init/command.c \
	pmemtest/init/target.c pmemtest/init/storage.c pmemtest/init/report.c \
	pmemtest/init/verify.c \
	pmemtest/init/dump.c
pmemtest_pmemtest_SOURCES = pmemtest/main.c pmemtest/pmemtest.h \
	pmemtest/info.c pmemtest/plot.c \
	$(pmemtest_common_sources) $(pmemtest_replay_sources) $(pmemtest_init_sources) \
	pmemtest/bench/bench.h pmemtest/bench/buffers.c pmemtest/bench/options.c \
	pmemtest/bench/res.h pmemtest/bench/results.c pmemtest/bench/results_out.c \
	pmemtest/bench/bound.c \
	pmemtest/bench/copy.h pmemtest/bench/copy.c pmemtest/bench/copy_run.c \
	pmemtest/bench/copy_calls.c pmemtest/bench/copy_verify.c \
	pmemtest/bench/copy_struct_page.c pmemtest/bench/copy_bulk.c \
	pmemtest/bench/copy_strings.c pmemtest/bench/copy_move.c pmemtest/bench/copy_set.c \
	pmemtest/bench/clear.h pmemtest/bench/clear.c pmemtest/bench/clear_run.c
# pmemtest plot runs the installed plot script.
dist_pkgdata_DATA = tools/plot.gp
# The build tree's own script, for a pmemtest run where it was built and
# not installed: $(srcdir) as seen from the build directory (relative, so
# nothing of the build machine's paths lands in the binary unless configure
# was given an absolute one).
pmemtest_pmemtest_CPPFLAGS = $(AM_CPPFLAGS) -DPMEMTEST_PLOT_GP='"$(pkgdatadir)/plot.gp"' \
	-DPMEMTEST_SRCDIR='"$(srcdir)"'
pmemtest_pmemtest_CFLAGS = $(AM_CFLAGS) $(PMEM2_CFLAGS) $(DAXCTL_CFLAGS) $(NDCTL_CFLAGS) $(JSONC_CFLAGS) -pthread
pmemtest_pmemtest_LDADD = lib/libkflush.la pmemtest/libreplay_avx2.la pmemtest/libreplay_avx512.la \
	$(PMEM2_LIBS) $(DAXCTL_LIBS) $(NDCTL_LIBS) $(JSONC_LIBS) -lm
pmemtest_pmemtest_LDFLAGS = $(AM_LDFLAGS) -pthread

# The "wide" replay method, built with its own ISA flags like lib/.
noinst_LTLIBRARIES += pmemtest/libreplay_avx2.la pmemtest/libreplay_avx512.la
pmemtest_libreplay_avx2_la_SOURCES = pmemtest/replay/wide_avx2.c pmemtest/replay/wide.h \
	pmemtest/replay/methods.h
pmemtest_libreplay_avx2_la_CFLAGS = $(AM_CFLAGS) $(AVX2_CFLAGS)
pmemtest_libreplay_avx512_la_SOURCES = pmemtest/replay/wide_avx512.c pmemtest/replay/wide.h \
	pmemtest/replay/methods.h
pmemtest_libreplay_avx512_la_CFLAGS = $(AM_CFLAGS) $(AVX512_CFLAGS)
