# SPDX-License-Identifier: MIT
TEST_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
TEST_LIBS = lib/libkflush.la $(CRITERION_LIBS)

# Flush family (issue 2): Criterion sweeps against the shipped library, the
# inline no-call proof and dispatch under KFLUSH_HWCAPS masks.
TEST_UTIL = tests/testutil.c tests/testutil.h

# The persistence proof (issue 8): the shipped library single-stepped in a
# child, each instruction decoded with Capstone, the cache lines judged at
# return. test_trace proves the tracer itself can fail.
TEST_TRACE = tests/trace/decode.c tests/trace/decode.h tests/trace/tracer.c \
	tests/trace/tracer.h tests/trace/lines.c tests/trace/lines.h \
	tests/trace/harness.c tests/trace/harness.h
TEST_TRACE_CFLAGS = $(TEST_CFLAGS) $(CAPSTONE_CFLAGS)
TEST_TRACE_LIBS = $(TEST_LIBS) $(CAPSTONE_LIBS)

check_PROGRAMS += tests/test_flushcache tests/test_flush tests/test_inline \
	tests/test_persistence tests/test_trace tests/test_dispatch tests/test_cpu_rules \
	tests/inline_probe
TESTS += tests/test_flushcache tests/test_flush tests/test_inline tests/test_trace \
	tests/test_persistence tests/test_dispatch tests/test_cpu_rules \
	tests/inline-nocall.sh tests/masked-noavx.sh tests/masked-noclwb.sh \
	tests/masked-clflush.sh
EXTRA_DIST += tests/inline-nocall.sh tests/run-masked.sh tests/masked-noavx.sh \
	tests/masked-noclwb.sh tests/masked-clflush.sh

tests_test_flushcache_SOURCES = tests/test_flushcache.c $(TEST_UTIL)
tests_test_flushcache_CFLAGS = $(TEST_CFLAGS)
tests_test_flushcache_LDADD = $(TEST_LIBS)

tests_test_flush_SOURCES = tests/test_flush.c $(TEST_UTIL)
tests_test_flush_CFLAGS = $(TEST_CFLAGS)
tests_test_flush_LDADD = $(TEST_LIBS)

tests_test_inline_SOURCES = tests/test_inline.c $(TEST_UTIL)
tests_test_inline_CFLAGS = $(TEST_CFLAGS)
tests_test_inline_LDADD = $(TEST_LIBS)

tests_test_persistence_SOURCES = tests/test_persistence.c $(TEST_UTIL) $(TEST_TRACE)
tests_test_persistence_CFLAGS = $(TEST_TRACE_CFLAGS)
tests_test_persistence_LDADD = $(TEST_TRACE_LIBS) -ldl

tests_test_trace_SOURCES = tests/test_trace.c tests/trace/bad.S $(TEST_TRACE)
tests_test_trace_CFLAGS = $(TEST_TRACE_CFLAGS)
tests_test_trace_CCASFLAGS = $(AM_CCASFLAGS)
tests_test_trace_LDADD = $(TEST_TRACE_LIBS)

tests_test_dispatch_SOURCES = tests/test_dispatch.c tests/doc_rules.c tests/doc_rules.h \
	lib/x86_64/cpu_vendor.c lib/x86_64/cpu_rules.c $(TEST_UTIL)
tests_test_dispatch_CFLAGS = $(TEST_CFLAGS)
tests_test_dispatch_LDADD = $(TEST_LIBS) -ldl

tests_test_cpu_rules_SOURCES = tests/test_cpu_rules.c tests/doc_rules.c tests/doc_rules.h \
	lib/x86_64/cpu_vendor.c lib/x86_64/cpu_rules.c
tests_test_cpu_rules_CFLAGS = $(TEST_CFLAGS)
tests_test_cpu_rules_LDADD = $(TEST_LIBS)

# Disassembled by inline-nocall.sh: optimised as configured but without
# sanitizer instrumentation, and linked in place (-no-install) so the file
# is the program itself, not a libtool wrapper script.
tests_inline_probe_SOURCES = tests/inline_probe.c
tests_inline_probe_CFLAGS = $(WARN_CFLAGS)
tests_inline_probe_LDADD = lib/libkflush.la
tests_inline_probe_LDFLAGS = $(AM_LDFLAGS) -no-install

