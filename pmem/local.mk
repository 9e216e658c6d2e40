# SPDX-License-Identifier: MIT
# libkflush-pmem.so.1: a drop-in for PMDK's libpmem.so.1 (LIBPMEM_1.0), its
# memory calls on libkflush, its mapping calls forwarded to the real one.
# See libkflush-pmem(7).
lib_LTLIBRARIES += pmem/libkflush-pmem.la
pmem_libkflush_pmem_la_SOURCES = pmem/pmem.h pmem/memory.c pmem/forward.c
pmem_libkflush_pmem_la_CFLAGS = $(AM_CFLAGS) $(KFLUSH_VISIBILITY) -pthread
# libtool -version-info 1:0:0 names it libkflush-pmem.so.1, libpmem's major.
pmem_libkflush_pmem_la_LDFLAGS = $(AM_LDFLAGS) -version-info 1:0:0 \
	-Wl,--version-script=$(srcdir)/pmem/libkflush-pmem.map -Wl,-z,now -Wl,--no-undefined
pmem_libkflush_pmem_la_LIBADD = lib/libkflush.la -ldl -lpthread
EXTRA_pmem_libkflush_pmem_la_DEPENDENCIES = pmem/libkflush-pmem.map
EXTRA_DIST += pmem/libkflush-pmem.map
