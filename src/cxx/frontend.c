/*
 * frontend.c: `cxx_frontend`, the C/C++/CUDA front end as the scanner sees it (frontend.h).
 *
 * Claims .cu/.cuh (CUDA), .cpp/.cc/.cxx/.hpp/.hh/.hxx (C++), and .h when its bytes look like C++
 * or CUDA. index() (pass 1) applies the prefilter (analyze() does when pass 1 did not run) and
 * notes a kept file's parse setting; link() counts the files of each setting. analyze() collects
 * `// kvlint: ignore[...]` comments, parses with libclang (cxxparse.c; with the setting's
 * precompiled header only when another kept file shares the setting, cxxpch.c) and walks the unit
 * (cxxeval.c). One libclang index per call: threads share nothing but the read-only table and the
 * precompiled headers' list. Its files are analysed before the other front ends' (analyse_first),
 * and the memory of each unit goes back to the system when it is done.
 *
 * The prefilter is lexical and sound relative to the evaluator: a store fact needs (1) a pointer
 * named like a cache, or of element type cache_t, or the first part of a sink's name
 * (grammars/cxx/sinks.tsv), spelled in the file itself, and (2) a special value that can reach a
 * store into a cache (cxxreach.c): a literal of magnitude >= KV_SENTINEL_MAGNITUDE (1e4), a word
 * of the table (sentinel builtins and macros, numeric_limits, bit-pattern readers) or an
 * identifier of an id class (grammars/ids.tsv), in the file or in a macro or constant of a
 * project header it includes (quoted or angled includes found next to the includer, on the
 * compile command's -I paths, or in an ancestor folder), followed through the expressions and
 * variables the evaluator follows. No other file is parsed.
 */
#include <limits.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cxx/cxxfe.h"
#include "cxx/libclang.h"
#include "frontend/suppress.h"
#include "util/fsutil.h"
#include "util/xalloc.h"
#include "util/strlist.h"

enum { CLOSURE_MAX_FILES = 64, CLOSURE_MAX_DEPTH = 8, HEADER_MAX_BYTES = 2 << 20 };

static const char *cxx_claim(const char *path, const char *head, size_t head_len)
{
    static const char *const cuda[] = { ".cu", ".cuh", NULL };
    static const char *const cxx[] = { ".cpp", ".cc", ".cxx", ".hpp", ".hh", ".hxx", NULL };
    for (size_t i = 0; cuda[i]; i++)
        if (str_ends_with(path, cuda[i]))
            return "cuda";
    for (size_t i = 0; cxx[i]; i++)
        if (str_ends_with(path, cxx[i]))
            return "c++";
    if (!str_ends_with(path, ".h"))
        return NULL;
    if (!head)
        return FE_CLAIM_BY_CONTENT;
    (void)head_len; /* head is NUL-terminated */
    if (strstr(head, "__global__") || strstr(head, "__device__"))
        return "cuda";
    if (strstr(head, "template") || strstr(head, "namespace") || strstr(head, "::"))
        return "c++";
    return NULL;
}

static void cxx_version(char *buf, size_t n)
{
    const char *why;
    if (!kv_libclang_load(&why)) {
        snprintf(buf, n, "libclang: not available (%s)", why);
        return;
    }
    CXString cv = clang_getClangVersion();
    snprintf(buf, n, "libclang: %s", clang_getCString(cv));
    clang_disposeString(cv);
}

static void *cxx_init(const char *datadir, const struct kv_project *project, diag_list *diags)
{
    (void)project;
    return cxx_state_load(datadir, diags);
}

static void cxx_fini(void *state)
{
    cxx_state_free(state);
}

/* ---- the lexical prefilter ---- */

/* Where the first cache word of a text is, for cxx_prefilter_explain. */
typedef struct lexscan {
    bool cache;
    cxx_prefilter_why *why;    /* NULL, or where it was found */
    const char *path;          /* the text being scanned */
} lexscan;

/* Line of offset off in s (1-based). */
static unsigned line_of(const char *s, size_t off)
{
    unsigned line = 1;
    for (size_t i = 0; i < off; i++)
        line += s[i] == '\n';
    return line;
}

