/*
 * output.h: where a command's report goes. Every command that writes a report to a file (check -o,
 * and any later per-format output) goes through these two calls, so that all of them refuse the same
 * targets and never leave a truncated or stale report behind (see util/outfile.h for the file rules).
 * Standard output itself is checked once for every command in main().
 */
#ifndef KV_CLI_OUTPUT_H
#define KV_CLI_OUTPUT_H
#include <stdbool.h>
#include <stdio.h>

#include "cli/session.h"

/* Print one report to out; tty says whether out is a terminal (for --color auto). */
typedef void (*report_printer)(FILE *out, bool tty, const void *arg);

/* Before the run: is path (NULL = stdout) a place a report can go? Prints the usage error. */
bool output_usable(const char *cmd, const char *path);
/* Write one report to path (NULL = standard output) with print(out, arg). A path that names one of
 * the session's inputs (same device and inode) is refused. On failure prints
 * "kvlint <cmd>: <reason>" and returns false (the caller exits 2); an earlier file at path is kept. */
bool output_write(const char *cmd, const char *path, const session *s, report_printer print, const void *arg);

#endif
