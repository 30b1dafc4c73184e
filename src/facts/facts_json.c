/* facts_json.c: see facts_json.h. */
#include "facts/facts_json.h"

#include <math.h>

void json_loc_fields(json_writer *w, const kv_loc *l)
{
    json_kv_string(w, "path", l->path);
    json_kv_int(w, "line", l->line);
    json_kv_int(w, "column", l->col);
    if (l->end_line) {
        json_kv_int(w, "end_line", l->end_line);
        json_kv_int(w, "end_column", l->end_col);
    }
}

void json_loc(json_writer *w, const char *key, const kv_loc *l)
{
    json_key(w, key);
    if (!l || !l->path) {
        json_null(w);
        return;
    }
    json_object_begin(w);
    json_kv_string(w, "path", l->path);
    json_kv_int(w, "line", l->line);
    json_kv_int(w, "column", l->col);
    json_object_end(w);
}

void json_dtype_ref(json_writer *w, const char *key, const dtype_ref *r)
{
    json_key(w, key);
    json_object_begin(w);
    json_kv_string(w, "kind", dref_kind_name(r->kind));
    if (r->kind == DREF_CONCRETE)
        json_kv_string(w, "dtype", kvn_dtype_name(r->dtype));
    json_kv_string(w, "text", r->text);
    json_object_end(w);
}

/* A held_only set: `"is": D` for one dtype, `"is_not": D` for all but one, `"anywhere": true` for
 * all, else `"in": [...]` (empty: nowhere). */
static void held_set_json(json_writer *w, kv_dtype_set set)
{
    kv_dtype_set all = dset_all(), rest = all & ~set;
    size_t n = kvn_dtype_count();
    if (set == all) {
        json_kv_bool(w, "anywhere", true);
        return;
    }
    if (set && !(set & (set - 1))) {
        for (size_t d = 0; d < n; d++)
            if (dset_has(set, (kvn_dtype)d))
                json_kv_string(w, "is", kvn_dtype_name((kvn_dtype)d));
        return;
    }
    if (rest && !(rest & (rest - 1))) {
        for (size_t d = 0; d < n; d++)
            if (dset_has(rest, (kvn_dtype)d))
                json_kv_string(w, "is_not", kvn_dtype_name((kvn_dtype)d));
        return;
    }
    json_key(w, "in");
    json_array_begin(w);
    for (size_t d = 0; d < n; d++)
        if (dset_has(set, (kvn_dtype)d))
            json_string(w, kvn_dtype_name((kvn_dtype)d));
    json_array_end(w);
}

void json_value_object(json_writer *w, const kv_value *v)
{
    json_object_begin(w);
    json_kv_string(w, "kind", value_kind_name(v->kind));
    if (v->sym != SYM_NONE) {
        json_kv_string(w, "symbol", value_sym_name(v->sym));
        json_dtype_ref(w, "symbol_dtype", &v->sym_dtype);
        if (v->sym_scale != 1)
            json_kv_number(w, "symbol_scale", v->sym_scale);
        if (v->sym_add != 0)
            json_kv_number(w, "symbol_add", v->sym_add);
    } else if (v->kind != VK_UNKNOWN) {
        json_kv_number(w, "min", v->lo);
    }
    if (v->kind == VK_INTEGER && (v->hi_sym || v->hi_unknown)) {
        json_key(w, "max");
        json_null(w);
        if (v->hi_sym) {
            json_kv_string(w, "max_symbol", v->hi_sym);
            if (v->hi_sym_add != 0)
                json_kv_number(w, "max_symbol_add", v->hi_sym_add);
        }
    } else if (v->sym == SYM_NONE && v->kind != VK_UNKNOWN) {
        json_kv_number(w, "max", v->hi);
    }
    if (v->expr) {
        const char *names[16];
        size_t n = kv_expr_fields(v->expr, names, 0, sizeof names / sizeof *names);
        strbuf sb = STRBUF_INIT;
        kv_expr_format(&sb, v->expr);
        json_kv_string(w, "expr", sb_str(&sb));
        sb_release(&sb);
        json_key(w, "fields");
        json_array_begin(w);
        for (size_t i = 0; i < n; i++)
            json_string(w, names[i]);
        json_array_end(w);
    }
    if (v->id_class)
        json_kv_string(w, "family", v->id_class);
    if (v->held_kind == DREF_MODEL || v->held_kind == DREF_KV) {
        json_key(w, "held_only");   /* where that dtype is (or is not) this one */
        json_object_begin(w);
        json_kv_string(w, "dtype", dref_kind_name(v->held_kind));
        held_set_json(w, v->held_set);
        if (v->held_spelled)
            json_kv_bool(w, "spelled", true);   /* a test of the dtype's string */
        if (v->held_auto_set != v->held_set) {   /* where the deployment spells it auto */
            json_key(w, "auto");
            json_object_begin(w);
            held_set_json(w, v->held_auto_set);
            json_object_end(w);
        }
        json_object_end(w);
    }
    if (v->binary32)
        json_kv_bool(w, "binary32", true);
    json_kv_string(w, "text", v->text);
    json_loc(w, "origin", v->origin.path ? &v->origin : NULL);
    if (v->nsteps) {
        json_key(w, "steps");
        json_array_begin(w);
        for (size_t i = 0; i < v->nsteps; i++) {
            json_object_begin(w);
            json_kv_string(w, "path", v->steps[i].loc.path);
            json_kv_int(w, "line", v->steps[i].loc.line);
            json_kv_int(w, "column", v->steps[i].loc.col);
            json_kv_string(w, "what", v->steps[i].what);
            json_object_end(w);
        }
        json_array_end(w);
    }
    json_object_end(w);
}

