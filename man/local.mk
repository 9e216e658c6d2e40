# man pages

# kflush_copy_safe (issue 3)
dist_man_MANS += \
	man/kflush_copy_safe.3 \
	man/kflush_fault_handler.3
