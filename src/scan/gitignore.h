/*
 * gitignore.h: which files a directory walk leaves out because git ignores them.
 *
 * Inside a git work tree (a `.git` folder or file above the walked path), the walk reads every
 * `.gitignore` from the work tree's top down to each folder it enters, and `.git/info/exclude`,
 * with git's rules: the last matching line of a file decides, a deeper file overrides a higher
 * one, `!` re-includes, a leading or middle `/` anchors a pattern to its file's folder, a trailing
 * `/` matches folders only, `**` spans folders, `#` starts a comment, `\#` `\!` `\ ` escape; an
 * ignored folder is not entered (so nothing under it can be re-included, as in git). Patterns
 * are matched with kv_glob_match_git (linear time). A tracked file is never ignored (git's rule):
 * at the first path a pattern ignores, the index (read in-process, gitdir.h; else `git ls-files
 * -ci --exclude-standard`) names the tracked files, and those (and the folders holding them)
 * stay in the walk. Outside a work
 * tree nothing is ignored (as ruff and ripgrep do). It does not read the user's core.excludesFile
 * nor know POSIX `[:alpha:]` classes.
 */
#ifndef KV_GITIGNORE_H
#define KV_GITIGNORE_H
#include <stdbool.h>

#include "util/diag.h"
#include "util/fsutil.h"

typedef struct kv_gitignore kv_gitignore;

/* The rules for a walk of root (a folder), or NULL when root is in no git work tree. */
kv_gitignore *gitignore_open(const char *root);
/* The filter to pass to fs_walk_filtered (valid while g lives). */
fs_filter gitignore_filter(kv_gitignore *g);
/* Whether path (spelled as the walk of g's root spells it) is ignored; is_dir: it is a folder.
 * Only the .gitignore files of the folders entered so far apply (as during the walk). */
bool gitignore_excluded(kv_gitignore *g, const char *path, bool is_dir);
void gitignore_free(kv_gitignore *g);
/* fs_walk, leaving out what git ignores when respect is true (scan.h's walks all go through it). */
bool gitignore_walk(const char *root, bool respect, fs_list *out, diag_list *diags);

#endif