# memcpy and page routines (issue 3)
check_PROGRAMS += tests/test_memcpy tests/test_pages tests/test_pages_persistence
TESTS += tests/test_memcpy tests/test_pages tests/test_pages_persistence \
	tests/run-masked-pages.sh
EXTRA_DIST += tests/run-masked-pages.sh
tests_test_memcpy_SOURCES = tests/test_memcpy.c tests/testutil.c tests/testutil.h
tests_test_memcpy_CFLAGS = $(TEST_CFLAGS)
tests_test_memcpy_LDADD = $(TEST_LIBS)
tests_test_pages_SOURCES = tests/test_pages.c tests/doc_rules.c tests/doc_rules.h \
	tests/testutil.c tests/testutil.h
tests_test_pages_CFLAGS = $(TEST_CFLAGS)
tests_test_pages_LDADD = $(TEST_LIBS)
tests_test_pages_persistence_SOURCES = tests/test_pages_persistence.c $(TEST_UTIL) \
	$(TEST_TRACE)
tests_test_pages_persistence_CFLAGS = $(TEST_TRACE_CFLAGS)
tests_test_pages_persistence_LDADD = $(TEST_TRACE_LIBS)

# kflush_copy_safe: the Criterion test, and a helper that dlopen()s the
# library after setting its own SIGSEGV disposition.
check_PROGRAMS += tests/test_copy_safe tests/copy_safe_helper
TESTS += tests/test_copy_safe
tests_test_copy_safe_SOURCES = tests/test_copy_safe.c tests/faultutil.c tests/faultutil.h \
	$(TEST_UTIL)
tests_test_copy_safe_CPPFLAGS = $(AM_CPPFLAGS) \
	-DCOPY_SAFE_HELPER='"$(abs_top_builddir)/tests/copy_safe_helper"'
tests_test_copy_safe_CFLAGS = $(TEST_CFLAGS) -pthread
tests_test_copy_safe_LDADD = $(TEST_LIBS) -lpthread
tests_copy_safe_helper_SOURCES = tests/copy_safe_helper.c
tests_copy_safe_helper_CPPFLAGS = $(AM_CPPFLAGS) \
	-DLIBKFLUSH_SO='"$(abs_top_builddir)/lib/.libs/libkflush.so"'
tests_copy_safe_helper_LDADD = -ldl

if BUILD_PMEMTEST
# pmemtest copy-bench / clear-bench smoke test (no timing asserted).
TESTS += tests/test_bench.sh
EXTRA_DIST += tests/test_bench.sh

# pmemtest's bad-input and --force contract (shell; needs the built pmemtest)
TESTS += tests/test_pmemtest_badinput.sh
EXTRA_DIST += tests/test_pmemtest_badinput.sh

# pmemtest's replay: every method's bytes against the slow path's, in full,
# and under the persistence tracer the hints of --pageblock-copy prefetch
# and the drains of --compound-head
check_PROGRAMS += tests/test_pmemtest_replay
TESTS += tests/test_pmemtest_replay
tests_test_pmemtest_replay_SOURCES = tests/test_pmemtest_replay.c \
	pmemtest/replay/methods.c pmemtest/replay/kmodel.c pmemtest/init/target.c \
	pmemtest/init/storage.c \
	pmemtest/common/devices.c pmemtest/common/cli.c pmemtest/common/cli_output.c \
	pmemtest/common/stats.c \
	pmemtest/common/roof.c pmemtest/common/roof_avx2.c pmemtest/common/roof_avx512.c \
	pmemtest/common/output.c pmemtest/init/report.c \
	tests/trace/decode.c tests/trace/decode.h tests/trace/tracer.c tests/trace/tracer.h
tests_test_pmemtest_replay_CFLAGS = $(TEST_CFLAGS) $(CAPSTONE_CFLAGS) $(PMEM2_CFLAGS) $(DAXCTL_CFLAGS) \
	$(NDCTL_CFLAGS) $(JSONC_CFLAGS)
