# man pages: hand-written troff, one page per public function; aliases are
# ".so man3/<page>.3" stubs. tests/man-coverage.sh checks every exported
# symbol has one, tests/man-lint.sh that they lint clean.

# Flush family, CPU features, the registry and the overview.
dist_man_MANS += \
	man/libkflush.7 \
	man/libkflush-pmem.7 man/libkflush-pmem2.7 \
	man/memcpy_flushcache.3 \
	man/memcpy_nontemporal.3 \
	man/kflush_memcpy_flushcache.3 \
	man/kflush_memset_flushcache.3 \
	man/kflush_memmove_flushcache.3 \
	man/kflush_memcpy_temporal.3 \
	man/kflush_memmove_temporal.3 \
	man/kflush_memset_temporal.3 \
	man/kflush_memcpy_flags.3 \
	man/kflush_memmove_flags.3 \
	man/kflush_memset_flags.3 \
	man/kflush_flush.3 \
	man/kflush_drain.3 \
	man/kflush_persist.3 \
	man/kflush_memcpy_persist.3 \
	man/kflush_cpu_features.3 \
	man/kflush_cpu_features_raw.3 \
	man/kflush_cpu_feature_name.3 \
	man/kflush_cache_line_size.3 \
	man/kflush_variant_count.3 \
	man/kflush_op_name.3 \
	man/kflush_variant_name.3 \
	man/kflush_variant_requires.3 \
	man/kflush_variant_usable.3 \
	man/kflush_variant_bindable.3 \
	man/kflush_variant_bound.3 \
	man/kflush_variant_find.3 \
	man/kflush_variant_fn.3

# memcpy and the page routines (issue 3)
dist_man_MANS += \
	man/kflush_memcpy.3 \
	man/kflush_clear_page.3 \
	man/kflush_clear_pages.3 \
	man/kflush_clear_pages_flushcache.3 \
	man/kflush_copy_page.3

# kflush_copy_safe (issue 3)
dist_man_MANS += \
	man/kflush_copy_safe.3 \
	man/kflush_fault_handler.3

# man pages
dist_man_MANS += man/pmemtest.1
