/*
 * baseline.h: adopting kvlint on a repository with existing findings.
 *
 * `kvlint baseline -o .kvlint-baseline.json PATH...` records today's findings by their
 * line-independent fingerprints (the SARIF partialFingerprints, report_fingerprints()); `check
 * --baseline FILE` hides the findings still in it and says how many, so only new ones fail the
 * run; `check --baseline FILE --prune` also rewrites FILE without the entries that are gone.
 * The file is JSON, one entry per finding with its rule, path, line and message for reviewers
 * (only the fingerprint is matched). Written atomically (util/outfile.h): a failed run keeps the
 * old file. Paths in fingerprints are as reports print them, so record and check from the same
 * folder (the repository's top, in CI).
 */
#ifndef KV_BASELINE_H
#define KV_BASELINE_H
#include <stdbool.h>
#include <stddef.h>

#include "check/eval.h"
#include "report/report.h"
#include "util/strbuf.h"

typedef struct baseline_entry {
    char *fingerprint, *rule, *path, *message;
    long line;
    bool seen;          /* matched by a finding of this run */
} baseline_entry;

typedef struct baseline {
    baseline_entry *v;  /* sorted by fingerprint */
    size_t n, cap;
} baseline;

enum { BASELINE_VERSION = 1 };

/* Read path. On false, why says what is wrong (missing, not a kvlint baseline, bad JSON). */
bool baseline_load(baseline *b, const char *path, strbuf *why);
/* Drop the findings whose fingerprint (fps[i] for l's i-th) is in b, marking those entries seen;
 * fps is compacted alongside. Returns how many were dropped. */
size_t baseline_filter(baseline *b, finding_list *l, report_fingerprint *fps);
/* Write l (with fps) as a baseline to path (NULL: standard output) atomically. On false, why says why. */
bool baseline_write_findings(const char *path, const finding_list *l, const report_fingerprint *fps, strbuf *why);
/* Rewrite path with only the entries of b that were seen. */
bool baseline_write_pruned(const char *path, const baseline *b, strbuf *why);
/* Whether path may be replaced by a baseline: missing, or a kvlint baseline already. */
bool baseline_replaceable(const char *path, strbuf *why);
void baseline_free(baseline *b);

#endif
