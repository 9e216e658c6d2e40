# SPDX-License-Identifier: MIT
# man pages: hand-written troff, one page per public function.
# tests/man-coverage.sh checks every exported symbol has one,
# tests/man-lint.sh that they lint clean and render.

# Flush family, CPU features, the registry and the overview.
dist_man_MANS += \
	man/libkflush.7 \
	man/memcpy_flushcache.3 \
	man/memcpy_nontemporal.3 \
	man/kflush_version.3 \
	man/kflush_memcpy_flushcache.3 \
	man/kflush_memset_flushcache.3 \
	man/kflush_memmove_flushcache.3 \
	man/kflush_memcpy_temporal.3 \
	man/kflush_memcpy_flags.3 \
	man/kflush_flush.3 \
	man/kflush_drain.3 \
	man/kflush_persist.3 \
	man/kflush_memcpy_persist.3 \
	man/kflush_cpu_features.3 \
	man/kflush_variant_count.3

# memcpy and the page routines (issue 3)
dist_man_MANS += \
	man/kflush_memcpy.3 \
	man/kflush_clear_page.3 \
	man/kflush_clear_pages_flushcache.3 \
	man/kflush_copy_page.3

# kflush_copy_safe (issue 3)
dist_man_MANS += \
	man/kflush_copy_safe.3 \
	man/kflush_fault_handler.3

# The optional parts' pages: installed with the part, always distributed.
EXTRA_DIST += man/pmemtest.1 man/libkflush-pmem.7 man/libkflush-pmem2.7
if BUILD_PMEMTEST
man_MANS += man/pmemtest.1
endif
if BUILD_PMEM_DROPIN
man_MANS += man/libkflush-pmem.7 man/libkflush-pmem2.7
endif

# Aliases: a name that has its section in another function's page. In the
# source tree each is a symlink to that page, so "man -l man/<alias>.3" and
# mandoc show the page from anywhere (a ".so man3/..." stub renders blank
# outside an installed man tree); installed as the same symlinks. In the
# tarball they are copies of the page (automake's tar -h follows links).
# Entries are man/<alias>.3:<page>.3, both in section 3.
MAN_ALIASES = \
	man/kflush_cache_line_size.3:kflush_cpu_features.3 \
	man/kflush_cpu_feature_name.3:kflush_cpu_features.3 \
	man/kflush_cpu_features_raw.3:kflush_cpu_features.3 \
	man/kflush_clear_pages.3:kflush_clear_page.3 \
	man/kflush_memmove_flags.3:kflush_memcpy_flags.3 \
	man/kflush_memset_flags.3:kflush_memcpy_flags.3 \
	man/kflush_memmove_temporal.3:kflush_memcpy_temporal.3 \
	man/kflush_memset_temporal.3:kflush_memcpy_temporal.3 \
	man/kflush_op_name.3:kflush_variant_count.3 \
	man/kflush_variant_name.3:kflush_variant_count.3 \
	man/kflush_variant_requires.3:kflush_variant_count.3 \
	man/kflush_variant_usable.3:kflush_variant_count.3 \
	man/kflush_variant_bindable.3:kflush_variant_count.3 \
	man/kflush_variant_bound.3:kflush_variant_count.3 \
	man/kflush_variant_find.3:kflush_variant_count.3 \
	man/kflush_variant_fn.3:kflush_variant_count.3

# $(1): the directory to make the links in
man_alias_links = for a in $(MAN_ALIASES); do \
		page=$${a%%:*}; page=$${page\#\#*/}; target=$${a\#*:}; \
		(cd "$(1)" && rm -f "$$page" && $(LN_S) "$$target" "$$page") || exit 1; \
	done

install-data-hook: install-man-aliases
install-man-aliases:
	@$(MKDIR_P) '$(DESTDIR)$(man3dir)'
	@$(call man_alias_links,$(DESTDIR)$(man3dir))
uninstall-hook: uninstall-man-aliases
uninstall-man-aliases:
	@for a in $(MAN_ALIASES); do \
		page=$${a%%:*}; rm -f '$(DESTDIR)$(man3dir)/'"$${page##*/}"; \
	done
dist-hook: dist-man-aliases
dist-man-aliases:
	@$(call man_alias_links,$(distdir)/man)
.PHONY: install-man-aliases uninstall-man-aliases dist-man-aliases
