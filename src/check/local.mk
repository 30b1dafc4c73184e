# Rules: loading rule files, evaluating them over facts x deployments, findings. (The check, matrix
# and explain subcommands that drive them are built by src/cli/local.mk.)
src_libkvlint_a_SOURCES += \
	src/check/rules.c src/check/rules.h \
	src/check/eval.c src/check/eval.h src/check/emit.c src/check/paths.c \
	src/check/family.h src/check/registry.c src/check/families.def src/check/example.c \
	src/check/fam_store_value.c src/check/fam_store_integer.c src/check/fam_scale_crush.c \
	src/check/fam_construction.c src/check/fam_arithmetic.c src/check/fam_invalid_dtype_name.c \
	src/check/fam_unresolved_dtype.c src/check/fam_unused_suppression.c

check_PROGRAMS += tests/unit/check_eval
tests_unit_check_eval_SOURCES = tests/unit/check_eval.c
tests_unit_check_eval_CFLAGS = $(CHECK_TEST_CFLAGS)
tests_unit_check_eval_LDADD = $(CHECK_TEST_LIBS)
TESTS += tests/unit/check_eval

# End-to-end: the real binary on fixture trees (check_rules/check_multiswitch need the Python and
# config front ends; check_cli and check_docs do not).
TESTS += tests/e2e/check_cli.sh tests/e2e/check_docs.sh tests/e2e/check_rules.sh \
	tests/e2e/check_sarif.sh tests/e2e/check_multiswitch.sh
EXTRA_DIST += tests/e2e/check_cli.sh tests/e2e/check_docs.sh tests/e2e/check_rules.sh \
	tests/e2e/check_sarif.sh tests/e2e/check_multiswitch.sh \
	docs/rules docs/output-formats.md
