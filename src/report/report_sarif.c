/*
 * report_sarif.c: SARIF 2.1.0 for code-scanning services (GitHub code scanning uploads it).
 *
 * One run; tool.driver.rules lists every loaded rule with its help text, results point into it by
 * ruleIndex. URIs are relative to %SRCROOT% (the working directory, given in originalUriBaseIds).
 * relatedLocations carry the sink and the dtype declaration, codeFlows the value's steps from where
 * it is made to where it is stored, partialFingerprints a hash that ignores line numbers; each rule
 * has a helpUri (configure --with-docs-url), invocations says whether the run succeeded and lists
 * its diagnostics.
 * Validated against the OASIS schema by tests/e2e/check_sarif.sh.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "report/report.h"
#include "util/json.h"
#include "util/strbuf.h"

enum { SARIF_DEPLOYMENTS_SHOWN = 8 };   /* names in a result message; properties.deployments has all */

/* Percent-encode what a relative URI reference cannot hold (RFC 3986 unreserved + '/'). */
static void uri_encode(strbuf *sb, const char *path)
{
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if (isalnum(*p) || strchr("-._~/", *p))
            sb_addc(sb, (char)*p);
        else
            sb_addf(sb, "%%%02X", *p);
    }
}

static void artifact(json_writer *w, const char *path)
{
    strbuf uri = STRBUF_INIT;
    const char *rel = report_path(path);
    if (rel[0] == '/')
        sb_adds(&uri, "file://");
    uri_encode(&uri, rel);
    json_key(w, "artifactLocation");
    json_object_begin(w);
    json_kv_string(w, "uri", sb_str(&uri));
    if (rel[0] != '/')
        json_kv_string(w, "uriBaseId", "%SRCROOT%");
    json_object_end(w);
    sb_release(&uri);
}

static void physical(json_writer *w, const kv_loc *l)
{
    json_key(w, "physicalLocation");
    json_object_begin(w);
    artifact(w, l->path);
    if (l->line) {
        json_key(w, "region");
        json_object_begin(w);
        json_kv_int(w, "startLine", l->line);
        if (l->col)
            json_kv_int(w, "startColumn", l->col);
        if (l->end_line >= l->line && l->end_line) {
            json_kv_int(w, "endLine", l->end_line);
            if (l->end_col && (l->end_line > l->line || l->end_col > l->col))
                json_kv_int(w, "endColumn", l->end_col);
        }
        json_object_end(w);
    }
    json_object_end(w);
}

static void message(json_writer *w, const char *text)
{
    json_key(w, "message");
    json_object_begin(w);
    json_kv_string(w, "text", text);
    json_object_end(w);
}

static const char *level(kv_severity s)
{
    return s == SEV_ERROR ? "error" : s == SEV_WARNING ? "warning" : "note";
}

static void rule_descriptor(json_writer *w, const rule *r)
{
    json_object_begin(w);
    json_kv_string(w, "id", r->id);
    json_kv_string(w, "name", r->name);
    json_key(w, "shortDescription");
    json_object_begin(w);
    json_kv_string(w, "text", r->summary);
    json_object_end(w);
    json_key(w, "fullDescription");
    json_object_begin(w);
    json_kv_string(w, "text", *r->why ? r->why : r->summary);
    json_object_end(w);
    strbuf help = STRBUF_INIT;
    sb_addf(&help, "%s\n\n%s\n\nFix: %s", r->summary, r->why, r->fix);
    for (size_t i = 0; r->references && r->references[i]; i++)
        sb_addf(&help, "%s%s", i ? ", " : "\n\nSeen in: ", r->references[i]);
    json_key(w, "help");
    json_object_begin(w);
    json_kv_string(w, "text", sb_str(&help));
    json_object_end(w);
    sb_release(&help);
    strbuf uri = STRBUF_INIT;
    sb_addf(&uri, "%s/%s.md", KVLINT_DOCS_URL, r->id);
    json_kv_string(w, "helpUri", sb_str(&uri));
    sb_release(&uri);
    json_key(w, "defaultConfiguration");
    json_object_begin(w);
    json_kv_string(w, "level", level(r->severity));
    json_object_end(w);
    json_object_end(w);
}

static void code_flow(json_writer *w, const finding *f)
{
    json_key(w, "codeFlows");
    json_array_begin(w);
    json_object_begin(w);
    json_key(w, "threadFlows");
    json_array_begin(w);
    json_object_begin(w);
    json_key(w, "locations");
    json_array_begin(w);
    for (size_t i = 0; i < f->nsteps; i++) {
        json_object_begin(w);
        json_key(w, "location");
        json_object_begin(w);
        physical(w, &f->steps[i].loc);
        message(w, f->steps[i].what ? f->steps[i].what : "step");
        json_object_end(w);
        json_object_end(w);
    }
    json_array_end(w);
    json_object_end(w);
    json_array_end(w);
    json_object_end(w);
    json_array_end(w);
}

