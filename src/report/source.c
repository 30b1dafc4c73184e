/*
 * source.c: source lines for carets and fingerprints, read once per file per run.
 *
 * Files are read with the same size cap as the scanner (8 MiB); an unreadable file simply has no
 * lines (reports then print the finding without a snippet). Not thread-safe: reporters run on the
 * main thread after evaluation.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/report.h"
#include "util/fsutil.h"
#include "util/xalloc.h"

typedef struct source_file {
    char *path;
    char *data;       /* NULL if unreadable */
    size_t len;
    size_t *starts;   /* offset of each line */
    size_t nlines;
} source_file;

struct source_cache {
    source_file *v;
    size_t n, cap;
};

source_cache *source_cache_new(void)
{
    return xcalloc(1, sizeof(source_cache));
}

void source_cache_free(source_cache *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++) {
        free(c->v[i].path);
        free(c->v[i].data);
        free(c->v[i].starts);
    }
    free(c->v);
    free(c);
}

static void index_lines(source_file *f)
{
    size_t cap = 0;
    for (size_t i = 0; f->data && i <= f->len; i++)
        if (i == 0 || f->data[i - 1] == '\n') {
            if (i == f->len && i > 0)
                break;
            f->starts = xgrow(f->starts, &cap, f->nlines + 1, sizeof *f->starts);
            f->starts[f->nlines++] = i;
        }
}

static source_file *add_file(source_cache *c, const char *path)
{
    c->v = xgrow(c->v, &c->cap, c->n + 1, sizeof *c->v);
    source_file *f = &c->v[c->n++];
    memset(f, 0, sizeof *f);
    f->path = xstrdup(path);
    return f;
}

void source_cache_put(source_cache *c, const char *path, const char *data, size_t len)
{
    char *norm = fs_normalize(path);   /* as the scan spells it in findings */
    source_file *f = add_file(c, norm);
    free(norm);
    f->data = xmalloc(len + 1);
    memcpy(f->data, data, len);
    f->data[len] = '\0';
    f->len = len;
    index_lines(f);
}

source_cache *report_source_cache(const report_input *in)
{
    source_cache *c = source_cache_new();
    if (in->stdin_path && in->stdin_data)
        source_cache_put(c, in->stdin_path, in->stdin_data, in->stdin_len);
    return c;
}

static source_file *get_file(source_cache *c, const char *path)
{
    for (size_t i = 0; i < c->n; i++)
        if (strcmp(c->v[i].path, path) == 0)
            return &c->v[i];
    source_file *f = add_file(c, path);
    const char *err;
    if (fs_read_file(path, 8u << 20, &f->data, &f->len, &err) != FS_OK)
        f->data = NULL;
    else
        fs_lone_cr_to_lf(f->data, f->len);   /* lines as the front ends counted them */
    index_lines(f);
    return f;
}

const char *source_line(source_cache *c, const char *path, unsigned line, size_t *len)
{
    *len = 0;
    if (!path || line == 0)
        return NULL;
    source_file *f = get_file(c, path);
    if (!f->data || line > f->nlines)
        return NULL;
    size_t s = f->starts[line - 1];
    size_t e = s;
    while (e < f->len && f->data[e] != '\n')
        e++;
    if (e > s && f->data[e - 1] == '\r')
        e--;
    *len = e - s;
    return f->data + s;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++) {
        h ^= s[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

static uint64_t fnv_str(uint64_t h, const char *s)
{
    h = fnv(h, s ? s : "", s ? strlen(s) : 0);
    return fnv(h, "", 1);
}

/* Hash a location's path and its source line, whitespace-normalised (indentation changes and
 * trailing spaces do not move the fingerprint). */
static uint64_t fnv_loc(uint64_t h, source_cache *c, const kv_loc *l)
{
    h = fnv_str(h, report_path(l->path));
    size_t len;
    const char *line = source_line(c, l->path, l->line, &len);
    bool space = false, any = false;
    for (size_t i = 0; line && i < len; i++) {
        if (isspace((unsigned char)line[i])) {
            space = true;
            continue;
        }
        if (space && any)
            h = fnv(h, " ", 1);
        h = fnv(h, &line[i], 1);
        space = false;
        any = true;
    }
    return fnv(h, "", 1);
}

static uint64_t finding_hash(source_cache *c, const finding *f)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    h = fnv_str(h, f->rule->id);
    h = fnv_loc(h, c, &f->loc);
    h = fnv_str(h, f->value);
    h = fnv_str(h, f->dtype);
    h = fnv_str(h, f->has_dtype_origin ? report_path(f->dtype_origin.path) : "");
    if (f->nrelated)
        h = fnv_loc(h, c, &f->related[0].loc); /* the sink: one value stored by two writes */
    return h;
}

typedef struct hashed {
    uint64_t h;
    size_t i;
} hashed;

static int hashed_cmp(const void *pa, const void *pb)
{
    const hashed *a = pa, *b = pb;
    if (a->h != b->h)
        return a->h < b->h ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

report_fingerprint *report_fingerprints(source_cache *c, const finding_list *l)
{
    size_t n = l->v.n;
    report_fingerprint *out = xcalloc(n ? n : 1, sizeof *out);
    hashed *h = xcalloc(n ? n : 1, sizeof *h);
    for (size_t i = 0; i < n; i++)
        h[i] = (hashed){ finding_hash(c, &l->v.v[i]), i };
    /* Findings that still collide (two deployments in one file with the same dtype) get an
     * occurrence number in report order, as GitHub's own line hashes do. */
    qsort(h, n, sizeof *h, hashed_cmp);
    unsigned occurrence = 0;
    for (size_t k = 0; k < n; k++) {
        occurrence = k && h[k].h == h[k - 1].h ? occurrence + 1 : 1;
        if (occurrence > 1)
            snprintf(out[h[k].i].text, sizeof out->text, "%016llx:%u", (unsigned long long)h[k].h, occurrence);
        else
            snprintf(out[h[k].i].text, sizeof out->text, "%016llx", (unsigned long long)h[k].h);
    }
    free(h);
    return out;
}

bool report_use_color(bool tty)
{
    const char *nc = getenv("NO_COLOR");
    if (nc && *nc)
        return false;
    return tty;
}

const char *report_path(const char *path)
{
    if (!path)
        return "";
    static _Thread_local char cwd[4096];
    if (path[0] != '/' || !getcwd(cwd, sizeof cwd))
        return path[0] == '.' && path[1] == '/' ? path + 2 : path;
    size_t n = strlen(cwd);
    if (strncmp(path, cwd, n) == 0 && path[n] == '/')
        return path + n + 1;
    return path;
}
