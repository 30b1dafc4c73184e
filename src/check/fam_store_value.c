/*
 * fam_store_value.c: the family `store-value`: each value stored into a KV cache, under each
 * deployment, on each conversion path of the engine (paths.c), reported for the outcome classes
 * the rule selects (KV001 inf/NaN, KV002 saturation, KV008 bfloat16 bits read as float16).
 * Not here: integer ids against the exact-integer limit (fam_store_integer.c), shared scales
 * (fam_scale_crush.c).
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "check/family.h"

typedef struct store_value_settings {
    double mask_floor;   /* a saturated key sentinel at least this large still masks (INFINITY: none) */
} store_value_settings;

static const store_value_settings defaults = { .mask_floor = INFINITY };

static const family_setting settings[] = {
    SETTING_SELECT_VALUES,
    SETTING_SELECT_OUTCOMES,
    SETTING_SELECT_OPERANDS,
    { "mask_floor", SETTING_NUMBER, offsetof(store_value_settings, mask_floor), NULL, false },
    SETTINGS_END,
};

static const char *const placeholders[] = {
    "value", "dtype", "model_dtype", "declared", "stored", "consequence", "sink", "operand", "readback", NULL,
};

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

/* A computed value says what it computes: "15 / 0.0078125 = 1920"; a literal is itself. */
static const char *value_text(kv_arena *a, const kv_value *v, double x)
{
    double lit;
    if (v->kind != VK_FLOAT || !v->text || (kvn_parse_number(v->text, &lit, NULL) && lit == x))
        return ev_value_text(a, v, x);
    return arena_printf(a, "%s = %s", v->text, ev_num(a, x));
}

/* What a value of known magnitude (not a mask) does to the attention arithmetic once stored as y
 * (saturated, NaN or inf): a key multiplies the query (the logit q*x becomes q*y), a value its
 * softmax weight w (the output term w*x becomes w*y). The facts do not know q or w (a query is no
 * store, a weight is computed at run time), so the message names them and gives the factor y/x,
 * which holds for every q and w. A latent MLA entry (kv) feeds both. */
static const char *known_value_consequence(kv_arena *a, int outcome, kv_operand op, double x,
                                           const path_result *hit, size_t n)
{
    double y = x;
    for (size_t i = 0; i < n; i++)
        if (hit[i].outcome == outcome) {
            y = hit[i].stored;
            break;
        }
    /* a factor after "q*": a negative one in parentheses, q*(-300) */
    const char *xs = arena_printf(a, x < 0 ? "(%s)" : "%s", ev_num(a, x));
    const char *ys = arena_printf(a, y < 0 ? "(%s)" : "%s", ev_num(a, y));
    if (outcome == KVN_SATURATED) {
        char ratio[32];
        snprintf(ratio, sizeof ratio, "%.3g", x == 0 ? 1 : y / x);
        if (op == OPERAND_KEY)
            return arena_printf(a, "the logit this key drives drops from q*%s to q*%s for every query q that "
                                   "reads it (x%s; q is not known statically, the factor holds for any q)",
                                xs, ys, ratio);
        if (op == OPERAND_VALUE)
            return arena_printf(a, "the output term this value adds drops from w*%s to w*%s wherever softmax "
                                   "gives it weight w (x%s; w is computed at run time, the factor holds for any w)",
                                xs, ys, ratio);
        return arena_printf(a, "every logit and output computed from this latent entry sees %s instead of %s (x%s)",
                            ev_num(a, y), ev_num(a, x), ratio);
    }
    bool nan = isnan(y);
    if (op == OPERAND_KEY)
        return nan ? arena_printf(a, "the logit this key drives, q*%s, becomes NaN for every query q that reads it, "
                                     "and so does the softmax row", xs)
                   : arena_printf(a, "the logit this key drives, q*%s, becomes q*%s: NaN where q is 0, and a "
                                     "+inf logit makes the softmax row NaN", xs, ys);
    if (op == OPERAND_VALUE)
        return nan ? arena_printf(a, "the output term this value adds, w*%s, becomes NaN for every softmax weight w, "
                                     "0 included, so the attention output is NaN", xs)
                   : arena_printf(a, "the output term this value adds, w*%s, becomes w*%s: an infinite attention "
                                     "output, and NaN where w is 0", xs, ys);
    return arena_printf(a, "every logit and output computed from this latent entry sees %s instead of %s",
                        ev_num(a, y), ev_num(a, x));
}

