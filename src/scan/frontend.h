/*
 * frontend.h: the one small interface every front end implements.
 *
 * A front end knows one language (Python, YAML/JSON/shell configs, later C/C++/CUDA) and nothing
 * about rules: it turns one file's bytes into facts (facts.h). The scanner owns file discovery,
 * reading, size limits, threads and ordering; a front end never touches global mutable state, so
 * any number of files can be analysed at once.
 *
 * Optional one-time set-up: `init` loads read-only data before the threads start.
 * Optional two-phase use: `index` runs on every claimed file first (in parallel) and returns what
 * the file exports to others (e.g. Python module constants for `from .mod import NAME`); `analyze`
 * then sees all indexes of its own front end through fe_context, read-only. Optional `link` runs
 * once between the two passes, on one thread, and builds the run-wide lookup tables analyze() uses
 * over those indexes (so that a lookup across files is not a scan of every file's index).
 */
#ifndef KV_FRONTEND_H
#define KV_FRONTEND_H
#include <stdbool.h>
#include <stddef.h>

#include "facts/facts.h"

struct kv_project;

typedef struct fe_file_index {
    const char *path;
    const void *exports;   /* what index() returned, in the file's arena */
} fe_file_index;

typedef struct fe_context {
    const struct kv_project *project;   /* .kvlint.yaml settings (extra sinks, ranges); never NULL */
    const void *state;                  /* what init() returned (read-only while threads run) */
    const fe_file_index *indexes;       /* this front end's indexes, sorted by path */
    size_t nindexes;
    const void *link;                   /* what link() returned, or NULL (read-only) */
} fe_context;

typedef struct frontend {
    const char *name;                   /* "python", "config" */
    /* Optional, called once before any thread starts: load data (sink tables, queries) from datadir
     * (the folder holding rules/ and grammars/). Problems go to diags. The result is passed to
     * every analyze() as ctx->state and released by fini() after the run. */
    void *(*init)(const char *datadir, const struct kv_project *project, diag_list *diags);
    void (*fini)(void *state);
    /* Does this front end take the file? By name (and, if needed, the first bytes). */
    bool (*wants)(const char *path, const char *head, size_t head_len);
    /* Sound lexical prefilter: false only if the file cannot hold any fact. NULL = always true. */
    bool (*prefilter)(const char *data, size_t len);
    /* Optional: cross-file exports, allocated in arena. */
    const void *(*index)(const char *path, const char *data, size_t len, kv_arena *arena);
    /* Optional: after every index() and before any analyze(), on one thread: lookup tables over
     * the indexes (sorted by path), allocated in arena, which lives until the run ends. */
    const void *(*link)(const fe_file_index *indexes, size_t n, kv_arena *arena);
    /* Produce facts and diagnostics into out (its arena, its diags). data is NUL-terminated. */
    void (*analyze)(const char *path, const char *data, size_t len, const fe_context *ctx, file_facts *out);
} frontend;

/* The registered front ends, in a fixed order; NULL-terminated. */
extern const frontend *const kv_frontends[];

extern const frontend python_frontend;
extern const frontend config_frontend;

#endif
