# SPDX-License-Identifier: MIT
# tools
EXTRA_DIST += tools/quickstart.sh tools/deb-smoke.sh
# README.md shows it.
EXTRA_DIST += tools/plot-example.png

# `make bench-pmem`: fio's libpmem engine and libpmemobj on PMDK's libpmem
# against the drop-in, side by side (tools/fio-bench.sh; a measurement, not
# a test). The rule is here, outside the drop-in's conditional, so a build
# without the drop-in says why instead of doing nothing.
if BUILD_PMEM_DROPIN
BENCH_PMEM_RUN = $(SHELL) $(srcdir)/tools/fio-bench.sh $(abs_top_builddir)
else
BENCH_PMEM_RUN = echo "make bench-pmem: the libpmem drop-in is not built (see configure's summary)" >&2; exit 2
endif
bench-pmem: all $(BENCH_PMEM_DEPS)
	@$(BENCH_PMEM_RUN)
.PHONY: bench-pmem
EXTRA_DIST += tools/fio-bench.sh

# The QEMU NVDIMM rig (tools/vm/README.md): `make check-vm` boots the
# installed Debian kernel with emulated devdax and fsdax namespaces and runs
# pmemtest, the test programs and two small helpers inside the guest.
# tools/vm/run.sh exits 77 (skipped, one line says why) when QEMU cannot start.
check_PROGRAMS += tools/vm/kflush-vmpeek tools/vm/kflush-vmdax
tools_vm_kflush_vmpeek_SOURCES = tools/vm/vmpeek.c
tools_vm_kflush_vmdax_SOURCES = tools/vm/vmdax.c
tools_vm_kflush_vmdax_LDADD = lib/libkflush.la
# Host side: the kernel's memmap in an NVDIMM image against pmemtest's replay.
check_PROGRAMS += tools/vm/kflush-memmap-cmp
tools_vm_kflush_memmap_cmp_SOURCES = tools/vm/memmap-cmp.c

EXTRA_DIST += tools/vm/run.sh tools/vm/mkinitramfs.sh tools/vm/guest-init.sh \
	tools/vm/jsonflat.awk tools/vm/README.md

# make cannot pass exit status 77 on, so a skip (run.sh has printed one
# "check-vm: SKIPPED: why" line) ends the target successfully; call
# tools/vm/run.sh BUILDDIR directly to see 77.
check-vm: all $(check_PROGRAMS) $(check_LTLIBRARIES)
	@rc=0; $(SHELL) $(srcdir)/tools/vm/run.sh --srcdir $(srcdir) $(abs_top_builddir) || rc=$$?; \
	test $$rc -ne 77 || rc=0; exit $$rc
.PHONY: check-vm
CLEANFILES += tools/vm/check-vm-main.log tools/vm/check-vm-oldcpu.log \
	tools/vm/memmap-cmp-devdax.log tools/vm/memmap-cmp-fsdax.log

# tools/callbench: the cost per call of each way to bind a dispatched
# function (PLT + slot, GNU ifunc, pointer, inline), side by side. Its
# library is a shared object of its own so every call crosses a PLT; the
# program binds lazily so the ifunc resolvers run after libkflush's setup.
check_LTLIBRARIES += tools/libcallbench.la
tools_libcallbench_la_SOURCES = tools/callbench_lib.c tools/callbench.h
tools_libcallbench_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
tools_libcallbench_la_LIBADD = lib/libkflush.la
tools_libcallbench_la_LDFLAGS = $(AM_LDFLAGS) -module -shared -avoid-version -rpath /nowhere
check_PROGRAMS += tools/callbench
tools_callbench_SOURCES = tools/callbench.c
tools_callbench_LDADD = tools/libcallbench.la lib/libkflush.la
tools_callbench_LDFLAGS = $(AM_LDFLAGS) -Wl,-z,lazy
