# The recording build: the library's own sources compiled with
# -DKFLUSH_RECORD, so every store/write-back/fence helper reports to the
# test's recorder. Linked statically into the tests that need it only.
check_LTLIBRARIES += tests/libkflush_record.la tests/libkflush_record_avx2.la \
	tests/libkflush_record_avx512.la
KFLUSH_RECORD_CPPFLAGS = $(AM_CPPFLAGS) -DKFLUSH_RECORD
tests_libkflush_record_la_SOURCES = $(KFLUSH_SOURCES)
tests_libkflush_record_la_CPPFLAGS = $(KFLUSH_RECORD_CPPFLAGS)
tests_libkflush_record_la_CCASFLAGS = $(AM_CCASFLAGS)
tests_libkflush_record_la_LIBADD = tests/libkflush_record_avx2.la tests/libkflush_record_avx512.la
tests_libkflush_record_avx2_la_SOURCES = $(KFLUSH_AVX2_SOURCES)
tests_libkflush_record_avx2_la_CPPFLAGS = $(KFLUSH_RECORD_CPPFLAGS)
tests_libkflush_record_avx2_la_CFLAGS = $(AM_CFLAGS) $(AVX2_CFLAGS)
tests_libkflush_record_avx512_la_SOURCES = $(KFLUSH_AVX512_SOURCES)
tests_libkflush_record_avx512_la_CPPFLAGS = $(KFLUSH_RECORD_CPPFLAGS)
tests_libkflush_record_avx512_la_CFLAGS = $(AM_CFLAGS) $(AVX512_CFLAGS)

TEST_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
TEST_LIBS = lib/libkflush.la $(CRITERION_LIBS)

# pmemtest's bad-input and --force contract (shell; needs the built pmemtest)
TESTS += tests/test_pmemtest_badinput.sh
EXTRA_DIST += tests/test_pmemtest_badinput.sh

# pmemtest's replay: every method's bytes against the slow path's, in full
check_PROGRAMS += tests/test_pmemtest_replay
TESTS += tests/test_pmemtest_replay
tests_test_pmemtest_replay_SOURCES = tests/test_pmemtest_replay.c \
	pmemtest/replay.c pmemtest/init_target.c pmemtest/devices.c pmemtest/util.c \
	pmemtest/stats.c pmemtest/init_report.c
tests_test_pmemtest_replay_CFLAGS = $(TEST_CFLAGS) $(PMEM2_CFLAGS) $(DAXCTL_CFLAGS) $(NDCTL_CFLAGS) $(JSONC_CFLAGS)
tests_test_pmemtest_replay_LDADD = $(TEST_LIBS) pmemtest/libreplay_avx2.la pmemtest/libreplay_avx512.la \
	$(PMEM2_LIBS) $(DAXCTL_LIBS) $(NDCTL_LIBS) $(JSONC_LIBS) -lm
