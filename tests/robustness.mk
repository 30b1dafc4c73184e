# tests/robustness.mk: the tests of what kvlint does with hostile or broken input and output
# (docs/limits.md): safe report files, incomplete runs, non-regular inputs, config numbers, inputs
# that would crash or stall a parser.
TESTS += tests/e2e/output_safety.sh tests/e2e/incomplete_runs.sh tests/e2e/input_files.sh \
	tests/e2e/config_numbers.sh tests/e2e/python_limits.sh
EXTRA_DIST += tests/e2e/output_safety.sh tests/e2e/incomplete_runs.sh tests/e2e/input_files.sh \
	tests/e2e/config_numbers.sh tests/e2e/python_limits.sh tests/robustness.mk

check_PROGRAMS += tests/unit/check_limits
tests_unit_check_limits_SOURCES = tests/unit/check_limits.c
tests_unit_check_limits_CFLAGS = $(CHECK_TEST_CFLAGS)
tests_unit_check_limits_LDADD = $(CHECK_TEST_LIBS)
TESTS += tests/unit/check_limits
