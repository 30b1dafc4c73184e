/*
 * gitdir.h: where a git work tree keeps its data, read without running git: the work tree's top
 * above a folder, its git folder (a `.git` folder, or the folder a `.git` file names for a linked
 * worktree or a submodule), the common folder linked worktrees share, and the paths its index
 * lists (the tracked files).
 *
 * The index reader knows versions 2, 3 and 4 of git's index format with SHA-1 object names. It
 * declines (returns false, so that the caller asks git) where git's own view could differ: a
 * split or sparse index, a SHA-256 repository, an index it cannot parse or read, or GIT_DIR,
 * GIT_WORK_TREE, GIT_INDEX_FILE, GIT_COMMON_DIR, GIT_CEILING_DIRECTORIES or
 * GIT_DISCOVERY_ACROSS_FILESYSTEM in the environment (gitdir_env_overrides). It does not read objects, refs or the configuration's other settings.
 */
#ifndef KV_GITDIR_H
#define KV_GITDIR_H
#include <stdbool.h>
#include <stddef.h>

#include "util/arena.h"

/* Whether the environment changes where git looks (then only git itself can say). */
bool gitdir_env_overrides(void);
/* The folder of the work tree holding dir (absolute, canonical), or NULL; *dotgit (heap): its
 * `.git`, a folder or a file. */
char *gitdir_find_top(const char *dir, char **dotgit);
/* The git folder of the work tree whose `.git` is dotgit (heap), or NULL when a `.git` file does
 * not name one; common: the folder linked worktrees share (`commondir`), where info/ and the
 * configuration live. */
char *gitdir_resolve(const char *top, const char *dotgit, bool common);
/* The paths the index of the work tree at top (whose `.git` is dotgit) lists, relative to top,
 * sorted bytewise, each once, allocated in a; false when the index cannot be read this way (see
 * above). A work tree with no index yet lists none (true, *n = 0). */
bool gitdir_index_paths(const char *top, const char *dotgit, kv_arena *a, char ***paths, size_t *n);

#endif
