/*
 * pydtype.c: dtypes as the evaluator sees them: torch.NAME spellings (from the dtype rows of
 * grammars/python/torch.tsv), dtype objects and their class (integer, bool, float, wide float),
 * the dtype= keyword of a call, and torch.finfo / torch.iinfo objects and their attributes.
 *
 * A dtype class travels with every tensor value (pyvalue.h: `intdtype`, `has_dtype`, `dtype`),
 * so that `x.dtype` of an integer tensor is an integer dtype and `.to(x.dtype)` an integer cast.
 * This file models no calls besides finfo/iinfo (pytorch.c) and emits no facts.
 */
#include <math.h>
#include <string.h>

#include "python/pyeval.h"
#include "util/strlist.h"

dtype_ref pe_dref(pe_ctx *e, dref_kind k, TSNode at)
{
    dtype_ref r;
    memset(&r, 0, sizeof r);
    r.kind = k;
    r.dtype = KVN_DTYPE_INVALID;
    r.text = pe_text_of(e, at);
    r.loc = pe_loc_of(e, at);
    return r;
}

aval pe_dtype_value(dtype_ref r, bool intdtype)
{
    aval x = av_unknown();
    x.tag = AV_DTYPE;
    x.other = false;
    x.dtype = r;
    x.intdtype = intdtype;
    return x;
}

/* The dtype row of a spelling's last dotted part: torch.int32 -> int32. */
static const pt_entry *dtype_row(const pe_ctx *e, const char *text)
{
    if (!text)
        return NULL;
    const char *dot = strrchr(text, '.');
    const char *n = dot ? dot + 1 : text;
    return pt_lookup(e->st ? e->st->torch : NULL, PT_DTYPE, n, strlen(n));
}

/* torch.long, torch.bool, ...: a fill or cast into them is no float construction. */
bool pe_is_int_dtype(const pe_ctx *e, const dtype_ref *d)
{
    if (d->kind != DREF_UNKNOWN)
        return false;
    const pt_entry *r = dtype_row(e, d->text);
    return r && (r->cls == PTC_INT || r->cls == PTC_BOOL);
}

/* torch.<name> as a dtype: integer/bool dtypes are ours, float names go to the numerics. */
bool pe_torch_dtype_name(pe_ctx *e, const char *name, TSNode at, aval *out)
{
    const pt_entry *row = pt_lookup(e->st ? e->st->torch : NULL, PT_DTYPE, name, strlen(name));
    if (!row)
        return false;
    if (row->cls == PTC_INT || row->cls == PTC_BOOL) {
        aval x = pe_dtype_value(pe_dref(e, DREF_UNKNOWN, at), true);
        x.binary = row->cls == PTC_BOOL;
        *out = x;
        return true;
    }
    dtype_ref r = pe_dref(e, DREF_CONCRETE, at);
    r.dtype = kvn_dtype_parse(arena_printf(e->a, "torch.%s", row->dtype_name), false);
    if (r.dtype == KVN_DTYPE_INVALID)
        r.dtype = kvn_dtype_parse(row->dtype_name, false);
    if (r.dtype == KVN_DTYPE_INVALID)
        r.kind = DREF_UNKNOWN;
    *out = pe_dtype_value(r, false);
    return true;
}

/* float32 / float64 by spelling: a cast into them builds no sentinel. */
bool pe_is_wide_float(const pe_ctx *e, const dtype_ref *r)
{
    if (r->kind != DREF_CONCRETE)
        return false;
    const pt_entry *row = dtype_row(e, r->text);
    return row && row->cls == PTC_WIDE;
}

/* A dtype spelled by name: self.dtype / dtype / model_dtype are the model's, kv_cache_dtype the cache's. */
bool pe_dtype_by_name(const char *name)
{
    return str_ends_with(name, "dtype");
}

dref_kind pe_dtype_kind_by_name(const char *name)
{
    return strstr(name, "cache_dtype") || strstr(name, "kv_dtype") ? DREF_KV : DREF_MODEL;
}

dtype_ref pe_dtype_of_aval(pe_ctx *e, const aval *x, TSNode at, bool *found)
{
    *found = true;
    if (x->tag == AV_DTYPE)
        return x->dtype;
    if (x->tag == AV_STR && x->str) {
        dtype_ref r = pe_dref(e, DREF_CONCRETE, at);
        r.dtype = kvn_dtype_parse(x->str, false);
        if (r.dtype == KVN_DTYPE_INVALID)
            r.kind = DREF_UNKNOWN;
        return r;
    }
    if (x->tag == AV_VALUES && x->has_dtype && !x->other && x->n == 0)
        return x->dtype;
    *found = false;
    return pe_dref(e, DREF_UNKNOWN, at);
}

bool pe_dtype_kwarg(pe_ctx *e, const args *g, dtype_ref *out, bool *intdtype)
{
    TSNode at;
    const aval *d = pe_kwarg(g, "dtype", &at);
    if (!d)
        return false;
    bool found;
    *out = pe_dtype_of_aval(e, d, at, &found);
    if (!found)
        *out = pe_dref(e, DREF_UNKNOWN, at);
    *intdtype = d->tag == AV_DTYPE && d->intdtype;
    return true;
}

