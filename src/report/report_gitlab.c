/*
 * report_gitlab.c: GitLab Code Quality, the JSON array a CI job publishes with
 * `artifacts: reports: codequality:` (a subset of the Code Climate issue format):
 *     [{"type": "issue", "check_name": "KV001", "description": "...", "severity": "critical",
 *       "fingerprint": "...", "location": {"path": "src/m.py", "lines": {"begin": 14}}}]
 * Required by GitLab: description, check_name, fingerprint (unique in the report), severity (info,
 * minor, major, critical, blocker), location.path (relative to the repository's top) and
 * location.lines.begin. Errors are critical, warnings major, notes info. The fingerprint is the
 * SARIF one (line-independent), so GitLab tracks a finding across commits that move it.
 * Run diagnostics of error level (a config kvlint could not read) are issues too, check_name
 * "kvlint-diagnostic": a report of a run that failed never looks clean.
 */
#include <stdlib.h>

#include "report/report.h"
#include "util/json.h"

static const char *severity(kv_severity s)
{
    return s == SEV_ERROR ? "critical" : s == SEV_WARNING ? "major" : "info";
}

static void issue(json_writer *w, const char *check, const char *desc, const char *sev, const char *fp,
                  const char *path, unsigned line)
{
    json_object_begin(w);
    json_kv_string(w, "type", "issue");
    json_kv_string(w, "check_name", check);
    json_kv_string(w, "description", desc);
    json_key(w, "categories");
    json_array_begin(w);
    json_string(w, "Bug Risk");
    json_array_end(w);
    json_kv_string(w, "severity", sev);
    json_kv_string(w, "fingerprint", fp);
    json_key(w, "location");
    json_object_begin(w);
    json_kv_string(w, "path", path);
    json_key(w, "lines");
    json_object_begin(w);
    json_kv_int(w, "begin", line ? line : 1);
    json_object_end(w);
    json_object_end(w);
    json_object_end(w);
}

void report_gitlab(FILE *out, const report_input *in)
{
    strbuf desc = STRBUF_INIT;
    json_writer w;
    json_init_file(&w, out, true);
    source_cache *sc = report_source_cache(in);
    report_fingerprint *fps = report_fingerprints(sc, in->findings);
    char buf[4096];
    json_array_begin(&w);
    for (size_t i = 0; i < in->findings->v.n; i++) {
        const finding *f = &in->findings->v.v[i];
        sb_reset(&desc);
        char *deps = report_deployments_text(f, 4);
        sb_addf(&desc, "%s%s%s%s [%s %s]", f->message, deps ? " (" : "", deps ? deps : "", deps ? ")" : "",
                f->rule->id, f->rule->name);
        free(deps);
        issue(&w, f->rule->id, sb_str(&desc), severity(f->severity), fps[i].text,
              report_repo_path(in, f->loc.path, buf, sizeof buf), f->loc.line);
    }
    for (size_t i = 0; i < in->ndiags; i++) {
        const diag *d = in->diags[i];
        if (d->level != DIAG_ERROR)
            continue;
        char fp[32];
        snprintf(fp, sizeof fp, "diagnostic-%zu", i + 1);
        issue(&w, "kvlint-diagnostic", d->msg, "blocker", fp,
              d->path ? report_repo_path(in, d->path, buf, sizeof buf) : ".", d->line);
    }
    json_array_end(&w);
    json_finish(&w);
    sb_release(&desc);
    free(fps);
    source_cache_free(sc);
}
