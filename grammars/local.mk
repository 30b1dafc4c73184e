# tree-sitter-python, pinned and verified (grammars/tree-sitter-python.pin, scripts/fetch-grammar).
# The sources land in the build tree under grammars/tree-sitter-python/src; `make dist` ships them
# (with their .verified stamp) so that a release tarball builds offline.
TSPY_DIR = grammars/tree-sitter-python
nodist_src_libtspython_a_SOURCES = $(TSPY_DIR)/src/parser.c $(TSPY_DIR)/src/scanner.c
src_libtspython_a_SOURCES =
# Third-party code: our warning flags and sanitizers are not applied to it.
src_libtspython_a_CFLAGS = -O2 -w
src_libtspython_a_CPPFLAGS = -I$(TSPY_DIR)/src
BUILT_SOURCES += $(TSPY_DIR)/src/parser.c

$(TSPY_DIR)/src/parser.c: $(srcdir)/grammars/tree-sitter-python.pin $(srcdir)/scripts/fetch-grammar
	$(AM_V_GEN)$(SHELL) $(srcdir)/scripts/fetch-grammar $(srcdir)/grammars/tree-sitter-python.pin $(TSPY_DIR) '$(TSPY_SOURCE)'
	@touch $@
$(TSPY_DIR)/src/scanner.c: $(TSPY_DIR)/src/parser.c

EXTRA_DIST += grammars/tree-sitter-python.pin
dist-hook: dist-grammar
# The grammar may sit in the build tree (fetched) or the source tree (a tarball's copy): make's
# VPATH search finds it, and $< names where.
dist-grammar: $(TSPY_DIR)/src/parser.c
	$(MKDIR_P) $(distdir)/$(TSPY_DIR)/src/tree_sitter
	g=`dirname $<`/..; \
	cp $$g/src/parser.c $$g/src/scanner.c $(distdir)/$(TSPY_DIR)/src/ && \
	cp $$g/src/tree_sitter/*.h $(distdir)/$(TSPY_DIR)/src/tree_sitter/ && \
	if test -f $$g/LICENSE; then cp $$g/LICENSE $(distdir)/$(TSPY_DIR)/; fi && \
	if test -f $$g/.verified; then cp $$g/.verified $(distdir)/$(TSPY_DIR)/; fi

# Queries and sink tables the Python front end reads at run time.
grammarsdir = $(pkgdatadir)/grammars/python
dist_grammars_DATA =
distclean-local: distclean-grammar
distclean-grammar:
	if test "$(srcdir)" != "." || test ! -f $(TSPY_DIR)/.verified; then rm -rf $(TSPY_DIR); fi
.PHONY: dist-grammar distclean-grammar

# The tree-sitter core, when configure chose the bundled one (--with-tree-sitter-core; pinned in
# grammars/tree-sitter-core.pin, fetched and verified by scripts/fetch-core): its sources land in the
# build tree under grammars/tree-sitter-core/lib and its lib.c builds src/libtscore.a. TREE_SITTER_CFLAGS
# then names only that lib/include, so every file that includes <tree_sitter/api.h> sees the api.h of
# the core it links (tests/build/tscore-headers.sh checks). The fetched tree is not distributed: a
# release tarball fetches it again, or builds with --with-tree-sitter-core=DIR|system.
TSCORE_DIR = grammars/tree-sitter-core
TSCORE_API_H = $(TSCORE_DIR)/lib/include/tree_sitter/api.h
EXTRA_DIST += grammars/tree-sitter-core.pin
if TSCORE_BUNDLED
noinst_LIBRARIES += src/libtscore.a
TSCORE_LIB = src/libtscore.a
nodist_src_libtscore_a_SOURCES = $(TSCORE_DIR)/lib/src/lib.c
src_libtscore_a_SOURCES =
# Third-party code: our warning flags are not applied to it, but the sanitizers are (a
# --enable-sanitizers or --enable-fuzzing build checks the parser kvlint runs, not only its caller).
src_libtscore_a_CFLAGS = -O2 -w $(KV_SAN_CFLAGS)
src_libtscore_a_CPPFLAGS = -I$(TSCORE_DIR)/lib/src -I$(TSCORE_DIR)/lib/include
BUILT_SOURCES += $(TSCORE_API_H)
$(TSCORE_API_H): $(srcdir)/grammars/tree-sitter-core.pin $(srcdir)/scripts/fetch-core
	$(AM_V_GEN)$(SHELL) $(srcdir)/scripts/fetch-core $(srcdir)/grammars/tree-sitter-core.pin $(TSCORE_DIR) '$(TSCORE_SOURCE)'
	@touch $@
$(TSCORE_DIR)/lib/src/lib.c: $(TSCORE_API_H)
endif
TESTS += tests/e2e/tscore_headers.sh
EXTRA_DIST += tests/e2e/tscore_headers.sh
distclean-local: distclean-core
distclean-core:
	rm -rf $(TSCORE_DIR)
.PHONY: distclean-core
