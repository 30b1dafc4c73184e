src_libkvlint_a_SOURCES += \
	src/util/arena.c src/util/arena.h \
	src/util/diag.c src/util/diag.h \
	src/util/fsutil.c src/util/fsutil.h \
	src/util/hash.h \
	src/util/json.c src/util/json.h \
	src/util/numfmt.c src/util/numfmt.h \
	src/util/outfile.c src/util/outfile.h \
	src/util/process.c src/util/process.h \
	src/util/shellwords.c src/util/shellwords.h \
	src/util/strbuf.c src/util/strbuf.h \
	src/util/strlist.c src/util/strlist.h \
	src/util/tsv.c src/util/tsv.h \
	src/util/xalloc.c src/util/xalloc.h \
	src/util/ytree.c src/util/ytree.h

check_PROGRAMS += tests/unit/check_util
tests_unit_check_util_SOURCES = tests/unit/check_util.c
tests_unit_check_util_CFLAGS = $(CHECK_TEST_CFLAGS)
tests_unit_check_util_LDADD = $(CHECK_TEST_LIBS)
TESTS += tests/unit/check_util
