/*
 * fam_arithmetic.c: the family `arithmetic` (KV007): arithmetic on sentinels that overflows in the
 * dtype it runs in: finfo(D).min + x whose headroom is below the rule's operand_bound, two sentinel
 * planes summed (with their signs: m1 - m2 is no sum), 0 * inf, and inf - inf (two infinite masks of
 * opposite effective signs). A dtype written in code is
 * evaluated once, the model or KV dtype once per deployment.
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "check/family.h"

typedef struct arithmetic_settings {
    double operand_bound;  /* the largest magnitude an operand of unknown value (scores, logits) is
                              taken to have; INFINITY when the rule file does not say */
} arithmetic_settings;

static const arithmetic_settings defaults = { .operand_bound = INFINITY };

static const family_setting settings[] = {
    SETTING_SELECT_OUTCOMES,
    { "operand_bound", SETTING_NUMBER, offsetof(arithmetic_settings, operand_bound), NULL, true },
    SETTINGS_END,
};

static const char *const placeholders[] = { "value", "expr", "dtype", "declared", "result", NULL };

/* Half an ulp at the top of f's range: the smallest |x| whose addition to -max overflows. */
static double overflow_margin(kvn_fmt f)
{
    const kvn_fmt_info *fi = kvn_fmt_get(f);
    int e;
    frexp(fi->max, &e);
    return ldexp(1.0, e - 1 - fi->man_bits - 1);
}

/* Two dtype references that name the same dtype under every deployment. */
static bool same_dtype_ref(const dtype_ref *x, const dtype_ref *y)
{
    if (x->kind != y->kind)
        return false;
    switch (x->kind) {
    case DREF_CONCRETE: return x->dtype == y->dtype;
    case DREF_MODEL:
    case DREF_KV: return true;
    default: return x->text && y->text && strcmp(x->text, y->text) == 0;
    }
}

/* finfo(D).min + finfo(D).min computed in D (or two max planes): -2 * max(D) is beyond max(D) in
 * every float dtype, so the sum is an infinity whatever D the deployment chooses. A difference of
 * two such planes (m1 - m2) is 0 or +-max: no overflow. */
static bool same_dtype_planes(const arith_fact *af)
{
    const kv_value *x = &af->a, *y = &af->b;
    return af->kind == ARITH_SENTINEL_SUM && x->sym != SYM_NONE && x->sym == y->sym &&
           (x->sym == SYM_FINFO_MIN || x->sym == SYM_FINFO_MAX) && x->sym_scale == 1 && y->sym_scale == 1 &&
           x->sym_add == 0 && y->sym_add == 0 && af->a_negated == af->b_negated &&
           same_dtype_ref(&x->sym_dtype, &y->sym_dtype) && same_dtype_ref(&x->sym_dtype, &af->dtype);
}

/* The expression as written: `s + x`, `s - x`, `x - s`. */
static const char *arith_expr(kv_arena *a, const arith_fact *af)
{
    const char *ta = af->a.text ? af->a.text : "?", *tb = af->b.text ? af->b.text : "x";
    if (af->kind == ARITH_ZERO_TIMES_INF)
        return arena_printf(a, "%s * %s", ta, tb);
    if (af->a_negated)
        return arena_printf(a, "%s - %s", tb, ta);
    return arena_printf(a, "%s %s %s", ta, af->b_negated ? "-" : "+", tb);
}

