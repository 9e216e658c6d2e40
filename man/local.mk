# man pages
dist_man_MANS += man/pmemtest.1
