# tests/robustness.mk: the tests of what kvlint does with hostile or broken input and output
# (docs/limits.md): safe report files, incomplete runs, non-regular inputs, config numbers.
TESTS += tests/e2e/output_safety.sh tests/e2e/incomplete_runs.sh tests/e2e/input_files.sh \
	tests/e2e/config_numbers.sh
EXTRA_DIST += tests/e2e/output_safety.sh tests/e2e/incomplete_runs.sh tests/e2e/input_files.sh \
	tests/e2e/config_numbers.sh tests/robustness.mk
