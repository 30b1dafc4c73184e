/*
 * pyslice.c: which parts of a Python file the evaluator needs, so that only those are parsed.
 *
 * Parsing is most of what the Python front end costs, and most of a file that passes the
 * prefilter is code that cannot hold a fact: a 300 KB model runner with one cache store. The
 * prefilter's flags are a partition over the file's top-level statements (py_prefilter_units):
 * what one statement can compute depends only on its own text and on the statements whose names
 * it mentions (a function it calls, a class it instantiates or derives from, a module-level name it
 * reads, and theirs in turn). So a unit is *needed* when the flags of everything it reaches,
 * joined, decide the prefilter: the same sound test as for a whole file, applied to the part of
 * the file its evaluation can see. The parsed text is then
 *   - every statement that is not a definition or a class (imports, assignments, module-level
 *     code: small, and it sets up the module's names), and
 *   - every needed unit, with everything it reaches.
 * A definition or class left out is one that no needed unit names: its absence changes no value
 * the evaluator computes for the rest (a caller that passes it a sentinel reaches it, so the
 * caller's flags include its own, and both are parsed).
 *
 * Names are matched as words, not resolved: a word of a unit names every top-level definition or
 * class of that name, and every other statement that binds it (an assignment target `X = ...`,
 * `X, Y += ...`, `import x as X`, `from m import X`, `for X in`, `with ... as X`, a `def X` inside
 * an `if`): more than Python binds, never less, except names made by strings (globals()["X"]) or
 * by `global X` inside a function, which the evaluator does not follow either. Keywords name
 * nothing.
 *
 * The ranges are handed to tree-sitter (ts_parser_set_included_ranges): nodes keep their byte
 * offsets and lines in the whole file. pystmt.c parses the whole file again if the parts do not
 * parse cleanly, so a syntax error is located as before. This file does not parse or evaluate.
 */
#include <stdlib.h>
#include <string.h>
#include <tree_sitter/api.h>

#include "python/pyeval.h"
#include "python/pylexer.h"
#include "util/hash.h"

enum {
    MAX_UNITS = 1 << 16,          /* more top-level statements than this: parse the whole file */
    MIN_SAVED_PERCENT = 10,       /* parse the whole file unless at least this much is left out */
    MAX_EDGES_PER_UNIT = 64,      /* a name graph denser than this: parse the whole file */
};

typedef struct word_ref {
    const char *w;
    uint32_t n;
    uint32_t unit;
} word_ref;

typedef ARENA_VEC(word_ref) ref_vec;

typedef ARENA_VEC(uint32_t) unit_vec;

typedef struct name_slot {
    const char *w;                /* NULL: empty */
    uint32_t n;
    unit_vec units;               /* the units binding it, ascending, distinct */
} name_slot;

typedef struct name_table {
    name_slot *slot;
    size_t cap;
} name_table;

typedef struct edge {
    uint32_t from, to;
} edge;

typedef ARENA_VEC(edge) edge_vec;

static bool is_keyword(const char *w, size_t n)
{
    static const char *const kw[] = {
        "False", "None", "True", "and", "as", "assert", "async", "await", "break", "case", "class",
        "continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if",
        "import", "in", "is", "lambda", "match", "nonlocal", "not", "or", "pass", "raise", "return",
        "try", "type", "while", "with", "yield", "_",
    };
    for (size_t i = 0; i < sizeof kw / sizeof *kw; i++)
        if (strlen(kw[i]) == n && memcmp(kw[i], w, n) == 0)
            return true;
    return false;
}

static name_slot *table_find(const name_table *t, const char *w, uint32_t n)
{
    size_t i = kv_hash32(w, n) & (t->cap - 1);
    for (; t->slot[i].w; i = (i + 1) & (t->cap - 1))
        if (t->slot[i].n == n && memcmp(t->slot[i].w, w, n) == 0)
            return &t->slot[i];
    return &t->slot[i];
}

static void table_put(name_table *t, const word_ref *r, kv_arena *a)
{
    name_slot *s = table_find(t, r->w, r->n);
    if (!s->w)
        s->w = r->w, s->n = r->n;
    if (s->units.n == 0 || s->units.v[s->units.n - 1] != r->unit)   /* defs come in unit order */
        ARENA_PUSH(a, s->units, r->unit);
}

