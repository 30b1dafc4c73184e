# The numerics library (libc/libm only). (Its subcommands, cast and dtypes, are built by src/cli/local.mk.)
src_libkvnumerics_a_SOURCES += \
	src/numerics/numerics.h src/numerics/internal.h \
	src/numerics/fmt.c \
	src/numerics/dtype.c \
	src/numerics/store.c \
	src/numerics/path.c \
	src/numerics/dynamic.c \
	src/numerics/number.c

check_PROGRAMS += tests/unit/check_numerics
tests_unit_check_numerics_SOURCES = tests/unit/check_numerics.c
tests_unit_check_numerics_CFLAGS = $(CHECK_TEST_CFLAGS)
tests_unit_check_numerics_LDADD = $(CHECK_TEST_LIBS)
TESTS += tests/unit/check_numerics tests/e2e/cast_reference.sh tests/e2e/cli_cast.sh

# docs/dtypes.md and docs/cli-cast.md ship with docs/ (docs/local.mk), fixtures with tests/fixtures.
EXTRA_DIST += tests/e2e/cast_reference.sh tests/e2e/cli_cast.sh \
	tests/ref/numerics_ref.py tests/ref/cast_reference.py
