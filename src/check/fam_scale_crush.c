/*
 * fam_scale_crush.c: the family `scale-crush` (KV005): a sentinel stored with ordinary values
 * under a format whose scale is shared (block formats, per-token-head scales, or a per-tensor scale
 * --calculate-kv-scales computes from the absolute maximum): the scale is set by the sentinel and
 * its neighbours become 0. Element overflow is fam_store_value.c's.
 *
 * Two criteria. By default (KV005) a neighbour (another known value of the store, else an ordinary
 * 1) must read back 0. With `flush_fraction` (KV014) only the dynamic scales are judged (the
 * per-tensor one --calculate-kv-scales computes, per-token-head): the scale the value forces and
 * the largest magnitude that then reads back 0 (kvn_flush_up_to) are computed, and the finding is
 * made when that threshold reaches flush_fraction of the documented reference magnitude of
 * ordinary keys (reference_key, 1.0) or values (reference_value, 0.1): -30000 as a key gives
 * scale 150 and flushes every key up to 0.146, a seventh of an ordinary key.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>

#include "check/family.h"

typedef struct scale_crush_settings {
    double flush_fraction;   /* INFINITY: the neighbour criterion; else the flush threshold against */
    double reference_key;    /* reference magnitudes of ordinary keys */
    double reference_value;  /* and values */
} scale_crush_settings;

static const scale_crush_settings defaults = { .flush_fraction = INFINITY, .reference_key = 1.0,
                                               .reference_value = 0.1 };

static const family_setting settings[] = {
    SETTING_SELECT_VALUES,
    SETTING_SELECT_OUTCOMES,
    SETTING_SELECT_OPERANDS,
    { "flush_fraction", SETTING_NUMBER, offsetof(scale_crush_settings, flush_fraction), NULL, true },
    { "reference_key", SETTING_NUMBER, offsetof(scale_crush_settings, reference_key), NULL, true },
    { "reference_value", SETTING_NUMBER, offsetof(scale_crush_settings, reference_value), NULL, true },
    SETTINGS_END,
};

static const char *const placeholders[] = {
    "value", "dtype", "declared", "neighbour", "neighbour_stored", "scale_how", "sink", "operand",
    "scale", "flush", "reference", "reference_stored", NULL,
};

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
    const scale_crush_settings *st = c->r->settings;
    bool by_flush = isfinite(st->flush_fraction);
    if (by_flush && !dyn_tensor && di->kind != KVN_KIND_DYNAMIC)
        return; /* block scales are per block: the neighbour criterion (KV005) judges them */
    bool typical;
    double nb = neighbour_of(s, v, &typical);
    double ref = s->operand == OPERAND_VALUE ? st->reference_value
                 : s->operand == OPERAND_KEY ? st->reference_key : fmin(st->reference_key, st->reference_value);
    kvn_params dp = { .mode = KVN_SATURATE, .scale = 0, .dynamic_div = dyn_tensor ? (s->operand == OPERAND_VALUE ? 100 : 200) : 0 };
    double flush = NAN, scale = NAN, ref_stored = NAN;
    if (by_flush) {
        double row[2] = { x, ref };
        kvn_result out[2];
        flush = kvn_flush_up_to(d->kv.dtype, x, &dp);
        scale = kvn_row_scale(d->kv.dtype, row, 2, &dp);
        if (!isfinite(flush) || !(flush >= st->flush_fraction * ref) || !kvn_store_row(d->kv.dtype, row, 2, &dp, out))
            return;
        ref_stored = out[1].stored;
    }
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
              : di->block > 0 ? arena_printf(a, "%d-element tile scale computed from the tile's absolute maximum",
                                             di->block)
                              : "per-token-head scale computed from the absolute maximum";
    } else {
        double row[2] = { x, nb };
        kvn_result out[2];
        if (!kvn_store_row(d->kv.dtype, row, 2, &dp, out))
            return;
        nb_stored = out[1].stored;
        how = arena_printf(a, "per-tensor scale computed by --calculate-kv-scales (absmax / %g)", dp.dynamic_div);
    }
    int outcome = by_flush || nb_stored == 0 ? KVN_CRUSHED : nb_stored != nb ? KVN_ROUNDED : KVN_EXACT;
    if (!ev_wants_outcome(c->r, outcome) && !(outcome == KVN_CRUSHED && ev_wants_outcome(c->r, KVN_UNDERFLOW_ZERO)))
        return;
    const char *vt = ev_value_text(a, v, x);
    path_result pr = { "the shared scale", by_flush ? ref_stored : nb_stored, outcome };
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
    ev_var(&vs, "scale", by_flush ? ev_num(a, scale) : "");
    ev_var(&vs, "flush", by_flush ? ev_num(a, flush) : "");
    ev_var(&vs, "reference", ev_num(a, ref));
    ev_var(&vs, "reference_stored", by_flush ? ev_num(a, ref_stored) : "");
    ev_var(&vs, "sink", s->sink ? s->sink : "the cache");
    ev_var(&vs, "operand", operand_name(s->operand));
    draft f = { .loc = ev_origin(v, &s->loc), .value = vt, .dtype = ev_dtype_name(d->kv.dtype), .stored = &pr,
                .nstored = 1, .dtype_from = &d->kv, .flow = v, .dep = d };
    ev_related(&f, &s->loc, ev_sink_note(a, s));
    if (d->kv.decl)
        ev_related(&f, &d->kv.decl->loc, arena_printf(a, "KV-cache dtype %s declared here", ev_dtype_name(d->kv.dtype)));
    if (dyn_tensor && d->kv_scales_decl)
        ev_related(&f, &d->kv_scales_decl->loc, "dynamic KV scales enabled here");
    f.key = ev_subject(a, &f.loc, &s->loc, d);
    ev_emit(c, &f, &vs);
}

/* Under every deployment (a dtype the code fixes changes nothing here: the scale is the
 * deployment's), the value's first extreme. */
static void stored_value(ectx *c, const store_fact *s, const kv_value *v, const deployment *d)
{
    double pts[2];
    if (ev_value_points(v, d, pts))
        crush_point(c, s, v, d, pts[0]);
}

static void run(ectx *c)
{
    ev_each_stored_value(c, WALK_SHARED_BLOCK, stored_value);
}

/* The example's value beside an ordinary one in one block. */
static void example(const rule *r, file_facts *f, deployment *d)
{
    (void)d;
    ex_add_store(r, f, 2);
}

const family_def family_scale_crush = {
    .name = "scale-crush",
    .flags = FAMILY_JUDGES_VALUES,
    .settings = settings,
    .settings_size = sizeof(scale_crush_settings),
    .defaults = &defaults,
    .placeholders = placeholders,
    .evaluate = run,
    .example = example,
    .describe = ex_describe_selectors,
};