tests_test_pmemtest_replay_LDADD = $(TEST_LIBS) pmemtest/libreplay_avx2.la pmemtest/libreplay_avx512.la \
	$(PMEM2_LIBS) $(DAXCTL_LIBS) $(NDCTL_LIBS) $(JSONC_LIBS) $(CAPSTONE_LIBS) -lm

# copy-bench's roof stores the whole lines inside each call and no other byte
check_PROGRAMS += tests/test_pmemtest_copy_calls
TESTS += tests/test_pmemtest_copy_calls
tests_test_pmemtest_copy_calls_SOURCES = tests/test_pmemtest_copy_calls.c \
	tests/roofutil.c tests/roofutil.h \
	pmemtest/bench/copy_calls.c pmemtest/bench/buffers.c pmemtest/bench/results.c \
	pmemtest/bench/copy_struct_page.c pmemtest/bench/copy_run.c pmemtest/bench/options.c \
	pmemtest/bench/copy_verify.c pmemtest/bench/bound.c pmemtest/bench/results_out.c \
	pmemtest/common/progress.c \
	pmemtest/common/cli.c pmemtest/common/cli_output.c pmemtest/common/output.c \
	pmemtest/common/stats.c \
	pmemtest/common/roof.c pmemtest/common/roof_avx2.c pmemtest/common/roof_avx512.c
tests_test_pmemtest_copy_calls_CFLAGS = $(TEST_CFLAGS) $(PMEM2_CFLAGS) $(JSONC_CFLAGS)
tests_test_pmemtest_copy_calls_LDADD = $(TEST_LIBS) $(PMEM2_LIBS) $(JSONC_LIBS) -lm

# The roofs owe the flush-copy's contract: each copy and fill strategy
# single-stepped by the persistence tracer
check_PROGRAMS += tests/test_pmemtest_roof_persistence
TESTS += tests/test_pmemtest_roof_persistence
tests_test_pmemtest_roof_persistence_SOURCES = tests/test_pmemtest_roof_persistence.c \
	tests/roofutil.c tests/roofutil.h \
	$(TEST_TRACE) pmemtest/common/cli.c pmemtest/common/cli_output.c \
	pmemtest/common/roof.c pmemtest/common/roof_avx2.c pmemtest/common/roof_avx512.c
tests_test_pmemtest_roof_persistence_CFLAGS = $(TEST_TRACE_CFLAGS)
tests_test_pmemtest_roof_persistence_LDADD = $(TEST_TRACE_LIBS)

# pmemtest's verification must fail on a corrupted sampled struct page
# (PMEMTEST_TEST_CORRUPT), and "verified" must come from the check.
TESTS += tests/test_pmemtest_verify.sh
EXTRA_DIST += tests/test_pmemtest_verify.sh

# copy-bench's check of each contender's bytes must fail on a contender
# that stores the wrong ones: glibc's memcpy, memmove and memset made
# wrong at one length by a preloaded library.
TESTS += tests/test_pmemtest_copy_verify.sh
EXTRA_DIST += tests/test_pmemtest_copy_verify.sh
check_LTLIBRARIES += tests/libbadcopy.la
tests_libbadcopy_la_SOURCES = tests/badcopy_shim.c
tests_libbadcopy_la_LDFLAGS = $(AM_LDFLAGS) -module -shared -avoid-version -rpath /nowhere
tests_libbadcopy_la_LIBADD = -ldl

# --dev's path swapped for something else just before it is opened (a
# preloaded library makes the race certain): the open file meets the rules.
TESTS += tests/test_pmemtest_dev_swap.sh
EXTRA_DIST += tests/test_pmemtest_dev_swap.sh
check_LTLIBRARIES += tests/libswappath.la
tests_libswappath_la_SOURCES = tests/swappath_shim.c
tests_libswappath_la_LDFLAGS = $(AM_LDFLAGS) -module -shared -avoid-version -rpath /nowhere
tests_libswappath_la_LIBADD = -ldl

