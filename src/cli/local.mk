# Subcommands live in the library (so tests can link them); main.c is the only file of the binary.
src_libkvlint_a_SOURCES += \
	src/cli/commands.h \
	src/cli/output.c src/cli/output.h \
	src/cli/session.c src/cli/session.h \
	src/cli/scope.c src/cli/scope.h src/cli/git.c src/cli/git.h \
	src/cli/changed.c src/cli/changed.h src/cli/baseline.c src/cli/baseline.h \
	src/cli/cmd_facts.c \
	src/cli/check_common.c src/cli/check_common.h \
	src/cli/cmd_check.c src/cli/cmd_matrix.c src/cli/cmd_explain.c \
	src/cli/cmd_cast.c src/cli/cmd_dtypes.c