static void note_why(lexscan *out, const char *s, size_t b, size_t e)
{
    if (!out->why)
        return;
    cxx_prefilter_reason *r = &out->why->cache;
    size_t n = e - b < sizeof r->word - 1 ? e - b : sizeof r->word - 1;
    memcpy(r->word, s + b, n);
    r->word[n] = '\0';
    r->path = out->path;
    r->line = line_of(s, b);
}

static bool ident_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool ident_char(char c)
{
    return ident_start(c) || (c >= '0' && c <= '9');
}

static bool is_cache_word(const cxx_state *st, const char *w, size_t n)
{
    if (cxx_is_cache_name(st, w, n))
        return true;
    /* A sink's definition or call spells its name's first part (`kv_buffer_saver` of
     * kv_buffer_saver::save: the namespace opened, qualified or used; `CopyWithScaleOp` in the
     * type of the object called). */
    for (size_t i = 0; i < st->sinks.n; i++) {
        const char *name = st->sinks.v[i].name;
        const char *sep = strstr(name, "::");
        size_t len = sep ? (size_t)(sep - name) : strlen(name);
        if (len == n && memcmp(name, w, n) == 0)
            return true;
    }
    for (size_t i = 0; i < st->types.n; i++)
        if (st->types.v[i].dt_kind == CXD_KV && strlen(st->types.v[i].name) == n && !memcmp(st->types.v[i].name, w, n))
            return true;
    return false;
}

/* The first cache word among the identifiers outside comments and string literals. */
static void scan_text(const cxx_state *st, const char *s, size_t len, lexscan *out)
{
    size_t i = 0;
    while (i < len && !out->cache) {
        char c = s[i];
        if (c == '/' && i + 1 < len && s[i + 1] == '/') {
            while (i < len && s[i] != '\n')
                i++;
        } else if (c == '/' && i + 1 < len && s[i + 1] == '*') {
            const char *e = NULL;
            for (size_t j = i + 2; j + 1 < len; j++)
                if (s[j] == '*' && s[j + 1] == '/') {
                    e = s + j + 2;
                    break;
                }
            i = e ? (size_t)(e - s) : len;
        } else if (c == '"' || c == '\'') {
            i++;
            while (i < len && s[i] != c && s[i] != '\n')
                i += s[i] == '\\' ? 2 : 1;
            i++;
        } else if (ident_start(c)) {
            size_t b = i;
            while (i < len && ident_char(s[i]))
                i++;
            if (is_cache_word(st, s + b, i - b)) {
                out->cache = true;
                note_why(out, s, b, i);
            }
        } else if (c >= '0' && c <= '9') {
            while (i < len && ident_char(s[i]))
                i++;
        } else {
            i++;
        }
    }
}

/* The include names of a text: `#include "x"` and `#include <x>`. */
static size_t include_names(const char *s, size_t len, kv_arena *a, const char ***out)
{
    ARENA_VEC(const char *) v = {0};
    for (size_t i = 0; i < len; i++) {
        if (s[i] != '#' || (i && s[i - 1] != '\n' && s[i - 1] != ' ' && s[i - 1] != '\t'))
            continue;
        size_t j = i + 1;
        while (j < len && (s[j] == ' ' || s[j] == '\t'))
            j++;
        if (len - j < 7 || strncmp(s + j, "include", 7) != 0)
            continue;
        j += 7;
        while (j < len && (s[j] == ' ' || s[j] == '\t'))
            j++;
        if (j >= len || (s[j] != '"' && s[j] != '<'))
            continue;
        char close = s[j] == '"' ? '"' : '>';
        size_t b = ++j;
        while (j < len && s[j] != close && s[j] != '\n')
            j++;
        if (j < len && s[j] == close && j > b)
            ARENA_PUSH(a, v, arena_strndup(a, s + b, j - b));
    }
    *out = v.v;
    return v.n;
}

typedef struct closure {
    const cxx_state *st;
    const fe_source *src;
    kv_arena *a;
    ARENA_VEC(const char *) dirs;   /* -I folders and the file's ancestors */
    ARENA_VEC(const char *) seen;   /* realpaths read */
    ARENA_VEC(cxx_source_text) texts;  /* the headers read, in the arena */
} closure;

static bool seen_before(closure *c, const char *real)
{
    for (size_t i = 0; i < c->seen.n; i++)
        if (strcmp(c->seen.v[i], real) == 0)
            return true;
    ARENA_PUSH(c->a, c->seen, arena_strdup(c->a, real));
    return false;
}