# pmemtest --force: the bytes that change are exactly the announced range.
TESTS += tests/test_pmemtest_force.sh
endif
EXTRA_DIST += tests/test_pmemtest_force.sh

# CPU features as the kernel derives them (issue 8): the vendor rule is
# compiled in (the library does not export it) and fed synthetic CPUIDs;
# the host's features are compared with /proc/cpuinfo.
check_PROGRAMS += tests/test_cpu
TESTS += tests/test_cpu
tests_test_cpu_SOURCES = tests/test_cpu.c lib/x86_64/cpu_vendor.c lib/x86_64/cpuid_decode.c \
	$(TEST_UTIL)
tests_test_cpu_CPPFLAGS = $(AM_CPPFLAGS) \
	-DCOPY_SAFE_HELPER='"$(abs_top_builddir)/tests/copy_safe_helper"'
tests_test_cpu_CFLAGS = $(TEST_CFLAGS)
tests_test_cpu_LDADD = $(TEST_LIBS)

if BUILD_PMEMTEST
# pmemtest's replay against struct page bytes written out by hand from the kernel sources
check_PROGRAMS += tests/test_pmemtest_oracle
TESTS += tests/test_pmemtest_oracle
tests_test_pmemtest_oracle_SOURCES = tests/test_pmemtest_oracle.c \
	pmemtest/replay/methods.c pmemtest/replay/kmodel.c pmemtest/init/target.c \
	pmemtest/init/storage.c \
	pmemtest/common/devices.c pmemtest/common/cli.c pmemtest/common/cli_output.c \
	pmemtest/common/stats.c \
	pmemtest/common/roof.c pmemtest/common/roof_avx2.c pmemtest/common/roof_avx512.c \
	pmemtest/common/output.c pmemtest/init/report.c
tests_test_pmemtest_oracle_CFLAGS = $(TEST_CFLAGS) $(PMEM2_CFLAGS) $(DAXCTL_CFLAGS) $(NDCTL_CFLAGS) $(JSONC_CFLAGS)
tests_test_pmemtest_oracle_LDADD = $(TEST_LIBS) pmemtest/libreplay_avx2.la pmemtest/libreplay_avx512.la \
	$(PMEM2_LIBS) $(DAXCTL_LIBS) $(NDCTL_LIBS) $(JSONC_LIBS) -lm

# The QEMU rig's byte comparison (tools/vm/memmap-cmp.c) on an image made from pmemtest's replay
TESTS += tests/test_memmap_cmp.sh
EXTRA_DIST += tests/test_memmap_cmp.sh
endif

# kflush_copy_safe and signals (issue 8): blocked masks, chaining to every
# previous disposition (traced), lazy installation, hardware poison.
check_PROGRAMS += tests/test_copy_safe_signals
TESTS += tests/test_copy_safe_signals
tests_test_copy_safe_signals_SOURCES = tests/test_copy_safe_signals.c tests/faultutil.c \
	tests/faultutil.h $(TEST_UTIL)
tests_test_copy_safe_signals_CPPFLAGS = $(tests_test_copy_safe_CPPFLAGS)
tests_test_copy_safe_signals_CFLAGS = $(TEST_CFLAGS) -pthread
tests_test_copy_safe_signals_LDADD = $(TEST_LIBS) -lpthread

# kflush_copy_safe when rep movsb stops early (issue 8): the library built
# with -DKFLUSH_TEST_EARLY_STOP, a handler that simulates such a CPU. Test
# builds only; the installed library has no such code.
check_LTLIBRARIES += tests/libkflush_earlystop.la
tests_libkflush_earlystop_la_SOURCES = $(KFLUSH_SOURCES)
tests_libkflush_earlystop_la_CPPFLAGS = $(AM_CPPFLAGS) -DKFLUSH_TEST_EARLY_STOP
tests_libkflush_earlystop_la_CFLAGS = $(AM_CFLAGS) $(KFLUSH_VISIBILITY)
tests_libkflush_earlystop_la_CCASFLAGS = $(AM_CCASFLAGS)
tests_libkflush_earlystop_la_LIBADD = lib/libkflush_avx2.la lib/libkflush_avx512.la
check_PROGRAMS += tests/test_copy_safe_early
TESTS += tests/test_copy_safe_early
tests_test_copy_safe_early_SOURCES = tests/test_copy_safe_early.c tests/faultutil.c \
	tests/faultutil.h $(TEST_UTIL)
