/*
 * fam_config.c: the families over deployment configs themselves: dtype names no engine accepts,
 * and deployments whose KV-cache dtype stays unresolved (or is a real dtype kvlint does not model)
 * while special values are stored.
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

/* ---- family: invalid-dtype-name ---- */

void fam_decl_invalid(ectx *c)
{
    kv_arena *a = c->out->arena;
    for (size_t fi = 0; fi < c->nfiles; fi++) {
        const file_facts *ff = c->files[fi];
        for (size_t k = 0; k < ff->decls.n; k++) {
            const dtype_decl *dd = &ff->decls.v[k];
            if ((dd->key != DECL_KV_CACHE_DTYPE && dd->key != DECL_MODEL_DTYPE) || dd->dtype != KVN_DTYPE_INVALID)
                continue;
            /* A shell variable or template (`${{ matrix.dtype }}`) is not a name anyone wrote wrong:
             * its deployment stays unresolved (KV010), and an implicit default has no spelling. */
            if (dd->unresolved || dd->implicit)
                continue;
            vars vs = {0};
            ev_var(&vs, "raw", dd->raw ? dd->raw : "");
            ev_var(&vs, "value", dd->raw ? dd->raw : "");
            ev_var(&vs, "dtype", dd->key == DECL_KV_CACHE_DTYPE ? "KV-cache dtype" : "model dtype");
            ev_var(&vs, "declared", arena_printf(a, "%s%s%s", dd->engine ? dd->engine : "", dd->engine ? " " : "",
                                                  dd->carrier ? dd->carrier : "config"));
            ev_var(&vs, "valid", kvn_dtype_valid_names());
            draft f = { .loc = dd->loc, .value = dd->raw };
            f.key = ev_subject(a, &dd->loc, &dd->loc, NULL);
            ev_emit(c, &f, &vs);
        }
    }
}

/* ---- family: unresolved-dtype ---- */

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

void fam_unresolved(ectx *c)
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
