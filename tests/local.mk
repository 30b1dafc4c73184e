# The test harness. Unit tests are Check programs (tests/unit/check_*.c) registered by each area's
# local.mk; end-to-end tests are shell scripts (tests/e2e/*.sh) that run the built binary on fixture
# trees and compare its structured output with golden files. tests/e2e/lib.sh has the helpers.
TEST_EXTENSIONS = .sh
SH_LOG_COMPILER = $(SHELL)
# Check's default limit of 4 s per test case measures speed, which tests never do (bench/ does): the
# sanitizer build of the mutation tests took longer on a busy machine. 300 s still ends a hang.
AM_TESTS_ENVIRONMENT = \
	KVLINT='$(abs_top_builddir)/src/kvlint'; export KVLINT; \
	KVLINT_DATADIR='$(abs_top_srcdir)'; export KVLINT_DATADIR; \
	top_srcdir='$(abs_top_srcdir)'; export top_srcdir; \
	top_builddir='$(abs_top_builddir)'; export top_builddir; \
	PYTHON3='$(PYTHON3)'; export PYTHON3; \
	CK_VERBOSITY=normal; export CK_VERBOSITY; \
	CK_DEFAULT_TIMEOUT=$${CK_DEFAULT_TIMEOUT:-300}; export CK_DEFAULT_TIMEOUT; \
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1; export ASAN_OPTIONS; \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1; export UBSAN_OPTIONS;

# Flags for Check programs: area fragments write
#   check_PROGRAMS += tests/unit/check_foo
#   tests_unit_check_foo_SOURCES = tests/unit/check_foo.c
#   tests_unit_check_foo_CFLAGS = $(CHECK_TEST_CFLAGS)
#   tests_unit_check_foo_LDADD = $(CHECK_TEST_LIBS)
#   TESTS += tests/unit/check_foo
CHECK_TEST_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
CHECK_TEST_LIBS = $(KV_LIBS) $(CHECK_LIBS)

EXTRA_DIST += tests/e2e/lib.sh tests/fixtures
TESTS += tests/e2e/readme_example.sh
EXTRA_DIST += tests/e2e/readme_example.sh
TESTS += tests/e2e/matrix_ranges.sh
EXTRA_DIST += tests/e2e/matrix_ranges.sh
TESTS += tests/e2e/ckpt_fields.sh
EXTRA_DIST += tests/e2e/ckpt_fields.sh
TESTS += tests/e2e/precommit.sh
EXTRA_DIST += tests/e2e/precommit.sh
TESTS += tests/e2e/one_file.sh
EXTRA_DIST += tests/e2e/one_file.sh
TESTS += tests/e2e/one_file_imports.sh
EXTRA_DIST += tests/e2e/one_file_imports.sh
TESTS += tests/e2e/one_file_py_deploy.sh
EXTRA_DIST += tests/e2e/one_file_py_deploy.sh
TESTS += tests/e2e/stdin_input.sh
EXTRA_DIST += tests/e2e/stdin_input.sh
TESTS += tests/e2e/gitignore_walk.sh
EXTRA_DIST += tests/e2e/gitignore_walk.sh
TESTS += tests/e2e/per_file_ignores.sh
EXTRA_DIST += tests/e2e/per_file_ignores.sh
# The layer table of src/README.md against every include under src/.
TESTS += tests/e2e/check_layers.sh
EXTRA_DIST += tests/e2e/check_layers.sh src/README.md
TESTS += tests/e2e/ci_workflow.sh
EXTRA_DIST += tests/e2e/ci_workflow.sh
TESTS += tests/e2e/ci_recipes.sh
EXTRA_DIST += tests/e2e/ci_recipes.sh
TESTS += tests/e2e/ux_cli.sh
EXTRA_DIST += tests/e2e/ux_cli.sh
# Platforms (a T4 node, vLLM's CPU image) change the verdict.
TESTS += tests/e2e/check_platforms.sh
EXTRA_DIST += tests/e2e/check_platforms.sh
TESTS += tests/e2e/check_ds_mla.sh
EXTRA_DIST += tests/e2e/check_ds_mla.sh
# The built binary over the CPython standard library (the sanitizers' run over real code in CI).
TESTS += tests/e2e/real_corpus.sh
EXTRA_DIST += tests/e2e/real_corpus.sh
