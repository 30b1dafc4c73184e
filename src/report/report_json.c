/*
 * report_json.c: `kvlint check --format json`, the stable machine-readable report
 * (schema in docs/output-formats.md; bump JSON_REPORT_VERSION on an incompatible change).
 */
#include <stdlib.h>

#include "report/report.h"
#include "util/json.h"

static void loc_object(json_writer *w, const kv_loc *l)
{
    json_object_begin(w);
    json_kv_string(w, "path", report_path(l->path));
    json_kv_int(w, "line", l->line);
    json_kv_int(w, "column", l->col);
    json_object_end(w);
}

static void finding_json(json_writer *w, const finding *f, const char *fingerprint)
{
    json_object_begin(w);
    json_kv_string(w, "rule", f->rule->id);
    json_kv_string(w, "name", f->rule->name);
    json_kv_string(w, "severity", severity_name(f->severity));
    json_kv_string(w, "path", report_path(f->loc.path));
    json_kv_int(w, "line", f->loc.line);
    json_kv_int(w, "column", f->loc.col);
    json_kv_int(w, "end_line", f->loc.end_line ? f->loc.end_line : f->loc.line);
    json_kv_int(w, "end_column", f->loc.end_col ? f->loc.end_col : f->loc.col);
    json_kv_string(w, "message", f->message);
    json_kv_string(w, "value", f->value);
    json_kv_string(w, "dtype", f->dtype);
    json_key(w, "stored");
    json_array_begin(w);
    for (size_t i = 0; i < f->nstored; i++) {
        json_object_begin(w);
        json_kv_string(w, "via", f->stored[i].path);
        json_kv_number(w, "value", f->stored[i].stored);
        json_kv_string(w, "outcome", outcome_class_name(f->stored[i].outcome));
        json_object_end(w);
    }
    json_array_end(w);
    json_key(w, "dtype_origin");
    if (f->has_dtype_origin)
        loc_object(w, &f->dtype_origin);
    else
        json_null(w);
    json_kv_string(w, "deployment", f->deployment);
    json_key(w, "deployments");
    json_array_begin(w);
    for (size_t i = 0; i < f->ndeployments; i++) {
        const finding_deployment *d = &f->deployments[i];
        json_object_begin(w);
        json_kv_string(w, "name", d->name);
        json_kv_string(w, "dtype", d->dtype);
        json_key(w, "location");
        if (d->loc.path)
            loc_object(w, &d->loc);
        else
            json_null(w);
        json_object_end(w);
    }
    json_array_end(w);
    json_key(w, "related");
    json_array_begin(w);
    for (size_t i = 0; i < f->nrelated; i++) {
        json_object_begin(w);
        json_kv_string(w, "path", report_path(f->related[i].loc.path));
        json_kv_int(w, "line", f->related[i].loc.line);
        json_kv_int(w, "column", f->related[i].loc.col);
        json_kv_string(w, "message", f->related[i].message);
        json_object_end(w);
    }
    json_array_end(w);
    json_kv_string(w, "fingerprint", fingerprint);
    json_object_end(w);
}

/* The run's own problems (a config kvlint could not read, a path that does not exist): a report
 * whose run failed must not look clean to a program either. */
static void diagnostics_json(json_writer *w, const report_input *in)
{
    json_key(w, "diagnostics");
    json_array_begin(w);
    for (size_t i = 0; i < in->ndiags; i++) {
        const diag *d = in->diags[i];
        json_object_begin(w);
        json_kv_string(w, "level", diag_level_name(d->level));
        json_key(w, "path");
        if (d->path)
            json_string(w, report_path(d->path));
        else
            json_null(w);
        json_kv_int(w, "line", d->line);
        json_kv_int(w, "column", d->col);
        json_kv_string(w, "message", d->msg);
        json_object_end(w);
    }
    json_array_end(w);
}

void report_json(FILE *out, const report_input *in)
{
    json_writer w;
    json_init_file(&w, out, true);
    source_cache *sc = report_source_cache(in);
    report_fingerprint *fps = report_fingerprints(sc, in->findings);
    size_t count[3] = { 0, 0, 0 };
    json_object_begin(&w);
    json_kv_int(&w, "version", JSON_REPORT_VERSION);
    json_key(&w, "findings");
    json_array_begin(&w);
    for (size_t i = 0; i < in->findings->v.n; i++) {
        finding_json(&w, &in->findings->v.v[i], fps[i].text);
        count[in->findings->v.v[i].severity]++;
    }
    json_array_end(&w);
    json_key(&w, "summary");
    json_object_begin(&w);
    json_kv_int(&w, "errors", (int64_t)count[SEV_ERROR]);
    json_kv_int(&w, "warnings", (int64_t)count[SEV_WARNING]);
    json_kv_int(&w, "notes", (int64_t)count[SEV_NOTE]);
    json_kv_int(&w, "suppressed", (int64_t)in->findings->suppressed);
    if (in->with_baseline)
        json_kv_int(&w, "baselined", (int64_t)in->baselined);
    if (in->with_diff)
        json_kv_int(&w, "outside_diff", (int64_t)in->outside_diff);
    if (in->with_per_file)
        json_kv_int(&w, "per_file_ignored", (int64_t)in->per_file_ignored);
    json_kv_int(&w, "files", (int64_t)in->files);
    json_kv_int(&w, "deployments", (int64_t)in->deployments);
    /* Present only when not 0, so that complete runs keep the shape they always had. */
    if (in->skipped)
        json_kv_int(&w, "skipped", (int64_t)in->skipped);
    if (in->limited)
        json_kv_int(&w, "limited", (int64_t)in->limited);
    char why[160];
    if (report_incomplete_text(in, why, sizeof why))
        json_kv_string(&w, "incomplete", why);
    json_object_end(&w);
    diagnostics_json(&w, in);
    json_object_end(&w);
    json_finish(&w);
    free(fps);
    source_cache_free(sc);
}