/* A calibrated scale (int8 caches always have one; a checkpoint KV scheme ships k_scale/v_scale)
 * is typically far below 1, so a clamp to +-max * scale lands among the activations: the mask is
 * gone. Only an unscaled clamp (scale 1) keeps a large magnitude. */
static bool calibrated_scale(const deployment *d)
{
    const kvn_dtype_info *di = kvn_dtype_get(d->kv.dtype);
    return (di && di->kind == KVN_KIND_INT8) || (d->kv.decl && d->kv.decl->key == DECL_KV_SCHEME);
}

static bool store_point(ectx *c, const store_fact *s, const kv_value *v,
                        const deployment *d, double x)
{
    kv_arena *a = c->out->arena;
    const store_value_settings *st = c->r->settings;
    kv_engine engine = ev_store_engine(d, s);
    /* A C++/CUDA store converts in the code (s->conv), into a dtype the code may fix itself. */
    bool coded = s->conv != CONV_ENGINE, fixed = s->cache_dtype.kind == DREF_CONCRETE;
    kvn_dtype kv = fixed ? s->cache_dtype.dtype : d->kv.dtype;
    /* A value of known magnitude (not a sentinel) is judged against an element format's range:
     * block and per-token-head formats scale to the value (codeword keys of 3.5 read back 3 in mxfp4
     * by its E8M0 rule, which is rounding, not range); their shared scale is scale-crush's. */
    const kvn_dtype_info *kvi = kvn_dtype_get(kv);
    if (v->kind == VK_FLOAT && kvi && (kvi->kind == KVN_KIND_BLOCK || kvi->kind == KVN_KIND_DYNAMIC))
        return false;
    /* --calculate-kv-scales makes the per-tensor scale absmax / 200 (keys) or / 100 (values): the
     * largest value itself is stored at 200 or 100 times the scale, inside every fp8 range, so
     * nothing saturates or overflows; what the scale does to the others is scale-crush's (KV014). */
    if (!coded && !fixed && d->dynamic_kv_scales && kvi && kvi->kind == KVN_KIND_SCALED && isfinite(x))
        return false;
    path_result p[MAX_PATHS];
    /* the dtype the values are converted from: the model's, or float32 for a tensor widened first */
    kvn_dtype src = s->wide_source ? kvn_dtype_by_fmt(KVN_F32) : d->model.dtype;
    size_t n = coded ? store_path_coded(s->conv_api, store_conv_saturates(s->conv, kv), kv, x, a, p)
                     : store_paths(engine, kv, src, d->platform, x, p);
    path_result hit[MAX_PATHS];
    size_t nhit = 0;
    for (size_t i = 0; i < n; i++) {
        /* An infinity the code stores itself breaks attention as much as one a cast makes
         * (q.k computes 0 * -inf = NaN): no conversion path makes it safe. */
        if (p[i].outcome == KVN_EXACT && isinf(p[i].stored))
            p[i].outcome = KVN_OVERFLOW_INF;
        /* a key mask clamped to -448 still masks; a large positive key (a gain) clamped is wrong */
        bool still_masks = p[i].outcome == KVN_SATURATED && s->operand == OPERAND_KEY &&
                           (v->kind == VK_SENTINEL || x < 0) && fabs(p[i].stored) >= st->mask_floor &&
                           !calibrated_scale(d);
        if (ev_wants_outcome(c->r, p[i].outcome) && !still_masks)
            hit[nhit++] = p[i];
    }
    if (!nhit)
        return false;
    const char *vt = value_text(a, v, x);
    vars vs = {0};
    ev_var(&vs, "value", vt);
    kvn_result in_model = coded || s->wide_source ? (kvn_result){ x, KVN_EXACT } : cast_to_dtype(d->model.dtype, x);
    if (isinf(in_model.stored) && !isinf(x))
        ev_var(&vs, "dtype", arena_printf(a, "%s; it is already %s in the %s model dtype", ev_dtype_name(kv),
                                           ev_num(a, in_model.stored), ev_dtype_name(d->model.dtype)));
    else
        ev_var(&vs, "dtype", ev_dtype_name(kv));
    ev_var(&vs, "model_dtype", ev_dtype_name(d->model.dtype));
    ev_var(&vs, "declared", fixed ? arena_printf(a, "the element type of %s in the code",
                                                  /* a sink call's cache is its argument, not the sink */
                                                  s->via == SINK_CACHE_OP && s->tensor ? s->tensor
                                                  : s->sink ? s->sink : "the cache")
                                  : ev_declared(a, &d->kv));
    ev_var(&vs, "stored", ev_stored_text(a, p, n));
    int worst = worst_outcome(hit, nhit, c->r);
    bool known = v->kind == VK_FLOAT && isfinite(x) && (worst == KVN_SATURATED || worst == KVN_OVERFLOW_NAN ||
                                         worst == KVN_OVERFLOW_INF);
    ev_var(&vs, "consequence", known ? known_value_consequence(a, worst, s->operand, x, hit, nhit)
                                     : consequence(a, worst, s->operand, p, n, vt));
    ev_var(&vs, "sink", s->sink ? s->sink : "the cache");
    ev_var(&vs, "operand", operand_name(s->operand));
    ev_var(&vs, "readback", ev_num(a, p[0].stored));
    draft f = { .loc = ev_origin(v, &s->loc), .value = vt, .dtype = ev_dtype_name(kv), .stored = p,
                .nstored = n, .dtype_from = fixed ? NULL : &d->kv,
                .code_dtype_loc = fixed ? &s->cache_dtype.loc : NULL, .flow = v, .dep = d };
    ev_related(&f, &s->loc, ev_sink_note(a, s));
    if (d->kv.decl && !fixed)
        ev_related(&f, &d->kv.decl->loc, arena_printf(a, "KV-cache dtype %s declared here", ev_dtype_name(d->kv.dtype)));
    if (d->platform_decl && d->platform != KVN_PLAT_ROCM)
        ev_related(&f, &d->platform_decl->loc, arena_printf(a, "runs on %s: %s", kvn_platform_name(d->platform),
                                                            d->platform == KVN_PLAT_CPU ? "vLLM's CPU backend"
                                                            : "a GPU below sm80, without bfloat16"));
    if (d->model.decl && ev_wants_outcome(c->r, OUTC_REINTERPRETED))
        ev_related(&f, &d->model.decl->loc, arena_printf(a, "model dtype %s declared here", ev_dtype_name(d->model.dtype)));
    f.key = ev_subject(a, &f.loc, &s->loc, d);
    ev_emit(c, &f, &vs);
    return true;
}

/* The value's extremes, the first that makes a finding only. */
static void stored_value(ectx *c, const store_fact *s, const kv_value *v, const deployment *d)
{
    double pts[2];
    size_t np = ev_value_points(v, d, pts);
    for (size_t i = 0; i < np; i++)
        if (store_point(c, s, v, d, pts[i]))
            break;
}

static void run(ectx *c)
{
    ev_each_stored_value(c, WALK_FIXED_DTYPE_ONCE, stored_value);
}

static void describe(strbuf *sb, const rule *r)
{
    const store_value_settings *st = r->settings;
    ex_describe_selectors(sb, r);
    if (isfinite(st->mask_floor))
        sb_addf(sb, "; a key sentinel that saturates to magnitude >= %g still masks and is not reported", st->mask_floor);
}

const family_def family_store_value = {
    .name = "store-value",
    .flags = FAMILY_JUDGES_VALUES,
    .settings = settings,
    .settings_size = sizeof(store_value_settings),
    .defaults = &defaults,
    .placeholders = placeholders,
    .evaluate = run,
    .example = ex_stored_value,
    .describe = describe,
};
