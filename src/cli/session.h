/*
 * session.h: what `facts`, `check` and `matrix` share: the common options, the project settings,
 * the scan, and the resolved deployments. One session per run; freed at the end.
 */
#ifndef KV_SESSION_H
#define KV_SESSION_H
#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

#include "cli/scope.h"
#include "project/project.h"
#include "report/report.h"
#include "resolve/deploy.h"
#include "scan/scan.h"

typedef struct session_options {
    int jobs;
    size_t max_file_size;
    const char *project_file;      /* --project FILE (.kvlint.yaml), else discovered */
    const char **configs;          /* --config FILE (repeatable): deployment configs */
    size_t nconfigs;
    const char *model_config;      /* --model-config FILE */
    const char *platform;          /* --platform cuda|cuda-sm75|rocm|cpu */
    const char *whatif_kv;         /* --kv-cache-dtype D */
    const char *whatif_model;      /* --dtype D */
    bool focus;                    /* named files only: read their context, report what involves them (scope.h) */
    bool quiet;                    /* --quiet: no note-level diagnostics */
    const char *outputs[10];       /* report files this run writes: never read as inputs */
    size_t noutputs;
    const char *compile_commands;  /* --compile-commands FILE */
    bool no_ignore;                /* --no-ignore: directory walks read .gitignore'd files too */
    const char *stdin_name;        /* check --stdin-filename NAME: the code is read from standard
                                    * input as NAME, the only path (session_open's paths: {NAME}) */
} session_options;

typedef struct session {
    kv_project *project;
    scan_result *scan;
    deployment_set *deployments;
    id_vocab *ids;                 /* grammars/ids.tsv: what the deployments' range names mean */
    diag_list diags;               /* session-level (project file, option values) */
    run_scope scope;               /* what a run on named files reads besides them */
    bool quiet;                    /* print warnings and errors only */
    scan_stdin stdin_file;         /* --stdin-filename: what was read (path NULL when not given) */
    char *stdin_data;
    kv_arena *arena;
} session;

/* Long options every scanning command accepts; commands append their own. */
#define SESSION_LONG_OPTIONS                                          \
    { "jobs", required_argument, NULL, 'j' },                         \
    { "max-file-size", required_argument, NULL, 0x100 },              \
    { "project", required_argument, NULL, 0x101 },                    \
    { "config", required_argument, NULL, 0x102 },                     \
    { "model-config", required_argument, NULL, 0x103 },               \
    { "platform", required_argument, NULL, 0x104 },                   \
    { "kv-cache-dtype", required_argument, NULL, 0x105 },             \
    { "dtype", required_argument, NULL, 0x106 },                     \
    { "compile-commands", required_argument, NULL, 0x107 },           \
    { "no-ignore", no_argument, NULL, 0x108 }

#define SESSION_OPTIONS_HELP                                                                      \
    "  -j, --jobs N            worker threads (default: number of CPUs)\n"                         \
    "      --max-file-size N   skip files larger than N bytes (K/M suffix; default 8M)\n"          \
    "      --project FILE      use this .kvlint.yaml instead of searching upward\n"              \
    "      --config FILE       a deployment config to check against (repeatable)\n"             \
    "      --model-config FILE the checkpoint's config.json (for auto dtypes and id ranges)\n"  \
    "      --platform P        cuda (default: sm >= 80), cuda-sm75 (T4, V100: no bfloat16), rocm\n" \
    "                          (fp8 means fp8_e4m3fnuz) or cpu (vLLM's CPU fp8 writer truncates)\n" \
    "      --kv-cache-dtype D  what-if: replace every declared KV-cache dtype with D\n"          \
    "      --dtype D           what-if: replace every declared model dtype with D\n"           \
    "      --compile-commands FILE  compile_commands.json for C/C++/CUDA sources (default:\n"    \
    "                          the scanned root's or its build/'s, else default flags)\n"    \
    "      --no-ignore         also read the files .gitignore leaves out of a directory walk\n"

/* Handle one getopt result if it is a session option. Returns 1 if handled, 0 if not ours,
 * -1 on a bad value (message printed). */
int session_option(session_options *o, int c, const char *arg, const char *cmd);
/* Scan paths and resolve deployments. Returns NULL after printing a usage error (exit 2). */
session *session_open(const char *cmd, char *const *paths, size_t npaths, const session_options *o);
void session_free(session *s, session_options *o);
/* The run's diagnostics (session, then the scan's sorted; a focused run's context files left out).
 * The caller frees the array, not the items. */
const diag **session_diags(const session *s, size_t *n);
/* Print run diagnostics (session_diags) to stderr. Returns true if any is an error. */
bool session_print_diags(const session *s);
/* The run's counts as reports print them (files, skipped, limited, limits, deployments). */
void session_report_counts(const session *s, report_input *in);
/* True if the run analysed everything; else prints "kvlint <cmd>: incomplete run: <why>" to
 * stderr and returns false (the command exits 2: a run that missed files is never clean). */
bool session_complete(const session *s, const char *cmd);

#endif
