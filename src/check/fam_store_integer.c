/*
 * fam_store_integer.c: the family `store-integer`: integer ids (adapter, expert, position, token
 * ids) stored into a KV cache, and with `facts: [intcast]` converted to a float dtype, against the
 * largest integer the dtype holds exactly. `range: known` reports a range that is known to exceed
 * it (KV003), `range: unknown` one kvlint could not find (KV004). Ranges come from the deployment
 * (resolve/: id ranges from configs and .kvlint.yaml) or from the code.
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "check/family.h"

/* The facts the family looks at (`facts: [store, intcast]`), a bit each. */
#define INT_FACTS(X) X(INT_FACT_STORES, "store") X(INT_FACT_CASTS, "intcast")

enum {
#define INT_FACT_BIT(e, name) e##_BIT,
    INT_FACTS(INT_FACT_BIT)
#undef INT_FACT_BIT
};
enum int_facts {
#define INT_FACT_FLAG(e, name) e = 1u << e##_BIT,
    INT_FACTS(INT_FACT_FLAG)
#undef INT_FACT_FLAG
};
static const char *const fact_names[] = {
#define INT_FACT_NAME(e, name) name,
    INT_FACTS(INT_FACT_NAME)
#undef INT_FACT_NAME
    NULL
};

#define INT_RANGES(X) X(RANGE_KNOWN, "known") X(RANGE_UNKNOWN, "unknown")

enum int_range_kind {
#define INT_RANGE_ENUM(e, name) e,
    INT_RANGES(INT_RANGE_ENUM)
#undef INT_RANGE_ENUM
};
static const char *const range_names[] = {
#define INT_RANGE_NAME(e, name) name,
    INT_RANGES(INT_RANGE_NAME)
#undef INT_RANGE_NAME
    NULL
};

typedef struct store_integer_settings {
    unsigned facts;        /* INT_FACT_* */
    int range;             /* enum int_range_kind: report a known range above the limit, or an unknown one */
    double limit_below;    /* unknown range: only when the exact-integer limit is below this */
} store_integer_settings;

static const store_integer_settings defaults = { .facts = INT_FACT_STORES, .range = RANGE_UNKNOWN, .limit_below = 2048 };

static const family_setting settings[] = {
    SETTING_SELECT_OPERANDS,
    { "facts", SETTING_NAMES, offsetof(store_integer_settings, facts), fact_names, false },
    { "range", SETTING_CHOICE, offsetof(store_integer_settings, range), range_names, false },
    { "limit_below", SETTING_NUMBER, offsetof(store_integer_settings, limit_below), NULL, false },
    SETTINGS_END,
};

static const char *const placeholders[] = {
    "value", "dtype", "model_dtype", "declared", "limit", "range", "first_inexact", "first_stored", "stored",
    "range_hint", "operand", "sink", NULL,
};

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
        ir = d ? deployment_range(d, v->hi_sym, v->id_class) : NULL;
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
    const char *name = v->hi_sym ? v->hi_sym : v->id_class ? arena_printf(a, "%s_id", v->id_class) : "ids";
    return arena_printf(a, "declare it in .kvlint.yaml (ranges: {%s: {max: N}}) or in the checkpoint's config.json",
                        name);
}

