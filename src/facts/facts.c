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

const char *value_kind_name(value_kind k)
{
    switch (k) {
    case VK_UNKNOWN: return "unknown";
    case VK_SENTINEL: return "sentinel";
    case VK_INTEGER: return "integer";
    case VK_FLOAT: return "float";
    }
    return "unknown";
}

const char *sink_family_name(sink_family f)
{
    switch (f) {
    case SINK_ATTENTION_LAYER: return "attention-layer";
    case SINK_CACHE_OP: return "cache-op";
    case SINK_CACHE_UPDATE: return "cache-update";
    case SINK_DIRECT: return "direct";
    case SINK_USER: return "user";
    }
    return "direct";
}

const char *store_conv_name(store_conv c)
{
    switch (c) {
    case CONV_ENGINE: return "engine";
    case CONV_NONSATURATING: return "non-saturating";
    case CONV_SATURATING: return "saturating";
    }
    return "?";
}

const char *operand_name(kv_operand o)
{
    switch (o) {
    case OPERAND_KEY: return "key";
    case OPERAND_VALUE: return "value";
    case OPERAND_KV: return "kv";
    }
    return "kv";
}

const char *construction_kind_name(construction_kind k)
{
    switch (k) {
    case CONS_SCALAR_FILL: return "scalar-fill";
    case CONS_TENSOR_CAST: return "tensor-cast";
    case CONS_TENSOR_NEW: return "tensor-new";
    }
    return "tensor-new";
}

const char *arith_kind_name(arith_kind k)
{
    switch (k) {
    case ARITH_SENTINEL_PLUS: return "sentinel-plus";
    case ARITH_SENTINEL_SUM: return "sentinel-sum";
    case ARITH_ZERO_TIMES_INF: return "zero-times-inf";
    }
    return "sentinel-plus";
}

const char *decl_key_name(decl_key k)
{
    switch (k) {
    case DECL_KV_CACHE_DTYPE: return "kv_cache_dtype";
    case DECL_MODEL_DTYPE: return "model_dtype";
    case DECL_KV_SCALES: return "kv_scales";
    case DECL_ID_RANGE: return "id_range";
    case DECL_SKIP_LAYERS: return "skip_layers";
    case DECL_KV_SCHEME: return "kv_scheme";
    case DECL_PLATFORM: return "platform";
    case DECL_CKPT_FIELD: return "checkpoint_field";
    }
    return "kv_cache_dtype";
}

const char *dref_kind_name(dref_kind k)
{
    switch (k) {
    case DREF_NONE: return "none";
    case DREF_CONCRETE: return "concrete";
    case DREF_MODEL: return "model";
    case DREF_KV: return "kv";
    case DREF_UNKNOWN: return "unknown";
    }
    return "unknown";
}

const char *value_sym_name(value_sym s)
{
    switch (s) {
    case SYM_NONE: return NULL;
    case SYM_FINFO_MIN: return "finfo.min";
    case SYM_FINFO_MAX: return "finfo.max";
    case SYM_FINFO_EPS: return "finfo.eps";
    case SYM_FINFO_TINY: return "finfo.tiny";
    }
    return NULL;
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

double value_concrete(const kv_value *v, kvn_dtype model, kvn_dtype kv)
{
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
