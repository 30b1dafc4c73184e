/*
 * project.h: the project's own settings, `.kvlint.yaml`.
 *
 * Found upward from the scanned paths, stopping at the repository root (the directory holding
 * .git). Everything in it is optional. The loader reports unknown keys and bad values as errors
 * with line:col; a project with errors is still returned with what could be read.
 * See docs/configuration.md for the user-facing description.
 */
#ifndef KV_PROJECT_H
#define KV_PROJECT_H
#include <stdbool.h>
#include <stddef.h>

#include "facts/facts.h"

typedef struct user_sink {
    const char *name;      /* callee as written, matched on its last dotted parts: "my_cache_write", "self.store_kv" */
    int key_arg;           /* positional index of the key, -1 if none */
    int value_arg;         /* positional index of the value, -1 if none */
    const char *key_kw, *value_kw; /* keyword names, or NULL */
    kv_engine engine;      /* ENGINE_NONE when not given or none kvlint models */
    const char *user_engine; /* the engine as written when kvlint models none of that name ("myengine"),
                              shown in facts only; else NULL */
    kv_loc loc;
} user_sink;

typedef struct range_setting {
    const char *name;      /* "adapter_id", "num_adapters", "position", ... */
    double max;
    kv_loc loc;
} range_setting;

/* One `rules.severity` entry: a rule id or name and the severity its findings get here. */
typedef struct rule_override {
    const char *rule;
    const char *severity;    /* as written; "error", "warning" or "note" once loaded */
    kv_loc loc;
} rule_override;

/* One `rules.per_file_ignores` entry: the rules whose findings are not reported in the files a
 * glob matches (relative to the project root, as include/exclude). */
typedef struct file_rule_ignore {
    const char *glob;
    ARENA_VEC(const char *) rules;       /* ids or names as written (checked by the CLI) */
    ARENA_VEC(kv_loc) rule_locs;         /* where each is written */
    kv_loc loc;
} file_rule_ignore;

typedef struct kv_project {
    const char *path;      /* the .kvlint.yaml read, or NULL */
    const char *root;      /* directory that globs are relative to ("." when no file) */
    kv_arena *arena;
    ARENA_VEC(const char *) include;
    ARENA_VEC(const char *) exclude;
    ARENA_VEC(user_sink) sinks;
    ARENA_VEC(range_setting) ranges;
    ARENA_VEC(kvn_dtype) assume_kv;      /* assume: {kv_cache_dtype: [...]} */
    kv_loc assume_kv_loc;
    kvn_dtype assume_model;              /* assume: {dtype: ...}, KVN_DTYPE_INVALID if unset */
    kv_loc assume_model_loc;
    ARENA_VEC(const char *) deployments; /* globs of config files that describe deployments */
    ARENA_VEC(const char *) code;        /* globs of the code a config-only run checks against */
    ARENA_VEC(const char *) model_config;/* globs of checkpoint config.json files, read on one-file runs */
    kvn_platform platform;               /* platform: cuda (default), cuda-sm75, rocm, cpu */
    ARENA_VEC(const char *) select;      /* rule ids to run (empty: all) */
    ARENA_VEC(const char *) ignore;      /* rule ids to skip */
    ARENA_VEC(rule_override) severity;   /* rules.severity: {ID: error|warning|note} (checked by the CLI,
                                          * which knows the rules) */
    ARENA_VEC(file_rule_ignore) per_file_ignores; /* rules.per_file_ignores: {GLOB: [ID, ...]} */
    size_t max_file_size;                /* bytes; default 8 MiB */
    bool respect_gitignore;              /* respect_gitignore: (default true; --no-ignore: false) */
    const char *compile_commands;        /* `compile_commands: FILE`, joined to root; NULL when not set */
    const char *root_real;               /* realpath of root, or NULL if it cannot be resolved */
} kv_project;

/* An empty project (defaults) rooted at root. */
kv_project *project_default(const char *root);
/* Find .kvlint.yaml upward from start (a file or directory), stopping at the repository root.
 * Returns the loaded project, or defaults if there is none. Problems go to diags. */
kv_project *project_discover(const char *start, diag_list *diags);
/* Load a specific file. Returns NULL only if it cannot be read at all (diag added). */
kv_project *project_load(const char *path, diag_list *diags);
void project_free(kv_project *p);
/* Whether path (as scanned) passes include/exclude. */
bool project_path_included(const kv_project *p, const char *path);
/* The size over which a file is not read: cli (--max-file-size) if set, else the project's
 * max_file_size, else 8 MiB. Every reader of a run's files asks this, so they agree. */
size_t project_file_limit(const kv_project *p, size_t cli);
/* Whether rules.per_file_ignores turns the rule (its id or name) off for path (as scanned). */
bool project_ignores_rule_at(const kv_project *p, const char *path, const char *rule_id, const char *rule_name);
/* Simple glob: `*` within a segment, `**` across segments, `?`; used for include/exclude/deployments.
 * Linear in pattern x path length for every pattern (no backtracking). */
bool kv_glob_match(const char *pattern, const char *path);
/* The same, also true when the pattern matches a directory above path ("vendor" for vendor/a.py);
 * one pass over path. */
bool kv_glob_match_dirs(const char *pattern, const char *path);
/* gitignore's dialect of the same matcher (git's wildmatch with WM_PATHNAME): adds `[a-z]`,
 * `[!x]`, `\x` escapes, and `**` is special only as a whole segment. Linear time as well. */
bool kv_glob_match_git(const char *pattern, const char *path);

#endif
