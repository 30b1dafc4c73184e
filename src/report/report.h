/*
 * report.h: printing findings for a developer (text), a program (JSON), a code-scanning service
 * (SARIF 2.1.0) and a CI log (GitHub workflow commands).
 *
 * Reporters know findings and rules only: no facts, no numerics. Paths are printed relative to the
 * working directory. The source lines shown under text findings, and hashed into SARIF
 * fingerprints, are read lazily through a small per-run cache (source.c).
 * The JSON and SARIF shapes are a stable interface documented in docs/output-formats.md.
 */
#ifndef KV_REPORT_H
#define KV_REPORT_H
#include <stdbool.h>
#include <stdio.h>

#include "check/eval.h"

typedef struct report_input {
    const finding_list *findings;
    const rule_set *rules;          /* every loaded rule (SARIF tool.driver.rules) */
    const eval_options *eval;       /* which of them ran */
    size_t files;                   /* files analysed */
    size_t skipped;                 /* files not analysed, each with a diagnostic saying why */
    size_t limited;                 /* files a limit cut short (skipped or analysed in part) */
    size_t limits;                  /* limits hit in all (also run-wide, e.g. directory depth) */
    size_t deployments;
    bool color;                     /* text only */
    bool quiet;                     /* text only: no summary line */
    const diag *const *diags;       /* the run's diagnostics: a run with an error is never clean */
    size_t ndiags;
    size_t baselined;               /* findings hidden by check --baseline */
    size_t outside_diff;            /* findings hidden by check --diff */
    bool with_baseline, with_diff;  /* whether those options were given */
    size_t per_file_ignored;        /* findings hidden by .kvlint.yaml rules.per_file_ignores */
    bool with_per_file;             /* whether the project has any */
    const char *repo_root;          /* realpath of the git top, or NULL (paths for CI services) */
    const char *stdin_path;         /* check --stdin-filename NAME, or NULL: its lines are stdin_data's */
    const char *stdin_data;
    size_t stdin_len;
} report_input;

enum { JSON_REPORT_VERSION = 1 };

/* Whether the run analysed everything it was given: no limit hit, and not every file skipped.
 * A report of an incomplete run says so in every format; `check` then exits 2. */
bool report_complete(const report_input *in);
/* One sentence for an incomplete run ("2 files skipped, 1 cut short by a limit"), or NULL. */
const char *report_incomplete_text(const report_input *in, char *buf, size_t n);

void report_text(FILE *out, const report_input *in);
void report_json(FILE *out, const report_input *in);
void report_sarif(FILE *out, const report_input *in);
void report_github(FILE *out, const report_input *in);
/* Markdown for $GITHUB_STEP_SUMMARY: the counts, whether the run failed, a table of findings. */
void report_github_summary(FILE *out, const report_input *in);
void report_gitlab(FILE *out, const report_input *in);
void report_junit(FILE *out, const report_input *in);

/* "under 3 deployments: a (fp8_e4m3), b (fp8_e4m3) and 1 more", for a finding reported under more
 * than one deployment (at most `shown` names), else NULL. The caller frees it. */
char *report_deployments_text(const finding *f, size_t shown);
/* Whether to color: the output is a tty and NO_COLOR is unset or empty (https://no-color.org). */
bool report_use_color(bool tty);
/* The path as reports print it: relative to the working directory when below it. */
const char *report_path(const char *path);
/* The path relative to in->repo_root when below it (in buf, n bytes), else report_path(). */
const char *report_repo_path(const report_input *in, const char *path, char *buf, size_t n);

/* ---- source lines (source.c) ---- */
typedef struct source_cache source_cache;
source_cache *source_cache_new(void);
/* Give path these lines instead of the file's (code read from standard input); data is copied. */
void source_cache_put(source_cache *c, const char *path, const char *data, size_t len);
/* A new cache holding in's standard input, if any. */
source_cache *report_source_cache(const report_input *in);
void source_cache_free(source_cache *c);
/* Line (1-based) of path without its newline, or NULL; *len is set. Valid until the cache is freed. */
const char *source_line(source_cache *c, const char *path, unsigned line, size_t *len);
/* Stable fingerprints of every finding of l, in order: a hash of the rule id, the path and
 * whitespace-normalised source line of the primary location and of the sink, the value, the dtype
 * and the dtype's origin file (never line numbers): 16 hex digits, plus ":N" for the N-th finding
 * with the same hash. The caller frees the array. */
typedef struct report_fingerprint {
    char text[32];
} report_fingerprint;
report_fingerprint *report_fingerprints(source_cache *c, const finding_list *l);

#endif
