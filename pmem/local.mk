# SPDX-License-Identifier: MIT
# libkflush-pmem.so.1: a drop-in for PMDK's libpmem.so.1 (LIBPMEM_1.0), its
# memory calls on libkflush, its mapping calls forwarded to the real one.
# See libkflush-pmem(7).
lib_LTLIBRARIES += pmem/libkflush-pmem.la
pmem_libkflush_pmem_la_SOURCES = pmem/pmem.h pmem/stores.h pmem/memory.c pmem/noflush.c \
	pmem/forward.c
pmem_libkflush_pmem_la_CFLAGS = $(AM_CFLAGS) $(KFLUSH_VISIBILITY) -pthread
# libtool -version-info 1:0:0 names it libkflush-pmem.so.1, libpmem's major.
pmem_libkflush_pmem_la_LDFLAGS = $(AM_LDFLAGS) -version-info 1:0:0 \
	-Wl,--version-script=$(srcdir)/pmem/libkflush-pmem.map -Wl,-z,now -Wl,--no-undefined
pmem_libkflush_pmem_la_LIBADD = lib/libkflush.la -ldl -lpthread
EXTRA_pmem_libkflush_pmem_la_DEPENDENCIES = pmem/libkflush-pmem.map
EXTRA_DIST += pmem/libkflush-pmem.map

# libkflush-pmem2.so.1: the same for PMDK's libpmem2.so.1 (LIBPMEM2_1.0):
# the pmem2_get_*_fn getters on libkflush, the rest forwarded to the real
# one. See libkflush-pmem2(7).
lib_LTLIBRARIES += pmem/libkflush-pmem2.la
pmem_libkflush_pmem2_la_SOURCES = pmem/pmem2.h pmem/stores.h pmem/pmem2_fns.c pmem/pmem2_load.c \
	pmem/pmem2_forward.S
pmem_libkflush_pmem2_la_CFLAGS = $(AM_CFLAGS) $(KFLUSH_VISIBILITY) -pthread
pmem_libkflush_pmem2_la_LDFLAGS = $(AM_LDFLAGS) -version-info 1:0:0 \
	-Wl,--version-script=$(srcdir)/pmem/libkflush-pmem2.map -Wl,-z,now -Wl,--no-undefined
pmem_libkflush_pmem2_la_LIBADD = lib/libkflush.la -ldl -lpthread
EXTRA_pmem_libkflush_pmem2_la_DEPENDENCIES = pmem/libkflush-pmem2.map
EXTRA_DIST += pmem/libkflush-pmem2.map

# `make bench-pmem` (tools/local.mk) needs the libpmemobj client too.
if HAVE_PMEMOBJ
BENCH_PMEM_DEPS = tests/pmemobj_client$(EXEEXT)
endif