static void scan_header(closure *c, const char *includer_dir, const char *name, int depth);

static void scan_includes(closure *c, const char *path, const char *data, size_t len, int depth)
{
    const char **names;
    size_t n = include_names(data, len, c->a, &names);
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(dir, sizeof dir, ".");
    for (size_t i = 0; i < n; i++)
        scan_header(c, dir, names[i], depth + 1);
}

static void scan_header(closure *c, const char *includer_dir, const char *name, int depth)
{
    if (depth > CLOSURE_MAX_DEPTH || c->seen.n >= CLOSURE_MAX_FILES)
        return;
    for (size_t k = 0; k <= c->dirs.n; k++) {
        const char *dir = k == 0 ? includer_dir : c->dirs.v[k - 1];
        char *p = fs_join(dir, name);
        char real[PATH_MAX];
        bool ok = realpath(p, real) != NULL;
        free(p);
        if (!ok)
            continue;
        if (seen_before(c, real))
            return;
        char *data;
        size_t len;
        const char *err;
        if (fs_read_file(real, HEADER_MAX_BYTES, &data, &len, &err) != FS_OK)
            return;
        cxx_source_text t = { arena_strdup(c->a, real), arena_strndup(c->a, data, len), len };
        free(data);
        ARENA_PUSH(c->a, c->texts, t);
        scan_includes(c, t.path, t.data, t.len, depth);
        return;
    }
}

bool cxx_prefilter(const cxx_state *st, const fe_source *src, kv_arena *a)
{
    return cxx_prefilter_explain(st, src, a, NULL);
}

bool cxx_prefilter_explain(const cxx_state *st, const fe_source *src, kv_arena *a, cxx_prefilter_why *why)
{
    if (why)
        memset(why, 0, sizeof *why);
    closure c = { .st = st, .src = src, .a = a };
    lexscan found = { .why = why, .path = src->path };
    scan_text(st, src->data, src->len, &found);
    if (!found.cache)
        return false;
    for (size_t i = 0; i + 1 < src->nargs; i++)
        if (!strcmp(src->args[i], "-I") || !strcmp(src->args[i], "-isystem") || !strcmp(src->args[i], "-iquote"))
            ARENA_PUSH(a, c.dirs, src->args[i + 1]);
    char abs[PATH_MAX];
    if (realpath(src->path, abs)) {
        seen_before(&c, abs);
        for (char *s; (s = strrchr(abs, '/')) != NULL && s != abs;) {
            *s = '\0';
            ARENA_PUSH(a, c.dirs, arena_strdup(a, abs));
        }
    }
    scan_includes(&c, src->path, src->data, src->len, 0);
    cxx_source_text main = { src->path, src->data, src->len };
    return cxx_reach(st, &main, c.texts.v, c.texts.n, a, why);
}

/* ---- pass 1 and the link: which files are parsed, and which settings they share ---- */

/* What pass 1 learnt of a file: whether the prefilter keeps it (of how many bytes), and, if it
 * does, its parse setting (cxx_parse_setting). */
typedef struct cxx_export {
    bool kept;
    size_t len;
    const char *setting;
    size_t setting_len;
} cxx_export;

/* The run's parse settings with how many kept files have each, sorted by (length, bytes). */
typedef struct cxx_setting_count {
    const char *setting;
    size_t len, files;
} cxx_setting_count;

typedef struct cxx_link {
    cxx_setting_count *v;
    size_t n;
} cxx_link;

static bool prefilter_keeps(const cxx_state *st, const fe_source *src)
{
    kv_arena *scratch = arena_new();  /* the headers the prefilter reads, its tokens */
    bool kept = st && cxx_prefilter(st, src, scratch);
    arena_free(scratch);
    return kept;
}

static const void *cxx_index(const fe_source *src, const void *state, kv_arena *a)
{
    const cxx_state *st = state;
    cxx_export *ex = arena_zalloc(a, sizeof *ex);
    ex->len = src->len;
    ex->kept = prefilter_keeps(st, src);
    if (ex->kept)
        ex->setting = cxx_parse_setting(st, src, a, &ex->setting_len);
    return ex;
}

static int cmp_setting(const void *x, const void *y)
{
    const cxx_setting_count *a = x, *b = y;
    if (a->len != b->len)
        return a->len < b->len ? -1 : 1;
    return memcmp(a->setting, b->setting, a->len);
}

