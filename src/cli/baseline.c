/*
 * baseline.c: see baseline.h. The file is read with the positioned YAML/JSON reader the config
 * front end uses (JSON is a YAML flow document), so a hand-edited file with a syntax error gets a
 * line and column, not a crash.
 */
#include "cli/baseline.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/ytree.h"
#include "util/fsutil.h"
#include "util/json.h"
#include "util/outfile.h"
#include "util/xalloc.h"

enum { BASELINE_MAX_BYTES = 64 << 20 };

static int cmp_entry(const void *a, const void *b)
{
    return strcmp(((const baseline_entry *)a)->fingerprint, ((const baseline_entry *)b)->fingerprint);
}

static char *dup_or_empty(const char *s)
{
    return xstrdup(s ? s : "");
}

static bool read_entries(baseline *b, const ystream *st, const char *path, strbuf *why)
{
    ywalk w;
    ywalk_init(&w, st);
    const ynode *root = st->ndocs ? ywalk_deref(&w, st->docs[0].root) : NULL;
    const char *tool = root ? yscalar(ymap_get(&w, root, "tool")) : NULL;
    const ynode *list = root ? ymap_get(&w, root, "findings") : NULL;
    if (!tool || strcmp(tool, "kvlint") || !list || list->kind != YN_SEQ) {
        sb_addf(why, "%s is not a kvlint baseline (no \"tool\": \"kvlint\" and \"findings\" list)", path);
        return false;
    }
    const char *version = yscalar(ymap_get(&w, root, "version"));
    if (!version || atoi(version) != BASELINE_VERSION) {
        sb_addf(why, "%s: baseline version %s is not %d (record it again with kvlint baseline)", path,
                version ? version : "(none)", BASELINE_VERSION);
        return false;
    }
    for (size_t i = 0; i < list->nkids; i++) {
        const ynode *e = ywalk_deref(&w, list->kids[i]);
        const char *fp = e ? yscalar(ymap_get(&w, e, "fingerprint")) : NULL;
        if (!fp || !*fp) {
            ypos p = ytree_pos(&st->src, e ? e->start : list->start);
            sb_addf(why, "%s:%u:%u: a baseline entry without a fingerprint", path, p.line, p.col);
            return false;
        }
        const char *line = yscalar(ymap_get(&w, e, "line"));
        b->v = xgrow(b->v, &b->cap, b->n + 1, sizeof *b->v);
        b->v[b->n++] = (baseline_entry){
            .fingerprint = xstrdup(fp),
            .rule = dup_or_empty(yscalar(ymap_get(&w, e, "rule"))),
            .path = dup_or_empty(yscalar(ymap_get(&w, e, "path"))),
            .message = dup_or_empty(yscalar(ymap_get(&w, e, "message"))),
            .line = line ? atol(line) : 0,
        };
    }
    if (b->n)
        qsort(b->v, b->n, sizeof *b->v, cmp_entry);
    return true;
}

bool baseline_load(baseline *b, const char *path, strbuf *why)
{
    memset(b, 0, sizeof *b);
    char *data = NULL;
    size_t len = 0;
    const char *err = NULL;
    fs_status st = fs_read_file(path, BASELINE_MAX_BYTES, &data, &len, &err);
    if (st != FS_OK) {
        sb_addf(why, "%s: %s", path, st == FS_TOO_LARGE ? "larger than 64 MiB" : err);
        free(data);
        return false;
    }
    kv_arena *a = arena_new();
    diag_list diags;
    diag_init(&diags, a);
    ystream *ys = ytree_parse(path, data, len, a, &diags, DIAG_ERROR);
    bool ok;
    if (diags.items.n) {
        const diag *d = &diags.items.v[0];
        sb_addf(why, "%s:%u:%u: %s", path, d->line, d->col, d->msg);
        ok = false;
    } else {
        ok = read_entries(b, ys, path, why);
    }
    arena_free(a);
    free(data);
    if (!ok)
        baseline_free(b);
    return ok;
}

