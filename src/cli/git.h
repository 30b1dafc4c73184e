/*
 * git.h: the few questions the CLI asks git, answered by running `git` as a subprocess (no
 * library): the repository's top directory, a merge base, and the lines a diff adds.
 *
 * Everything here is for the PR workflow (one-file runs, --diff); nothing else in kvlint needs a
 * repository. git's own messages are kept so that a failure can be shown to the user as is.
 */
#ifndef KV_GIT_H
#define KV_GIT_H
#include <stdbool.h>
#include <stddef.h>

#include "util/strbuf.h"

/* Run git with argv (argv[0] is "git", NULL-terminated) in dir (NULL: the working directory).
 * Standard output goes to out, standard error to err (either may be NULL: discarded).
 * Returns git's exit status, or -1 when git could not be started. */
int git_run(const char *dir, const char *const *argv, strbuf *out, strbuf *err);

/* The top directory of the work tree holding dir (absolute, heap string), or NULL outside one. */
char *git_toplevel(const char *dir);
/* The realpath of the top of the work tree holding path (a file or a directory), or NULL. */
char *git_top_of(const char *path);

/* One file's lines that a diff adds or changes (new-side line numbers, sorted ranges). */
typedef struct git_hunk {
    unsigned first, last;     /* inclusive; last < first for a pure deletion at `first` */
} git_hunk;

typedef struct git_file_diff {
    char *path;               /* new path, relative to the top directory */
    git_hunk *hunks;
    size_t n, cap;
} git_file_diff;

typedef struct git_diff {
    git_file_diff *files;     /* sorted by path */
    size_t n, cap;
} git_diff;

/* Parse `git diff -U0` output into d (appends). Returns false on output it cannot read. */
bool git_diff_parse(const char *text, git_diff *d);
/* The diff of the work tree against merge-base(ref, HEAD), in the repository at top.
 * On failure returns false and puts a message for the user in why. */
bool git_diff_since(const char *top, const char *ref, git_diff *d, strbuf *why);
/* The entry of path (relative to the top directory), or NULL. */
const git_file_diff *git_diff_file(const git_diff *d, const char *path);
/* Whether line of f is added or changed. */
bool git_diff_line_changed(const git_file_diff *f, unsigned line);
void git_diff_free(git_diff *d);

#endif
