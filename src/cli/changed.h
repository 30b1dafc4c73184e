/*
 * changed.h: `check --diff REF`: keep the findings a change introduces or touches.
 *
 * The change is the work tree against merge-base(REF, HEAD) (`git diff -U0`, as semgrep's
 * --baseline-commit), so a pull request's branch is compared with where it left the target
 * branch, not with the target's later commits. Filters, after reviewdog's:
 *   added  a location of the finding (where the value is made, a note such as the cache write,
 *          the dtype or the id-range declaration) is on an added or changed line: a deployment
 *          line switched to fp8_e5m2 brings in the findings it causes (the default);
 *   file   a location is in a changed file;
 *   all    every finding (REF must still exist).
 * Paths are compared relative to the repository's top, whatever the working directory.
 */
#ifndef KV_CHANGED_H
#define KV_CHANGED_H
#include <stdbool.h>
#include <stddef.h>

#include "check/eval.h"
#include "cli/git.h"

typedef enum diff_filter { DIFF_FILTER_ADDED, DIFF_FILTER_FILE, DIFF_FILTER_ALL } diff_filter;

typedef struct changed_lines {
    git_diff diff;
    char *top;          /* realpath of the repository's top */
    diff_filter mode;
} changed_lines;

/* "added", "file" or "all" ("nofilter", reviewdog's name for all, is accepted too). */
bool diff_filter_parse(const char *s, diff_filter *out);
/* The change since merge-base(ref, HEAD) in the repository holding start (a path on the command
 * line). On false, why says what is wrong (no repository, REF missing in a shallow clone, ...). */
bool changed_open(changed_lines *c, const char *start, const char *ref, diff_filter mode, strbuf *why);
/* Drop the findings the filter does not keep; returns how many were dropped. */
size_t changed_filter(const changed_lines *c, finding_list *l);
void changed_free(changed_lines *c);

#endif
