/*
 * emit.c: the shared half of rule evaluation: message templates and their placeholders, the text
 * helpers every family uses (numbers, locations, where a dtype was declared, what a value becomes
 * on each path), the walk over store x value x deployment most families share, and ev_emit(),
 * which turns a family's draft into a finding (honouring `unless`). No family logic here.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/family.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/numfmt.h"

/* ---- message templates ---- */

void ev_var(vars *vs, const char *name, const char *value)
{
    for (int i = 0; i < vs->n; i++)
        if (strcmp(vs->name[i], name) == 0) {
            vs->value[i] = value;
            return;
        }
    if (vs->n < MAX_VARS) {
        vs->name[vs->n] = name;
        vs->value[vs->n++] = value;
    }
}

static char *expand(kv_arena *a, const char *tmpl, const vars *vs)
{
    strbuf sb = STRBUF_INIT;
    for (const char *p = tmpl; *p;) {
        const char *end = *p == '{' ? strchr(p, '}') : NULL;
        if (!end) {
            sb_addc(&sb, *p++);
            continue;
        }
        size_t len = (size_t)(end - p - 1);
        const char *val = NULL;
        for (int i = 0; i < vs->n; i++)
            if (strlen(vs->name[i]) == len && strncmp(vs->name[i], p + 1, len) == 0)
                val = vs->value[i];
        if (val)
            sb_adds(&sb, val);
        else
            sb_add(&sb, p, len + 2);
        p = end + 1;
    }
    /* Trim a trailing space left by an empty {fix}. */
    while (sb.len && sb.buf[sb.len - 1] == ' ')
        sb.buf[--sb.len] = '\0';
    char *s = arena_strdup(a, sb_str(&sb));
    sb_release(&sb);
    return s;
}

/* ---- the evaluation context ---- */

static uint64_t hash_str(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
    return h;
}

static bool seen_has(const ectx *c, const char *k)
{
    if (!c->capseen)
        return false;
    for (size_t i = hash_str(k) & (c->capseen - 1);; i = (i + 1) & (c->capseen - 1)) {
        if (!c->seen[i])
            return false;
        if (strcmp(c->seen[i], k) == 0)
            return true;
    }
}

static void seen_add(ectx *c, const char *k)
{
    if (2 * (c->nseen + 1) > c->capseen) {
        size_t cap = c->capseen ? 2 * c->capseen : 256;
        const char **old = c->seen;
        size_t oldcap = c->capseen;
        c->seen = xcalloc(cap, sizeof *c->seen);
        c->capseen = cap;
        c->nseen = 0;
        for (size_t i = 0; i < oldcap; i++)
            if (old[i])
                seen_add(c, old[i]);
        free(old);
    }
    size_t i = hash_str(k) & (c->capseen - 1);
    while (c->seen[i]) {
        if (strcmp(c->seen[i], k) == 0)
            return;
        i = (i + 1) & (c->capseen - 1);
    }
    c->seen[i] = k;
    c->nseen++;
}

char *ev_num(kv_arena *a, double x)
{
    char buf[64];
    fmt_number(buf, sizeof buf, x, NUMFMT_PROSE);
    return arena_strdup(a, buf);
}

char *ev_loc_text(kv_arena *a, const kv_loc *l)
{
    return arena_printf(a, "%s:%u:%u", l->path ? l->path : "?", l->line, l->col);
}

const char *ev_dtype_name(kvn_dtype d)
{
    return kvn_dtype_name(d);
}

kv_engine ev_engine(const deployment *d, kv_engine fact_engine)
{
    if (d && engine_known(d->engine))
        return d->engine;
    return fact_engine;
}

kv_engine ev_store_engine(const deployment *d, const store_fact *s)
{
    return s->via == SINK_DIRECT ? ENGINE_TRANSFORMERS : ev_engine(d, s->engine);
}

/* "declared at deploy/k8s.yaml:20:15" / "what-if --kv-cache-dtype" / "engine default". */
const char *ev_declared(kv_arena *a, const resolved_dtype *rd)
{
    bool is_auto = rd->how && strncmp(rd->how, "auto", 4) == 0;
    if (rd->decl && rd->decl->loc.path)
        return arena_printf(a, "declared at %s%s%s", ev_loc_text(a, &rd->decl->loc), is_auto ? ", " : "",
                            is_auto ? rd->how : "");
    return rd->how ? rd->how : "engine default";
}