size_t baseline_filter(baseline *b, finding_list *l, report_fingerprint *fps)
{
    size_t k = 0;
    for (size_t i = 0; i < l->v.n; i++) {
        baseline_entry key = { .fingerprint = fps[i].text };
        baseline_entry *hit = b->n ? bsearch(&key, b->v, b->n, sizeof *b->v, cmp_entry) : NULL;
        if (hit) {
            hit->seen = true;
            continue;
        }
        fps[k] = fps[i];
        l->v.v[k++] = l->v.v[i];
    }
    size_t dropped = l->v.n - k;
    l->v.n = k;
    return dropped;
}

static void entry_json(json_writer *w, const char *fp, const char *rule_id, const char *path, long line, const char *msg)
{
    json_object_begin(w);
    json_kv_string(w, "fingerprint", fp);
    json_kv_string(w, "rule", rule_id);
    json_kv_string(w, "path", path);
    json_kv_int(w, "line", line);
    json_kv_string(w, "message", msg);
    json_object_end(w);
}

static void header(json_writer *w)
{
    json_object_begin(w);
    json_kv_string(w, "tool", "kvlint");
    json_kv_int(w, "version", BASELINE_VERSION);
    json_key(w, "findings");
    json_array_begin(w);
}

static void footer(json_writer *w)
{
    json_array_end(w);
    json_object_end(w);
}

/* Open path for a baseline and start its JSON there (the entries stream to the file). */
static bool baseline_open(out_file *o, json_writer *w, const char *path, strbuf *why)
{
    char err[512];
    if (!out_file_open(o, path, err, sizeof err)) {
        sb_adds(why, err);
        return false;
    }
    json_init_file(w, o->f, true);
    header(w);
    return true;
}

/* Finish the JSON and replace the target with it, or leave the target as it was. */
static bool baseline_commit(out_file *o, json_writer *w, strbuf *why)
{
    char err[512];
    footer(w);
    json_finish(w);
    fputc('\n', o->f);
    if (!out_file_commit(o, err, sizeof err)) {
        sb_adds(why, err);
        return false;
    }
    return true;
}

/* Entries in fingerprint order, so that a re-recorded baseline diffs only where findings changed. */
typedef struct ordered {
    const char *fp;
    size_t i;
} ordered;

static int cmp_ordered(const void *a, const void *b)
{
    return strcmp(((const ordered *)a)->fp, ((const ordered *)b)->fp);
}

bool baseline_write_findings(const char *path, const finding_list *l, const report_fingerprint *fps, strbuf *why)
{
    ordered *o = xcalloc(l->v.n ? l->v.n : 1, sizeof *o);
    for (size_t i = 0; i < l->v.n; i++)
        o[i] = (ordered){ fps[i].text, i };
    qsort(o, l->v.n, sizeof *o, cmp_ordered);
    out_file out;
    json_writer w;
    bool ok = baseline_open(&out, &w, path, why);
    for (size_t k = 0; ok && k < l->v.n; k++) {
        const finding *f = &l->v.v[o[k].i];
        entry_json(&w, o[k].fp, f->rule->id, report_path(f->loc.path), f->loc.line, f->message);
    }
    ok = ok && baseline_commit(&out, &w, why);
    free(o);
    return ok;
}

bool baseline_write_pruned(const char *path, const baseline *b, strbuf *why)
{
    out_file out;
    json_writer w;
    if (!baseline_open(&out, &w, path, why))
        return false;
    for (size_t i = 0; i < b->n; i++)
        if (b->v[i].seen)
            entry_json(&w, b->v[i].fingerprint, b->v[i].rule, b->v[i].path, b->v[i].line, b->v[i].message);
    return baseline_commit(&out, &w, why);
}

bool baseline_replaceable(const char *path, strbuf *why)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return true;   /* missing (or a device): the output helper decides */
    baseline b;
    strbuf ignored = STRBUF_INIT;
    bool ok = baseline_load(&b, path, &ignored);
    sb_release(&ignored);
    if (ok) {
        baseline_free(&b);
        return true;
    }
    sb_addf(why, "refusing to replace %s: it exists and is not a kvlint baseline", path);
    return false;
}

void baseline_free(baseline *b)
{
    for (size_t i = 0; i < b->n; i++) {
        free(b->v[i].fingerprint);
        free(b->v[i].rule);
        free(b->v[i].path);
        free(b->v[i].message);
    }
    free(b->v);
    memset(b, 0, sizeof *b);
}
