# SPDX-License-Identifier: MIT
# The checks make check runs in every configuration: they need only the
# library, a shell and the compiler, not Criterion (tests/local.mk).

# Man pages (issue 2): every exported symbol has a page, every page lints
# clean and renders. The harness exports $srcdir, which the scripts read
# the pages from.
TESTS += tests/man-coverage.sh tests/man-lint.sh
EXTRA_DIST += tests/man-coverage.sh tests/man-lint.sh
# What the shell tests share (fail(), the scratch directory).
EXTRA_DIST += tests/lib.sh

# <kflush.h> in every language mode, with each installed compiler (issue 8)
TESTS += tests/header-compile.sh
EXTRA_DIST += tests/header-compile.sh

# The version (issue 13): the header's macros, configure, libkflush.pc,
# kflush_version() and pmemtest --version agree; the shim is a libkflush
# stand-in reporting another version, to show pmemtest asks the library.
TESTS += tests/version.sh
EXTRA_DIST += tests/version.sh
check_PROGRAMS += tests/version_print
tests_version_print_SOURCES = tests/version_print.c
tests_version_print_LDADD = lib/libkflush.la
check_LTLIBRARIES += tests/libversionshim.la
tests_libversionshim_la_SOURCES = tests/version_shim.c
tests_libversionshim_la_LDFLAGS = $(AM_LDFLAGS) -module -shared -avoid-version -rpath /nowhere

# Debian's symbols file lists exactly the version script's symbols, each in
# its node (skipped in a dist tarball, which has no debian/).
TESTS += tests/symbols-check.sh
EXTRA_DIST += tests/symbols-check.sh

# The mutation list against the code (skipped in a dist tarball, which has
# no tools/mutants.sh).
TESTS += tests/mutants-list.sh
EXTRA_DIST += tests/mutants-list.sh
