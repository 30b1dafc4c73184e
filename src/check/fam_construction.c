/*
 * fam_construction.c: the family `construction` (KV006): a sentinel built in, or cast to, a dtype
 * that cannot hold it (torch.full, .to, torch.tensor of -1e9 in float16), before any cache. Eager
 * PyTorch raises on a scalar fill that overflows float16 or bfloat16 (the outcome `raises`). A
 * dtype written in code is evaluated once, the model or KV dtype once per deployment.
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "check/family.h"

static const family_setting settings[] = {
    SETTING_SELECT_VALUES,
    SETTING_SELECT_OUTCOMES,
    SETTINGS_END,
};

static const char *const placeholders[] = {
    "value", "dtype", "model_dtype", "declared", "api", "result", "stored", NULL,
};

static const char *construction_result(kv_arena *a, int outcome, kvn_dtype dt, double stored)
{
    const kvn_dtype_info *di = kvn_dtype_get(dt);
    if (outcome == OUTC_RAISES)
        return arena_printf(a, "raises \"value cannot be converted to type at::%s without overflow\" in eager "
                            "PyTorch (and is %s where it does not raise)",
                            di && di->elem == KVN_BF16 ? "BFloat16" : di && di->elem == KVN_F16 ? "Half" : di ? di->name : "?",
                            ev_num(a, stored));
    return arena_printf(a, "becomes %s", ev_num(a, stored));
}

static void construction_under(ectx *c, const construction_fact *cf, const deployment *d)
{
    kv_arena *a = c->out->arena;
    kvn_dtype model = d ? d->model.dtype : KVN_DTYPE_INVALID, kv = d ? d->kv.dtype : KVN_DTYPE_INVALID;
    kvn_dtype dt = dtype_ref_resolve(&cf->dtype, model, kv);
    const kvn_dtype_info *di = kvn_dtype_get(dt);
    if (!di || (di->kind != KVN_KIND_ELEMENT && di->kind != KVN_KIND_SCALED))
        return;
    double x = value_concrete(&cf->value, model, kv, deployment_spelling(d));
    if (isnan(x))
        return;
    kvn_result r = cast_to_dtype(dt, x);
    int outcome = r.outcome;
    if (cf->kind == CONS_SCALAR_FILL && isfinite(x) && (isinf(r.stored) || isnan(r.stored)) &&
        (di->elem == KVN_F16 || di->elem == KVN_BF16))
        outcome = OUTC_RAISES;
    if (!ev_wants_outcome(c->r, outcome))
        return;
    const resolved_dtype *from = !d ? NULL : cf->dtype.kind == DREF_MODEL ? &d->model : cf->dtype.kind == DREF_KV ? &d->kv : NULL;
    const char *vt = ev_value_text(a, &cf->value, x);
    path_result pr = { "a PyTorch cast", r.stored, outcome };
    vars vs = {0};
    ev_var(&vs, "value", vt);
    ev_var(&vs, "dtype", ev_dtype_name(dt));
    ev_var(&vs, "model_dtype", d ? ev_dtype_name(d->model.dtype) : "");
    ev_var(&vs, "declared", from ? ev_declared(a, from) : arena_printf(a, "set in the code at %s", ev_loc_text(a, &cf->dtype.loc)));
    ev_var(&vs, "api", cf->api ? cf->api : construction_kind_name(cf->kind));
    ev_var(&vs, "result", construction_result(a, outcome, dt, r.stored));
    ev_var(&vs, "stored", ev_num(a, r.stored));
    draft f = { .loc = ev_origin(&cf->value, &cf->loc), .value = vt, .dtype = ev_dtype_name(dt), .stored = &pr, .nstored = 1,
                .dtype_from = from, .code_dtype_loc = from ? NULL : &cf->dtype.loc, .flow = &cf->value, .dep = d };
    ev_related(&f, &cf->loc, arena_printf(a, "built in %s by %s here", ev_dtype_name(dt), cf->api ? cf->api : "this call"));
    if (from && from->decl)
        ev_related(&f, &from->decl->loc, arena_printf(a, "dtype %s declared here", ev_dtype_name(dt)));
    f.key = ev_subject(a, &f.loc, &cf->loc, d);
    ev_emit(c, &f, &vs);
}

static void run(ectx *c)
{
    const deployment *const *deps;
    for (size_t fi = 0; fi < c->nfiles; fi++) {
        const file_facts *ff = c->files[fi];
        for (size_t k = 0; k < ff->constructions.n; k++) {
            const construction_fact *cf = &ff->constructions.v[k];
            if (cf->value.expr) { /* from checkpoint fields: a value per deployment, or none */
                for (size_t di = 0, nd = ev_scope(c, fi, &deps); di < nd; di++) {
                    construction_fact known = *cf;
                    if (ev_resolve_fields(&cf->value, deps[di], &known.value) && ev_wants_value(c->r, &known.value))
                        construction_under(c, &known, deps[di]);
                }
                continue;
            }
            if (!ev_wants_value(c->r, &cf->value))
                continue;
            if (!ev_deployment_dependent(&cf->dtype, &cf->value, NULL))
                construction_under(c, cf, NULL);
            else
                for (size_t di = 0, nd = ev_scope(c, fi, &deps); di < nd; di++)
                    construction_under(c, cf, deps[di]);
        }
    }
}

static void example(const rule *r, file_facts *f, deployment *d)
{
    (void)d;
    const char *api = r->example.api;
    bool fill = api && (strstr(api, "full") || strstr(api, "fill"));
    construction_fact cf = { .loc = ex_loc(), .kind = fill ? CONS_SCALAR_FILL : CONS_TENSOR_CAST,
                             .api = api ? api : ".to", .value = ex_value(r, d->model.dtype), .dtype = ex_model_ref() };
    ARENA_PUSH(f->arena, f->constructions, cf);
}

const family_def family_construction = {
    .name = "construction",
    .flags = FAMILY_JUDGES_VALUES,
    .settings = settings,
    .placeholders = placeholders,
    .evaluate = run,
    .example = example,
    .describe = ex_describe_selectors,
};