static const void *cxx_link_indexes(const fe_file_index *ix, size_t n, kv_arena *a)
{
    cxx_link *l = arena_zalloc(a, sizeof *l);
    l->v = arena_alloc(a, (n ? n : 1) * sizeof *l->v);
    for (size_t i = 0; i < n; i++) {
        const cxx_export *ex = ix[i].exports;
        if (ex->kept)
            l->v[l->n++] = (cxx_setting_count){ ex->setting, ex->setting_len, 1 };
    }
    qsort(l->v, l->n, sizeof *l->v, cmp_setting);
    size_t m = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (m && cmp_setting(&l->v[m - 1], &l->v[i]) == 0)
            l->v[m - 1].files++;
        else
            l->v[m++] = l->v[i];
    }
    l->n = m;
    return l;
}

static int cmp_index_path(const void *key, const void *elem)
{
    return strcmp(key, ((const fe_file_index *)elem)->path);
}

/* src's export of pass 1, when it is of these bytes; NULL: none (a lone call, the file changed). */
static const cxx_export *own_export(const fe_context *ctx, const fe_source *src)
{
    const fe_file_index *ix = ctx->nindexes ? bsearch(src->path, ctx->indexes, ctx->nindexes, sizeof *ix, cmp_index_path)
                                            : NULL;
    const cxx_export *ex = ix ? ix->exports : NULL;
    return ex && ex->len == src->len ? ex : NULL;
}

/* Does another parsed file of the run share src's setting? Only then is its precompiled header
 * worth building: for one file it costs more time and memory than it saves (bench/cxx.results.md).
 * Decided from the link, so the same for any -j and any schedule. */
static bool setting_shared(const cxx_state *st, const fe_context *ctx, const fe_source *src, const cxx_export *ex,
                           kv_arena *a)
{
    const cxx_link *l = ctx->link;
    if (!l || !l->n)
        return false;
    cxx_setting_count key = { 0 };
    if (ex)
        key = (cxx_setting_count){ ex->setting, ex->setting_len, 0 };
    else
        key.setting = cxx_parse_setting(st, src, a, &key.len);
    const cxx_setting_count *c = bsearch(&key, l->v, l->n, sizeof *l->v, cmp_setting);
    return c && c->files >= 2;
}

static void cxx_analyze(const fe_source *src, const fe_context *ctx, file_facts *out)
{
    const cxx_state *st = ctx->state;
    const cxx_export *ex = own_export(ctx, src);
    if (!(ex ? ex->kept : prefilter_keeps(st, src))) {
        out->skipped = true;
        return;
    }
    suppress_collect_lines(src->data, src->len, "//", out);
    CXIndex idx;
    CXTranslationUnit tu = cxx_parse(st, src, setting_shared(st, ctx, src, ex, out->arena), &idx, out);
    if (!tu)
        return;
    cxx_report_diagnostics(tu, src, out);
    /* libclang 14 cannot interrupt a parse: its memory is checked once it returns, and over the
     * budget the unit is released unanalysed (at once, before other threads' units add to it). The
     * analysis counts its own steps (cxxeval.c); nothing here is timed, so what a file yields does
     * not depend on the load of the machine. */
    size_t bytes = cxx_unit_bytes(tu);
    if (bytes > st->budget_bytes)
        diag_limit(&out->diags, DIAG_NOTE, src->path, 0, 0,
                   "not analysed: libclang used %zu MB for this file, over the %zu MB budget per file",
                   bytes >> 20, st->budget_bytes >> 20);
    else
        cxx_analyze_unit(st, tu, src, out);
    clang_disposeTranslationUnit(tu);
    clang_disposeIndex(idx);
#ifdef __GLIBC__
    /* libclang parses on a thread of its own and frees the unit into that thread's malloc arena,
     * which glibc keeps: give the pages back now, before other files run on top of them (-25 MB of
     * peak on vLLM, bench/python.results.md). */
    malloc_trim(0);
#endif
}

const frontend cxx_frontend = {
    .name = "cxx",
    .version = cxx_version,
    .init = cxx_init,
    .fini = cxx_fini,
    .claim = cxx_claim,
    .wants_compile_args = true,
    .analyse_first = true,
    .index = cxx_index,
    .link = cxx_link_indexes,
    .analyze = cxx_analyze,
};