/* What a statement of a non-definition unit binds, read token by token: assignment targets (the
 * words before an `=` at bracket depth 0 that is not a comparison, `(a, b) = ...` and `d[k] = v`
 * included; in a chain `a = b = c`, the depth-0 words between), imported names (in parentheses
 * too), `for` targets, and the name after `as`, `def` and `class` (inside an `if` or `try`). */
enum { MAX_TARGETS = 32 };

typedef struct binder {
    enum { B_PLAIN, B_IMPORT, B_FROM, B_FROM_NAMES, B_FOR } kind;
    word_ref cand[MAX_TARGETS];   /* words that an `=` would make targets */
    size_t ncand;
    bool assigned;                /* an `=` was read: only depth-0 words can be targets now */
    bool overflow;                /* more candidates than fit: every word binds */
    bool want_name;               /* after def, class, as */
} binder;

static void binder_start(binder *b)
{
    b->kind = B_PLAIN;
    b->ncand = 0;
    b->assigned = b->overflow = b->want_name = false;
}

/* Is the `=` at p an assignment (`=`, `+=`, `>>=`, `:=`), not part of `==`, `!=`, `<=`, `>=`? */
static bool assigns(const char *data, const char *p, const char *end)
{
    if (p + 1 < end && p[1] == '=')
        return false;
    if (p > data && (p[-1] == '=' || p[-1] == '!'))
        return false;
    if (p > data && (p[-1] == '<' || p[-1] == '>'))
        return p - 1 > data && p[-2] == p[-1];   /* <<= >>= */
    return true;
}

static void binder_word(binder *b, const word_ref *r, bool keyword, int depth, kv_arena *a, ref_vec *defs)
{
    const char *w = r->w;
    size_t n = r->n;
#define IS(lit) (n == sizeof lit - 1 && memcmp(w, lit, n) == 0)
    if (b->want_name && !keyword) {
        ARENA_PUSH(a, *defs, *r);
        b->want_name = false;
        return;
    }
    if (IS("def") || IS("class") || IS("as")) {
        b->want_name = true;
        return;
    }
    if (b->kind == B_PLAIN && b->ncand == 0 && !b->assigned && depth == 0 && (IS("import") || IS("from") || IS("for"))) {
        b->kind = IS("import") ? B_IMPORT : IS("from") ? B_FROM : B_FOR;
        return;
    }
    if (b->kind == B_FROM && IS("import")) {
        b->kind = B_FROM_NAMES;
        return;
    }
    if (b->kind == B_FOR && IS("in") && depth == 0) {
        b->kind = B_PLAIN;
        b->assigned = true;   /* what follows `in` is read, not bound */
        return;
    }
#undef IS
    if (keyword || b->kind == B_FROM)
        return;
    if (b->assigned && depth > 0 && b->kind == B_PLAIN)
        return;
    if (b->kind == B_PLAIN && !b->overflow && b->ncand < MAX_TARGETS) {
        b->cand[b->ncand++] = *r;
        return;
    }
    if (b->kind == B_PLAIN && !b->overflow) {   /* too many to tell: every word binds */
        b->overflow = true;
        for (size_t i = 0; i < b->ncand; i++)
            ARENA_PUSH(a, *defs, b->cand[i]);
        b->ncand = 0;
    }
    ARENA_PUSH(a, *defs, *r);
}

static void binder_assign(binder *b, kv_arena *a, ref_vec *defs)
{
    for (size_t i = 0; i < b->ncand; i++)
        ARENA_PUSH(a, *defs, b->cand[i]);
    b->ncand = 0;
    b->assigned = true;
}

/* Every word of the file outside a dotted access (refs), and the names each unit binds (defs): its
 * own name for a definition or class, what its statements bind for any other unit. */