tests_test_copy_safe_early_CFLAGS = $(TEST_CFLAGS)
tests_test_copy_safe_early_LDADD = tests/libkflush_earlystop.la $(CRITERION_LIBS)

if BUILD_PMEMTEST
# pmemtest's command line as users expect it (issue 12): no hang on a fifo,
# --dev refused where unused, empty tables are errors, real write errors,
# global options after the command, one name per idea, "pmemtest help".
TESTS += tests/test_pmemtest_cli.sh
EXTRA_DIST += tests/test_pmemtest_cli.sh

# One output schema (issue 12): every command's --json and --csv read back
# with jq against pmemtest(1)'s OUTPUT SCHEMA.
TESTS += tests/test_pmemtest_schema.sh
EXTRA_DIST += tests/test_pmemtest_schema.sh

# pmemtest's progress line (terminal only, width-adaptive, ETA) and Ctrl-C
# (what was measured so far, exit 130).
TESTS += tests/test_pmemtest_progress.sh
EXTRA_DIST += tests/test_pmemtest_progress.sh

# pmemtest plot: a bench CSV into a PNG and an SVG of the documented size
# (skips in one line without gnuplot).
TESTS += tests/test_pmemtest_plot.sh
EXTRA_DIST += tests/test_pmemtest_plot.sh
endif

# memmove_flushcache (issue 11): overlap sweeps at every distance.
check_PROGRAMS += tests/test_memmove
TESTS += tests/test_memmove
tests_test_memmove_SOURCES = tests/test_memmove.c tests/overlaputil.c tests/overlaputil.h \
	$(TEST_UTIL)
tests_test_memmove_CFLAGS = $(TEST_CFLAGS)
tests_test_memmove_LDADD = $(TEST_LIBS)

# Temporal flush-copy and the PMEM_F_MEM_* flags forms (issue 11).
check_PROGRAMS += tests/test_flags
TESTS += tests/test_flags
tests_test_flags_SOURCES = tests/test_flags.c tests/overlaputil.c tests/overlaputil.h $(TEST_UTIL)
tests_test_flags_CFLAGS = $(TEST_CFLAGS)
tests_test_flags_LDADD = $(TEST_LIBS)

if BUILD_PMEM_DROPIN
# The libpmem drop-in (issue 11): its ABI against the real libpmem.so.1,
# and fio's libpmem engine on it.
TESTS += tests/test_pmem_abi.sh tests/test_pmem_fio.sh
EXTRA_DIST += tests/test_pmem_abi.sh tests/test_pmem_fio.sh

# A libpmemobj program of our own under the drop-in; skipped (77) when
# libpmemobj-dev is missing and the program is not built.
if HAVE_PMEMOBJ
check_PROGRAMS += tests/pmemobj_client
tests_pmemobj_client_SOURCES = tests/pmemobj_client.c
tests_pmemobj_client_CFLAGS = $(AM_CFLAGS) $(PMEMOBJ_CFLAGS)
tests_pmemobj_client_LDADD = $(PMEMOBJ_LIBS)
endif
TESTS += tests/test_pmem_pmemobj.sh
EXTRA_DIST += tests/test_pmem_pmemobj.sh
endif

# The persistence proof for memmove_flushcache and the flags forms (issue 11).
check_PROGRAMS += tests/test_move_persistence tests/test_flags_persistence
TESTS += tests/test_move_persistence tests/test_flags_persistence
tests_test_move_persistence_SOURCES = tests/test_move_persistence.c $(TEST_UTIL) $(TEST_TRACE)
tests_test_move_persistence_CFLAGS = $(TEST_TRACE_CFLAGS)
tests_test_move_persistence_LDADD = $(TEST_TRACE_LIBS)
tests_test_flags_persistence_SOURCES = tests/test_flags_persistence.c $(TEST_UTIL) $(TEST_TRACE)
tests_test_flags_persistence_CFLAGS = $(TEST_TRACE_CFLAGS)
tests_test_flags_persistence_LDADD = $(TEST_TRACE_LIBS)
# The wrappers call the library through this program's PLT: bound at load,
# so no first call traces the dynamic linker's lazy resolution.
tests_test_flags_persistence_LDFLAGS = $(AM_LDFLAGS) -Wl,-z,now

