/*
 * fam_store.c: the families over values stored into a KV cache: store-value (a value's outcome on
 * each conversion path of the engine), store-integer (ids against the dtype's exact-integer limit,
 * also int-to-float casts) and scale-crush (a sentinel setting a shared block or tensor scale).
 * Each store is evaluated under every deployment; paths come from paths.c.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/family.h"
#include "facts/facts_json.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static int worst_outcome(const path_result *p, size_t n, const rule *r)
{
    static const int order[] = { KVN_OVERFLOW_NAN, KVN_OVERFLOW_INF, OUTC_REINTERPRETED, KVN_SATURATED,
                                 KVN_CRUSHED, KVN_UNDERFLOW_ZERO, KVN_ROUNDED, KVN_EXACT };
    for (size_t o = 0; o < sizeof order / sizeof *order; o++)
        for (size_t i = 0; i < n; i++)
            if (p[i].outcome == order[o] && ev_wants_outcome(r, order[o]))
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
                return arena_printf(a, "attention reads %s back as %s", value, ev_num(a, p[i].stored));
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

/* A calibrated scale (int8 caches always have one; a checkpoint KV scheme ships k_scale/v_scale)
 * is typically far below 1, so a clamp to +-max * scale lands among the activations: the mask is
 * gone. Only an unscaled clamp (scale 1) keeps a large magnitude. */
/* The related note at the sink: a layer or op stores "by" its callee; a direct write names the
 * cache tensor it writes into. */
static const char *sink_note(kv_arena *a, const store_fact *s)
{
    if (s->family == SINK_DIRECT && s->sink)
        return arena_printf(a, "written into the cache tensor %s as the %s", s->sink, operand_name(s->operand));
    return arena_printf(a, "stored into the KV cache as the %s by %s", operand_name(s->operand),
                        s->sink ? s->sink : "this write");
}

static bool calibrated_scale(const deployment *d)
{
    const kvn_dtype_info *di = kvn_dtype_get(d->kv.dtype);
    return (di && di->kind == KVN_KIND_INT8) || (d->kv.decl && d->kv.decl->key == DECL_KV_SCHEME);
}

static bool store_point(ectx *c, const store_fact *s, const kv_value *v,
                        const deployment *d, double x)
{
    kv_arena *a = c->out->arena;
    const char *engine = ev_engine(d, s->engine);
    /* A C++/CUDA store converts in the code (s->conv), into a dtype the code may fix itself. */
    bool coded = s->conv != CONV_ENGINE, fixed = s->cache_dtype.kind == DREF_CONCRETE;
    kvn_dtype kv = fixed ? s->cache_dtype.dtype : d->kv.dtype;
    path_result p[MAX_PATHS];
    size_t n = coded ? store_path_coded(s->conv_api, s->conv == CONV_SATURATING, kv, x, a, p)
                     : store_paths(engine, kv, d->model.dtype, d->rocm, x, p);
    path_result hit[MAX_PATHS];
    size_t nhit = 0;
    for (size_t i = 0; i < n; i++) {
        /* An infinity the code stores itself breaks attention as much as one a cast makes
         * (q.k computes 0 * -inf = NaN): no conversion path makes it safe. */
        if (p[i].outcome == KVN_EXACT && isinf(p[i].stored))
            p[i].outcome = KVN_OVERFLOW_INF;
        bool still_masks = p[i].outcome == KVN_SATURATED && s->operand == OPERAND_KEY &&
                           v->kind == VK_SENTINEL && fabs(p[i].stored) >= c->r->mask_floor &&
                           !calibrated_scale(d);
        if (ev_wants_outcome(c->r, p[i].outcome) && !still_masks)
            hit[nhit++] = p[i];
    }
    if (!nhit)
        return false;
    const char *vt = ev_value_text(a, v, x);
    vars vs = {0};
    ev_var(&vs, "value", vt);
    kvn_result in_model = coded ? (kvn_result){ x, KVN_EXACT } : cast_to_dtype(d->model.dtype, x);
    if (isinf(in_model.stored) && !isinf(x))
        ev_var(&vs, "dtype", arena_printf(a, "%s; it is already %s in the %s model dtype", ev_dtype_name(kv),
                                           ev_num(a, in_model.stored), ev_dtype_name(d->model.dtype)));
    else
        ev_var(&vs, "dtype", ev_dtype_name(kv));
    ev_var(&vs, "model_dtype", ev_dtype_name(d->model.dtype));
    ev_var(&vs, "declared", fixed ? arena_printf(a, "the element type of %s in the code", s->sink ? s->sink : "the cache")
                                  : ev_declared(a, &d->kv));
    ev_var(&vs, "stored", ev_stored_text(a, p, n));
    ev_var(&vs, "consequence", consequence(a, worst_outcome(hit, nhit, c->r), s->operand, p, n, vt));
    ev_var(&vs, "sink", s->sink ? s->sink : "the cache");
    ev_var(&vs, "operand", operand_name(s->operand));
    ev_var(&vs, "readback", ev_num(a, p[0].stored));
    draft f = { .loc = ev_origin(v, &s->loc), .value = vt, .dtype = ev_dtype_name(kv), .stored = p,
                .nstored = n, .dtype_from = fixed ? NULL : &d->kv,
                .code_dtype_loc = fixed ? &s->cache_dtype.loc : NULL, .flow = v, .dep = d };
    ev_related(&f, &s->loc, sink_note(a, s));
    if (d->kv.decl && !fixed)
        ev_related(&f, &d->kv.decl->loc, arena_printf(a, "KV-cache dtype %s declared here", ev_dtype_name(d->kv.dtype)));
    if (d->model.decl && ev_wants_outcome(c->r, OUTC_REINTERPRETED))
        ev_related(&f, &d->model.decl->loc, arena_printf(a, "model dtype %s declared here", ev_dtype_name(d->model.dtype)));
    f.key = ev_subject(a, &f.loc, &s->loc, d);
    ev_emit(c, &f, &vs);
    return true;
}

