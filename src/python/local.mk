# The Python front end: tree-sitter-python syntax trees to facts (see src/python/pyfe.h).
src_libkvlint_a_SOURCES += \
	src/python/grammar.c src/python/grammar.h \
	src/python/pyfe.h src/python/frontend.c \
	src/python/pylexer.h src/python/pylex.c src/python/pyprefilter.c src/python/pyslice.c src/python/pyindex.c src/python/pyimports.c src/python/pylink.c src/python/pynest.c src/python/pysinks.c \
	src/python/pytorch_api.c src/python/pytorch_api.h \
	src/python/pyvalue.c src/python/pyvalue.h \
	src/python/pyeval.h src/python/pytree.c src/python/pyscope.c src/python/pydtype.c src/python/pytorch.c \
	src/python/pyids.c src/python/pyconfig.c src/python/pystore.c src/python/pycall.c src/python/pymodule.c src/python/pymodcache.c src/python/pymodcache.h src/python/pyexpr.c \
	src/python/pystmt.c src/python/pyguard.c

# The sink table, read at run time from $(pkgdatadir)/grammars/python. (Its own variable: this
# fragment is included before grammars/local.mk, which defines dist_grammars_DATA.)
pygrammarsdir = $(pkgdatadir)/grammars/python
dist_pygrammars_DATA = grammars/python/sinks.tsv grammars/python/torch.tsv

# Tests: the lexical layer, the prefilter's soundness (fixtures and the standard library), and the
# facts of every fixture against its golden JSON.
check_PROGRAMS += tests/unit/check_python
tests_unit_check_python_SOURCES = tests/unit/check_python.c
tests_unit_check_python_CFLAGS = $(CHECK_TEST_CFLAGS)
tests_unit_check_python_LDADD = $(CHECK_TEST_LIBS)
check_PROGRAMS += tests/unit/check_pysinks
tests_unit_check_pysinks_SOURCES = tests/unit/check_pysinks.c
tests_unit_check_pysinks_CFLAGS = $(CHECK_TEST_CFLAGS)
tests_unit_check_pysinks_LDADD = $(CHECK_TEST_LIBS)
TESTS += tests/unit/check_python tests/unit/check_pysinks tests/e2e/python_facts.sh
EXTRA_DIST += tests/e2e/python_facts.sh
