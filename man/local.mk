# man pages

# memcpy and the page routines (issue 3)
dist_man_MANS += \
	man/kflush_memcpy.3 \
	man/kflush_clear_page.3 \
	man/kflush_clear_pages.3 \
	man/kflush_clear_pages_flushcache.3 \
	man/kflush_copy_page.3
