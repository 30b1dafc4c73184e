/*
 * commands.h: one entry function per subcommand (after git's builtin/), each in its own cmd_*.c.
 * argv[0] is the subcommand name. Return value is the process exit status:
 * 0 clean, 1 findings, 2 usage, configuration or I/O error.
 */
#ifndef KV_COMMANDS_H
#define KV_COMMANDS_H

enum { EXIT_CLEAN = 0, EXIT_FINDINGS = 1, EXIT_USAGE = 2 };

int cmd_check(int argc, char **argv);
int cmd_baseline(int argc, char **argv);
int cmd_facts(int argc, char **argv);
int cmd_cast(int argc, char **argv);
int cmd_dtypes(int argc, char **argv);
int cmd_matrix(int argc, char **argv);
int cmd_explain(int argc, char **argv);

/* Print "kvlint <cmd>: <reason>" and a hint to stderr; returns EXIT_USAGE. */
int usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The directory holding rules/ and grammars/: $KVLINT_DATADIR, the source tree when run
 * uninstalled from the build tree, else the installed $(pkgdatadir). */
const char *kvlint_datadir(void);

#endif
