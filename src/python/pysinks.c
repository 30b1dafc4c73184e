/*
 * pysinks.c: the sink table of the Python front end (see pyfe.h and grammars/python/sinks.tsv).
 *
 * Loaded once by init() before any thread starts, then only read. The built-in entries are data
 * (sinks.tsv) so that adding an engine's write function is a one-line change; a project's own write
 * functions come from .kvlint.yaml (kv_project.sinks) and are appended as PSK_CALL entries.
 * This file does not look at syntax trees: callers pass the callee's dotted spelling.
 */
#include "python/pyfe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fsutil.h"
#include "util/xalloc.h"

enum { SINKS_MAX_BYTES = 1 << 20 };

static bool parse_family(const char *s, sink_family *out)
{
    static const struct { const char *name; sink_family f; } t[] = {
        { "attention-layer", SINK_ATTENTION_LAYER }, { "cache-op", SINK_CACHE_OP },
        { "cache-update", SINK_CACHE_UPDATE }, { "direct", SINK_DIRECT }, { "user", SINK_USER },
    };
    for (size_t i = 0; i < sizeof t / sizeof *t; i++)
        if (strcmp(s, t[i].name) == 0) {
            *out = t[i].f;
            return true;
        }
    return false;
}

static bool parse_kind(const char *s, py_sink_kind *out, bool *is_cache)
{
    *is_cache = strcmp(s, "cache") == 0;
    if (*is_cache)
        return true;
    static const struct { const char *name; py_sink_kind k; } t[] = {
        { "class", PSK_CLASS }, { "call", PSK_CALL }, { "method", PSK_METHOD }, { "prefix", PSK_PREFIX },
    };
    for (size_t i = 0; i < sizeof t / sizeof *t; i++)
        if (strcmp(s, t[i].name) == 0) {
            *out = t[i].k;
            return true;
        }
    return false;
}

static const char *field_or_null(kv_arena *a, const char *s)
{
    return strcmp(s, "-") == 0 ? NULL : arena_strdup(a, s);
}

static int field_int(const char *s)
{
    return strcmp(s, "-") == 0 ? -1 : atoi(s);
}

/* One table line: 9 tab-separated fields. False (with a diagnostic) if malformed. */
static void parse_line(py_state *st, char *line, const char *path, uint32_t lineno, diag_list *diags)
{
    char *f[9];
    size_t n = 0;
    for (char *p = line; n < 9;) {
        f[n++] = p;
        char *tab = strchr(p, '\t');
        if (!tab)
            break;
        *tab = '\0';
        p = tab + 1;
    }
    py_sink s = {0};
    bool is_cache = false;
    if (n != 9 || !parse_kind(f[0], &s.kind, &is_cache) || !parse_family(f[2], &s.family)) {
        diag_add(diags, DIAG_WARNING, path, lineno, 1, "malformed sink line ignored (want 9 tab-separated fields)");
        return;
    }
    if (is_cache) {
        ARENA_PUSH(st->arena, st->cache_names, arena_strdup(st->arena, f[1]));
        return;
    }
    s.name = arena_strdup(st->arena, f[1]);
    s.engine = field_or_null(st->arena, f[3]);
    s.key_pos = field_int(f[4]);
    s.value_pos = field_int(f[5]);
    s.key_kw = field_or_null(st->arena, f[6]);
    s.value_kw = field_or_null(st->arena, f[7]);
    s.kv = strcmp(f[8], "kv") == 0;
    ARENA_PUSH(st->arena, st->sinks, s);
}

static void load_table(py_state *st, const char *datadir, diag_list *diags)
{
    char *path = arena_printf(st->arena, "%s/grammars/python/sinks.tsv", datadir ? datadir : ".");
    char *data = NULL;
    size_t len = 0;
    const char *err = NULL;
    if (fs_read_file(path, SINKS_MAX_BYTES, &data, &len, &err) != FS_OK) {
        diag_add(diags, DIAG_ERROR, path, 0, 0, "cannot read the Python sink table: %s", err ? err : "too large");
        free(data);
        return;
    }
    uint32_t lineno = 0;
    for (char *line = data; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        lineno++;
        size_t l = strlen(line);
        if (l && line[l - 1] == '\r')
            line[--l] = '\0';
        if (l && line[0] != '#')
            parse_line(st, line, path, lineno, diags);
        line = nl ? nl + 1 : NULL;
    }
    free(data);
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
            .family = SINK_USER,
            .engine = u->engine ? arena_strdup(st->arena, u->engine) : NULL,
            .key_pos = u->key_arg,
            .value_pos = u->value_arg,
            .key_kw = u->key_kw ? arena_strdup(st->arena, u->key_kw) : NULL,
            .value_kw = u->value_kw ? arena_strdup(st->arena, u->value_kw) : NULL,
        };
        ARENA_PUSH(st->arena, st->sinks, s);
    }
}

