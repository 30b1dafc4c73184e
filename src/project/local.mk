# src/project: the project's own settings (.kvlint.yaml): discovery, loading with line:col errors,
# and the glob matcher its include/exclude/deployments/code/model_config keys use. The stages read a
# const kv_project; only cli/ loads one. Its unit tests are in tests/unit/check_config.c.
src_libkvlint_a_SOURCES += \
	src/project/project.h src/project/project.c src/project/glob.c
