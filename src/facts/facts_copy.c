/*
 * facts_copy.c: deep copies of facts into a file's arena.
 *
 * A front end may compute in memory that it frees when the file is done (the Python evaluator
 * makes its values, texts and steps in an arena of its own, most of which no fact keeps) and copy
 * only what it records. These functions copy every string, step, expression tree and location a
 * fact points to into the file's arena, so that the copy depends on nothing else. A location in
 * the file itself shares the file's path (file_facts.path); another file's path is copied.
 *
 * Expression trees may share subtrees (x = cfg.a * cfg.a; y = x * x): a copy keeps the sharing,
 * so it is no larger than the original, and copies the levels that expr.c reads
 * (KV_EXPR_MAX_DEPTH). A shared node met again nearer the root than where it was copied is copied
 * again from there (at most once per level), so that no reader finds less than in the original.
 * This file does not decide what is recorded, and never frees.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "facts/facts.h"
#include "util/xalloc.h"

/* expr.c reads a tree to this depth; a node one level below is looked at (is it a leaf?), not its
 * operands. */
enum { EXPR_COPY_DEPTH = KV_EXPR_MAX_DEPTH + 1 };

typedef struct expr_map {   /* original node -> its copy, open addressing */
    const kv_expr **from;
    kv_expr **to;
    int *depth;              /* the depth the copy was made at: it holds the levels below that */
    size_t n, cap;
} expr_map;

static const char *copy_str(kv_arena *a, const char *s)
{
    return s ? arena_strdup(a, s) : NULL;
}

static kv_loc copy_loc(file_facts *f, kv_loc l)
{
    if (l.path)
        l.path = l.path == f->path || strcmp(l.path, f->path) == 0 ? f->path : arena_strdup(f->arena, l.path);
    return l;
}

static dtype_ref copy_dref(file_facts *f, const dtype_ref *d)
{
    dtype_ref r = *d;
    r.text = copy_str(f->arena, d->text);
    r.loc = copy_loc(f, d->loc);
    return r;
}

static void map_free(expr_map *m)
{
    free(m->from);
    free(m->to);
    free(m->depth);
}

static size_t slot_of(const expr_map *m, const kv_expr *x)
{
    size_t h = (size_t)((uintptr_t)x >> 4) * 0x9E3779B97F4A7C15u;
    size_t i = h & (m->cap - 1);
    while (m->from[i] && m->from[i] != x)
        i = (i + 1) & (m->cap - 1);
    return i;
}

static void map_put(expr_map *m, const kv_expr *x, kv_expr *copy, int depth)
{
    if (2 * (m->n + 1) > m->cap) {
        expr_map g = { NULL, NULL, NULL, 0, m->cap ? 2 * m->cap : 16 };
        g.from = xcalloc(g.cap, sizeof *g.from);
        g.to = xcalloc(g.cap, sizeof *g.to);
        g.depth = xcalloc(g.cap, sizeof *g.depth);
        for (size_t i = 0; i < m->cap; i++)
            if (m->from[i]) {
                size_t j = slot_of(&g, m->from[i]);
                g.from[j] = m->from[i];
                g.to[j] = m->to[i];
                g.depth[j] = m->depth[i];
            }
        g.n = m->n;
        map_free(m);
        *m = g;
    }
    size_t i = slot_of(m, x);
    if (!m->from[i])
        m->n++;
    m->from[i] = x;
    m->to[i] = copy;
    m->depth[i] = depth;
}

static const kv_expr *copy_expr(kv_arena *a, expr_map *m, const kv_expr *x, int depth)
{
    if (!x || depth > EXPR_COPY_DEPTH)
        return NULL;
    if (m->cap) {
        size_t i = slot_of(m, x);
        if (m->from[i] && m->depth[i] <= depth)
            return m->to[i];
    }
    kv_expr *c = arena_alloc(a, sizeof *c);
    *c = *x;
    c->field = copy_str(a, x->field);
    map_put(m, x, c, depth);
    c->a = copy_expr(a, m, x->a, depth + 1);
    c->b = copy_expr(a, m, x->b, depth + 1);
    return c;
}

kv_value kv_value_copy(file_facts *f, const kv_value *v)
{
    kv_value r = *v;
    r.hi_sym = copy_str(f->arena, v->hi_sym);
    r.id_class = copy_str(f->arena, v->id_class);
    r.sym_dtype = copy_dref(f, &v->sym_dtype);
    r.text = copy_str(f->arena, v->text);
    r.origin = copy_loc(f, v->origin);
    if (v->nsteps && v->steps) {
        kv_step *st = arena_alloc(f->arena, v->nsteps * sizeof *st);
        for (size_t i = 0; i < v->nsteps; i++) {
            st[i].loc = copy_loc(f, v->steps[i].loc);
            st[i].what = copy_str(f->arena, v->steps[i].what);
        }
        r.steps = st;
    }
    if (v->expr) {
        expr_map m = {0};
        r.expr = copy_expr(f->arena, &m, v->expr, 0);
        map_free(&m);
    }
    return r;
}

store_fact store_fact_copy(file_facts *f, const store_fact *s)
{
    store_fact r = *s;
    r.loc = copy_loc(f, s->loc);
    r.sink = copy_str(f->arena, s->sink);
    r.user_engine = copy_str(f->arena, s->user_engine);
    r.tensor = copy_str(f->arena, s->tensor);
    if (s->nvalues && s->values) {
        kv_value *vals = arena_alloc(f->arena, s->nvalues * sizeof *vals);
        for (size_t i = 0; i < s->nvalues; i++)
            vals[i] = kv_value_copy(f, &s->values[i]);
        r.values = vals;
    }
    r.conv_api = copy_str(f->arena, s->conv_api);
    r.cache_dtype = copy_dref(f, &s->cache_dtype);
    return r;
}

construction_fact construction_fact_copy(file_facts *f, const construction_fact *c)
{
    construction_fact r = *c;
    r.loc = copy_loc(f, c->loc);
    r.api = copy_str(f->arena, c->api);
    r.value = kv_value_copy(f, &c->value);
    r.dtype = copy_dref(f, &c->dtype);
    return r;
}

intcast_fact intcast_fact_copy(file_facts *f, const intcast_fact *c)
{
    intcast_fact r = *c;
    r.loc = copy_loc(f, c->loc);
    r.api = copy_str(f->arena, c->api);
    r.value = kv_value_copy(f, &c->value);
    r.dtype = copy_dref(f, &c->dtype);
    return r;
}

arith_fact arith_fact_copy(file_facts *f, const arith_fact *x)
{
    arith_fact r = *x;
    r.loc = copy_loc(f, x->loc);
    r.a = kv_value_copy(f, &x->a);
    r.b = kv_value_copy(f, &x->b);
    r.dtype = copy_dref(f, &x->dtype);
    return r;
}

deploy_decl deploy_decl_copy(file_facts *f, const deploy_decl *d)
{
    deploy_decl r = *d;
    r.range_name = copy_str(f->arena, d->range_name);
    r.raw = copy_str(f->arena, d->raw);
    r.loc = copy_loc(f, d->loc);
    r.unresolved = copy_str(f->arena, d->unresolved);
    r.config_file = copy_str(f->arena, d->config_file);
    return r;
}