size_t ev_scope(ectx *c, size_t fi, const deployment *const **out)
{
    if (!c->scope_valid || c->scope_fi != fi) {
        if (!c->scope)
            c->scope = arena_alloc(c->out->arena, (c->deps->n + 1) * sizeof *c->scope);
        c->nscope = 0;
        const char *path = c->files[fi]->path;
        bool script = path_is_script(path, c->deps->root_len);  /* deployment_applies, path walked once */
        for (size_t i = 0; i < c->deps->n; i++) {
            const char *scope = c->deps->v[i].scope;
            if (!scope || !script || !path || strncmp(path, scope, strlen(scope)) == 0)
                c->scope[c->nscope++] = &c->deps->v[i];
        }
        if (c->nscope == 0 && c->deps->fallback)
            c->scope[c->nscope++] = c->deps->fallback;
        c->scope_fi = fi;
        c->scope_valid = true;
    }
    *out = c->scope;
    return c->nscope;
}

/* The key of what a finding is about (value origin, fact location, deployment). */
const char *ev_subject(kv_arena *a, const kv_loc *origin, const kv_loc *fact, const deployment *d)
{
    return arena_printf(a, "%s:%u:%u|%s:%u:%u|%s", origin->path ? origin->path : "", origin->line, origin->col,
                        fact->path ? fact->path : "", fact->line, fact->col, d && d->name ? d->name : "");
}

static bool superseded(const ectx *c, const char *key)
{
    bool hit = false;
    strbuf sb = STRBUF_INIT;
    for (size_t u = 0; !hit && c->r->unless && c->r->unless[u]; u++) {
        sb_reset(&sb);
        sb_addf(&sb, "%s|%s", c->r->unless[u], key);
        hit = seen_has(c, sb_str(&sb));
    }
    sb_release(&sb);
    return hit;
}

void ev_related(draft *f, const kv_loc *loc, const char *msg)
{
    if (loc && loc->path && f->nrelated < 4)
        f->related[f->nrelated++] = (related_loc){ *loc, msg };
}

void ev_emit(ectx *c, draft *f, vars *vs)
{
    kv_arena *a = c->out->arena;
    if (superseded(c, f->key))
        return;
    ev_var(vs, "fix", c->r->fix);
    if (f->dep)
        ev_var(vs, "deployment", f->dep->name);
    finding x = {
        .rule = c->r,
        .severity = c->r->severity,
        .loc = f->loc,
        .message = expand(a, c->r->message, vs),
        .value = f->value,
        .dtype = f->dtype,
        .stored = f->nstored ? arena_memdup(a, f->stored, f->nstored * sizeof *f->stored) : NULL,
        .nstored = f->nstored,
        .related = f->nrelated ? arena_memdup(a, f->related, f->nrelated * sizeof *f->related) : NULL,
        .nrelated = f->nrelated,
        .deployment = f->dep ? f->dep->name : NULL,
    };
    if (f->dep) {
        finding_deployment *fd = arena_alloc(a, sizeof *fd);
        size_t order = f->dep == c->deps->fallback ? c->deps->n : (size_t)(f->dep - c->deps->v);
        *fd = (finding_deployment){ f->dep->name, f->dtype, f->dep->loc, order < c->deps->n ? order : c->deps->n };
        x.deployments = fd;
        x.ndeployments = 1;
    }
    if (f->dtype_from && f->dtype_from->decl && f->dtype_from->decl->loc.path) {
        x.has_dtype_origin = true;
        x.dtype_origin = f->dtype_from->decl->loc;
    } else if (f->code_dtype_loc && f->code_dtype_loc->path) {
        x.has_dtype_origin = true;
        x.dtype_origin = *f->code_dtype_loc;
    }
    if (f->flow) {
        x.steps = f->flow->steps;
        x.nsteps = f->flow->nsteps;
    }
    ARENA_PUSH(a, c->out->v, x);
    seen_add(c, arena_printf(a, "%s|%s", c->r->id, f->key));
}

kv_loc ev_origin(const kv_value *v, const kv_loc *fallback)
{
    return v->origin.path ? v->origin : *fallback;
}

bool ev_wants_value(const rule *r, const kv_value *v)
{
    return (unsigned)v->kind <= VK_FLOAT && ((r->values >> v->kind) & 1u);
}

bool ev_wants_outcome(const rule *r, int outcome)
{
    return outcome >= 0 && ((r->outcomes >> outcome) & 1u);
}

/* The points of a value worth checking under a deployment (extremes of its interval). */
size_t ev_value_points(const kv_value *v, const deployment *d, double pts[2])
{
    kvn_dtype model = d ? d->model.dtype : KVN_DTYPE_INVALID, kv = d ? d->kv.dtype : KVN_DTYPE_INVALID;
    switch (v->kind) {
    case VK_SENTINEL: {
        double x = value_concrete(v, model, kv, deployment_spelling(d));
        if (isnan(x))
            return 0;
        pts[0] = x;
        return 1;
    }
    case VK_FLOAT:
        pts[0] = v->lo;
        pts[1] = v->hi;
        return v->lo == v->hi || isnan(v->hi) ? 1 : 2;
    case VK_INTEGER:
        if (v->hi_unknown || v->hi_sym || isnan(v->hi))
            return 0;
        pts[0] = v->hi;
        return 1;
    case VK_UNKNOWN: return 0;
    }
    return 0;
}