/* The sum (+-a) + (+-b) in dt; false when it stays finite for every plausible operand. */
static bool sum_overflows(ectx *c, const arith_fact *af, kvn_dtype dt, kvn_dtype model, kvn_dtype kv, dtype_spelling ks,
                          double *res, const char **how)
{
    kv_arena *a = c->out->arena;
    const arithmetic_settings *st = c->r->settings;
    const kvn_dtype_info *di = kvn_dtype_get(dt);
    double xa = cast_to_dtype(dt, value_concrete(&af->a, model, kv, ks)).stored;
    if (isnan(xa))
        return false;
    double sa = af->a_negated ? -xa : xa;
    if (isinf(xa)) {
        /* an infinite mask plus an opposite infinity (m1 + m2 holding -inf and +inf, or m1 - m2 of
         * two -inf masks) is NaN where both are infinite; anything else stays the infinity it was */
        double xb = af->b.kind == VK_UNKNOWN ? NAN : cast_to_dtype(dt, value_concrete(&af->b, model, kv, ks)).stored;
        double sb = af->b_negated ? -xb : xb;
        if (!isinf(sb) || (sa > 0) == (sb > 0))
            return false;
        *res = NAN;
        *how = arena_printf(a, "is NaN where both are infinite (%s %s %s)", ev_num(a, sa), sb < 0 ? "-" : "+",
                            ev_num(a, fabs(sb)));
        return true;
    }
    if (af->b.kind != VK_UNKNOWN) {
        double xb = cast_to_dtype(dt, value_concrete(&af->b, model, kv, ks)).stored;
        if (isnan(xb))
            return false;
        double lo = xb, hi = xb;
        if (af->b.kind == VK_FLOAT || af->b.kind == VK_INTEGER)
            lo = fmin(af->b.lo, xb), hi = fmax(af->b.hi, xb);
        if (af->b_negated) {
            double t = lo;
            lo = -hi, hi = -t;
        }
        *res = cast_to_dtype(dt, sa + (sa < 0 ? lo : hi)).stored;
        *how = arena_printf(a, "is %s", ev_num(a, *res));
        return isinf(*res);
    }
    /* An operand of unknown value (scores, logits) is plausible up to the rule's operand_bound:
     * the sum overflows only if the headroom left by the sentinel is below it. */
    double margin = kvn_fmt_get(di->elem)->max + overflow_margin(di->elem) - fabs(xa);
    if (!(margin <= st->operand_bound))
        return false;
    *res = sa < 0 ? -INFINITY : INFINITY;
    /* the unknown x must push the sum outward: x <= -margin, or x >= margin when it is subtracted */
    bool x_negative = (sa < 0) != af->b_negated;
    *how = arena_printf(a, "is %s for any %s %s %s", ev_num(a, *res), af->b.text ? af->b.text : "x",
                        x_negative ? "<=" : ">=", ev_num(a, x_negative ? -margin : margin));
    return true;
}

static void arith_under(ectx *c, const arith_fact *af, const deployment *d)
{
    kv_arena *a = c->out->arena;
    kvn_dtype model = d ? d->model.dtype : KVN_DTYPE_INVALID, kv = d ? d->kv.dtype : KVN_DTYPE_INVALID;
    dtype_spelling ks = deployment_spelling(d);
    /* 0 * inf is NaN in every float dtype: an unknown dtype does not matter when an operand is a
     * literal infinity (float32 holds it); same-dtype finfo planes overflow in every dtype. */
    bool planes = same_dtype_planes(af);
    if (planes)
        model = kv = kvn_dtype_by_fmt(KVN_F32);
    kvn_dtype dt = planes ? model : dtype_ref_resolve(&af->dtype, model, kv);
    /* inf + -inf is NaN in every float dtype too */
    bool inf_sum = af->kind == ARITH_SENTINEL_SUM && isinf(af->a.lo) && isinf(af->b.lo) && af->a.sym == SYM_NONE &&
                   af->b.sym == SYM_NONE;
    bool any_dtype = planes || (dt == KVN_DTYPE_INVALID && (af->kind == ARITH_ZERO_TIMES_INF || inf_sum));
    if (any_dtype && !planes)
        dt = kvn_dtype_by_fmt(KVN_F32);
    const kvn_dtype_info *di = kvn_dtype_get(dt);
    if (!di || (di->kind != KVN_KIND_ELEMENT && di->kind != KVN_KIND_SCALED))
        return;
    double res = NAN;
    const char *how = NULL;
    const char *expr = arith_expr(a, af);
    switch (af->kind) {
    case ARITH_SENTINEL_PLUS:
    case ARITH_SENTINEL_SUM:
        if (!sum_overflows(c, af, dt, model, kv, ks, &res, &how))
            return;
        break;
    case ARITH_ZERO_TIMES_INF: {
        double xa = cast_to_dtype(dt, value_concrete(&af->a, model, kv, ks)).stored;
        double xb = af->b.kind == VK_UNKNOWN ? NAN : cast_to_dtype(dt, value_concrete(&af->b, model, kv, ks)).stored;
        const kv_value *other = isinf(xa) ? &af->b : &af->a;
        if (!isinf(xa) && !isinf(xb))
            return;
        bool can_be_zero = other->kind == VK_UNKNOWN || (other->lo <= 0 && other->hi >= 0);
        if (!can_be_zero)
            return;
        how = arena_printf(a, "is NaN wherever %s is 0 (0 * inf)", other->text ? other->text : "the other operand");
        break;
    }
    }
    int outcome = isnan(res) ? KVN_OVERFLOW_NAN : KVN_OVERFLOW_INF;
    if (!ev_wants_outcome(c->r, outcome))
        return;
    const resolved_dtype *from = !d || planes ? NULL : af->dtype.kind == DREF_MODEL ? &d->model
                                 : af->dtype.kind == DREF_KV ? &d->kv : NULL;
    path_result pr = { "arithmetic", res, outcome };
    vars vs = {0};
    ev_var(&vs, "value", af->a.text ? af->a.text : expr);
    ev_var(&vs, "expr", expr);
    ev_var(&vs, "dtype", any_dtype ? "any float dtype" : ev_dtype_name(dt));
    ev_var(&vs, "declared", any_dtype ? "whatever the deployment chooses" : from ? ev_declared(a, from)
                             : af->dtype.loc.path ? arena_printf(a, "set in the code at %s", ev_loc_text(a, &af->dtype.loc))
                                                  : "the default float32");
    ev_var(&vs, "result", how);
    draft f = { .loc = af->loc, .value = expr, .dtype = any_dtype ? NULL : ev_dtype_name(dt), .stored = &pr, .nstored = 1,
                .dtype_from = from, .code_dtype_loc = from ? NULL : &af->dtype.loc, .flow = &af->a, .dep = d };
    if (af->a.origin.path && (af->a.origin.line != af->loc.line || af->a.origin.path != af->loc.path))
        ev_related(&f, &af->a.origin, "the sentinel is made here");
    if (planes && af->b.origin.path && (af->b.origin.line != af->a.origin.line || af->b.origin.path != af->a.origin.path))
        ev_related(&f, &af->b.origin, "the other sentinel is made here");
    if (from && from->decl)
        ev_related(&f, &from->decl->loc, arena_printf(a, "dtype %s declared here", ev_dtype_name(dt)));
    f.key = ev_subject(a, &f.loc, &af->loc, d);
    ev_emit(c, &f, &vs);
}

