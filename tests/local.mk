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

# kflush_copy_safe: the Criterion test, and a helper that dlopen()s the
# library after setting its own SIGSEGV disposition.
check_PROGRAMS += tests/test_copy_safe tests/copy_safe_helper
TESTS += tests/test_copy_safe
tests_test_copy_safe_SOURCES = tests/test_copy_safe.c tests/faultutil.c tests/faultutil.h \
	tests/testutil.c tests/testutil.h
tests_test_copy_safe_CPPFLAGS = $(AM_CPPFLAGS) \
	-DCOPY_SAFE_HELPER='"$(abs_top_builddir)/tests/copy_safe_helper"'
tests_test_copy_safe_CFLAGS = $(TEST_CFLAGS) -pthread
tests_test_copy_safe_LDADD = $(TEST_LIBS) -lpthread
tests_copy_safe_helper_SOURCES = tests/copy_safe_helper.c
tests_copy_safe_helper_CPPFLAGS = $(AM_CPPFLAGS) \
	-DLIBKFLUSH_SO='"$(abs_top_builddir)/lib/.libs/libkflush.so"'
tests_copy_safe_helper_LDADD = -ldl
