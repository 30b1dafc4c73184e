/*
 * diag.h: diagnostics about the run itself (not findings): unreadable paths, malformed YAML,
 * syntax errors, skipped files, unknown keys in .kvlint.yaml.
 *
 * Each front end appends to the diag_list of the file it analyses (strings copied into that list's
 * arena); the scanner merges the per-file lists in path order, so output is deterministic whatever
 * the thread schedule. An error-level diagnostic makes `kvlint check` exit 2 after it has finished
 * the other files; notes and warnings do not change the exit code.
 */
#ifndef KV_DIAG_H
#define KV_DIAG_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "util/arena.h"

typedef enum diag_level { DIAG_NOTE, DIAG_WARNING, DIAG_ERROR } diag_level;

typedef struct diag {
    diag_level level;
    const char *path;   /* NULL for run-wide problems */
    uint32_t line, col; /* 1-based; 0 when unknown */
    const char *msg;
    bool limit;         /* one of kvlint's limits (size, work budget, nesting) cut reading or
                           analysis short: facts may be missing, so the run is incomplete */
} diag;

typedef struct diag_list {
    kv_arena *arena;    /* not owned */
    ARENA_VEC(diag) items;
} diag_list;

void diag_init(diag_list *d, kv_arena *arena);
void diag_add(diag_list *d, diag_level level, const char *path, uint32_t line, uint32_t col,
              const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* A diagnostic that says a limit was hit (diag.limit): the run that has one is not complete. */
void diag_limit(diag_list *d, diag_level level, const char *path, uint32_t line, uint32_t col,
                const char *fmt, ...) __attribute__((format(printf, 6, 7)));
bool diag_has_errors(const diag_list *d);
bool diag_has_limits(const diag_list *d);
const char *diag_level_name(diag_level level);
/* "path:line:col: error: msg" as gcc prints it. */
void diag_print(FILE *f, const diag *d);
/* Order by path, line, column, level, message: the order every report uses. */
int diag_cmp(const void *a, const void *b);

#endif
