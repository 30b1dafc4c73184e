/*
 * frontend.h: the one small interface every front end implements (v2).
 *
 * A front end knows one language (Python, YAML/JSON/shell configs, C/C++/CUDA) and nothing about
 * rules: it turns one source into facts (facts.h). The scanner owns file discovery, reading, size
 * limits, threads, ordering and the compilation database; a front end never touches global
 * mutable state, so any number of sources can be analysed at once. The list of front ends lives
 * in registry.c, not in the scanner.
 *
 * A source (fe_source) carries its path, its bytes, the language the front end claimed it as,
 * and, for languages that compile, the arguments the build uses for it (from compile_commands.json,
 * nvcc flags already translated; none when the project has no database).
 *
 * Claiming: claim() is first asked with the path only. It answers a language, NULL (not mine), or
 * FE_CLAIM_BY_CONTENT (ask again with the bytes: a `.h` file may be C, C++ or CUDA, or nothing a
 * front end reads). The scanner then asks again once the file is read; NULL drops the file.
 *
 * Facts located elsewhere: a front end may emit facts whose kv_loc.path is another file (a header
 * a translation unit includes). Such a path must be the header's path as the scanner would name it
 * (relative to the working directory), so that suppressions and source excerpts find it when the
 * header is scanned too.
 *
 * Optional one-time set-up: `init` loads read-only data before the threads start.
 * Optional two-phase use: `index` runs on every claimed source first (in parallel) and returns what
 * the file exports to others (e.g. Python module constants for `from .mod import NAME`); `analyze`
 * then sees all indexes of its own front end through fe_context, read-only. Optional `link` runs
 * once between the two passes, on one thread, and builds the run-wide lookup tables analyze() uses
 * over those indexes (so that a lookup across files is not a scan of every file's index).
 *
 * Optional imports: the files a source imports, as paths to try, so that a run on named files (a
 * pre-commit hook's) also indexes the modules they import (cli/scope.c); such a file is indexed,
 * never analysed or reported.
 */
#ifndef KV_FRONTEND_H
#define KV_FRONTEND_H
#include <stdbool.h>
#include <stddef.h>

#include "facts/facts.h"

struct kv_project;

/* What claim() answers when it must see the bytes to decide. */
extern const char FE_CLAIM_BY_CONTENT[];

typedef struct fe_source {
    const char *path;          /* as the scanner names it (relative when the user gave a relative path) */
    const char *data;          /* NUL-terminated */
    size_t len;
    const char *lang;          /* what claim() answered: "python", "config", "c", "c++", "cuda" */
    const char *const *args;   /* compile arguments without the compiler and the file, or NULL */
    size_t nargs;
    const char *directory;     /* working directory of the compile command, or NULL */
    bool from_database;        /* args come from compile_commands.json (else defaults) */
} fe_source;

typedef struct fe_file_index {
    const char *path;
    const void *exports;   /* what index() returned, in the file's arena */
} fe_file_index;

/* A file a source may import: path relative to the source's folder ("../masks.py"), or, when
 * rooted, to a source root ("pkg/masks.py", tried under each). */
typedef struct fe_import {
    const char *path;
    bool rooted;
} fe_import;

typedef struct fe_context {
    const struct kv_project *project;   /* .kvlint.yaml settings (extra sinks, ranges); never NULL */
    const void *state;                  /* what init() returned (read-only while threads run) */
    const fe_file_index *indexes;       /* this front end's indexes, sorted by path */
    size_t nindexes;
    const void *link;                   /* what link() returned, or NULL (read-only) */
} fe_context;

typedef struct frontend {
    const char *name;                   /* "python", "config", "cxx" */
    /* The front end's libraries, for `kvlint --version` ("libyaml 0.2.5"); NULL = nothing to say. */
    void (*version)(char *buf, size_t n);
    /* Can this binary run the front end at all (e.g. a grammar ABI libtree-sitter loads)? false
     * with a reason in why stops kvlint before any command. NULL = always. */
    bool (*selfcheck)(char *why, size_t n);
    /* Optional, called once before any thread starts: load data (sink tables, queries) from datadir
     * (the folder holding rules/ and grammars/). Problems go to diags. The result is passed to
     * every analyze() as ctx->state and released by fini() after the run. */
    void *(*init)(const char *datadir, const struct kv_project *project, diag_list *diags);
    void (*fini)(void *state);
    /* Which language this front end reads path as, NULL, or FE_CLAIM_BY_CONTENT (see above).
     * head is NULL on the first call. */
    const char *(*claim)(const char *path, const char *head, size_t head_len);
    /* The scanner looks its sources up in the compilation database (C, C++, CUDA). */
    bool wants_compile_args;
    /* Its files are analysed before every other front end's (pass 2): few and large (libclang's
     * units), they then run while the others' indexes are all the run holds, not on top of what
     * the others' analyses keep, and the longest jobs start first. */
    bool analyse_first;
    /* Sound lexical prefilter: false only if the source cannot hold any fact. NULL = always true. */
    bool (*prefilter)(const fe_source *src);
    /* Optional: cross-file exports, allocated in arena; state is what init() returned. */
    const void *(*index)(const fe_source *src, const void *state, kv_arena *arena);
    /* Optional: after every index() and before any analyze(), on one thread: lookup tables over
     * the indexes (sorted by path), allocated in arena, which lives until the run ends. */
    const void *(*link)(const fe_file_index *indexes, size_t n, kv_arena *arena);
    /* Produce facts and diagnostics into out (its arena, its diags). */
    void (*analyze)(const fe_source *src, const fe_context *ctx, file_facts *out);
    /* Optional: the files src imports (see above), in arena; their number, *out the array. */
    size_t (*imports)(const fe_source *src, kv_arena *arena, const fe_import **out);
    /* Optional, for a code front end: whether src declares a deployment (Python's
     * `LLM(dtype="float16")`), lexically. A run on named files reads the project's code for such a
     * file as for a deployment config (cli/scope.c). NULL: its files declare none. */
    bool (*declares)(const fe_source *src);
} frontend;

/* ---- the registry (registry.c) ---- */

/* The registered front ends, in a fixed order (the first claim wins); NULL-terminated. */
extern const frontend *const kv_frontends[];
size_t kv_frontend_count(void);
/* Position of fe in kv_frontends. */
size_t kv_frontend_index(const frontend *fe);
/* The first front end that claims path (by name only), with its answer in *lang. */
const frontend *kv_frontend_for(const char *path, const char **lang);
/* Every front end's selfcheck; false with the first reason. */
bool kv_frontends_selfcheck(char *why, size_t n);

extern const frontend python_frontend;
extern const frontend config_frontend;
extern const frontend cxx_frontend;

#endif
