/*
 * fsutil.h: reading files and walking trees, with the limits every front end shares.
 *
 * fs_read_file() reads a whole file with a size cap and says why it could not (so the caller can
 * emit a diagnostic and go on). fs_walk() lists regular files under a path in sorted order,
 * skipping VCS/virtualenv/cache/build folders and never following a symlinked directory (so no
 * symlink loop can hang a run); symlinked files given explicitly are read. fs_looks_binary()
 * is the NUL-byte test used to skip binaries.
 */
#ifndef KV_FSUTIL_H
#define KV_FSUTIL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/diag.h"

typedef enum fs_status { FS_OK, FS_TOO_LARGE, FS_ERROR } fs_status;

/* The largest size limit a user may set (--max-file-size, max_file_size:): the front ends hold
 * byte offsets in 32 bits (tree-sitter, libyaml marks), so a larger file could not be analysed. */
#define FS_MAX_FILE_SIZE_LIMIT ((size_t)UINT32_MAX)

/* On FS_OK *data is a NUL-terminated heap buffer (caller frees) of *len bytes.
 * On FS_ERROR, *err names the errno text (static string). Only regular files are read: a FIFO,
 * socket or device is FS_ERROR, found without blocking (O_NONBLOCK open, then fstat). */
fs_status fs_read_file(const char *path, size_t max_size, char **data, size_t *len, const char **err);
/* A data file of kvlint's own (a table under grammars/): datadir/rel (datadir NULL: "."), at most
 * max bytes. Returns its path (heap, for the reader's diagnostics); *data is the NUL-terminated
 * text (heap) of *len bytes, or NULL with "cannot read WHAT: why" as an error in diags. */
char *fs_read_data_file(const char *datadir, const char *rel, size_t max, const char *what, diag_list *diags,
                        char **data, size_t *len);
/* The same for a stream (standard input, a pipe): read to its end, never holding more than
 * max_size + 1 bytes, so a huge input is FS_TOO_LARGE (*len: the bytes seen), not an allocation. */
fs_status fs_read_stream(int fd, size_t max_size, char **data, size_t *len, const char **err);
bool fs_looks_binary(const char *data, size_t len);
/* Turn each lone CR (old Mac line ends) into LF in place, as Python's universal newlines and
 * YAML read them; CRLF stays. Same length, so every byte offset stays true. */
void fs_lone_cr_to_lf(char *data, size_t len);
/* True for a directory name kvlint never descends into (.git, venv, __pycache__, build, ...). */
bool fs_skip_dir(const char *name);
bool fs_is_dir(const char *path);

typedef struct fs_list {
    char **paths;   /* heap strings, sorted */
    size_t n, cap;
} fs_list;

/* Append every regular file under root (or root itself if it is a file) to out.
 * Problems (unreadable directories, missing paths) go to diags; returns false if root is unusable. */
bool fs_walk(const char *root, fs_list *out, diag_list *diags);
/* What a walk leaves out besides fs_skip_dir's folders (.gitignore: scan/gitignore.h). enter is
 * called with each directory before its entries are judged, leave after; excluded with each entry
 * (a directory that is excluded is not entered). Paths are spelled as the walk lists them. */
typedef struct fs_filter {
    void (*enter)(void *arg, const char *dir);
    void (*leave)(void *arg, const char *dir);
    bool (*excluded)(void *arg, const char *path, bool is_dir);
    void *arg;
} fs_filter;
/* fs_walk with a filter (NULL: none). root itself is never judged: a path named is read. */
bool fs_walk_filtered(const char *root, const fs_filter *filter, fs_list *out, diag_list *diags);
void fs_list_sort_unique(fs_list *l);
/* Keep the first path of each file (device and inode), in list order: the same tree given twice
 * (a symlinked directory, an absolute and a relative path, a hard link) is read once. Paths that
 * cannot be stat'ed are kept, so that reading them reports the problem. */
void fs_list_unique_files(fs_list *l);
void fs_list_free(fs_list *l);

/* Join a directory and a name with exactly one '/'. Heap string. */
char *fs_join(const char *dir, const char *name);
/* The folder part of path: "a/b" for "a/b/c", "/" for "/c", "." for "c". Heap string. */
char *fs_dir_of(const char *path);
/* "a/./b/../c" -> "a/c"; strips a leading "./". Heap string. */
char *fs_normalize(const char *path);
/* realpath(path), or for a path that does not exist (yet: --stdin-filename), the realpath of its
 * nearest existing folder joined with the rest, normalised. Heap string. */
char *fs_canonical(const char *path);

#endif
