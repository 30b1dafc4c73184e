/*
 * scope.h: what a run on named files (a pre-commit hook's staged files) reads besides them, and
 * which findings it then reports.
 *
 * A finding joins code with a deployment (and often a checkpoint's id range), so a commit that
 * touches only one side must still be checked against the other. When every path on the command
 * line is a regular file, the run is "focused":
 *  - no code named (only deployment or checkpoint configs, or code files that declare a deployment
 *    as their front end reads them lexically: Python's `LLM(dtype="float16")`): the project's code
 *    is read too, the `.kvlint.yaml` `code:` globs, else every code file under the project root
 *    (the folder of `.kvlint.yaml`, else the git work tree's top);
 *  - deployments and checkpoints: with a `.kvlint.yaml`, its `deployments:` globs (the scanner
 *    reads those) and `model_config:` globs; without one, every config file under the git top;
 *    none when the command line names them (--config, --model-config);
 *  - code named: the modules it imports (Python: `from M import ...`, `import M`, also in a function)
 *    that are files under the project root, and the modules those import, are indexed (not
 *    analysed), so that a helper, a class or a constant of a sibling module is followed as in a
 *    run on the whole tree (at most 128 files);
 *  - only findings with a location (primary, note, dtype or range declaration, flow step) in a
 *    named file are reported, and only the named files' diagnostics are printed.
 * It does not decide anything for directory arguments: `kvlint check .` reads what it is given.
 */
#ifndef KV_SCOPE_H
#define KV_SCOPE_H
#include <stdbool.h>
#include <stddef.h>

#include "check/eval.h"
#include "project/project.h"
#include "util/fsutil.h"

typedef struct run_scope {
    bool focused;          /* report only what involves a named file */
    char **given;          /* realpaths of the named files, sorted */
    size_t ngiven;
    fs_list extra;         /* files read in addition (sorted) */
    fs_list context;       /* files indexed only: the modules named code imports (sorted) */
    char *root;            /* where the extras were found, or NULL */
} run_scope;

/* Plan a run over paths with project p. A run with a directory argument stays unfocused.
 * named_configs: --config/--model-config were given, so they are the deployments (none found).
 * stdin_name: the path among paths that is read from standard input (need not exist), or NULL;
 * stdin_data/stdin_len its bytes (NULL: none); max_file_size: --max-file-size (0: the project's,
 * else 8M), as the scanner reads it. */
void scope_plan(run_scope *s, char *const *paths, size_t npaths, const kv_project *p, bool named_configs,
                const char *stdin_name, const char *stdin_data, size_t stdin_len, size_t max_file_size);
/* After scope_plan: the modules the named code files import, two levels deep, into s->context.
 * stdin_name's bytes are stdin_data (NULL: none). */
void scope_add_imports(run_scope *s, char *const *paths, size_t npaths, const kv_project *p, const char *stdin_name,
                       const char *stdin_data, size_t stdin_len, size_t max_file_size);
/* Whether f has a location in a named file (always true for an unfocused run). */
bool scope_involves(const run_scope *s, const finding *f);
/* scope_involves as an eval_options.keep callback (arg: the run_scope). */
bool scope_keeps(const void *scope, const finding *f);
/* Whether a diagnostic about path belongs to the report (false for a file read only as context). */
bool scope_shows_path(const run_scope *s, const char *path);
/* Drop the findings that do not involve a named file (keeps their order). */
void scope_filter(const run_scope *s, finding_list *l);
void scope_free(run_scope *s);

#endif