static void read_words(const char *data, size_t len, const py_unit *u, size_t nu, kv_arena *a, ref_vec *refs,
                       ref_vec *defs)
{
    for (size_t i = 0; i < nu; i++)
        if (u[i].kind != PY_UNIT_OTHER && u[i].name)
            ARENA_PUSH(a, *defs, ((word_ref){ u[i].name, u[i].name_len, (uint32_t)i }));
    lexer lx;
    py_lex_init(&lx, data, len);
    size_t cur = 0;
    int depth = 0;
    char prev = 0;
    binder b;
    binder_start(&b);
    for (lex_kind k; (k = py_lex_next(&lx)) != LEX_END;) {
        if (k == LEX_COMMENT)
            continue;
        uint32_t at = (uint32_t)(lx.tok - data);
        while (cur + 1 < nu && at >= u[cur + 1].start)
            cur++, depth = 0;   /* a unit starts at bracket depth 0 */
        bool other = u[cur].kind == PY_UNIT_OTHER;
        if (other && depth == 0 && (lx.fresh_line || at == u[cur].start))
            binder_start(&b);
        if (k == LEX_PUNCT) {
            prev = *lx.tok;
            if (prev == '(' || prev == '[' || prev == '{')
                depth++;
            else if ((prev == ')' || prev == ']' || prev == '}') && depth > 0)
                depth--;
            else if (other && depth == 0 && prev == ';')
                binder_start(&b);
            else if (other && depth == 0 && prev == '=' && assigns(data, lx.tok, data + len))
                binder_assign(&b, a, defs);
            continue;
        }
        if (k == LEX_WORD && prev != '.') {
            word_ref r = { lx.tok, (uint32_t)lx.len, (uint32_t)cur };
            bool keyword = is_keyword(lx.tok, lx.len);
            if (!keyword)
                ARENA_PUSH(a, *refs, r);
            if (other)
                binder_word(&b, &r, keyword, depth, a, defs);
        }
        prev = 0;
    }
}

static int cmp_edge(const void *a, const void *b)
{
    const edge *x = a, *y = b;
    if (x->from != y->from)
        return x->from < y->from ? -1 : 1;
    return x->to < y->to ? -1 : x->to > y->to;
}

/* The edges unit -> unit it names, sorted and distinct; false if there would be more than
 * max_edges (then the file is parsed whole: twenty thousand `y = ...` lines all binding y). */
static bool name_edges(const ref_vec *refs, const ref_vec *defs, size_t max_edges, kv_arena *a, edge_vec *out)
{
    name_table t = { NULL, 16 };
    while (t.cap < 2 * defs->n + 16)
        t.cap *= 2;
    t.slot = arena_zalloc(a, t.cap * sizeof *t.slot);
    for (size_t i = 0; i < defs->n; i++)
        table_put(&t, &defs->v[i], a);
    for (size_t i = 0; i < refs->n; i++) {
        const word_ref *r = &refs->v[i];
        const name_slot *s = table_find(&t, r->w, r->n);
        if (out->n + s->units.n > max_edges)
            return false;
        for (size_t k = 0; s->w && k < s->units.n; k++)
            if (s->units.v[k] != r->unit)
                ARENA_PUSH(a, *out, ((edge){ r->unit, s->units.v[k] }));
    }
    if (out->n)
        qsort(out->v, out->n, sizeof *out->v, cmp_edge);
    size_t m = 0;
    for (size_t i = 0; i < out->n; i++)
        if (m == 0 || cmp_edge(&out->v[m - 1], &out->v[i]) != 0)
            out->v[m++] = out->v[i];
    out->n = m;
    return true;
}

/* Compressed adjacency: the targets of unit i are to[first[i] .. first[i+1]). */
typedef struct graph {
    uint32_t *first, *to;
} graph;

static graph adjacency(const edge *e, size_t ne, size_t nu, bool reverse, kv_arena *a)
{
    graph g = { arena_zalloc(a, (nu + 1) * sizeof *g.first), arena_alloc(a, (ne ? ne : 1) * sizeof *g.to) };
    for (size_t i = 0; i < ne; i++)
        g.first[(reverse ? e[i].to : e[i].from) + 1]++;
    for (size_t i = 0; i < nu; i++)
        g.first[i + 1] += g.first[i];
    uint32_t *fill = arena_alloc(a, (nu + 1) * sizeof *fill);
    memcpy(fill, g.first, (nu + 1) * sizeof *fill);
    for (size_t i = 0; i < ne; i++) {
        uint32_t from = reverse ? e[i].to : e[i].from, to = reverse ? e[i].from : e[i].to;
        g.to[fill[from]++] = to;
    }
    return g;
}

/* Mark with bit everything reachable in g from the units already marked with it. */
static void reach(const graph *g, size_t nu, uint16_t *mark, uint16_t bit, kv_arena *a)
{
    uint32_t *queue = arena_alloc(a, nu * sizeof *queue);
    size_t head = 0, tail = 0;
    for (size_t i = 0; i < nu; i++)
        if (mark[i] & bit)
            queue[tail++] = (uint32_t)i;
    while (head < tail) {
        uint32_t u = queue[head++];
        for (uint32_t k = g->first[u]; k < g->first[u + 1]; k++)
            if (!(mark[g->to[k]] & bit)) {
                mark[g->to[k]] |= bit;
                queue[tail++] = g->to[k];
            }
    }
}