# kflush_memcpy's tuned variant (issue 10): which path it takes at each
# size and distance, seen by the tracer, against libkflush(7)'s rules.
check_PROGRAMS += tests/test_memcpy_tuned
TESTS += tests/test_memcpy_tuned
tests_test_memcpy_tuned_SOURCES = tests/test_memcpy_tuned.c tests/doc_rules.c tests/doc_rules.h \
	$(TEST_TRACE)
tests_test_memcpy_tuned_CFLAGS = $(TEST_TRACE_CFLAGS)
tests_test_memcpy_tuned_LDADD = $(TEST_TRACE_LIBS)

# The same variants under every documented switch-over, with and without
# the near-distance rule, whatever this host's own rule: the library built
# with -DKFLUSH_TEST_TUNING, whose kflush_test_memcpy_tuning() sets them.
# Test builds only; the installed library has no such code.
check_LTLIBRARIES += tests/libkflush_tuning.la
tests_libkflush_tuning_la_SOURCES = $(KFLUSH_SOURCES)
tests_libkflush_tuning_la_CPPFLAGS = $(AM_CPPFLAGS) -DKFLUSH_TEST_TUNING
tests_libkflush_tuning_la_CFLAGS = $(AM_CFLAGS) $(KFLUSH_VISIBILITY)
tests_libkflush_tuning_la_CCASFLAGS = $(AM_CCASFLAGS)
tests_libkflush_tuning_la_LIBADD = lib/libkflush_avx2.la lib/libkflush_avx512.la
check_PROGRAMS += tests/test_memcpy_tuned_forced
TESTS += tests/test_memcpy_tuned_forced
tests_test_memcpy_tuned_forced_SOURCES = tests/test_memcpy_tuned_forced.c $(TEST_TRACE)
tests_test_memcpy_tuned_forced_CFLAGS = $(TEST_TRACE_CFLAGS)
tests_test_memcpy_tuned_forced_LDADD = tests/libkflush_tuning.la $(CRITERION_LIBS) \
	$(CAPSTONE_LIBS)

# The stores a flush-copy, -fill or -move variant's call runs (issue 10):
# the measured shapes of lib/x86_64/flushcache.h and memmove_flushcache.c,
# seen by the tracer.
TEST_STORES = tests/trace/stores.c tests/trace/stores.h $(TEST_TRACE)
check_PROGRAMS += tests/test_flushcache_stores tests/test_memmove_stores
TESTS += tests/test_flushcache_stores tests/test_memmove_stores
tests_test_flushcache_stores_SOURCES = tests/test_flushcache_stores.c $(TEST_STORES)
tests_test_flushcache_stores_CFLAGS = $(TEST_TRACE_CFLAGS)
tests_test_flushcache_stores_LDADD = $(TEST_TRACE_LIBS)
tests_test_memmove_stores_SOURCES = tests/test_memmove_stores.c $(TEST_STORES)
tests_test_memmove_stores_CFLAGS = $(TEST_TRACE_CFLAGS)
tests_test_memmove_stores_LDADD = $(TEST_TRACE_LIBS)

# The order of every flush-copy, -move and -memset variant's NT stores:
# line by line, never back to a line left half written (issue 10).
check_PROGRAMS += tests/test_flushcache_order
TESTS += tests/test_flushcache_order
tests_test_flushcache_order_SOURCES = tests/test_flushcache_order.c $(TEST_TRACE)
tests_test_flushcache_order_CFLAGS = $(TEST_TRACE_CFLAGS)
tests_test_flushcache_order_LDADD = $(TEST_TRACE_LIBS)

