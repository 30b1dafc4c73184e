/*
 * fam_unresolved_dtype.c: the family `unresolved-dtype` (KV010): a deployment whose KV-cache dtype
 * stays unresolved (auto without a checkpoint, a shell variable), or is a real dtype kvlint does
 * not model, while code it runs stores special values: kvlint cannot check them and says so rather
 * than guess. A name no engine accepts is fam_invalid_dtype_name.c's.
 */
#include <stddef.h>

#include "check/family.h"

static const family_setting settings[] = {
    SETTING_SELECT_VALUES,
    SETTINGS_END,
};

static const char *const placeholders[] = { "deployment", "reason", "value", "sink", NULL };

/* For each deployment (and the fallback engine default, last), the first special value stored by
 * code it is checked against: an unresolved dtype only matters when something is at stake. */
static void first_special_stores(ectx *c, const kv_value **first, const kv_loc **sink)
{
    const deployment *const *deps;
    for (size_t fi = 0; fi < c->nfiles; fi++) {
        const kv_value *v = NULL;
        const kv_loc *at = NULL;
        for (size_t k = 0; !v && k < c->files[fi]->stores.n; k++) {
            const store_fact *s = &c->files[fi]->stores.v[k];
            if (s->cache_dtype.kind == DREF_CONCRETE)
                continue; /* the code fixes its dtype: no deployment needed */
            for (size_t vi = 0; !v && vi < s->nvalues; vi++)
                if (ev_wants_value(c->r, &s->values[vi]))
                    v = &s->values[vi], at = &s->loc;
        }
        for (size_t i = 0, nd = v ? ev_scope(c, fi, &deps) : 0; i < nd; i++) {
            size_t di = deps[i] == c->deps->fallback ? c->deps->n : (size_t)(deps[i] - c->deps->v);
            if (!first[di])
                first[di] = v, sink[di] = at;
        }
    }
}

static void run(ectx *c)
{
    kv_arena *a = c->out->arena;
    const kv_value **first = arena_zalloc(a, (c->deps->n + 1) * sizeof *first);
    const kv_loc **sinks = arena_zalloc(a, (c->deps->n + 1) * sizeof *sinks);
    first_special_stores(c, first, sinks);
    for (size_t di = 0; di < c->deps->n + (c->deps->fallback ? 1 : 0); di++) {
        const deployment *d = di < c->deps->n ? &c->deps->v[di] : c->deps->fallback;
        const kv_loc *sink = sinks[di];
        const kv_value *v = first[di];
        if (!v)
            continue;
        const kvn_dtype_info *di_kv = kvn_dtype_get(d->kv.dtype);
        bool unmodelled = di_kv && (di_kv->kind == KVN_KIND_UNMODELLED || di_kv->kind == KVN_KIND_AUTO);
        if (d->kv.dtype != KVN_DTYPE_INVALID && !unmodelled)
            continue;
        if (d->kv.decl && d->kv.decl->dtype == KVN_DTYPE_INVALID && d->kv.decl->raw)
            continue; /* an invalid name is reported by its own rule */
        vars vs = {0};
        ev_var(&vs, "deployment", d->name ? d->name : "the engine default");
        /* A real dtype kvlint has no model for is never guessed at: say so. */
        ev_var(&vs, "reason", unmodelled ? arena_printf(a, "kvlint does not model %s%s%s", di_kv->name,
                                                        di_kv->note && *di_kv->note ? ": " : "",
                                                        di_kv->note ? di_kv->note : "")
                              : d->kv.unresolved ? d->kv.unresolved : "no declaration found");
        ev_var(&vs, "value", v->text ? v->text : "a special value");
        ev_var(&vs, "sink", ev_loc_text(a, sink));
        draft f = { .loc = d->loc.path ? d->loc : ev_origin(v, sink), .value = v->text, .dep = d };
        ev_related(&f, sink, "a special value is stored into the KV cache here");
        f.key = ev_subject(a, &f.loc, &f.loc, d);
        ev_emit(c, &f, &vs);
    }
}

/* The example's store under a deployment whose dtype stays unresolved. */
static void example(const rule *r, file_facts *f, deployment *d)
{
    ex_add_store(r, f, 1);
    d->kv = (resolved_dtype){ .dtype = KVN_DTYPE_INVALID, .unresolved = "kv-cache-dtype auto and no checkpoint config.json found" };
}

const family_def family_unresolved_dtype = {
    .name = "unresolved-dtype",
    .settings = settings,
    .placeholders = placeholders,
    .evaluate = run,
    .example = example,
};
