# src/config: the config front end (YAML/JSON, shell, Dockerfile, env files).
src_libkvlint_a_SOURCES += \
	src/config/cfg.h src/config/argv.c src/config/cfg_yaml.c src/config/cfg_text.c \
	src/config/cfg_env.c src/config/compose_vars.c src/config/cfg_groups.c \
	src/config/frontend.c

check_PROGRAMS += tests/unit/check_config
tests_unit_check_config_SOURCES = tests/unit/check_config.c
tests_unit_check_config_CFLAGS = $(CHECK_TEST_CFLAGS)
tests_unit_check_config_LDADD = $(CHECK_TEST_LIBS)
TESTS += tests/unit/check_config tests/e2e/config_facts.sh
EXTRA_DIST += tests/e2e/config_facts.sh