const char *ev_value_text(kv_arena *a, const kv_value *v, double x)
{
    return v->text ? v->text : ev_num(a, x);
}

/* "as -inf by a PyTorch cast and as -57344 by vLLM's CUDA cache writer" (equal results joined). */
const char *ev_stored_text(kv_arena *a, const path_result *p, size_t n)
{
    strbuf sb = STRBUF_INIT;
    bool done[MAX_PATHS] = { false };
    for (size_t i = 0; i < n; i++) {
        if (done[i])
            continue;
        char buf[64];
        fmt_number(buf, sizeof buf, p[i].stored, NUMFMT_PROSE);
        sb_addf(&sb, "%sas %s by %s", sb.len ? " and " : "", buf, p[i].path);
        for (size_t j = i + 1; j < n; j++)
            if (!done[j] && (p[j].stored == p[i].stored || (isnan(p[j].stored) && isnan(p[i].stored)))) {
                sb_addf(&sb, " and %s", p[j].path);
                done[j] = true;
            }
    }
    char *s = arena_strdup(a, sb_str(&sb));
    sb_release(&sb);
    return s;
}

bool ev_wants_store(const rule *r, const store_fact *s)
{
    return (r->operands >> s->operand) & 1u;
}

/* A value computed from checkpoint fields, under deployment d: the number it is there, false while
 * any field is unknown. A field read as it is (`config.mask_value`, `-config.x`) is what the same
 * literal would be (a sentinel from KV_SENTINEL_MAGNITUDE on); arithmetic makes an ordinary float, as
 * arithmetic on literals does (`10**9`, pyfe.h). */
bool ev_resolve_fields(const kv_value *v, const deployment *d, kv_value *out)
{
    double x;
    if (!d || !kv_expr_eval(v->expr, deployment_field_fn, d, &x))
        return false;
    const kv_expr *e = v->expr->op == KX_NEG ? v->expr->a : v->expr;
    *out = *v;
    out->kind = e->op == KX_FIELD && fabs(x) >= KV_SENTINEL_MAGNITUDE ? VK_SENTINEL : VK_FLOAT;
    out->lo = out->hi = x;
    return true;
}

bool ev_store_in_recipe(const store_fact *s, const deployment *d)
{
    return s->cache_dtype.kind == DREF_CONCRETE || !d || !kvn_dtype_nope_only(d->kv.dtype) ||
           s->part == LATENT_NOPE;
}

void ev_each_stored_value(ectx *c, unsigned flags, stored_value_fn fn)
{
    const deployment *const *deps;
    for (size_t fi = 0; fi < c->nfiles; fi++) {
        const file_facts *ff = c->files[fi];
        for (size_t k = 0; k < ff->stores.n; k++) {
            const store_fact *s = &ff->stores.v[k];
            if (!ev_wants_store(c->r, s) || ((flags & WALK_SHARED_BLOCK) && !s->shares_block))
                continue;
            for (size_t vi = 0; vi < s->nvalues; vi++) {
                const kv_value *v = &s->values[vi];
                if (!v->expr && !ev_wants_value(c->r, v))
                    continue;
                size_t nd = ev_scope(c, fi, &deps);
                if ((flags & WALK_FIXED_DTYPE_ONCE) && s->cache_dtype.kind == DREF_CONCRETE && nd && !v->expr)
                    nd = 1;
                for (size_t di = 0; di < nd; di++) {
                    kv_value known;
                    if (!ev_store_in_recipe(s, deps[di]))
                        continue;
                    if (!v->expr)
                        fn(c, s, v, deps[di]);
                    else if (ev_resolve_fields(v, deps[di], &known) && ev_wants_value(c->r, &known))
                        fn(c, s, &known, deps[di]); /* unknown fields: no value, no finding */
                }
            }
        }
    }
}

const char *ev_sink_note(kv_arena *a, const store_fact *s)
{
    if (s->via == SINK_DIRECT && s->sink)
        return arena_printf(a, "written into the cache tensor %s as the %s", s->sink, operand_name(s->operand));
    return arena_printf(a, "stored into the KV cache as the %s by %s", operand_name(s->operand),
                        s->sink ? s->sink : "this write");
}

static bool deployment_dtype(const dtype_ref *r)
{
    return r->kind == DREF_MODEL || r->kind == DREF_KV;
}

bool ev_deployment_dependent(const dtype_ref *r, const kv_value *a, const kv_value *b)
{
    return deployment_dtype(r) || (a && a->sym != SYM_NONE && deployment_dtype(&a->sym_dtype)) ||
           (b && b->sym != SYM_NONE && deployment_dtype(&b->sym_dtype));
}