/* The dtype of the tensor objn names when nothing is known of its values: the cache's when it is
 * named like a cache; an integer dtype when its name says it holds integers (draft_ids,
 * hash_indices_table, verify_expected_tokens: `buf.copy_(ids.to(buf.dtype))` keeps ids integers);
 * else the model's (`positions.to(q.dtype)` casts positions into the activations' dtype). */
aval pe_dtype_of_unknown(pe_ctx *e, TSNode objn, TSNode at)
{
    const char *b = pe_base_name(e, objn);
    size_t n = b ? strlen(b) : 0;
    if (b && py_is_cache_name(e->st, b, n))
        return pe_dtype_value(pe_dref(e, DREF_KV, at), false);
    if (b && py_name_integer(e->st, b, n))
        return pe_dtype_value(pe_dref(e, DREF_UNKNOWN, at), true);
    return pe_dtype_value(pe_dref(e, DREF_MODEL, at), false);
}

/* `x.dtype`: a tensor of known dtype gives it; an integer tensor an integer dtype; otherwise as
 * pe_dtype_of_unknown says. */
aval pe_dtype_attr(pe_ctx *e, const aval *obj, TSNode objn, TSNode at)
{
    if (obj->tag == AV_VALUES && obj->has_dtype)
        return pe_dtype_value(obj->dtype, obj->intdtype);
    if (obj->tag == AV_VALUES && obj->intdtype) {
        aval d = pe_dtype_value(pe_dref(e, DREF_UNKNOWN, at), true);
        d.binary = obj->binary;
        return d;
    }
    return pe_dtype_of_unknown(e, objn, at);
}

aval pe_finfo_value(pe_ctx *e, const args *g, TSNode call, bool iinfo)
{
    aval x = av_unknown();
    x.tag = AV_FINFO;
    x.other = false;
    x.iinfo = iinfo;
    TSNode at = call;
    const aval *d = pe_arg(g, 0, "type", &at);
    bool found = false;
    if (d)
        x.dtype = pe_dtype_of_aval(e, d, at, &found);
    if (!d) {  /* torch.finfo() is float32's */
        x.dtype = pe_dref(e, DREF_CONCRETE, call);
        x.dtype.dtype = kvn_dtype_parse("float32", false);
        x.dtype.text = "torch.float32";
    } else if (!found && d->tag == AV_VALUES && (d->tensor || d->has_dtype)) {
        /* finfo(x) on a tensor: its dtype, i.e. the model's unless known */
        x.dtype = d->has_dtype ? d->dtype : pe_dref(e, DREF_MODEL, at);
    }  /* finfo(platform.fp8_dtype()): a dtype nobody knows stays unknown */
    x.str = pe_text_of(e, call);
    return x;
}

/* torch.iinfo(D).min/max for the integer dtypes, from the width of D's row. */
static bool iinfo_bound(const pe_ctx *e, const char *dtext, bool max, double *out)
{
    bool u = false;
    int bits = pt_int_bits(dtype_row(e, dtext), &u);
    if (!bits)
        return false;
    *out = u ? (max ? ldexp(1.0, bits) - 1 : 0) : (max ? ldexp(1.0, bits - 1) - 1 : -ldexp(1.0, bits - 1));
    return true;
}

aval pe_finfo_attr(pe_ctx *e, const aval *f, const char *attr, TSNode at)
{
    value_sym sym = strcmp(attr, "min") == 0 ? SYM_FINFO_MIN : strcmp(attr, "max") == 0 ? SYM_FINFO_MAX
                    : strcmp(attr, "eps") == 0 ? SYM_FINFO_EPS : strcmp(attr, "tiny") == 0 ? SYM_FINFO_TINY
                    : SYM_NONE;
    if (sym == SYM_NONE)
        return av_unknown();
    if (f->iinfo) {
        double x;
        if (sym == SYM_FINFO_EPS || sym == SYM_FINFO_TINY || !iinfo_bound(e, f->dtype.text, sym == SYM_FINFO_MAX, &x))
            return av_unknown();
        kv_value v = pe_value_make(e, fabs(x) >= PY_SENTINEL_MAGNITUDE ? VK_SENTINEL : VK_FLOAT, x, x, at);
        return av_const(e->s, &v);
    }
    bool big = sym == SYM_FINFO_MIN || sym == SYM_FINFO_MAX;
    kv_value v = pe_value_make(e, big ? VK_SENTINEL : VK_FLOAT, 0, 0, at);
    v.sym = sym;
    v.sym_dtype = f->dtype;
    v.lo = v.hi = NAN;
    if (f->dtype.kind == DREF_CONCRETE) {
        const kvn_dtype_info *di = kvn_dtype_get(f->dtype.dtype);
        const kvn_fmt_info *fi = di ? kvn_fmt_get(di->elem) : NULL;
        if (fi) {
            double x = sym == SYM_FINFO_MIN ? -fi->max : sym == SYM_FINFO_MAX ? fi->max
                       : sym == SYM_FINFO_EPS ? ldexp(1.0, -fi->man_bits) : fi->min_normal;
            v.lo = v.hi = x;
        }
    }
    if (isnan(v.lo))
        v.lo = v.hi = sym == SYM_FINFO_MIN ? -INFINITY : sym == SYM_FINFO_MAX ? INFINITY : 0;
    return av_const(e->s, &v);
}
