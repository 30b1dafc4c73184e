# User documentation (docs/) and the man page.
dist_man_MANS = man/kvlint.1
EXTRA_DIST += docs
