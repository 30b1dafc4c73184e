/*
 * pysinks.c: the sink table of the Python front end (see pyfe.h and grammars/python/sinks.tsv),
 * and the matcher that decides whether a call is one of its sinks.
 *
 * Loaded once by init() before any thread starts, then only read. The built-in entries are data
 * (sinks.tsv): each is an exact signature copied from an engine, so adding a write function is a
 * one-line change and a call that does not bind to a signature is not a sink. A project's own
 * write functions come from .kvlint.yaml (kv_project.sinks); they have no signature, only the
 * position or keyword of the key and value, and are matched by name.
 * This file does not look at syntax trees: callers describe a call by its shape (py_call_shape).
 */
#include "python/pyfe.h"
#include "python/pymodcache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "facts/dtypestr.h"
#include "util/fsutil.h"
#include "util/tsv.h"
#include "util/xalloc.h"

enum {
    SINKS_MAX_BYTES = 1 << 20,
    SINK_FIELDS = 9,      /* call and class lines */
    NAME_FIELDS = 2,      /* cache and kernel lines */
    MAX_PARAMS = 32
};

/* ---- reading the table ---- */

typedef struct line_ctx {
    py_state *st;
    const char *path;
    uint32_t line;
    diag_list *diags;
} line_ctx;

static void bad_line(const line_ctx *c, const char *what, const char *text)
{
    diag_add(c->diags, DIAG_WARNING, c->path, c->line, 1, "sink line ignored: %s%s%s%s", what,
             text ? " '" : "", text ? text : "", text ? "'" : "");
}

/* A sink line's way (its "family" column): one of the facts' names, but not direct (cache lines say that) or user
 * (.kvlint.yaml's). */
static bool parse_via(const char *s, store_via *out)
{
    return store_via_parse(s, out) && *out != SINK_DIRECT && *out != SINK_USER;
}

static bool parse_receiver(const char *s, py_receiver *out)
{
    static const struct { const char *name; py_receiver r; } t[] = {
        { "any", PSR_ANY }, { "object", PSR_OBJECT }, { "cache", PSR_CACHE },
    };
    for (size_t i = 0; i < sizeof t / sizeof *t; i++)
        if (strcmp(s, t[i].name) == 0) {
            *out = t[i].r;
            return true;
        }
    return false;
}