void json_store_fact(json_writer *w, const store_fact *s)
{
    json_object_begin(w);
    json_loc_fields(w, &s->loc);
    json_kv_string(w, "sink", s->sink);
    json_kv_string(w, "family", store_via_name(s->via));   /* the key the schema has always had */
    json_kv_string(w, "engine", s->user_engine ? s->user_engine : engine_name(s->engine));
    json_kv_string(w, "operand", operand_name(s->operand));
    if (s->part != LATENT_UNKNOWN)
        json_kv_string(w, "latent_part", latent_part_name(s->part));
    json_kv_string(w, "tensor", s->tensor);
    json_kv_bool(w, "shares_block", s->shares_block);
    if (s->wide_source)
        json_kv_bool(w, "wide_source", true);   /* converted from float32, not the model dtype */
    if (s->conv != CONV_ENGINE) {  /* C/C++ stores only: Python facts keep their shape */
        json_kv_string(w, "conversion", store_conv_name(s->conv));
        json_kv_string(w, "conversion_api", s->conv_api);
        json_kv_string(w, "cache_dtype", s->cache_dtype.kind == DREF_CONCRETE ? kvn_dtype_get(s->cache_dtype.dtype)->name
                                                                                : "kv-cache dtype");
    }
    json_key(w, "values");
    json_array_begin(w);
    for (size_t i = 0; i < s->nvalues; i++)
        json_value_object(w, &s->values[i]);
    json_array_end(w);
    json_object_end(w);
}

void json_value(json_writer *w, const char *key, const kv_value *v)
{
    json_key(w, key);
    json_value_object(w, v);
}

void json_construction_fact(json_writer *w, const construction_fact *c)
{
    json_object_begin(w);
    json_loc_fields(w, &c->loc);
    json_kv_string(w, "kind", construction_kind_name(c->kind));
    json_kv_string(w, "api", c->api);
    json_dtype_ref(w, "dtype", &c->dtype);
    json_kv_bool(w, "reaches_cache", c->reaches_cache);
    json_value(w, "value", &c->value);
    json_object_end(w);
}

void json_intcast_fact(json_writer *w, const intcast_fact *c)
{
    json_object_begin(w);
    json_loc_fields(w, &c->loc);
    json_kv_string(w, "api", c->api);
    json_dtype_ref(w, "dtype", &c->dtype);
    json_value(w, "value", &c->value);
    json_object_end(w);
}

void json_arith_fact(json_writer *w, const arith_fact *a)
{
    json_object_begin(w);
    json_loc_fields(w, &a->loc);
    json_kv_string(w, "kind", arith_kind_name(a->kind));
    json_dtype_ref(w, "dtype", &a->dtype);
    json_value(w, "a", &a->a);
    json_value(w, "b", &a->b);
    if (a->a_negated)
        json_kv_bool(w, "a_negated", true);
    if (a->b_negated)
        json_kv_bool(w, "b_negated", true);
    json_object_end(w);
}

void json_deploy_decl(json_writer *w, const deploy_decl *d)
{
    json_object_begin(w);
    json_kv_string(w, "key", decl_key_name(d->key));
    json_kv_string(w, "engine", engine_label(d->engine));
    switch (d->key) {
    case DECL_KV_CACHE_DTYPE:
    case DECL_MODEL_DTYPE:
    case DECL_KV_SCHEME:
        json_kv_string(w, "value", kvn_dtype_name(d->dtype));
        break;
    case DECL_KV_SCALES:
    case DECL_ID_RANGE:
    case DECL_CKPT_FIELD:
        json_kv_number(w, "value", d->number);
        break;
    case DECL_SKIP_LAYERS:
    case DECL_PLATFORM:
        json_kv_string(w, "value", d->raw);
        break;
    }
    if (d->range_name)
        json_kv_string(w, d->key == DECL_CKPT_FIELD ? "field" : "range", d->range_name);
    json_kv_string(w, "raw", d->raw);
    if (d->implicit)
        json_kv_bool(w, "implicit", true);
    if (d->unresolved)
        json_kv_string(w, "unresolved", d->unresolved);
    if (d->config_file)
        json_kv_string(w, "config_file", d->config_file);
    json_kv_string(w, "carrier", carrier_name(d->carrier));
    json_loc_fields(w, &d->loc);
    json_kv_int(w, "group", d->group);
    json_object_end(w);
}

void json_fact_list(json_writer *w, const file_facts *f)
{
    json_array_begin(w);
    for (size_t i = 0; i < f->stores.n; i++)
        json_store_fact(w, &f->stores.v[i]);
    for (size_t i = 0; i < f->constructions.n; i++)
        json_construction_fact(w, &f->constructions.v[i]);
    for (size_t i = 0; i < f->casts.n; i++)
        json_intcast_fact(w, &f->casts.v[i]);
    for (size_t i = 0; i < f->ariths.n; i++)
        json_arith_fact(w, &f->ariths.v[i]);
    for (size_t i = 0; i < f->decls.n; i++)
        json_deploy_decl(w, &f->decls.v[i]);
    json_array_end(w);
}
