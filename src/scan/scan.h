/*
 * scan.h: from paths on the command line to every file's facts.
 *
 * Discovery (fs_walk, .gitignore unless the project turns it off, .kvlint.yaml include/exclude,
 * the project's `deployments:` globs), reading
 * with the size limit, binary detection, front-end dispatch, and the thread pool. Results come
 * back sorted by path so that output never depends on the schedule. The scanner knows no language
 * and no rule.
 */
#ifndef KV_SCAN_H
#define KV_SCAN_H
#include <stdbool.h>
#include <stddef.h>

#include "project/project.h"
#include "util/fsutil.h"
#include "facts/facts.h"
#include "frontend/frontend.h"

/* Code read from standard input (check --stdin-filename NAME): scanned as the file path, whose
 * on-disk copy, if any, is then not read. */
typedef struct scan_stdin {
    const char *path;              /* NAME as given */
    const char *data;              /* NUL-terminated, len bytes; NULL when it could not be read */
    size_t len;
    fs_status status;              /* FS_TOO_LARGE: over the size limit (len: bytes seen) */
    const char *err;               /* FS_ERROR: why */
    size_t limit;                  /* the size limit it was read with */
} scan_stdin;

typedef struct scan_options {
    const kv_project *project;     /* never NULL */
    const char *datadir;           /* rules/ and grammars/ live here (kvlint_datadir()) */
    int jobs;                      /* worker threads; 0 = number of CPUs */
    size_t max_file_size;          /* 0 = project's (default 8 MiB) */
    const char *const *extra_files;/* files scanned in addition (--config, --model-config), may be NULL */
    size_t nextra;
    const char *const *index_only; /* files read and indexed, never analysed nor in the result (the
                                      modules named code imports, cli/scope.h); one also scanned
                                      otherwise is scanned as usual */
    size_t nindex_only;
    bool with_deployments;         /* also scan the project's `deployments:` globs */
    const char *compile_commands;  /* --compile-commands FILE, else NULL: found at a scanned root */
    const scan_stdin *stdin_file;  /* or NULL; its path is among paths */
} scan_options;

typedef struct scan_stats {
    size_t files_seen;             /* claimed by a front end */
    size_t files_prefiltered;      /* skipped by a prefilter without parsing */
    size_t files_analyzed;
    size_t files_skipped;          /* not analysed, with the reason in its diagnostics (too large,
                                      binary, unreadable): not the prefiltered ones */
    size_t files_limited;          /* skipped or analysed in part because a limit was hit */
    size_t limits_hit;             /* limit diagnostics of the run (per file and run-wide) */
    size_t bytes_read;
} scan_stats;

typedef struct scan_result {
    file_facts **files;            /* sorted by path; includes prefiltered ones (skipped=true) */
    size_t n;
    kv_arena *arena;               /* run-wide diagnostics */
    diag_list diags;               /* run-wide: unreadable paths etc. Per-file ones are in files[i]->diags */
    scan_stats stats;
} scan_result;

scan_result *scan_paths(const char *const *paths, size_t npaths, const scan_options *opt);
void scan_result_free(scan_result *r);
/* True if any diagnostic of the run (run-wide or per file) is an error. */
bool scan_has_errors(const scan_result *r);
/* All diagnostics (run-wide then per file), sorted; the caller frees the array, not the items. */
const diag **scan_all_diags(const scan_result *r, size_t *n);
int scan_default_jobs(void);

#endif