static void result(json_writer *w, const report_input *in, const finding *f, const char *fingerprint)
{
    json_object_begin(w);
    json_kv_string(w, "ruleId", f->rule->id);
    json_kv_int(w, "ruleIndex", f->rule - in->rules->rules.v);
    json_kv_string(w, "level", level(f->severity));
    char *deps = report_deployments_text(f, SARIF_DEPLOYMENTS_SHOWN);
    if (deps) {
        strbuf text = STRBUF_INIT;
        sb_addf(&text, "%s (%s)", f->message, deps);
        message(w, sb_str(&text));
        sb_release(&text);
        free(deps);
    } else {
        message(w, f->message);
    }
    if (f->loc.path) {
        json_key(w, "locations");
        json_array_begin(w);
        json_object_begin(w);
        physical(w, &f->loc);
        json_object_end(w);
        json_array_end(w);
    }
    if (f->nrelated) {
        json_key(w, "relatedLocations");
        json_array_begin(w);
        for (size_t i = 0; i < f->nrelated; i++) {
            json_object_begin(w);
            json_kv_int(w, "id", (int64_t)i + 1);
            physical(w, &f->related[i].loc);
            message(w, f->related[i].message);
            json_object_end(w);
        }
        json_array_end(w);
    }
    size_t steps_with_path = 0;
    for (size_t i = 0; i < f->nsteps; i++)
        steps_with_path += f->steps[i].loc.path != NULL;
    if (f->nsteps && steps_with_path == f->nsteps)
        code_flow(w, f);
    json_key(w, "partialFingerprints");
    json_object_begin(w);
    json_kv_string(w, "kvlintFinding/v1", fingerprint);
    json_object_end(w);
    if (f->ndeployments) {
        /* a site is one result; the deployments it is reported under go in its property bag */
        json_key(w, "properties");
        json_object_begin(w);
        json_key(w, "deployments");
        json_array_begin(w);
        for (size_t i = 0; i < f->ndeployments; i++)
            json_string(w, f->deployments[i].name);
        json_array_end(w);
        json_object_end(w);
    }
    json_object_end(w);
}

static void base_ids(json_writer *w)
{
    char cwd[4096];
    json_key(w, "originalUriBaseIds");
    json_object_begin(w);
    json_key(w, "%SRCROOT%");
    json_object_begin(w);
    strbuf uri = STRBUF_INIT;
    sb_adds(&uri, "file://");
    if (getcwd(cwd, sizeof cwd))
        uri_encode(&uri, cwd);
    sb_addc(&uri, '/');
    json_kv_string(w, "uri", sb_str(&uri));
    sb_release(&uri);
    json_object_end(w);
    json_object_end(w);
}

/* invocations[0]: whether the run succeeded (no error-level diagnostic, no limit that made it
 * incomplete), with its diagnostics and the reason it is incomplete as toolExecutionNotifications,
 * so that a run that could not read a config, or stopped at a limit, never uploads as a clean scan. */
static void invocation(json_writer *w, const report_input *in)
{
    char why[160];
    bool incomplete = report_incomplete_text(in, why, sizeof why) != NULL;
    bool ok = !incomplete;
    for (size_t i = 0; i < in->ndiags; i++)
        ok = ok && in->diags[i]->level != DIAG_ERROR;
    json_key(w, "invocations");
    json_array_begin(w);
    json_object_begin(w);
    json_kv_bool(w, "executionSuccessful", ok);
    json_key(w, "toolExecutionNotifications");
    json_array_begin(w);
    if (incomplete) {
        json_object_begin(w);
        json_kv_string(w, "level", "warning");
        message(w, why);
        json_object_end(w);
    }
    for (size_t i = 0; i < in->ndiags; i++) {
        const diag *d = in->diags[i];
        json_object_begin(w);
        json_kv_string(w, "level", d->level == DIAG_ERROR ? "error" : d->level == DIAG_WARNING ? "warning" : "note");
        message(w, d->msg);
        if (d->path) {
            kv_loc l = { .path = d->path, .line = d->line, .col = d->col };
            json_key(w, "locations");
            json_array_begin(w);
            json_object_begin(w);
            physical(w, &l);
            json_object_end(w);
            json_array_end(w);
        }
        json_object_end(w);
    }
    json_array_end(w);
    json_object_end(w);
    json_array_end(w);
}

void report_sarif(FILE *out, const report_input *in)
{
    json_writer w;
    json_init_file(&w, out, true);
    source_cache *sc = report_source_cache(in);
    report_fingerprint *fps = report_fingerprints(sc, in->findings);
    json_object_begin(&w);
    json_kv_string(&w, "$schema", "https://json.schemastore.org/sarif-2.1.0.json");
    json_kv_string(&w, "version", "2.1.0");
    json_key(&w, "runs");
    json_array_begin(&w);
    json_object_begin(&w);
    json_key(&w, "tool");
    json_object_begin(&w);
    json_key(&w, "driver");
    json_object_begin(&w);
    json_kv_string(&w, "name", "kvlint");
    json_kv_string(&w, "version", PACKAGE_VERSION);
    json_kv_string(&w, "semanticVersion", PACKAGE_VERSION);
    json_key(&w, "rules");
    json_array_begin(&w);
    for (size_t i = 0; i < in->rules->rules.n; i++)
        rule_descriptor(&w, &in->rules->rules.v[i]);
    json_array_end(&w);
    json_object_end(&w);
    json_object_end(&w);
    invocation(&w, in);
    base_ids(&w);
    json_key(&w, "results");
    json_array_begin(&w);
    for (size_t i = 0; i < in->findings->v.n; i++)
        result(&w, in, &in->findings->v.v[i], fps[i].text);
    json_array_end(&w);
    json_object_end(&w);
    json_array_end(&w);
    json_object_end(&w);
    json_finish(&w);
    free(fps);
    source_cache_free(sc);
}