void fam_store_value(ectx *c)
{
    const deployment *const *deps;
    for (size_t fi = 0; fi < c->nfiles; fi++) {
        const file_facts *ff = c->files[fi];
        for (size_t k = 0; k < ff->stores.n; k++) {
            const store_fact *s = &ff->stores.v[k];
            if (!((c->r->operands >> s->operand) & 1u))
                continue;
            for (size_t vi = 0; vi < s->nvalues; vi++) {
                const kv_value *v = &s->values[vi];
                if (!ev_wants_value(c->r, v))
                    continue;
                /* A dtype the code fixes is the same under every deployment: judged once. */
                size_t nd = ev_scope(c, fi, &deps);
                if (s->cache_dtype.kind == DREF_CONCRETE && nd)
                    nd = 1;
                for (size_t di = 0; di < nd; di++) {
                    const deployment *d = deps[di];
                    double pts[2];
                    size_t np = ev_value_points(v, d, pts);
                    for (size_t i = 0; i < np; i++)
                        if (store_point(c, s, v, d, pts[i]))
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
        r.text = r.loc ? arena_printf(a, "%s = %s, %s", ir->name, ev_num(a, ir->max), ev_loc_text(a, r.loc))
                       : arena_printf(a, "%s = %s", ir->name, ev_num(a, ir->max));
    } else if (!v->hi_unknown && !v->hi_sym && !isnan(v->hi)) {
        r.known = true;
        r.hi = v->hi;
        r.text = arena_printf(a, "%s..%s", ev_num(a, v->lo), ev_num(a, v->hi));
    }
    return r;
}

static const char *range_hint(kv_arena *a, const kv_value *v)
{
    const char *name = v->hi_sym ? v->hi_sym : v->family ? arena_printf(a, "%s_id", v->family) : "ids";
    return arena_printf(a, "declare it in .kvlint.yaml (ranges: {%s: {max: N}}) or in the checkpoint's config.json",
                        name);
}

/* One integer value reaching dtype dt through fact at fact_loc (a store or an int cast). */
static void integer_point(ectx *c, const kv_value *v, const kv_loc *fact_loc, const char *what,
                          const char *engine, kv_operand op, const deployment *d, kvn_dtype dt,
                          const resolved_dtype *dt_from, const kv_loc *code_dtype_loc, const kv_loc *cast_loc)
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
    if (d && dt_from == &d->kv) {
        n = store_paths(engine, dt, d->model.dtype, d->rocm, first, p);
    } else {
        kvn_result r = cast_to_dtype(dt, first);
        p[0] = (path_result){ "a PyTorch cast", r.stored, r.outcome };
        n = 1;
    }
    const char *vt = v->text ? v->text : "an integer";
    vars vs = {0};
    ev_var(&vs, "value", vt);
    ev_var(&vs, "dtype", ev_dtype_name(dt));
    ev_var(&vs, "model_dtype", d ? ev_dtype_name(d->model.dtype) : "");
    ev_var(&vs, "declared", dt_from ? ev_declared(a, dt_from) : arena_printf(a, "set in the code at %s", ev_loc_text(a, code_dtype_loc)));
    ev_var(&vs, "limit", ev_num(a, limit));
    ev_var(&vs, "range", rg.known ? arena_printf(a, "up to %s (%s)", ev_num(a, rg.hi), rg.text) : "of unknown range");
    ev_var(&vs, "first_inexact", ev_num(a, first));
    ev_var(&vs, "first_stored", n ? ev_num(a, p[0].stored) : "?");
    ev_var(&vs, "stored", n ? ev_stored_text(a, p, n) : "");
    ev_var(&vs, "range_hint", range_hint(a, v));
    ev_var(&vs, "operand", operand_name(op));
    ev_var(&vs, "sink", what);
    draft f = { .loc = ev_origin(v, fact_loc), .value = vt, .dtype = ev_dtype_name(dt), .stored = p, .nstored = n,
                .dtype_from = dt_from, .code_dtype_loc = code_dtype_loc, .flow = v, .dep = d };
    ev_related(&f, fact_loc, arena_printf(a, "%s here", what));
    if (cast_loc)
        ev_related(&f, cast_loc, arena_printf(a, "converted to %s here, before it is stored", ev_dtype_name(dt)));
    if (dt_from && dt_from->decl)
        ev_related(&f, &dt_from->decl->loc, arena_printf(a, "dtype %s declared here", ev_dtype_name(dt)));
    if (rg.loc)
        ev_related(&f, rg.loc, "range declared here");
    f.key = ev_subject(a, &f.loc, fact_loc, d);
    ev_emit(c, &f, &vs);
}

static bool same_loc(const kv_loc *a, const kv_loc *b)
{
    return a->path && b->path && a->line == b->line && a->col == b->col && strcmp(a->path, b->path) == 0;
}

/* An int cast of the value v (same origin) into dtype dt under d, or NULL. */
static const intcast_fact *cast_into(const file_facts *ff, const kv_value *v, const deployment *d, kvn_dtype dt)
{
    for (size_t k = 0; k < ff->casts.n; k++) {
        const intcast_fact *ic = &ff->casts.v[k];
        if (ic->value.kind == VK_INTEGER && same_loc(&ic->value.origin, &v->origin) &&
            dtype_ref_resolve(&ic->dtype, d->model.dtype, d->kv.dtype) == dt)
            return ic;
    }
    return NULL;
}

/* Whether the int cast ic feeds a store whose cache holds the same dtype under d: the store's
 * finding then tells it once, with a note at the cast (`positions.to(v.dtype)` stored in V). */
static bool cast_is_stored(const ectx *c, const file_facts *ff, const intcast_fact *ic, const deployment *d)
{
    if (!(c->r->facts & 1u))
        return false;
    for (size_t k = 0; k < ff->stores.n; k++) {
        const store_fact *s = &ff->stores.v[k];
        if (!((c->r->operands >> s->operand) & 1u))
            continue;
        for (size_t vi = 0; vi < s->nvalues; vi++)
            if (s->values[vi].kind == VK_INTEGER && same_loc(&s->values[vi].origin, &ic->value.origin) &&
                cast_into(ff, &s->values[vi], d, d->kv.dtype) == ic)
                return true;
    }
    return false;
}

/* A cast to a dtype written in code of an integer with a known range does not depend on the
 * deployment: it is evaluated once. */
static bool cast_deployment_free(const intcast_fact *ic)
{
    return (ic->dtype.kind == DREF_CONCRETE || ic->dtype.kind == DREF_NONE) && !ic->value.hi_sym &&
           !ic->value.hi_unknown;
}

static void cast_under(ectx *c, const file_facts *ff, const intcast_fact *ic, const deployment *d,
                       const deployment *stored_under)
{
    if (ic->value.kind != VK_INTEGER || (stored_under && cast_is_stored(c, ff, ic, stored_under)))
        return;
    kvn_dtype dt = dtype_ref_resolve(&ic->dtype, d ? d->model.dtype : KVN_DTYPE_INVALID,
                                     d ? d->kv.dtype : KVN_DTYPE_INVALID);
    const resolved_dtype *from = !d ? NULL : ic->dtype.kind == DREF_MODEL ? &d->model
                                 : ic->dtype.kind == DREF_KV  ? &d->kv : NULL;
    integer_point(c, &ic->value, &ic->loc, arena_printf(c->out->arena, "converted to %s by %s", ev_dtype_name(dt),
                  ic->api ? ic->api : "a cast"), NULL, OPERAND_KV, d, dt, from, &ic->dtype.loc, NULL);
}

void fam_store_integer(ectx *c)
{
    kv_arena *a = c->out->arena;
    const deployment *const *deps;
    for (size_t fi = 0; fi < c->nfiles; fi++) {
        const file_facts *ff = c->files[fi];
        if (!ff->stores.n && !ff->casts.n)
            continue;
        size_t nd = ev_scope(c, fi, &deps);
        for (size_t di = 0; di < nd; di++) {
            const deployment *d = deps[di];
            for (size_t k = 0; (c->r->facts & 1u) && k < ff->stores.n; k++) {
                const store_fact *s = &ff->stores.v[k];
                if (!((c->r->operands >> s->operand) & 1u))
                    continue;
                const char *what = sink_note(a, s);
                for (size_t vi = 0; vi < s->nvalues; vi++)
                    if (s->values[vi].kind == VK_INTEGER) {
                        const intcast_fact *via = (c->r->facts & 2u) ? cast_into(ff, &s->values[vi], d, d->kv.dtype) : NULL;
                        integer_point(c, &s->values[vi], &s->loc, what, ev_engine(d, s->engine), s->operand,
                                      d, d->kv.dtype, &d->kv, NULL, via ? &via->loc : NULL);
                    }
            }
            for (size_t k = 0; (c->r->facts & 2u) && k < ff->casts.n; k++)
                if (!cast_deployment_free(&ff->casts.v[k]))
                    cast_under(c, ff, &ff->casts.v[k], d, d);
        }
        for (size_t k = 0; (c->r->facts & 2u) && k < ff->casts.n; k++)
            if (cast_deployment_free(&ff->casts.v[k]))
                cast_under(c, ff, &ff->casts.v[k], NULL, nd ? deps[0] : NULL);
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
    if (!ev_wants_outcome(c->r, outcome) && !(outcome == KVN_CRUSHED && ev_wants_outcome(c->r, KVN_UNDERFLOW_ZERO)))
        return;
    const char *vt = ev_value_text(a, v, x);
    path_result pr = { "the shared scale", nb_stored, outcome };
    vars vs = {0};
    ev_var(&vs, "value", vt);
    ev_var(&vs, "dtype", ev_dtype_name(d->kv.dtype));
    if (dyn_tensor && d->kv_scales_decl && d->kv_scales_decl->loc.path)
        ev_var(&vs, "declared", arena_printf(a, "%s, dynamic scales enabled at %s", ev_declared(a, &d->kv),
                                             ev_loc_text(a, &d->kv_scales_decl->loc)));
    else
        ev_var(&vs, "declared", ev_declared(a, &d->kv));
    ev_var(&vs, "neighbour", typical ? "an ordinary value of 1" : ev_num(a, nb));
    ev_var(&vs, "neighbour_stored", ev_num(a, nb_stored));
    ev_var(&vs, "scale_how", how);
    ev_var(&vs, "sink", s->sink ? s->sink : "the cache");
    ev_var(&vs, "operand", operand_name(s->operand));
    draft f = { .loc = ev_origin(v, &s->loc), .value = vt, .dtype = ev_dtype_name(d->kv.dtype), .stored = &pr,
                .nstored = 1, .dtype_from = &d->kv, .flow = v, .dep = d };
    ev_related(&f, &s->loc, sink_note(a, s));
    if (d->kv.decl)
        ev_related(&f, &d->kv.decl->loc, arena_printf(a, "KV-cache dtype %s declared here", ev_dtype_name(d->kv.dtype)));
    if (dyn_tensor && d->kv_scales_decl)
        ev_related(&f, &d->kv_scales_decl->loc, "dynamic KV scales enabled here");
    f.key = ev_subject(a, &f.loc, &s->loc, d);
    ev_emit(c, &f, &vs);
}

void fam_scale_crush(ectx *c)
{
    const deployment *const *deps;
    for (size_t fi = 0; fi < c->nfiles; fi++) {
        const file_facts *ff = c->files[fi];
        for (size_t k = 0; k < ff->stores.n; k++) {
            const store_fact *s = &ff->stores.v[k];
            if (!s->shares_block || !((c->r->operands >> s->operand) & 1u))
                continue;
            for (size_t vi = 0; vi < s->nvalues; vi++) {
                const kv_value *v = &s->values[vi];
                if (!ev_wants_value(c->r, v))
                    continue;
                for (size_t di = 0, nd = ev_scope(c, fi, &deps); di < nd; di++) {
                    double pts[2];
                    if (ev_value_points(v, deps[di], pts))
                        crush_point(c, s, v, deps[di], pts[0]);
                }
            }
        }
    }
}