static void run(ectx *c)
{
    const deployment *const *deps;
    for (size_t fi = 0; fi < c->nfiles; fi++) {
        const file_facts *ff = c->files[fi];
        for (size_t k = 0; k < ff->ariths.n; k++) {
            const arith_fact *af = &ff->ariths.v[k];
            if (same_dtype_planes(af) || !ev_deployment_dependent(&af->dtype, &af->a, &af->b))
                arith_under(c, af, NULL);
            else
                for (size_t di = 0, nd = ev_scope(c, fi, &deps); di < nd; di++)
                    arith_under(c, af, deps[di]);
        }
    }
}

/* The example's sentinel plus an operand (`other:`, a number or an unknown such as scores), or
 * with `api: "*"` times an operand that can be 0. */
static void example(const rule *r, file_facts *f, deployment *d)
{
    const char *other = r->example.other;
    bool times = r->example.api && strcmp(r->example.api, "*") == 0;
    double x = 0;
    bool b32;
    kv_value s = ex_value(r, d->model.dtype);
    kv_value b = { .kind = VK_UNKNOWN, .text = other ? other : "x", .sym_scale = 1 };
    if (times) {
        b = (kv_value){ .kind = VK_FLOAT, .lo = 0, .hi = 1, .text = other ? other : "(1 - mask)", .sym_scale = 1 };
    } else if (other && kvn_parse_number(other, &x, &b32)) {
        b.kind = VK_FLOAT;
        b.lo = b.hi = x;
    }
    arith_fact af = { .loc = ex_loc(), .kind = times ? ARITH_ZERO_TIMES_INF : ARITH_SENTINEL_PLUS,
                      .a = times ? b : s, .b = times ? s : b, .dtype = ex_model_ref() };
    ARENA_PUSH(f->arena, f->ariths, af);
}

static void describe(strbuf *sb, const rule *r)
{
    const arithmetic_settings *st = r->settings;
    ex_describe_outcomes(sb, r);
    if (isfinite(st->operand_bound))
        sb_addf(sb, "; an operand of unknown value is at most %g in magnitude", st->operand_bound);
}

const family_def family_arithmetic = {
    .name = "arithmetic",
    .flags = FAMILY_JUDGES_VALUES,
    .settings = settings,
    .settings_size = sizeof(arithmetic_settings),
    .defaults = &defaults,
    .placeholders = placeholders,
    .evaluate = run,
    .example = example,
    .describe = describe,
};
