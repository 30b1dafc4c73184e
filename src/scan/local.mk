src_libkvlint_a_SOURCES += \
	src/scan/scan.c src/scan/scan.h
src_libkvlint_a_SOURCES += src/scan/compdb.c src/scan/compdb.h
src_libkvlint_a_SOURCES += src/scan/gitignore.c src/scan/gitignore.h
src_libkvlint_a_SOURCES += src/scan/gitdir.c src/scan/gitdir.h
check_PROGRAMS += tests/unit/check_gitignore
tests_unit_check_gitignore_SOURCES = tests/unit/check_gitignore.c
tests_unit_check_gitignore_CFLAGS = $(CHECK_TEST_CFLAGS)
tests_unit_check_gitignore_LDADD = $(CHECK_TEST_LIBS)
TESTS += tests/unit/check_gitignore
