/*
 * eval.c: the condition families, and the joining of facts x deployments they share.
 *
 * Each family is one function: it walks the facts it cares about, asks the numerics what the value
 * becomes under each deployment, and emits findings for the outcome classes its rule selects.
 * A family never decides severity or wording: those come from the rule file (message template +
 * placeholders filled here). After all rules ran, findings are de-duplicated, suppressed by the
 * front ends' ignore comments, and sorted.
 *
 * Not here: choosing conversion paths (paths.c), loading rules (rules.c), printing (report/).
 */
#include "check/eval.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "facts/facts_json.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* ---- message templates ---- */

enum { MAX_VARS = 16 };

typedef struct vars {
    const char *name[MAX_VARS];
    const char *value[MAX_VARS];
    int n;
} vars;

static void var_set(vars *vs, const char *name, const char *value)
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

typedef struct ectx {
    const rule *r;
    const eval_options *opt;
    file_facts *const *files;
    size_t nfiles;
    const deployment_set *deps;
    finding_list *out;
    /* "RULE|subject" of every finding so far, for `unless`: open addressing, power-of-two size. */
    const char **seen;
    size_t nseen, capseen;
} ectx;

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

static char *num(kv_arena *a, double x)
{
    char buf[64];
    format_value(buf, sizeof buf, x);
    return arena_strdup(a, buf);
}

static char *loc_text(kv_arena *a, const kv_loc *l)
{
    return arena_printf(a, "%s:%u:%u", l->path ? l->path : "?", l->line, l->col);
}

static const char *dtype_name(kvn_dtype d)
{
    return json_dtype_name(d);
}

static const char *effective_engine(const deployment *d, const char *fact_engine)
{
    if (d && d->engine && strcmp(d->engine, "unknown") != 0)
        return d->engine;
    return fact_engine;
}

/* "declared at deploy/k8s.yaml:20:15" / "what-if --kv-cache-dtype" / "engine default". */
static const char *declared_text(kv_arena *a, const resolved_dtype *rd)
{
    bool is_auto = rd->how && strncmp(rd->how, "auto", 4) == 0;
    if (rd->decl && rd->decl->loc.path)
        return arena_printf(a, "declared at %s%s%s", loc_text(a, &rd->decl->loc), is_auto ? ", " : "",
                            is_auto ? rd->how : "");
    return rd->how ? rd->how : "engine default";
}

/* The key of what a finding is about (value origin, fact location, deployment). */
static const char *subject_key(kv_arena *a, const kv_loc *origin, const kv_loc *fact, const deployment *d)
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

typedef struct draft {
    kv_loc loc;
    const char *value, *dtype;
    const path_result *stored;
    size_t nstored;
    const resolved_dtype *dtype_from;   /* for dtype_origin; NULL: code/none */
    const kv_loc *code_dtype_loc;       /* dtype written in code */
    related_loc related[4];
    size_t nrelated;
    const kv_value *flow;
    const deployment *dep;
    const char *key;
} draft;

static void add_related(draft *f, const kv_loc *loc, const char *msg)
{
    if (loc && loc->path && f->nrelated < 4)
        f->related[f->nrelated++] = (related_loc){ *loc, msg };
}

