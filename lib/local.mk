# SPDX-License-Identifier: MIT
# libkflush: the generic sources, and per-ISA sources built with their own
# -m flags.
KFLUSH_SOURCES = \
	lib/internal.h \
	lib/registry.c \
	lib/version.c \
	lib/x86_64/cpu.c \
	lib/x86_64/cpuid_decode.c \
	lib/x86_64/cpu_vendor.c \
	lib/x86_64/cpu_rules.c \
	lib/x86_64/flush.h \
	lib/x86_64/flush.c \
	lib/x86_64/flushcache.h \
	lib/x86_64/flushcache_entry.h \
	lib/x86_64/flushcache.c \
	lib/x86_64/memmove_flushcache.h \
	lib/x86_64/memmove_flushcache.c \
	lib/x86_64/temporal.c \
	lib/x86_64/flags.c \
	lib/x86_64/asm.h \
	lib/x86_64/pages.h \
	lib/x86_64/memcpy.S \
	lib/x86_64/clear_page.S \
	lib/x86_64/copy_page.S \
	lib/x86_64/clear_pages_flushcache.c \
	lib/x86_64/strings.c \
	lib/x86_64/extable.h \
	lib/x86_64/copy_safe.S \
	lib/x86_64/copy_safe_entry.c \
	lib/x86_64/fault.h \
	lib/x86_64/fault.c

KFLUSH_AVX2_SOURCES = \
	lib/x86_64/flushcache_avx2.h \
	lib/x86_64/flushcache_avx2.c \
	lib/x86_64/clear_pages_flushcache_avx2.c

KFLUSH_AVX512_SOURCES = \
	lib/x86_64/flushcache_avx512.c \
	lib/x86_64/clear_pages_flushcache_avx512.c

KFLUSH_VISIBILITY = -fvisibility=hidden

lib_LTLIBRARIES += lib/libkflush.la
lib_libkflush_la_SOURCES = $(KFLUSH_SOURCES)
lib_libkflush_la_CFLAGS = $(AM_CFLAGS) $(KFLUSH_VISIBILITY)
lib_libkflush_la_CCASFLAGS = $(AM_CCASFLAGS)
lib_libkflush_la_LIBADD = lib/libkflush_avx2.la lib/libkflush_avx512.la
lib_libkflush_la_LDFLAGS = $(AM_LDFLAGS) -version-info $(LIBKFLUSH_VERSION_INFO) \
	-Wl,--version-script=$(srcdir)/lib/libkflush.map -Wl,-z,now -Wl,--no-undefined
EXTRA_lib_libkflush_la_DEPENDENCIES = lib/libkflush.map
EXTRA_DIST += lib/libkflush.map

noinst_LTLIBRARIES += lib/libkflush_avx2.la lib/libkflush_avx512.la
lib_libkflush_avx2_la_SOURCES = $(KFLUSH_AVX2_SOURCES)
lib_libkflush_avx2_la_CFLAGS = $(AM_CFLAGS) $(KFLUSH_VISIBILITY) $(AVX2_CFLAGS)
lib_libkflush_avx512_la_SOURCES = $(KFLUSH_AVX512_SOURCES)
lib_libkflush_avx512_la_CFLAGS = $(AM_CFLAGS) $(KFLUSH_VISIBILITY) $(AVX512_CFLAGS)
