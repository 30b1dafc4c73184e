# User documentation (docs/) and the man page.
dist_man_MANS = man/kvlint.1
EXTRA_DIST += docs
# The rule pages, installed so that SARIF helpUri (configure --with-docs-url) has a default target.
rulesdocdir = $(docdir)/rules
dist_rulesdoc_DATA = docs/rules/README.md \
	docs/rules/KV001.md docs/rules/KV002.md docs/rules/KV003.md docs/rules/KV004.md \
	docs/rules/KV005.md docs/rules/KV006.md docs/rules/KV007.md docs/rules/KV008.md \
	docs/rules/KV009.md docs/rules/KV010.md docs/rules/KV011.md