static void emit(ectx *c, draft *f, vars *vs)
{
    kv_arena *a = c->out->arena;
    if (superseded(c, f->key))
        return;
    var_set(vs, "fix", c->r->fix);
    if (f->dep)
        var_set(vs, "deployment", f->dep->name);
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

static kv_loc origin_or(const kv_value *v, const kv_loc *fallback)
{
    return v->origin.path ? v->origin : *fallback;
}

static bool wants_value(const rule *r, const kv_value *v)
{
    return (r->values >> v->kind) & 1u;
}

static bool wants_outcome(const rule *r, int outcome)
{
    return outcome >= 0 && ((r->outcomes >> outcome) & 1u);
}

/* The points of a value worth checking under a deployment (extremes of its interval). */
static size_t value_points(const kv_value *v, const deployment *d, double pts[2])
{
    kvn_dtype model = d ? d->model.dtype : KVN_DTYPE_INVALID, kv = d ? d->kv.dtype : KVN_DTYPE_INVALID;
    switch (v->kind) {
    case VK_SENTINEL: {
        double x = value_concrete(v, model, kv);
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

static const char *value_text(kv_arena *a, const kv_value *v, double x)
{
    return v->text ? v->text : num(a, x);
}

/* "as -inf by a PyTorch cast and as -57344 by vLLM's CUDA cache writer" (equal results joined). */
static const char *stored_text(kv_arena *a, const path_result *p, size_t n)
{
    strbuf sb = STRBUF_INIT;
    bool done[MAX_PATHS] = { false };
    for (size_t i = 0; i < n; i++) {
        if (done[i])
            continue;
        char buf[64];
        format_value(buf, sizeof buf, p[i].stored);
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

static int worst_outcome(const path_result *p, size_t n, const rule *r)
{
    static const int order[] = { KVN_OVERFLOW_NAN, KVN_OVERFLOW_INF, OUTC_REINTERPRETED, KVN_SATURATED,
                                 KVN_CRUSHED, KVN_UNDERFLOW_ZERO, KVN_ROUNDED, KVN_EXACT };
    for (size_t o = 0; o < sizeof order / sizeof *order; o++)
        for (size_t i = 0; i < n; i++)
            if (p[i].outcome == order[o] && wants_outcome(r, order[o]))
                return order[o];
    return -1;
}

static const char *consequence(kv_arena *a, int outcome, kv_operand op, const path_result *p, size_t n,
                               const char *value)
{
    bool key = op == OPERAND_KEY;
    switch (outcome) {
    case KVN_OVERFLOW_NAN:
        return key ? "q.k is then NaN for every query that reads it, and so is the softmax row"
                   : "the attention output is then NaN wherever this value gets weight";
    case KVN_OVERFLOW_INF:
        for (size_t i = 0; i < n; i++)
            if (isinf(p[i].stored))
                return key ? arena_printf(a, "q.k then computes 0 * %s = NaN", p[i].stored < 0 ? "-inf" : "inf")
                           : "softmax weights times inf then give inf or NaN in the attention output";
        return "";
    case OUTC_REINTERPRETED:
        for (size_t i = 0; i < n; i++)
            if (p[i].outcome == OUTC_REINTERPRETED)
                return arena_printf(a, "attention reads %s back as %s", value, num(a, p[i].stored));
        return "";
    case KVN_SATURATED:
        return key ? "the key no longer holds the value the code meant (after a scale below 1 it no longer masks)"
                   : "code that reads the value back gets the clamped number, not the one it wrote";
    case KVN_ROUNDED:
        return "code that reads the value back gets a different number";
    default: return "the stored value differs from the one the code wrote";
    }
}

/* ---- family: store-value ---- */

static bool store_point(ectx *c, const file_facts *ff, const store_fact *s, const kv_value *v,
                        const deployment *d, double x)
{
    kv_arena *a = c->out->arena;
    const char *engine = effective_engine(d, s->engine);
    path_result p[MAX_PATHS];
    size_t n = store_paths(engine, d->kv.dtype, d->model.dtype, d->rocm, x, p);
    path_result hit[MAX_PATHS];
    size_t nhit = 0;
    for (size_t i = 0; i < n; i++) {
        /* int8 caches always run with a calibrated scale, so a clamp lands near the activations. */
        bool still_masks = p[i].outcome == KVN_SATURATED && s->operand == OPERAND_KEY &&
                           v->kind == VK_SENTINEL && fabs(p[i].stored) >= c->r->mask_floor &&
                           kvn_dtype_get(d->kv.dtype)->kind != KVN_KIND_INT8;
        if (wants_outcome(c->r, p[i].outcome) && !still_masks)
            hit[nhit++] = p[i];
    }
    if (!nhit)
        return false;
    const char *vt = value_text(a, v, x);
    vars vs = {0};
    var_set(&vs, "value", vt);
    kvn_result in_model = cast_to_dtype(d->model.dtype, x);
    if (isinf(in_model.stored) && !isinf(x))
        var_set(&vs, "dtype", arena_printf(a, "%s; it is already %s in the %s model dtype", dtype_name(d->kv.dtype),
                                           num(a, in_model.stored), dtype_name(d->model.dtype)));
    else
        var_set(&vs, "dtype", dtype_name(d->kv.dtype));
    var_set(&vs, "model_dtype", dtype_name(d->model.dtype));
    var_set(&vs, "declared", declared_text(a, &d->kv));
    var_set(&vs, "stored", stored_text(a, p, n));
    var_set(&vs, "consequence", consequence(a, worst_outcome(hit, nhit, c->r), s->operand, p, n, vt));
    var_set(&vs, "sink", s->sink ? s->sink : "the cache");
    var_set(&vs, "operand", operand_name(s->operand));
    var_set(&vs, "readback", num(a, p[0].stored));
    draft f = { .loc = origin_or(v, &s->loc), .value = vt, .dtype = dtype_name(d->kv.dtype), .stored = p,
                .nstored = n, .dtype_from = &d->kv, .flow = v, .dep = d };
    add_related(&f, &s->loc, arena_printf(a, "stored into the KV cache as the %s by %s", operand_name(s->operand),
                                          s->sink ? s->sink : "this write"));
    if (d->kv.decl)
        add_related(&f, &d->kv.decl->loc, arena_printf(a, "KV-cache dtype %s declared here", dtype_name(d->kv.dtype)));
    if (d->model.decl && wants_outcome(c->r, OUTC_REINTERPRETED))
        add_related(&f, &d->model.decl->loc, arena_printf(a, "model dtype %s declared here", dtype_name(d->model.dtype)));
    f.key = subject_key(a, &f.loc, &s->loc, d);
    emit(c, &f, &vs);
    return true;
}

static void family_store_value(ectx *c)
{
    for (size_t fi = 0; fi < c->nfiles; fi++) {
        const file_facts *ff = c->files[fi];
        for (size_t k = 0; k < ff->stores.n; k++) {
            const store_fact *s = &ff->stores.v[k];
            if (!((c->r->operands >> s->operand) & 1u))
                continue;
            for (size_t vi = 0; vi < s->nvalues; vi++) {
                const kv_value *v = &s->values[vi];
                if (!wants_value(c->r, v))
                    continue;
                for (size_t di = 0; di < c->deps->n; di++) {
                    const deployment *d = &c->deps->v[di];
                    double pts[2];
                    size_t np = value_points(v, d, pts);
                    for (size_t i = 0; i < np; i++)
                        if (store_point(c, ff, s, v, d, pts[i]))
                            break;
                }
            }
        }
    }
}

/* ---- family: store-integer ---- */

typedef struct int_range {
    bool known;
    double hi;
    const char *text;       /* "num_adapters = 20 (config.json:4:3)" */
    const kv_loc *loc;
} int_range;

static int_range integer_range(kv_arena *a, const kv_value *v, const deployment *d)
{
    int_range r = {0};
    const id_range *ir = NULL;
    if (v->hi_sym || v->hi_unknown)
        ir = d ? deployment_range(d, v->hi_sym, v->family) : NULL;
    if (ir) {
        r.known = true;
        /* A symbolic bound (arange(n) - 1) follows the bound's value; a bare family takes the
         * largest id the range allows (max_model_len positions are 0..max_model_len-1). */
        r.hi = v->hi_sym ? ir->max + v->hi_sym_add : ir->max_id;
        r.loc = ir->loc.path ? &ir->loc : NULL;
        r.text = r.loc ? arena_printf(a, "%s = %s, %s", ir->name, num(a, ir->max), loc_text(a, r.loc))
                       : arena_printf(a, "%s = %s", ir->name, num(a, ir->max));
    } else if (!v->hi_unknown && !v->hi_sym && !isnan(v->hi)) {
        r.known = true;
        r.hi = v->hi;
        r.text = arena_printf(a, "%s..%s", num(a, v->lo), num(a, v->hi));
    }
    return r;
}

static const char *range_hint(kv_arena *a, const kv_value *v)
{
    const char *name = v->hi_sym ? v->hi_sym : v->family ? arena_printf(a, "%s_id", v->family) : "ids";
    return arena_printf(a, "declare the largest value in .kvlint.yaml (ranges: {%s: N}) or in the checkpoint's config.json",
                        name);
}

/* One integer value reaching dtype dt through fact at fact_loc (a store or an int cast). */
static void integer_point(ectx *c, const kv_value *v, const kv_loc *fact_loc, const char *what,
                          const char *engine, kv_operand op, const deployment *d, kvn_dtype dt,
                          const resolved_dtype *dt_from, const kv_loc *code_dtype_loc)
{
    kv_arena *a = c->out->arena;
    const kvn_dtype_info *di = kvn_dtype_get(dt);
    if (!di || di->kind == KVN_KIND_AUTO || di->kind == KVN_KIND_UNMODELLED)
        return;
    double limit = kvn_dtype_int_exact_max(dt);
    int_range rg = integer_range(a, v, d);
    if (c->r->range_known ? !(rg.known && rg.hi > limit) : (rg.known || !(limit < c->r->limit_below)))
        return;
    double first = limit + 1;
    path_result p[MAX_PATHS];
    size_t n;
    if (dt_from == &d->kv) {
        n = store_paths(engine, dt, d->model.dtype, d->rocm, first, p);
    } else {
        kvn_result r = cast_to_dtype(dt, first);
        p[0] = (path_result){ "a PyTorch cast", r.stored, r.outcome };
        n = 1;
    }
    const char *vt = v->text ? v->text : "an integer";
    vars vs = {0};
    var_set(&vs, "value", vt);
    var_set(&vs, "dtype", dtype_name(dt));
    var_set(&vs, "model_dtype", d ? dtype_name(d->model.dtype) : "");
    var_set(&vs, "declared", dt_from ? declared_text(a, dt_from) : arena_printf(a, "written at %s", loc_text(a, code_dtype_loc)));
    var_set(&vs, "limit", num(a, limit));
    var_set(&vs, "range", rg.known ? arena_printf(a, "up to %s (%s)", num(a, rg.hi), rg.text) : "of unknown range");
    var_set(&vs, "first_inexact", num(a, first));
    var_set(&vs, "first_stored", n ? num(a, p[0].stored) : "?");
    var_set(&vs, "stored", n ? stored_text(a, p, n) : "");
    var_set(&vs, "range_hint", range_hint(a, v));
    var_set(&vs, "operand", operand_name(op));
    var_set(&vs, "sink", what);
    draft f = { .loc = origin_or(v, fact_loc), .value = vt, .dtype = dtype_name(dt), .stored = p, .nstored = n,
                .dtype_from = dt_from, .code_dtype_loc = code_dtype_loc, .flow = v, .dep = d };
    add_related(&f, fact_loc, arena_printf(a, "%s here", what));
    if (dt_from && dt_from->decl)
        add_related(&f, &dt_from->decl->loc, arena_printf(a, "dtype %s declared here", dtype_name(dt)));
    if (rg.loc)
        add_related(&f, rg.loc, "range declared here");
    f.key = subject_key(a, &f.loc, fact_loc, d);
    emit(c, &f, &vs);
}

static void family_store_integer(ectx *c)
{
    kv_arena *a = c->out->arena;
    for (size_t fi = 0; fi < c->nfiles; fi++) {
        const file_facts *ff = c->files[fi];
        for (size_t di = 0; di < c->deps->n; di++) {
            const deployment *d = &c->deps->v[di];
            for (size_t k = 0; (c->r->facts & 1u) && k < ff->stores.n; k++) {
                const store_fact *s = &ff->stores.v[k];
                if (!((c->r->operands >> s->operand) & 1u))
                    continue;
                const char *what = arena_printf(a, "stored into the KV cache as the %s by %s", operand_name(s->operand),
                                                s->sink ? s->sink : "this write");
                for (size_t vi = 0; vi < s->nvalues; vi++)
                    if (s->values[vi].kind == VK_INTEGER)
                        integer_point(c, &s->values[vi], &s->loc, what, effective_engine(d, s->engine), s->operand,
                                      d, d->kv.dtype, &d->kv, NULL);
            }
            for (size_t k = 0; (c->r->facts & 2u) && k < ff->casts.n; k++) {
                const intcast_fact *ic = &ff->casts.v[k];
                if (ic->value.kind != VK_INTEGER)
                    continue;
                kvn_dtype dt = dtype_ref_resolve(&ic->dtype, d->model.dtype, d->kv.dtype);
                const resolved_dtype *from = ic->dtype.kind == DREF_MODEL ? &d->model
                                             : ic->dtype.kind == DREF_KV  ? &d->kv : NULL;
                integer_point(c, &ic->value, &ic->loc, arena_printf(a, "converted to %s by %s", dtype_name(dt),
                              ic->api ? ic->api : "a cast"), NULL, OPERAND_KV, d, dt, from, &ic->dtype.loc);
            }
        }
    }
}

/* ---- family: scale-crush ---- */

/* A value sharing the block: another known nonzero value of the store, else a typical 1.0. */
static double neighbour_of(const store_fact *s, const kv_value *self, bool *typical)
{
    *typical = false;
    for (size_t i = 0; i < s->nvalues; i++) {
        const kv_value *v = &s->values[i];
        if (v == self || (v->kind != VK_FLOAT && v->kind != VK_INTEGER))
            continue;
        double x = fabs(v->hi) > fabs(v->lo) ? v->hi : v->lo;
        if (x != 0 && isfinite(x))
            return x;
    }
    *typical = true;
    return 1.0;
}

static void crush_point(ectx *c, const store_fact *s, const kv_value *v, const deployment *d, double x)
{
    kv_arena *a = c->out->arena;
    const kvn_dtype_info *di = kvn_dtype_get(d->kv.dtype);
    if (!di)
        return;
    bool shared_kind = di->kind == KVN_KIND_BLOCK || di->kind == KVN_KIND_DYNAMIC;
    bool dyn_tensor = d->dynamic_kv_scales && (di->kind == KVN_KIND_ELEMENT || di->kind == KVN_KIND_SCALED) &&
                      di->elem != KVN_F32 && di->elem != KVN_BF16 && di->elem != KVN_F16;
    if (!shared_kind && !dyn_tensor)
        return;
    bool typical;
    double nb = neighbour_of(s, v, &typical);
    double nb_stored;
    const char *how;
    if (shared_kind) {
        double row[2] = { x, nb };
        kvn_result out[2];
        kvn_params p = { .mode = KVN_SATURATE, .scale = 0 };
        if (!kvn_store_row(d->kv.dtype, row, 2, &p, out))
            return;
        nb_stored = out[1].stored;
        how = di->kind == KVN_KIND_BLOCK ? arena_printf(a, "%d-element block scale", di->block)
                                         : "per-token-head scale computed from the absolute maximum";
    } else {
        double div = s->operand == OPERAND_VALUE ? 100 : 200;
        double scale = fabs(x) / div;
        nb_stored = kvn_cast(di->elem, nb / scale, KVN_SATURATE).stored * scale;
        how = arena_printf(a, "per-tensor scale computed by --calculate-kv-scales (absmax / %g)", div);
    }
    int outcome = nb_stored == 0 ? KVN_CRUSHED : nb_stored != nb ? KVN_ROUNDED : KVN_EXACT;
    if (!wants_outcome(c->r, outcome) && !(outcome == KVN_CRUSHED && wants_outcome(c->r, KVN_UNDERFLOW_ZERO)))
        return;
    const char *vt = value_text(a, v, x);
    path_result pr = { "the shared scale", nb_stored, outcome };
    vars vs = {0};
    var_set(&vs, "value", vt);
    var_set(&vs, "dtype", dtype_name(d->kv.dtype));
    var_set(&vs, "declared", declared_text(a, d->kv_scales_decl && dyn_tensor ? &(resolved_dtype){ .decl = d->kv_scales_decl } : &d->kv));
    var_set(&vs, "neighbour", typical ? "an ordinary value of 1" : num(a, nb));
    var_set(&vs, "neighbour_stored", num(a, nb_stored));
    var_set(&vs, "scale_how", how);
    var_set(&vs, "sink", s->sink ? s->sink : "the cache");
    var_set(&vs, "operand", operand_name(s->operand));
    draft f = { .loc = origin_or(v, &s->loc), .value = vt, .dtype = dtype_name(d->kv.dtype), .stored = &pr,
                .nstored = 1, .dtype_from = &d->kv, .flow = v, .dep = d };
    add_related(&f, &s->loc, arena_printf(a, "stored into the KV cache as the %s by %s", operand_name(s->operand),
                                          s->sink ? s->sink : "this write"));
    if (d->kv.decl)
        add_related(&f, &d->kv.decl->loc, arena_printf(a, "KV-cache dtype %s declared here", dtype_name(d->kv.dtype)));
    if (dyn_tensor && d->kv_scales_decl)
        add_related(&f, &d->kv_scales_decl->loc, "dynamic KV scales enabled here");
    f.key = subject_key(a, &f.loc, &s->loc, d);
    emit(c, &f, &vs);
}

static void family_scale_crush(ectx *c)
{
    for (size_t fi = 0; fi < c->nfiles; fi++) {
        const file_facts *ff = c->files[fi];
        for (size_t k = 0; k < ff->stores.n; k++) {
            const store_fact *s = &ff->stores.v[k];
            if (!s->shares_block || !((c->r->operands >> s->operand) & 1u))
                continue;
            for (size_t vi = 0; vi < s->nvalues; vi++) {
                const kv_value *v = &s->values[vi];
                if (!wants_value(c->r, v))
                    continue;
                for (size_t di = 0; di < c->deps->n; di++) {
                    double pts[2];
                    if (value_points(v, &c->deps->v[di], pts))
                        crush_point(c, s, v, &c->deps->v[di], pts[0]);
                }
            }
        }
    }
}

/* ---- family: construction ---- */

static const char *construction_result(kv_arena *a, int outcome, kvn_dtype dt, double stored)
{
    const kvn_dtype_info *di = kvn_dtype_get(dt);
    if (outcome == OUTC_RAISES)
        return arena_printf(a, "raises \"value cannot be converted to type at::%s without overflow\" in eager "
                            "PyTorch (and is %s where it does not raise)",
                            di && di->elem == KVN_BF16 ? "BFloat16" : di && di->elem == KVN_F16 ? "Half" : di ? di->name : "?",
                            num(a, stored));
    return arena_printf(a, "becomes %s", num(a, stored));
}

static void construction_under(ectx *c, const construction_fact *cf, const deployment *d)
{
    kv_arena *a = c->out->arena;
    kvn_dtype model = d ? d->model.dtype : KVN_DTYPE_INVALID, kv = d ? d->kv.dtype : KVN_DTYPE_INVALID;
    kvn_dtype dt = dtype_ref_resolve(&cf->dtype, model, kv);
    const kvn_dtype_info *di = kvn_dtype_get(dt);
    if (!di || (di->kind != KVN_KIND_ELEMENT && di->kind != KVN_KIND_SCALED))
        return;
    double x = value_concrete(&cf->value, model, kv);
    if (isnan(x))
        return;
    kvn_result r = cast_to_dtype(dt, x);
    int outcome = r.outcome;
    if (cf->kind == CONS_SCALAR_FILL && isfinite(x) && (isinf(r.stored) || isnan(r.stored)) &&
        (di->elem == KVN_F16 || di->elem == KVN_BF16))
        outcome = OUTC_RAISES;
    if (!wants_outcome(c->r, outcome))
        return;
    const resolved_dtype *from = !d ? NULL : cf->dtype.kind == DREF_MODEL ? &d->model : cf->dtype.kind == DREF_KV ? &d->kv : NULL;
    const char *vt = value_text(a, &cf->value, x);
    path_result pr = { "a PyTorch cast", r.stored, outcome };
    vars vs = {0};
    var_set(&vs, "value", vt);
    var_set(&vs, "dtype", dtype_name(dt));
    var_set(&vs, "model_dtype", d ? dtype_name(d->model.dtype) : "");
    var_set(&vs, "declared", from ? declared_text(a, from) : arena_printf(a, "written at %s", loc_text(a, &cf->dtype.loc)));
    var_set(&vs, "api", cf->api ? cf->api : construction_kind_name(cf->kind));
    var_set(&vs, "result", construction_result(a, outcome, dt, r.stored));
    var_set(&vs, "stored", num(a, r.stored));
    draft f = { .loc = origin_or(&cf->value, &cf->loc), .value = vt, .dtype = dtype_name(dt), .stored = &pr, .nstored = 1,
                .dtype_from = from, .code_dtype_loc = from ? NULL : &cf->dtype.loc, .flow = &cf->value, .dep = d };
    add_related(&f, &cf->loc, arena_printf(a, "built in %s by %s here", dtype_name(dt), cf->api ? cf->api : "this call"));
    if (from && from->decl)
        add_related(&f, &from->decl->loc, arena_printf(a, "dtype %s declared here", dtype_name(dt)));
    f.key = subject_key(a, &f.loc, &cf->loc, d);
    emit(c, &f, &vs);
}

/* A dtype written in code does not depend on the deployment: evaluate it once. */
static bool deployment_dependent(const dtype_ref *r, const kv_value *a, const kv_value *b)
{
    bool dep = r->kind == DREF_MODEL || r->kind == DREF_KV;
    if (a && a->sym != SYM_NONE && (a->sym_dtype.kind == DREF_MODEL || a->sym_dtype.kind == DREF_KV))
        dep = true;
    if (b && b->sym != SYM_NONE && (b->sym_dtype.kind == DREF_MODEL || b->sym_dtype.kind == DREF_KV))
        dep = true;
    return dep;
}

static void family_construction(ectx *c)
{
    for (size_t fi = 0; fi < c->nfiles; fi++) {
        const file_facts *ff = c->files[fi];
        for (size_t k = 0; k < ff->constructions.n; k++) {
            const construction_fact *cf = &ff->constructions.v[k];
            if (!wants_value(c->r, &cf->value))
                continue;
            if (!deployment_dependent(&cf->dtype, &cf->value, NULL))
                construction_under(c, cf, NULL);
            else
                for (size_t di = 0; di < c->deps->n; di++)
                    construction_under(c, cf, &c->deps->v[di]);
        }
    }
}

/* ---- family: arithmetic ---- */

/* Half an ulp at the top of f's range: the smallest |x| whose addition to -max overflows. */
static double overflow_margin(kvn_fmt f)
{
    const kvn_fmt_info *fi = kvn_fmt_get(f);
    int e;
    frexp(fi->max, &e);
    return ldexp(1.0, e - 1 - fi->man_bits - 1);
}

static void arith_under(ectx *c, const arith_fact *af, const deployment *d)
{
    kv_arena *a = c->out->arena;
    kvn_dtype model = d ? d->model.dtype : KVN_DTYPE_INVALID, kv = d ? d->kv.dtype : KVN_DTYPE_INVALID;
    kvn_dtype dt = dtype_ref_resolve(&af->dtype, model, kv);
    /* 0 * inf is NaN in every float dtype: an unknown dtype does not matter when an operand is a
     * literal infinity (float32 holds it). */
    bool any_dtype = dt == KVN_DTYPE_INVALID && af->kind == ARITH_ZERO_TIMES_INF;
    if (any_dtype)
        dt = kvn_dtype_by_fmt(KVN_F32);
    const kvn_dtype_info *di = kvn_dtype_get(dt);
    if (!di || (di->kind != KVN_KIND_ELEMENT && di->kind != KVN_KIND_SCALED))
        return;
    double xa = cast_to_dtype(dt, value_concrete(&af->a, model, kv)).stored;
    double xb = af->b.kind == VK_UNKNOWN ? NAN : cast_to_dtype(dt, value_concrete(&af->b, model, kv)).stored;
    double res = NAN;
    const char *how = NULL;
    const char *expr = arena_printf(a, "%s %s %s", af->a.text ? af->a.text : "?",
                                    af->kind == ARITH_ZERO_TIMES_INF ? "*" : "+", af->b.text ? af->b.text : "x");
    switch (af->kind) {
    case ARITH_SENTINEL_PLUS:
    case ARITH_SENTINEL_SUM:
        if (isnan(xa) || isinf(xa))
            return;
        if (!isnan(xb)) {
            double worst = af->b.kind == VK_FLOAT || af->b.kind == VK_INTEGER
                               ? (xa < 0 ? fmin(af->b.lo, xb) : fmax(af->b.hi, xb)) : xb;
            res = cast_to_dtype(dt, xa + worst).stored;
            how = arena_printf(a, "is %s", num(a, res));
        } else {
            double max = kvn_fmt_get(di->elem)->max;
            double margin = max + overflow_margin(di->elem) - fabs(xa);
            if (margin > 1e6 * overflow_margin(di->elem))
                return; /* not at the edge of the range: an unknown x is unlikely to overflow it */
            res = xa < 0 ? -INFINITY : INFINITY;
            how = arena_printf(a, "is %s for any x %s %s", num(a, res), xa < 0 ? "<=" : ">=", num(a, xa < 0 ? -margin : margin));
        }
        if (!isinf(res))
            return;
        break;
    case ARITH_ZERO_TIMES_INF: {
        const kv_value *other = isinf(xa) ? &af->b : &af->a;
        if (!isinf(xa) && !isinf(xb))
            return;
        bool can_be_zero = other->kind == VK_UNKNOWN || (other->lo <= 0 && other->hi >= 0);
        if (!can_be_zero)
            return;
        res = NAN;
        how = arena_printf(a, "is NaN wherever %s is 0 (0 * inf)", other->text ? other->text : "the other operand");
        break;
    }
    }
    int outcome = isnan(res) ? KVN_OVERFLOW_NAN : KVN_OVERFLOW_INF;
    if (!wants_outcome(c->r, outcome))
        return;
    const resolved_dtype *from = !d ? NULL : af->dtype.kind == DREF_MODEL ? &d->model : af->dtype.kind == DREF_KV ? &d->kv : NULL;
    path_result pr = { "arithmetic", res, outcome };
    vars vs = {0};
    var_set(&vs, "value", af->a.text ? af->a.text : expr);
    var_set(&vs, "expr", expr);
    var_set(&vs, "dtype", any_dtype ? "any float dtype" : dtype_name(dt));
    var_set(&vs, "declared", any_dtype ? "whatever the deployment chooses" : from ? declared_text(a, from)
                             : af->dtype.loc.path ? arena_printf(a, "written at %s", loc_text(a, &af->dtype.loc))
                                                  : "the default float32");
    var_set(&vs, "result", how);
    draft f = { .loc = af->loc, .value = expr, .dtype = any_dtype ? NULL : dtype_name(dt), .stored = &pr, .nstored = 1,
                .dtype_from = from, .code_dtype_loc = from ? NULL : &af->dtype.loc, .flow = &af->a, .dep = d };
    if (af->a.origin.path && (af->a.origin.line != af->loc.line || af->a.origin.path != af->loc.path))
        add_related(&f, &af->a.origin, "the sentinel is made here");
    if (from && from->decl)
        add_related(&f, &from->decl->loc, arena_printf(a, "dtype %s declared here", dtype_name(dt)));
    f.key = subject_key(a, &f.loc, &af->loc, d);
    emit(c, &f, &vs);
}

static void family_arith(ectx *c)
{
    for (size_t fi = 0; fi < c->nfiles; fi++) {
        const file_facts *ff = c->files[fi];
        for (size_t k = 0; k < ff->ariths.n; k++) {
            const arith_fact *af = &ff->ariths.v[k];
            if (!deployment_dependent(&af->dtype, &af->a, &af->b))
                arith_under(c, af, NULL);
            else
                for (size_t di = 0; di < c->deps->n; di++)
                    arith_under(c, af, &c->deps->v[di]);
        }
    }
}

/* ---- family: invalid-dtype-name ---- */

static void family_decl_invalid(ectx *c)
{
    kv_arena *a = c->out->arena;
    for (size_t fi = 0; fi < c->nfiles; fi++) {
        const file_facts *ff = c->files[fi];
        for (size_t k = 0; k < ff->decls.n; k++) {
            const dtype_decl *dd = &ff->decls.v[k];
            if ((dd->key != DECL_KV_CACHE_DTYPE && dd->key != DECL_MODEL_DTYPE) || dd->dtype != KVN_DTYPE_INVALID)
                continue;
            vars vs = {0};
            var_set(&vs, "raw", dd->raw ? dd->raw : "");
            var_set(&vs, "value", dd->raw ? dd->raw : "");
            var_set(&vs, "dtype", dd->key == DECL_KV_CACHE_DTYPE ? "KV-cache dtype" : "model dtype");
            var_set(&vs, "declared", arena_printf(a, "%s%s%s", dd->engine ? dd->engine : "", dd->engine ? " " : "",
                                                  dd->carrier ? dd->carrier : "config"));
            var_set(&vs, "valid", kvn_dtype_valid_names());
            draft f = { .loc = dd->loc, .value = dd->raw };
            f.key = subject_key(a, &dd->loc, &dd->loc, NULL);
            emit(c, &f, &vs);
        }
    }
}

/* ---- family: unresolved-dtype ---- */

/* The first stored special value: an unresolved dtype only matters when something is at stake. */
static const kv_value *first_special_store(const ectx *c, const kv_loc **sink)
{
    for (size_t fi = 0; fi < c->nfiles; fi++)
        for (size_t k = 0; k < c->files[fi]->stores.n; k++) {
            const store_fact *s = &c->files[fi]->stores.v[k];
            for (size_t vi = 0; vi < s->nvalues; vi++)
                if (wants_value(c->r, &s->values[vi])) {
                    *sink = &s->loc;
                    return &s->values[vi];
                }
        }
    return NULL;
}

static void family_unresolved(ectx *c)
{
    kv_arena *a = c->out->arena;
    const kv_loc *sink = NULL;
    const kv_value *v = first_special_store(c, &sink);
    if (!v)
        return;
    for (size_t di = 0; di < c->deps->n; di++) {
        const deployment *d = &c->deps->v[di];
        if (d->kv.dtype != KVN_DTYPE_INVALID)
            continue;
        if (d->kv.decl && d->kv.decl->dtype == KVN_DTYPE_INVALID && d->kv.decl->raw)
            continue; /* an invalid name is reported by its own rule */
        vars vs = {0};
        var_set(&vs, "deployment", d->name ? d->name : "the engine default");
        var_set(&vs, "reason", d->kv.unresolved ? d->kv.unresolved : "no declaration found");
        var_set(&vs, "value", v->text ? v->text : "a special value");
        var_set(&vs, "sink", loc_text(a, sink));
        draft f = { .loc = d->loc.path ? d->loc : origin_or(v, sink), .value = v->text, .dep = d };
        add_related(&f, sink, "a special value is stored into the KV cache here");
        f.key = subject_key(a, &f.loc, &f.loc, d);
        emit(c, &f, &vs);
    }
}

/* ---- suppressions ---- */

typedef struct file_ix {
    const char *path;
    size_t fi;
} file_ix;

static int file_ix_cmp(const void *a, const void *b)
{
    return strcmp(((const file_ix *)a)->path, ((const file_ix *)b)->path);
}

static bool suppression_covers(const suppression *s, const rule *r)
{
    if (!s->ids)
        return true;
    for (size_t i = 0; s->ids[i]; i++)
        if (strcasecmp(s->ids[i], r->id) == 0 || strcmp(s->ids[i], r->name) == 0)
            return true;
    return false;
}

/* Mark the suppression on loc's line that covers r as used; true if there is one. */
static bool suppress_at(file_facts *const *files, const file_ix *ix, size_t nix, bool **used,
                        const kv_loc *loc, const rule *r)
{
    if (!loc->path)
        return false;
    file_ix key = { loc->path, 0 };
    const file_ix *hit = bsearch(&key, ix, nix, sizeof *ix, file_ix_cmp);
    if (!hit)
        return false;
    const file_facts *ff = files[hit->fi];
    bool found = false;
    for (size_t k = 0; k < ff->suppressions.n; k++)
        if (ff->suppressions.v[k].line == loc->line && suppression_covers(&ff->suppressions.v[k], r)) {
            used[hit->fi][k] = true;
            found = true;
        }
    return found;
}

static void apply_suppressions(ectx *c, bool **used, const file_ix *ix, size_t nix)
{
    finding_list *l = c->out;
    for (size_t i = 0; i < l->v.n; i++) {
        finding *f = &l->v.v[i];
        bool s = suppress_at(c->files, ix, nix, used, &f->loc, f->rule);
        for (size_t k = 0; k < f->nrelated; k++)
            s = suppress_at(c->files, ix, nix, used, &f->related[k].loc, f->rule) || s;
        f->suppressed = s;
    }
}

static void report_unused(ectx *c, bool **used)
{
    kv_arena *a = c->out->arena;
    for (size_t fi = 0; fi < c->nfiles; fi++) {
        const file_facts *ff = c->files[fi];
        for (size_t k = 0; k < ff->suppressions.n; k++) {
            if (used[fi][k])
                continue;
            const suppression *s = &ff->suppressions.v[k];
            strbuf sb = STRBUF_INIT;
            for (size_t i = 0; s->ids && s->ids[i]; i++)
                sb_addf(&sb, "%s%s", i ? "," : "", s->ids[i]);
            vars vs = {0};
            var_set(&vs, "ids", arena_strdup(a, s->ids ? sb_str(&sb) : "*"));
            var_set(&vs, "reason", s->reason ? s->reason : "");
            sb_release(&sb);
            draft f = { .loc = kv_loc_make(ff->path, s->line, s->col, 0, 0) };
            f.key = subject_key(a, &f.loc, &f.loc, NULL);
            emit(c, &f, &vs);
        }
    }
}

/* ---- driver ---- */

static bool in_list(const char *const *list, const rule *r)
{
    for (size_t i = 0; list && list[i]; i++)
        if (strcasecmp(list[i], r->id) == 0 || strcmp(list[i], r->name) == 0)
            return true;
    return false;
}

bool rule_enabled(const rule *r, const eval_options *opt)
{
    if (in_list(opt->ignore, r))
        return false;
    if (r->family == FAM_UNUSED_SUPPRESSION)
        return opt->warn_unused_ignores;
    if (opt->select && opt->select[0])
        return in_list(opt->select, r);
    return !r->default_off;
}

int finding_cmp(const void *pa, const void *pb)
{
    const finding *a = pa, *b = pb;
    int c = strcmp(a->loc.path ? a->loc.path : "", b->loc.path ? b->loc.path : "");
    if (c) return c;
    if (a->loc.line != b->loc.line) return a->loc.line < b->loc.line ? -1 : 1;
    if (a->loc.col != b->loc.col) return a->loc.col < b->loc.col ? -1 : 1;
    if ((c = strcmp(a->rule->id, b->rule->id))) return c;
    if ((c = strcmp(a->message, b->message))) return c;
    size_t ra = a->nrelated ? a->related[0].loc.line : 0, rb = b->nrelated ? b->related[0].loc.line : 0;
    return ra < rb ? -1 : ra > rb;
}

/* Same rule, location, message and fact: the same finding reached twice. */
static bool same_finding(const finding *a, const finding *b)
{
    if (finding_cmp(a, b) != 0)
        return false;
    if (a->nrelated != b->nrelated)
        return false;
    for (size_t i = 0; i < a->nrelated; i++)
        if (a->related[i].loc.line != b->related[i].loc.line || a->related[i].loc.col != b->related[i].loc.col ||
            strcmp(a->related[i].loc.path, b->related[i].loc.path) != 0)
            return false;
    return true;
}

static void run_family(ectx *c)
{
    switch (c->r->family) {
    case FAM_STORE_VALUE: family_store_value(c); break;
    case FAM_STORE_INTEGER: family_store_integer(c); break;
    case FAM_SCALE_CRUSH: family_scale_crush(c); break;
    case FAM_CONSTRUCTION: family_construction(c); break;
    case FAM_ARITH: family_arith(c); break;
    case FAM_DECL_INVALID: family_decl_invalid(c); break;
    case FAM_UNRESOLVED: family_unresolved(c); break;
    case FAM_UNUSED_SUPPRESSION: break; /* after suppressions, below */
    }
}

finding_list *evaluate(const rule_set *rules, file_facts *const *files, size_t nfiles,
                       const deployment_set *deps, const eval_options *opt)
{
    finding_list *l = xcalloc(1, sizeof *l);
    l->arena = arena_new();
    static const deployment_set none = {0};
    ectx c = { .opt = opt, .files = files, .nfiles = nfiles, .deps = deps ? deps : &none, .out = l };
    /* Rules that defer to others (`unless`) run after them. */
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < rules->rules.n; i++) {
            c.r = &rules->rules.v[i];
            if (rule_enabled(c.r, opt) && (c.r->unless != NULL) == (pass == 1))
                run_family(&c);
        }

    file_ix *ix = xcalloc(nfiles ? nfiles : 1, sizeof *ix);
    bool **used = xcalloc(nfiles ? nfiles : 1, sizeof *used);
    for (size_t fi = 0; fi < nfiles; fi++) {
        ix[fi] = (file_ix){ files[fi]->path, fi };
        used[fi] = arena_zalloc(l->arena, files[fi]->suppressions.n + 1);
    }
    qsort(ix, nfiles, sizeof *ix, file_ix_cmp);
    apply_suppressions(&c, used, ix, nfiles);
    for (size_t i = 0; i < rules->rules.n; i++) {
        c.r = &rules->rules.v[i];
        if (c.r->family == FAM_UNUSED_SUPPRESSION && rule_enabled(c.r, opt))
            report_unused(&c, used);
    }
    free(ix);
    free(used);
    free(c.seen);

    if (l->v.n)
        qsort(l->v.v, l->v.n, sizeof *l->v.v, finding_cmp);
    size_t w = 0;
    for (size_t i = 0; i < l->v.n; i++) {
        if (w && same_finding(&l->v.v[w - 1], &l->v.v[i]))
            continue;
        if (l->v.v[i].suppressed && !opt->keep_suppressed) {
            l->suppressed++;
            continue;
        }
        l->v.v[w++] = l->v.v[i];
    }
    l->v.n = w;
    return l;
}

void finding_list_free(finding_list *l)
{
    if (!l)
        return;
    arena_free(l->arena);
    free(l);
}
