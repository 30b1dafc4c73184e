src_libkvlint_a_SOURCES += \
	src/facts/facts.c src/facts/facts.h \
	src/facts/facts_copy.c \
	src/facts/facts_json.c src/facts/facts_json.h \
	src/facts/expr.c \
	src/facts/idvocab.c src/facts/idvocab.h \
	src/facts/dtypestr.c src/facts/dtypestr.h

# The id vocabulary (facts/idvocab.h), read at run time from $(pkgdatadir)/grammars by the Python
# front end and the resolver; the dtype strings (facts/dtypestr.h), by the Python front end.
idvocabdir = $(pkgdatadir)/grammars
dist_idvocab_DATA = grammars/ids.tsv grammars/dtype_strings.tsv