static void advance(const char *data, uint32_t *at, uint32_t to, uint32_t *row, uint32_t *col)
{
    for (; *at < to; (*at)++)
        if (data[*at] == '\n')
            (*row)++, *col = 0;
        else
            (*col)++;
}

static int cmp_range(const void *a, const void *b)
{
    const py_range *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

TSRange *py_ts_ranges(const char *data, size_t len, py_range *r, size_t k, kv_arena *a, uint32_t *count)
{
    qsort(r, k, sizeof *r, cmp_range);
    size_t m = 0;
    for (size_t i = 0; i < k; i++) {
        if (r[i].end > len || r[i].start >= r[i].end)
            continue;
        if (m && r[i].start <= r[m - 1].end) {   /* overlapping or adjacent: one range */
            if (r[i].end > r[m - 1].end)
                r[m - 1].end = r[i].end;
        } else {
            r[m++] = r[i];
        }
    }
    TSRange *out = arena_alloc(a, (m ? m : 1) * sizeof *out);
    uint32_t row = 0, col = 0, at = 0;
    for (size_t i = 0; i < m; i++) {   /* rows and columns, counted forward */
        advance(data, &at, r[i].start, &row, &col);
        out[i].start_byte = r[i].start;
        out[i].start_point = (TSPoint){ row, col };
        advance(data, &at, r[i].end, &row, &col);
        out[i].end_byte = r[i].end;
        out[i].end_point = (TSPoint){ row, col };
    }
    *count = (uint32_t)m;
    return out;
}

TSRange *py_slice(const py_state *st, const fe_context *ctx, const char *path, const char *data, size_t len,
                  kv_arena *a, uint32_t *count)
{
    *count = 0;
    py_unit *u;
    size_t nu = py_prefilter_units(st, ctx, path, data, len, a, &u);
    if (nu < 3 || nu > MAX_UNITS)
        return NULL;
    ref_vec refs = { 0 }, defs = { 0 };
    read_words(data, len, u, nu, a, &refs, &defs);
    edge_vec e = { 0 };
    if (!name_edges(&refs, &defs, MAX_EDGES_PER_UNIT * nu + MAX_EDGES_PER_UNIT * 1024, a, &e))
        return NULL;
    /* flags[i]: the flags of everything unit i reaches, i.e. the units reaching a flagged one */
    uint16_t *flags = arena_alloc(a, nu * sizeof *flags);
    for (size_t i = 0; i < nu; i++)
        flags[i] = u[i].flags;
    graph back = adjacency(e.v, e.n, nu, true, a);
    for (uint16_t bit = 1; bit <= PF_DTYPE; bit <<= 1)
        reach(&back, nu, flags, bit, a);
    uint16_t *keep = arena_zalloc(a, nu * sizeof *keep);
    for (size_t i = 0; i < nu; i++)
        keep[i] = py_prefilter_decides(flags[i]) ? 1 : 0;
    graph fwd = adjacency(e.v, e.n, nu, false, a);
    reach(&fwd, nu, keep, 1, a);
    size_t kept = 0;
    for (size_t i = 0; i < nu; i++) {
        if (u[i].kind == PY_UNIT_OTHER)
            keep[i] = 1;
        if (keep[i])
            kept += u[i].end - u[i].start;
    }
    if ((len - kept) * 100 < len * MIN_SAVED_PERCENT)
        return NULL;
    py_range *r = arena_alloc(a, nu * sizeof *r);
    size_t k = 0;
    for (size_t i = 0; i < nu; i++)
        if (keep[i])
            r[k++] = (py_range){ u[i].start, u[i].end };
    return py_ts_ranges(data, len, r, k, a, count);
}

size_t py_slice_bytes(const py_state *st, const fe_context *ctx, const char *path, const char *data, size_t len)
{
    kv_arena *a = arena_new();
    uint32_t n;
    TSRange *r = py_slice(st, ctx, path, data, len, a, &n);
    size_t bytes = r ? 0 : len;
    for (uint32_t i = 0; r && i < n; i++)
        bytes += r[i].end_byte - r[i].start_byte;
    arena_free(a);
    return bytes;
}
