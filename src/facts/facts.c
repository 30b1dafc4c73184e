/* facts.c: constructors, names and the small evaluations every consumer of facts needs. */
#include "facts/facts.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

file_facts *file_facts_new(const char *path)
{
    file_facts *f = xcalloc(1, sizeof *f);
    f->arena = arena_new();
    f->path = arena_strdup(f->arena, path);
    diag_init(&f->diags, f->arena);
    return f;
}

void file_facts_free(file_facts *f)
{
    if (!f)
        return;
    arena_free(f->arena);
    free(f);
}

kv_loc kv_loc_make(const char *path, uint32_t line, uint32_t col, uint32_t end_line, uint32_t end_col)
{
    return (kv_loc){ path, line, col, end_line, end_col };
}

bool kv_loc_same(const kv_loc *a, const kv_loc *b)
{
    return a->line == b->line && a->col == b->col &&
           (a->path == b->path || (a->path && b->path && strcmp(a->path, b->path) == 0));
}

/* The *_name() functions, from the lists in facts.h; the name after the switch is for a value
 * outside the enum (never made by kvlint itself). */
#define KV_NAME_FN(fn, type, list, fallback) \
    const char *fn(type x)                   \
    {                                        \
        switch (x) {                         \
            list(KV_ENUM_NAME_CASE)          \
        }                                    \
        return fallback;                     \
    }

KV_NAME_FN(value_kind_name, value_kind, KV_VALUE_KINDS, "unknown")
KV_NAME_FN(store_via_name, store_via, KV_STORE_VIAS, "direct")
KV_NAME_FN(store_conv_name, store_conv, KV_STORE_CONVS, "?")
KV_NAME_FN(operand_name, kv_operand, KV_OPERANDS, "kv")
KV_NAME_FN(latent_part_name, latent_part, KV_LATENT_PARTS, "unknown")
KV_NAME_FN(construction_kind_name, construction_kind, KV_CONSTRUCTION_KINDS, "tensor-new")
KV_NAME_FN(arith_kind_name, arith_kind, KV_ARITH_KINDS, "sentinel-plus")
KV_NAME_FN(decl_key_name, decl_key, KV_DECL_KEYS, "kv_cache_dtype")
KV_NAME_FN(dref_kind_name, dref_kind, KV_DREF_KINDS, "unknown")
KV_NAME_FN(value_sym_name, value_sym, KV_VALUE_SYMS, NULL)
KV_NAME_FN(engine_name, kv_engine, KV_ENGINES, NULL)
KV_NAME_FN(carrier_name, kv_carrier, KV_CARRIERS, "?")

bool store_via_parse(const char *name, store_via *out)
{
#define KV_STORE_VIA_PARSE(e, n) \
    if (strcmp(name, n) == 0) {    \
        *out = e;                  \
        return true;               \
    }
    KV_STORE_VIAS(KV_STORE_VIA_PARSE)
#undef KV_STORE_VIA_PARSE
    return false;
}

bool engine_parse(const char *name, kv_engine *out)
{
#define KV_ENGINE_ITEM(e, n) e,
    static const kv_engine all[] = { KV_ENGINES(KV_ENGINE_ITEM) };
#undef KV_ENGINE_ITEM
    for (size_t i = 0; name && i < sizeof all / sizeof *all; i++)
        if (engine_known(all[i]) && strcmp(name, engine_name(all[i])) == 0) {
            *out = all[i];
            return true;
        }
    return false;
}

const char *engine_label(kv_engine e)
{
    return e == ENGINE_NONE ? "unknown" : engine_name(e);
}

bool engine_known(kv_engine e)
{
    return e != ENGINE_NONE && e != ENGINE_UNKNOWN;
}

kv_dtype_set dset_all(void)
{
    size_t n = kvn_dtype_count();
    return n >= 64 ? ~(kv_dtype_set)0 : ((kv_dtype_set)1 << n) - 1;
}

kvn_dtype dtype_ref_resolve(const dtype_ref *r, kvn_dtype model, kvn_dtype kv)
{
    switch (r->kind) {
    case DREF_NONE: return kvn_dtype_by_fmt(KVN_F32);
    case DREF_CONCRETE: return r->dtype;
    case DREF_MODEL: return model;
    case DREF_KV: return kv;
    case DREF_UNKNOWN: return KVN_DTYPE_INVALID;
    }
    return KVN_DTYPE_INVALID;
}

double value_concrete(const kv_value *v, kvn_dtype model, kvn_dtype kv, dtype_spelling sp)
{
    kvn_dtype held = v->held_kind == DREF_MODEL ? model : v->held_kind == DREF_KV ? kv : KVN_DTYPE_INVALID;
    kv_spelling how = v->held_kind == DREF_MODEL ? sp.model : sp.kv;
    if (v->held_spelled && how == SPELL_UNKNOWN)
        held = KVN_DTYPE_INVALID;   /* the string is not known: the test may have gone either way */
    if (held != KVN_DTYPE_INVALID && !dset_has(how == SPELL_AUTO ? v->held_auto_set : v->held_set, held))
        return NAN;   /* a branch on this dtype says the value is not held under it */
    if (v->sym == SYM_NONE)
        return v->lo;
    kvn_dtype d = dtype_ref_resolve(&v->sym_dtype, model, kv);
    const kvn_dtype_info *di = kvn_dtype_get(d);
    if (!di || (di->kind != KVN_KIND_ELEMENT && di->kind != KVN_KIND_SCALED))
        return NAN;
    const kvn_fmt_info *fi = kvn_fmt_get(di->elem);
    double base;
    switch (v->sym) {
    case SYM_FINFO_MIN: base = -fi->max; break;
    case SYM_FINFO_MAX: base = fi->max; break;
    case SYM_FINFO_EPS: base = ldexp(1.0, -fi->man_bits); break;
    case SYM_FINFO_TINY: base = fi->min_normal; break;
    default: base = v->lo; break;
    }
    return v->sym_scale * base + v->sym_add;
}