# pmemtest's roofs (every NT store strategy this CPU has, the best taken,
# roof errors) and the bound-vs-fastest report, read back with jq; the
# roof error is forced through PMEMTEST_TEST_ROOF_SCALE, never by timing.
if BUILD_PMEMTEST
TESTS += tests/test_pmemtest_roof.sh
endif
EXTRA_DIST += tests/test_pmemtest_roof.sh

# kflush_version() (issue 13) against the header and configure.
check_PROGRAMS += tests/test_version
TESTS += tests/test_version
tests_test_version_SOURCES = tests/test_version.c
tests_test_version_CFLAGS = $(TEST_CFLAGS)
tests_test_version_LDADD = $(TEST_LIBS)

# The registry calls' error contract (kflush_variant_count(3)).
check_PROGRAMS += tests/test_registry
TESTS += tests/test_registry
tests_test_registry_SOURCES = tests/test_registry.c $(TEST_UTIL)
tests_test_registry_CFLAGS = $(TEST_CFLAGS)
tests_test_registry_LDADD = $(TEST_LIBS)

# libkflush-pmem2, the drop-in for libpmem2 (issue 11): a libpmem2 client of
# our own at each store granularity, against the real library's msyncs.
# Its programs need <libpmem2.h> (libpmem2-dev), which configure finds for pmemtest.
if BUILD_PMEM_DROPIN
if BUILD_PMEMTEST
check_PROGRAMS += tests/pmem2_client
tests_pmem2_client_SOURCES = tests/pmem2_client.c
tests_pmem2_client_CFLAGS = $(AM_CFLAGS) $(PMEM2_CFLAGS)
tests_pmem2_client_LDADD = $(PMEM2_LIBS) -ldl
# A library calling libpmem2 from its constructor, preloaded after the
# drop-in so that it runs first: the forwarders' slow path.
check_LTLIBRARIES += tests/libpmem2early.la
tests_libpmem2early_la_SOURCES = tests/pmem2_early.c
tests_libpmem2early_la_CFLAGS = $(AM_CFLAGS) $(PMEM2_CFLAGS)
tests_libpmem2early_la_LDFLAGS = $(AM_LDFLAGS) -module -shared -avoid-version -rpath /nowhere
tests_libpmem2early_la_LIBADD = $(PMEM2_LIBS)
TESTS += tests/test_pmem2.sh
# Its functions under the persistence tracer: write-back and fence at cache
# line granularity, fence only at byte granularity. Links the drop-in, not
# PMDK's libpmem2 (only its header).
check_PROGRAMS += tests/test_pmem2_persistence
TESTS += tests/test_pmem2_persistence
tests_test_pmem2_persistence_SOURCES = tests/test_pmem2_persistence.c $(TEST_UTIL) $(TEST_TRACE)
tests_test_pmem2_persistence_CFLAGS = $(TEST_TRACE_CFLAGS) $(PMEM2_CFLAGS)
tests_test_pmem2_persistence_LDADD = pmem/libkflush-pmem2.la $(TEST_TRACE_LIBS)
# libkflush-pmem with flushing off (PMEM_NO_FLUSH, eADR) under the tracer,
# against PMDK's decision traced on the real libpmem: started by the
# scripts in each environment, as a client sees it at load. Linked to the
# drop-ins (and bound at load, so no call traces lazy resolution).
check_PROGRAMS += tests/test_pmem_noflush
tests_test_pmem_noflush_SOURCES = tests/test_pmem_noflush.c $(TEST_TRACE)
tests_test_pmem_noflush_CFLAGS = $(TEST_TRACE_CFLAGS) $(PMEM2_CFLAGS)
tests_test_pmem_noflush_LDADD = pmem/libkflush-pmem.la pmem/libkflush-pmem2.la \
	$(TEST_TRACE_LIBS) -ldl
tests_test_pmem_noflush_LDFLAGS = $(AM_LDFLAGS) -Wl,-z,now
TESTS += tests/test_pmem_noflush.sh tests/test_pmem_eadr.sh
endif
endif
EXTRA_DIST += tests/test_pmem2.sh tests/test_pmem_noflush.sh tests/test_pmem_eadr.sh