static bool is_identifier(const char *s, size_t n)
{
    if (n == 0 || !(s[0] == '_' || (s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
        return false;
    for (size_t i = 1; i < n; i++)
        if (!(s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z')
              || (s[i] >= '0' && s[i] <= '9')))
            return false;
    return true;
}

/* Is s a dotted name: identifiers joined by single dots? */
static bool is_dotted(const char *s)
{
    for (const char *p = s;;) {
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);
        if (!is_identifier(p, n))
            return false;
        if (!dot)
            return true;
        p = dot + 1;
    }
}

static int param_index(const py_sink *s, const char *name)
{
    for (size_t i = 0; i < s->nparams; i++)
        if (strcmp(s->params[i].name, name) == 0)
            return (int)i;
    return -1;
}

/* "query,key,value,output_shape=,*,flag=,**" into s->params; false (with a diagnostic) if bad. */
static bool parse_params(const line_ctx *c, py_sink *s, const char *text)
{
    py_param *ps = arena_alloc(c->st->arena, MAX_PARAMS * sizeof *ps);
    size_t n = 0;
    bool kwonly = false, seen_default = false;
    for (const char *p = text;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        bool opt = len > 1 && p[len - 1] == '=';
        size_t nl = len - opt;
        if (s->varkw) {
            bad_line(c, "nothing may follow ** in params", text);
            return false;
        }
        if (nl == 2 && strncmp(p, "**", 2) == 0 && !opt) {
            s->varkw = true;
        } else if (nl == 1 && p[0] == '*' && !opt && !s->varargs) {
            s->varargs = kwonly = true;
        } else if (!is_identifier(p, nl) || n == MAX_PARAMS) {
            bad_line(c, "bad parameter list", text);
            return false;
        } else {
            if (!opt && seen_default && !kwonly) {
                bad_line(c, "a required parameter follows one with a default", text);
                return false;
            }
            seen_default = seen_default || opt;
            for (size_t j = 0; j < n; j++)
                if (strncmp(ps[j].name, p, nl) == 0 && ps[j].name[nl] == '\0') {
                    bad_line(c, "duplicate parameter", ps[j].name);
                    return false;
                }
            ps[n++] = (py_param){ .name = arena_strndup(c->st->arena, p, nl), .optional = opt, .keyword_only = kwonly };
        }
        if (!comma)
            break;
        p = comma + 1;
    }
    s->params = ps;
    s->nparams = n;
    return true;
}

/* The key or value column: a parameter name, or `-`. The positional index is derived from it. */
static bool parse_operand(const line_ctx *c, const py_sink *s, const char *text, int *param, int *pos,
                          const char **kw)
{
    *param = *pos = -1;
    *kw = NULL;
    if (strcmp(text, "-") == 0)
        return true;
    *param = param_index(s, text);
    if (*param < 0) {
        bad_line(c, "key/value is not one of the params", text);
        return false;
    }
    *kw = s->params[*param].name;
    if (!s->params[*param].keyword_only)
        *pos = *param;
    return true;
}

static void parse_sink(const line_ctx *c, py_sink_kind kind, char **f)
{
    py_sink s = { .kind = kind, .line = c->line };
    if (!is_dotted(f[1]))
        return bad_line(c, "name is not a dotted Python name", f[1]);
    if (kind == PSK_CLASS && strcmp(f[2], "-") != 0 && !is_identifier(f[2], strlen(f[2])))
        return bad_line(c, "a class line's third field is a package name or -", f[2]);
    if (kind == PSK_CLASS)
        s.package = strcmp(f[2], "-") == 0 ? NULL : arena_strdup(c->st->arena, f[2]);
    else if (!parse_receiver(f[2], &s.receiver))
        return bad_line(c, "receiver is not any, object or cache", f[2]);
    if (!parse_params(c, &s, f[3]))
        return;
    if (!parse_operand(c, &s, f[4], &s.key_param, &s.key_pos, &s.key_kw)
        || !parse_operand(c, &s, f[5], &s.value_param, &s.value_pos, &s.value_kw))
        return;
    if (s.key_param < 0 && s.value_param < 0)
        return bad_line(c, "neither a key nor a value parameter", NULL);
    if (!parse_via(f[6], &s.via))
        return bad_line(c, "family is not attention-layer, cache-op or cache-update", f[6]);
    if (strcmp(f[8], "kv") != 0 && strcmp(f[8], "kv-split") != 0)
        return bad_line(c, "operands is not kv or kv-split", f[8]);
    s.name = arena_strdup(c->st->arena, f[1]);
    s.engine = ENGINE_NONE;
    if (strcmp(f[7], "-") != 0 && !engine_parse(f[7], &s.engine))
        return bad_line(c, "engine is not '-' or one kvlint models (vllm, sglang, transformers, ...)", f[7]);
    s.kv = strcmp(f[8], "kv") == 0;
    ARENA_PUSH(c->st->arena, c->st->sinks, s);
}

/* One table line, already split at its tabs. */
static void parse_line(const line_ctx *c, char **f, size_t n)
{
    static const char *const kinds[] = { "class", "call", "cache", "kernel" };
    size_t k = 0;
    while (k < 4 && strcmp(f[0], kinds[k]) != 0)
        k++;
    if (k == 4)
        return bad_line(c, "kind is not class, call, cache or kernel", f[0]);
    size_t want = k < 2 ? SINK_FIELDS : NAME_FIELDS;
    if (n != want) {
        diag_add(c->diags, DIAG_WARNING, c->path, c->line, 1,
                 "sink line ignored: a %s line has %zu tab-separated fields, not %zu", kinds[k], want, n);
        return;
    }
    if (k < 2)
        return parse_sink(c, k == 0 ? PSK_CLASS : PSK_CALL, f);
    if (k == 3 && !is_dotted(f[1]))
        return bad_line(c, "name is not a dotted Python name", f[1]);
    const char *name = arena_strdup(c->st->arena, f[1]);
    if (k == 3) {
        ARENA_PUSH(c->st->arena, c->st->kernels, name);
        return;
    }
    size_t pl = strlen(name);
    py_pattern pat = { .lead = pl && name[0] == '*', .trail = pl > 1 && name[pl - 1] == '*' };
    pat.core = name + pat.lead;
    pat.n = pl - pat.lead - pat.trail;
    ARENA_PUSH(c->st->arena, c->st->cache_names, pat);
}

static bool has_word(const py_word *v, size_t n, const char *s, size_t len)
{
    for (size_t i = 0; i < n; i++)
        if (v[i].n == len && memcmp(v[i].s, s, len) == 0)
            return true;
    return false;
}

/* The prefilter's words: the last dotted part of every sink, each once, in two lists: the sinks
 * not tied to a cache-named receiver (sink_words: the word alone decides), and those called on one
 * (cache_sink_words: the word decides after a cache name and a dot). Rebuilt whenever sinks are
 * added. */
static void index_words(py_state *st)
{
    st->sink_words.n = 0;
    st->cache_sink_words.n = 0;
    for (size_t i = 0; i < st->sinks.n; i++) {
        const py_sink *s = &st->sinks.v[i];
        const char *dot = strrchr(s->name, '.');
        py_word w = { .s = dot ? dot + 1 : s->name };
        w.n = strlen(w.s);
        if (s->receiver == PSR_CACHE) {
            if (!has_word(st->cache_sink_words.v, st->cache_sink_words.n, w.s, w.n))
                ARENA_PUSH(st->arena, st->cache_sink_words, w);
        } else if (!has_word(st->sink_words.v, st->sink_words.n, w.s, w.n)) {
            ARENA_PUSH(st->arena, st->sink_words, w);
        }
    }
}

void py_sinks_read(py_state *st, const char *path, const char *text, size_t len, diag_list *diags)
{
    char *buf = arena_strndup(st->arena, text, len);
    line_ctx c = { .st = st, .path = path, .diags = diags };
    tsv_reader rd;
    tsv_begin(&rd, buf);
    char *f[SINK_FIELDS + 1];
    for (size_t n; (n = tsv_next(&rd, f, SINK_FIELDS)) > 0;) {
        c.line = rd.line;
        parse_line(&c, f, n);
    }
    index_words(st);
}

static void load_table(py_state *st, const char *datadir, diag_list *diags)
{
    char *data;
    size_t len;
    char *path = fs_read_data_file(datadir, "grammars/python/sinks.tsv", SINKS_MAX_BYTES, "the Python sink table",
                                   diags, &data, &len);
    if (data)
        py_sinks_read(st, path, data, len, diags);
    free(data);
    free(path);
}

static void add_user_sinks(py_state *st, const kv_project *project)
{
    for (size_t i = 0; project && i < project->sinks.n; i++) {
        const user_sink *u = &project->sinks.v[i];
        if (!u->name)
            continue;
        py_sink s = {
            .kind = PSK_CALL,
            .name = arena_strdup(st->arena, u->name),
            .receiver = PSR_ANY,
            .key_param = -1,
            .value_param = -1,
            .via = SINK_USER,
            .engine = u->engine,
            .user_engine = u->user_engine ? arena_strdup(st->arena, u->user_engine) : NULL,
            .key_pos = u->key_arg,
            .value_pos = u->value_arg,
            .key_kw = u->key_kw ? arena_strdup(st->arena, u->key_kw) : NULL,
            .value_kw = u->value_kw ? arena_strdup(st->arena, u->value_kw) : NULL,
        };
        ARENA_PUSH(st->arena, st->sinks, s);
    }
}

py_state *py_state_new(void)
{
    py_state *st = xcalloc(1, sizeof *st);
    st->arena = arena_new();
    st->modcache = py_modcache_new();
    return st;
}

py_state *py_state_load(const char *datadir, const kv_project *project, diag_list *diags)
{
    py_state *st = py_state_new();
    load_table(st, datadir, diags);
    add_user_sinks(st, project);
    index_words(st);
    st->node_kinds = py_node_kinds(st->arena, &st->nnode_kinds);
    st->torch = pt_api_load(datadir, diags);
    st->ids = id_vocab_load(datadir, diags);
    st->dstrings = dtype_strings_load(datadir, diags);
    return st;
}

void py_state_free(py_state *st)
{
    if (!st)
        return;
    pt_api_free(st->torch);
    id_vocab_free(st->ids);
    dtype_strings_free(st->dstrings);
    py_modcache_free(st->modcache);
    arena_free(st->arena);
    free(st);
}

/* ---- matching ---- */

/* Does callee end with name at a dot boundary ("self.impl.do_kv_cache_update" vs "do_kv_cache_update")? */
static bool ends_with_parts(const char *callee, const char *name)
{
    size_t cl = strlen(callee), nl = strlen(name);
    if (nl > cl || strcmp(callee + cl - nl, name) != 0)
        return false;
    return cl == nl || callee[cl - nl - 1] == '.';
}

static int keyword_index(const py_call_shape *c, const char *name)
{
    for (size_t i = 0; name && i < c->nkw; i++)
        if (c->kw[i] && strcmp(c->kw[i], name) == 0)
            return (int)i;
    return -1;
}

/* A user sink: its key and value by keyword, else by position. */
static void bind_by_map(int pos, const char *kw, const py_call_shape *c, py_arg_ref *out)
{
    out->kw = keyword_index(c, kw);
    out->pos = out->kw < 0 && pos >= 0 && (size_t)pos < c->npos ? pos : -1;
}

bool py_sink_bind(const py_sink *s, const py_call_shape *c, py_arg_ref *key, py_arg_ref *value)
{
    *key = *value = (py_arg_ref){ -1, -1 };
    if (!s->params) {
        bind_by_map(s->key_pos, s->key_kw, c, key);
        bind_by_map(s->value_pos, s->value_kw, c, value);
        return true;
    }
    py_arg_ref bound[MAX_PARAMS];
    size_t npositional = 0;
    for (size_t i = 0; i < s->nparams; i++) {
        bound[i] = (py_arg_ref){ -1, -1 };
        npositional += !s->params[i].keyword_only;
    }
    for (size_t i = 0; i < c->npos; i++) {
        if (i < npositional)
            bound[i].pos = (int)i;
        else if (!s->varargs)
            return false;  /* more positional arguments than the signature takes */
    }
    for (size_t j = 0; j < c->nkw; j++) {
        int p = c->kw[j] ? param_index(s, c->kw[j]) : -1;
        if (p < 0 && !s->varkw)
            return false;  /* a keyword the signature does not have */
        if (p < 0)
            continue;
        if (bound[p].pos >= 0 || bound[p].kw >= 0)
            return false;  /* given twice */
        bound[p].kw = (int)j;
    }
    for (size_t i = 0; !c->star && i < s->nparams; i++)
        if (!s->params[i].optional && bound[i].pos < 0 && bound[i].kw < 0)
            return false;  /* a required parameter missing (unless a star argument may pass it) */
    if (s->key_param >= 0)
        *key = bound[s->key_param];
    if (s->value_param >= 0)
        *value = bound[s->value_param];
    return true;
}

static bool receiver_fits(const py_state *st, const py_sink *s, const py_call_shape *c)
{
    switch (s->receiver) {
    case PSR_ANY:
        return true;
    case PSR_OBJECT:
        return c->form == PCF_VALUE;
    case PSR_CACHE:
        return c->form == PCF_VALUE && c->recv && py_is_cache_name(st, c->recv, strlen(c->recv));
    }
    return false;
}

const py_sink *py_sink_match(const py_state *st, const py_call_shape *c, py_arg_ref *key, py_arg_ref *value)
{
    if (!st || !c->callee)
        return NULL;
    for (size_t i = 0; i < st->sinks.n; i++) {
        const py_sink *s = &st->sinks.v[i];
        if (s->kind == PSK_CALL && ends_with_parts(c->callee, s->name) && receiver_fits(st, s, c)
            && py_sink_bind(s, c, key, value))
            return s;
    }
    return NULL;
}

/* Does an imported class come from package? A relative import (".attention.Attention") or a bare
 * name whose import was not seen does; "diffusers.models.attention_processor.Attention" does not
 * come from vllm. */
static bool from_package(const char *spelling, const char *package)
{
    const char *dot = strchr(spelling, '.');
    if (!package || !dot || spelling[0] == '.')
        return true;
    return (size_t)(dot - spelling) == strlen(package) && strncmp(spelling, package, strlen(package)) == 0;
}

const py_sink *py_sink_class(const py_state *st, const char *class_name)
{
    if (!st || !class_name)
        return NULL;
    for (size_t i = 0; i < st->sinks.n; i++) {
        const py_sink *s = &st->sinks.v[i];
        if (s->kind == PSK_CLASS && ends_with_parts(class_name, s->name) && from_package(class_name, s->package))
            return s;
    }
    return NULL;
}

bool py_is_kernel_decorator(const py_state *st, const char *spelling)
{
    for (size_t i = 0; st && spelling && i < st->kernels.n; i++)
        if (ends_with_parts(spelling, st->kernels.v[i]))
            return true;
    return false;
}

static bool pattern_match(const py_pattern *p, const char *s, size_t n)
{
    if (p->n > n)
        return false;
    if (p->lead && p->trail) {
        for (size_t i = 0; i + p->n <= n; i++)
            if (s[i] == p->core[0] && memcmp(s + i, p->core, p->n) == 0)
                return true;
        return false;
    }
    if (p->lead)
        return memcmp(s + n - p->n, p->core, p->n) == 0;
    if (p->trail)
        return memcmp(s, p->core, p->n) == 0;
    return p->n == n && memcmp(s, p->core, n) == 0;
}

bool py_is_cache_name(const py_state *st, const char *name, size_t n)
{
    for (size_t i = 0; st && i < st->cache_names.n; i++)
        if (pattern_match(&st->cache_names.v[i], name, n))
            return true;
    return false;
}

bool py_is_sink_word(const py_state *st, const char *name, size_t n)
{
    return st && has_word(st->sink_words.v, st->sink_words.n, name, n);
}

bool py_is_cache_sink_word(const py_state *st, const char *name, size_t n)
{
    return st && has_word(st->cache_sink_words.v, st->cache_sink_words.n, name, n);
}