py_state *py_state_load(const char *datadir, const kv_project *project, diag_list *diags)
{
    py_state *st = xcalloc(1, sizeof *st);
    st->arena = arena_new();
    load_table(st, datadir, diags);
    add_user_sinks(st, project);
    st->node_kinds = py_node_kinds(st->arena, &st->nnode_kinds);
    return st;
}

void py_state_free(py_state *st)
{
    if (!st)
        return;
    arena_free(st->arena);
    free(st);
}

/* Does callee end with name at a dot boundary ("self.impl.do_kv_cache_update" vs "do_kv_cache_update")? */
static bool ends_with_parts(const char *callee, const char *name)
{
    size_t cl = strlen(callee), nl = strlen(name);
    if (nl > cl || strcmp(callee + cl - nl, name) != 0)
        return false;
    return cl == nl || callee[cl - nl - 1] == '.';
}

const py_sink *py_sink_for_call(const py_state *st, const char *callee)
{
    if (!st || !callee)
        return NULL;
    for (size_t i = 0; i < st->sinks.n; i++) {
        const py_sink *s = &st->sinks.v[i];
        if (s->kind == PSK_CALL && ends_with_parts(callee, s->name))
            return s;
        if (s->kind == PSK_PREFIX && strncmp(callee, s->name, strlen(s->name)) == 0)
            return s;
        if (s->kind == PSK_METHOD) {
            size_t cl = strlen(callee), nl = strlen(s->name);
            if (cl > nl + 1 && ends_with_parts(callee, s->name)) {
                /* the receiver's last identifier must be a cache name */
                const char *recv_end = callee + cl - nl - 1;
                const char *recv = recv_end;
                while (recv > callee && recv[-1] != '.')
                    recv--;
                if (py_is_cache_name(st, recv, (size_t)(recv_end - recv)))
                    return s;
            }
        }
    }
    return NULL;
}

const py_sink *py_sink_class(const py_state *st, const char *class_name)
{
    if (!st || !class_name)
        return NULL;
    for (size_t i = 0; i < st->sinks.n; i++)
        if (st->sinks.v[i].kind == PSK_CLASS && ends_with_parts(class_name, st->sinks.v[i].name))
            return &st->sinks.v[i];
    return NULL;
}

static bool pattern_match(const char *pat, const char *s, size_t n)
{
    size_t pl = strlen(pat);
    bool lead = pl && pat[0] == '*', trail = pl > 1 && pat[pl - 1] == '*';
    const char *core = pat + lead;
    size_t cl = pl - lead - trail;
    if (cl > n)
        return false;
    if (lead && trail) {
        for (size_t i = 0; i + cl <= n; i++)
            if (memcmp(s + i, core, cl) == 0)
                return true;
        return false;
    }
    if (lead)
        return memcmp(s + n - cl, core, cl) == 0;
    if (trail)
        return memcmp(s, core, cl) == 0;
    return cl == n && memcmp(s, core, cl) == 0;
}

bool py_is_cache_name(const py_state *st, const char *name, size_t n)
{
    for (size_t i = 0; st && i < st->cache_names.n; i++)
        if (pattern_match(st->cache_names.v[i], name, n))
            return true;
    return false;
}

/* The last dotted part of a spelling. */
static const char *last_part(const char *s)
{
    const char *dot = strrchr(s, '.');
    return dot ? dot + 1 : s;
}

bool py_is_sink_word(const py_state *st, const char *name, size_t n)
{
    if (py_is_cache_name(st, name, n))
        return true;
    for (size_t i = 0; i < st->sinks.n; i++) {
        const py_sink *s = &st->sinks.v[i];
        if (s->kind == PSK_METHOD)
            continue;  /* needs a cache-named receiver, which is a word of its own */
        const char *w = s->name;
        if (s->kind == PSK_PREFIX) {
            /* torch.ops._C_cache_ops.: its last non-empty part */
            size_t l = strlen(w);
            while (l && w[l - 1] == '.')
                l--;
            size_t b = l;
            while (b && w[b - 1] != '.')
                b--;
            if (l - b == n && memcmp(w + b, name, n) == 0)
                return true;
            continue;
        }
        w = last_part(w);
        if (strlen(w) == n && memcmp(w, name, n) == 0)
            return true;
    }
    return false;
}