/* One integer value reaching dtype dt through fact at fact_loc (a store or an int cast). */
static void integer_point(ectx *c, const kv_value *v, const kv_loc *fact_loc, const char *what,
                          kv_engine engine, kv_operand op, const deployment *d, kvn_dtype dt,
                          const resolved_dtype *dt_from, const kv_loc *code_dtype_loc, const kv_loc *cast_loc,
                          const store_fact *coded)
{
    kv_arena *a = c->out->arena;
    const store_integer_settings *st = c->r->settings;
    const kvn_dtype_info *di = kvn_dtype_get(dt);
    if (!di || di->kind == KVN_KIND_AUTO || di->kind == KVN_KIND_UNMODELLED)
        return;
    double limit = kvn_dtype_int_exact_max(dt);
    int_range rg = integer_range(a, v, d);
    if (st->range == RANGE_KNOWN ? !(rg.known && rg.hi > limit) : (rg.known || !(limit < st->limit_below)))
        return;
    double first = limit + 1;
    path_result p[MAX_PATHS];
    size_t n;
    if (coded) {  /* a C/C++ store converts in the code, as it says */
        n = store_path_coded(coded->conv_api, store_conv_saturates(coded->conv, dt), dt, first, a, p);
    } else if (d && dt_from == &d->kv) {
        n = store_paths(engine, dt, d->model.dtype, d->platform, first, p);
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

/* An int cast of the value v (same origin; a value made nowhere matches none) into dtype dt under d,
 * or NULL. */
static const intcast_fact *cast_into(const file_facts *ff, const kv_value *v, const deployment *d, kvn_dtype dt)
{
    for (size_t k = 0; k < ff->casts.n; k++) {
        const intcast_fact *ic = &ff->casts.v[k];
        if (ic->value.kind == VK_INTEGER && v->origin.path && kv_loc_same(&ic->value.origin, &v->origin) &&
            dtype_ref_resolve(&ic->dtype, d->model.dtype, d->kv.dtype) == dt)
            return ic;
    }
    return NULL;
}

/* Whether the int cast ic feeds a store whose cache holds the same dtype under d: the store's
 * finding then tells it once, with a note at the cast (`positions.to(v.dtype)` stored in V). */
static bool cast_is_stored(const ectx *c, const file_facts *ff, const intcast_fact *ic, const deployment *d)
{
    const store_integer_settings *st = c->r->settings;
    if (!(st->facts & INT_FACT_STORES))
        return false;
    for (size_t k = 0; k < ff->stores.n; k++) {
        const store_fact *s = &ff->stores.v[k];
        if (!ev_wants_store(c->r, s))
            continue;
        for (size_t vi = 0; vi < s->nvalues; vi++)
            if (s->values[vi].kind == VK_INTEGER && ic->value.origin.path && kv_loc_same(&s->values[vi].origin, &ic->value.origin) &&
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
                  ic->api ? ic->api : "a cast"), ENGINE_NONE, OPERAND_KV, d, dt, from, &ic->dtype.loc, NULL, NULL);
}

static void run(ectx *c)
{
    const store_integer_settings *st = c->r->settings;
    kv_arena *a = c->out->arena;
    const deployment *const *deps;
    for (size_t fi = 0; fi < c->nfiles; fi++) {
        const file_facts *ff = c->files[fi];
        if (!ff->stores.n && !ff->casts.n)
            continue;
        size_t nd = ev_scope(c, fi, &deps);
        for (size_t di = 0; di < nd; di++) {
            const deployment *d = deps[di];
            for (size_t k = 0; (st->facts & INT_FACT_STORES) && k < ff->stores.n; k++) {
                const store_fact *s = &ff->stores.v[k];
                if (!ev_wants_store(c->r, s) || !ev_store_in_recipe(s, d))
                    continue;
                const char *what = ev_sink_note(a, s);
                /* A C/C++ store may fix its cache's dtype in the code (a __half *cache) and converts
                 * as the code does; every other store is the deployment's KV dtype, the engine's. */
                bool fixed = s->cache_dtype.kind == DREF_CONCRETE;
                kvn_dtype dt = fixed ? s->cache_dtype.dtype : d->kv.dtype;
                const store_fact *coded = s->conv != CONV_ENGINE ? s : NULL;
                for (size_t vi = 0; vi < s->nvalues; vi++)
                    if (s->values[vi].kind == VK_INTEGER) {
                        const intcast_fact *via = (st->facts & INT_FACT_CASTS) ? cast_into(ff, &s->values[vi], d, dt) : NULL;
                        integer_point(c, &s->values[vi], &s->loc, what, ev_store_engine(d, s), s->operand,
                                      d, dt, fixed ? NULL : &d->kv, fixed ? &s->cache_dtype.loc : NULL,
                                      via ? &via->loc : NULL, coded);
                    }
            }
            for (size_t k = 0; (st->facts & INT_FACT_CASTS) && k < ff->casts.n; k++)
                if (!cast_deployment_free(&ff->casts.v[k]))
                    cast_under(c, ff, &ff->casts.v[k], d, d);
        }
        for (size_t k = 0; (st->facts & INT_FACT_CASTS) && k < ff->casts.n; k++)
            if (cast_deployment_free(&ff->casts.v[k]))
                cast_under(c, ff, &ff->casts.v[k], NULL, nd ? deps[0] : NULL);
    }
}

static void example(const rule *r, file_facts *f, deployment *d)
{
    (void)d;
    kv_value *v = ex_add_store(r, f, 1);
    v->kind = VK_INTEGER;
    v->lo = 0;
    v->hi = r->example.range;
    v->hi_unknown = r->example.range <= 0;
    v->id_class = "adapter";
}

static void describe(strbuf *sb, const rule *r)
{
    const store_integer_settings *st = r->settings;
    bool known = st->range == RANGE_KNOWN;
    sb_addf(sb, "; range %s%s", known ? "known" : "unknown",
            known ? "" : " and the exact-integer limit below the rule's limit_below");
}

const family_def family_store_integer = {
    .name = "store-integer",
    .flags = FAMILY_JUDGES_VALUES,
    .settings = settings,
    .settings_size = sizeof(store_integer_settings),
    .defaults = &defaults,
    .placeholders = placeholders,
    .evaluate = run,
    .example = example,
    .describe = describe,
};
