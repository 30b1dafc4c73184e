/*
 * process.h: run a program (git, for the PR workflow and for tracked files under .gitignore) as a
 * subprocess without a shell, collecting its standard output and error. Nothing else.
 */
#ifndef KV_PROCESS_H
#define KV_PROCESS_H
#include "util/strbuf.h"

/* Run argv (argv[0] is looked up on PATH, NULL-terminated) in dir (NULL: the working directory).
 * Standard output goes to out, standard error to err (either may be NULL: discarded).
 * Returns the exit status, or -1 when the program could not be started or did not exit. */
int proc_run(const char *dir, const char *const *argv, strbuf *out, strbuf *err);

#endif
