/*
 * pytorch.c: the model of the torch API the evaluator applies to calls: dtype names and
 * dtype objects, finfo/iinfo, tensor constructions and fills (full, new_full, masked_fill, fill_),
 * integer sources (arange, randint, argmax), casts (to, half, type_as), joins (cat, where), pad and
 * clamp, and the tensor methods that keep or change values.
 * It emits no store facts (pystore.c) and does not walk statements.
 */
#include <math.h>
#include <string.h>

#include "python/pyeval.h"

dtype_ref pe_dref(ev *e, dref_kind k, TSNode at)
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

static const char *const int_dtypes[] = { "long", "int", "int64", "int32", "int16", "int8", "uint8",
                                          "short", "bool", "uint16", "uint32", "uint64", NULL };

/* torch.long, torch.bool, ...: a fill or cast into them is no float construction. */
bool pe_is_int_dtype(const dtype_ref *d)
{
    if (d->kind != DREF_UNKNOWN || !d->text)
        return false;
    const char *dot = strrchr(d->text, '.');
    const char *n = dot ? dot + 1 : d->text;
    for (size_t i = 0; int_dtypes[i]; i++)
        if (strcmp(n, int_dtypes[i]) == 0)
            return true;
    return false;
}

/* torch.<name> as a dtype: integer/bool dtypes are ours, float names go to the numerics. */
bool pe_torch_dtype_name(ev *e, const char *name, TSNode at, aval *out)
{
    const char *const *ints = int_dtypes;
    static const char *const floats[] = { "float16", "half", "bfloat16", "float32", "float", "float64",
                                          "double", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2",
                                          "float8_e5m2fnuz", "float8_e8m0fnu", "float4_e2m1fn_x2", NULL };
    for (size_t i = 0; ints[i]; i++)
        if (strcmp(name, ints[i]) == 0) {
            aval x = pe_dtype_value(pe_dref(e, DREF_UNKNOWN, at), true);
            x.binary = strcmp(name, "bool") == 0;
            *out = x;
            return true;
        }
    for (size_t i = 0; floats[i]; i++)
        if (strcmp(name, floats[i]) == 0) {
            dtype_ref r = pe_dref(e, DREF_CONCRETE, at);
            r.dtype = kvn_dtype_parse(arena_printf(e->a, "torch.%s", name), false);
            if (r.dtype == KVN_DTYPE_INVALID)
                r.dtype = kvn_dtype_parse(name, false);
            if (r.dtype == KVN_DTYPE_INVALID)
                r.kind = DREF_UNKNOWN;
            *out = pe_dtype_value(r, false);
            return true;
        }
    return false;
}

static bool is_wide_float(const dtype_ref *r)
{
    if (r->kind != DREF_CONCRETE || !r->text)
        return false;
    const char *t = r->text;
    size_t l = strlen(t);
    static const char *const wide[] = { "float32", "float", "float64", "double", NULL };
    for (size_t i = 0; wide[i]; i++) {
        size_t w = strlen(wide[i]);
        if (l >= w && strcmp(t + l - w, wide[i]) == 0 && (l == w || t[l - w - 1] == '.'))
            return true;
    }
    return false;
}

/* A dtype spelled by name: self.dtype / dtype / model_dtype are the model's, kv_cache_dtype the cache's. */
bool pe_dtype_by_name(const char *name)
{
    size_t l = strlen(name);
    return (l >= 5 && strcmp(name + l - 5, "dtype") == 0);
}

dref_kind pe_dtype_kind_by_name(const char *name)
{
    return strstr(name, "cache_dtype") || strstr(name, "kv_dtype") ? DREF_KV : DREF_MODEL;
}

static dtype_ref dtype_of_aval(ev *e, const aval *x, TSNode at, bool *found)
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

/* The dtype= keyword of a factory call, if given. */
static bool dtype_kwarg(ev *e, const args *g, dtype_ref *out, bool *intdtype)
{
    TSNode at;
    const aval *d = pe_kwarg(g, "dtype", &at);
    if (!d)
        return false;
    bool found;
    *out = dtype_of_aval(e, d, at, &found);
    if (!found)
        *out = pe_dref(e, DREF_UNKNOWN, at);
    *intdtype = d->tag == AV_DTYPE && d->intdtype;
    return true;
}

static aval with_dtype(aval x, const dtype_ref *d, bool intdtype)
{
    x.has_dtype = true;
    x.dtype = *d;
    x.intdtype = intdtype;
    x.tensor = true;
    return x;
}

static aval as_tensor(aval x)
{
    if (x.tag != AV_VALUES)
        return av_unknown_tensor();
    x.tensor = true;
    return x;
}

/* torch.full(size, v, dtype=D) and its relatives. */
static aval model_fill(ev *e, const char *api, TSNode call, const aval *like, const aval *v, const args *g)
{
    dtype_ref d;
    bool intd = false, has = dtype_kwarg(e, g, &d, &intd);
    if (!has && like && like->tag == AV_VALUES && like->has_dtype) {
        d = like->dtype;
        intd = like->intdtype;
        has = true;
    }
    aval x = v && v->tag == AV_VALUES ? *v : av_unknown();
    x.binary = false;
    x = pe_stepf(e, &x, call, "%s(...)", api);
    if (has) {
        x = pe_constructions_for(e, CONS_SCALAR_FILL, api, call, x, &d);
        return with_dtype(x, &d, intd);
    }
    return as_tensor(x);
}

static aval const_fill(ev *e, double c, TSNode call, const aval *like, const args *g)
{
    kv_value v = pe_value_make(e, VK_FLOAT, c, c, call);
    dtype_ref d;
    bool intd = false;
    bool has = dtype_kwarg(e, g, &d, &intd);
    aval x = av_const(e->s, &v);
    if (has)
        return with_dtype(x, &d, intd);
    if (like && like->tag == AV_VALUES && like->has_dtype)
        return with_dtype(x, &like->dtype, like->intdtype);
    return as_tensor(x);
}

static aval int_source(ev *e, TSNode call, double lo, double hi, const char *hi_sym, double add, bool unknown)
{
    kv_value v = pe_value_make(e, VK_INTEGER, lo, hi, call);
    v.hi_sym = hi_sym;
    v.hi_sym_add = add;
    v.hi_unknown = unknown;
    aval x = av_const(e->s, &v);
    x.tensor = true;
    x.intdtype = true;
    return x;
}

/* arange(end) / arange(start, end): the upper bound known, symbolic (a range name) or unknown. */
static aval arange_value(ev *e, TSNode call, const args *g)
{
    TSNode endn;
    const aval *end = pe_arg(g, g->npos >= 2 ? 1 : 0, "end", &endn);
    const aval *start = g->npos >= 2 ? &g->posv[0] : NULL;
    double lo = 0, s, hi;
    if (start && av_single(start, &s))
        lo = s;
    if (end && av_single(end, &hi))
        return int_source(e, call, lo, hi - 1, NULL, 0, false);
    if (end && (pe_is(endn, "identifier") || pe_is(endn, "attribute"))) {
        const char *nm = pe_base_name(e, endn);
        if (nm)
            return int_source(e, call, lo, 0, nm, -1, false);
    }
    return int_source(e, call, lo, 0, NULL, 0, true);
}

static aval finfo_value(ev *e, const args *g, TSNode call, bool iinfo)
{
    aval x = av_unknown();
    x.tag = AV_FINFO;
    x.other = false;
    x.iinfo = iinfo;
    TSNode at = call;
    const aval *d = pe_arg(g, 0, "type", &at);
    bool found = false;
    if (d)
        x.dtype = dtype_of_aval(e, d, at, &found);
    if (!d) {  /* torch.finfo() is float32's */
        x.dtype = pe_dref(e, DREF_CONCRETE, call);
        x.dtype.dtype = kvn_dtype_parse("float32", false);
        x.dtype.text = "torch.float32";
    } else if (!found && d->tag == AV_VALUES) {
        /* finfo(x) on a tensor-like value: its dtype, i.e. the model's */
        x.dtype = d->has_dtype ? d->dtype : pe_dref(e, DREF_MODEL, at);
    }
    x.str = pe_text_of(e, call);
    return x;
}

/* torch.iinfo(D).min/max for the integer dtypes, by their spelling. */
static bool iinfo_bound(const char *dtext, bool max, double *out)
{
    static const struct { const char *n; double lo, hi; } t[] = {
        { "int64", -9223372036854775808.0, 9223372036854775807.0 }, { "long", -9223372036854775808.0, 9223372036854775807.0 },
        { "int32", -2147483648.0, 2147483647.0 }, { "int", -2147483648.0, 2147483647.0 },
        { "int16", -32768, 32767 }, { "short", -32768, 32767 }, { "int8", -128, 127 }, { "uint8", 0, 255 },
    };
    if (!dtext)
        return false;
    const char *dot = strrchr(dtext, '.');
    const char *n = dot ? dot + 1 : dtext;
    for (size_t i = 0; i < sizeof t / sizeof *t; i++)
        if (strcmp(n, t[i].n) == 0) {
            *out = max ? t[i].hi : t[i].lo;
            return true;
        }
    return false;
}

aval pe_finfo_attr(ev *e, const aval *f, const char *attr, TSNode at)
{
    value_sym sym = strcmp(attr, "min") == 0 ? SYM_FINFO_MIN : strcmp(attr, "max") == 0 ? SYM_FINFO_MAX
                    : strcmp(attr, "eps") == 0 ? SYM_FINFO_EPS : strcmp(attr, "tiny") == 0 ? SYM_FINFO_TINY
                    : SYM_NONE;
    if (sym == SYM_NONE)
        return av_unknown();
    if (f->iinfo) {
        double x;
        if (sym == SYM_FINFO_EPS || sym == SYM_FINFO_TINY || !iinfo_bound(f->dtype.text, sym == SYM_FINFO_MAX, &x))
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

static aval cast_to(ev *e, TSNode call, const char *api, aval x, dtype_ref d, bool intd, bool binary)
{
    aval r = x.tag == AV_VALUES ? x : av_unknown();
    r.tensor = true;
    if (intd) {
        r.intdtype = true;
        r.binary = r.binary || binary;
        r.has_dtype = true;
        r.dtype = d;
        return r;
    }
    if (!is_wide_float(&d))
        r = pe_constructions_for(e, CONS_TENSOR_CAST, api, call, r, &d);
    pe_emit_intcast(e, api, call, &r, &d);
    r = pe_stepf(e, &r, call, "%s(%s)", api, d.text ? d.text : "");
    r.has_dtype = true;
    r.dtype = d;
    r.intdtype = false;
    return r;
}

static aval concrete_cast(ev *e, TSNode call, const char *api, aval x, const char *dtype_name)
{
    dtype_ref d = pe_dref(e, DREF_CONCRETE, call);
    d.text = arena_printf(e->a, "torch.%s", dtype_name);
    d.dtype = kvn_dtype_parse(d.text, false);
    if (d.dtype == KVN_DTYPE_INVALID)
        d.kind = DREF_UNKNOWN;
    return cast_to(e, call, api, x, d, false, false);
}

/* .to(...) / .type(...): the first argument that is a dtype (or a tensor of known dtype). */
static aval method_to(ev *e, TSNode call, const char *api, aval x, const args *g)
{
    TSNode at;
    const aval *d = pe_kwarg(g, "dtype", &at);
    for (size_t i = 0; !d && i < g->npos; i++)
        if (g->posv[i].tag == AV_DTYPE || (g->posv[i].tag == AV_VALUES && g->posv[i].has_dtype && g->posv[i].tensor)) {
            d = &g->posv[i];
            at = g->pos[i];
        }
    if (!d)
        return x;  /* .to(device) */
    if (d->tag == AV_DTYPE)
        return cast_to(e, call, api, x, d->dtype, d->intdtype, d->binary);
    if (d->tag == AV_VALUES)
        return cast_to(e, call, api, x, d->dtype, d->intdtype, false);
    bool found;
    dtype_ref r = dtype_of_aval(e, d, at, &found);
    return found ? cast_to(e, call, api, x, r, false, false) : x;
}

static aval method_type_as(ev *e, TSNode call, aval x, const args *g)
{
    if (g->npos < 1)
        return x;
    const aval *y = &g->posv[0];
    if (y->tag == AV_VALUES && y->has_dtype)
        return cast_to(e, call, "type_as", x, y->dtype, y->intdtype, false);
    dtype_ref d = pe_dref(e, DREF_MODEL, g->pos[0]);
    d.text = arena_printf(e->a, "%s.dtype", pe_text_of(e, g->pos[0]));
    return cast_to(e, call, "type_as", x, d, false, false);
}

static bool name_in(const char *s, const char *const *list)
{
    for (size_t i = 0; list[i]; i++)
        if (strcmp(s, list[i]) == 0)
            return true;
    return false;
}

static const char *const view_like[] = {
    "clone", "contiguous", "view", "reshape", "transpose", "permute", "unsqueeze", "squeeze", "expand",
    "expand_as", "repeat", "flatten", "detach", "view_as", "reshape_as", "t", "narrow", "flip", "roll",
    "unflatten", "movedim", "swapaxes", "index_select", "gather", "cpu", "cuda", "repeat_interleave",
    "unbind", "split", "chunk", "tile", "broadcast_to", "select", "squeeze_", "unsqueeze_", "round", "triu",
    "tril", NULL
};
static const char *const bool_results[] = {
    "any", "all", "eq", "ne", "lt", "gt", "le", "ge", "isin", "logical_and", "logical_or", "logical_not",
    "logical_xor", "isnan", "isinf", "isfinite", "bool", NULL
};

static aval cat_values(ev *e, const args *g)
{
    if (g->npos < 1)
        return av_unknown_tensor();
    const aval *l = &g->posv[0];
    if (l->tag != AV_SEQ || l->nelems == 0)
        return av_unknown_tensor();
    aval r = as_tensor(l->elems[0]);
    for (size_t i = 1; i < l->nelems; i++) {
        aval x = as_tensor(l->elems[i]);
        r = av_join(e->s, &r, &x);
    }
    return r;
}

static aval where_values(ev *e, TSNode call, const args *g)
{
    if (g->npos < 3)
        return av_unknown_tensor();
    const aval *a = &g->posv[1], *b = &g->posv[2];
    aval r = av_join(e->s, a, b);
    if (r.tag != AV_VALUES)
        return av_unknown_tensor();
    r.binary = a->tag == AV_VALUES && b->tag == AV_VALUES && a->binary && b->binary;
    r.tensor = true;
    /* A scalar special value picked into a tensor of known dtype is materialised in that dtype. */
    const aval *t = a->tensor && a->has_dtype ? a : b->tensor && b->has_dtype ? b : NULL;
    if (t) {
        const aval *scalars[2] = { a, b };
        aval parts[2];
        for (int i = 0; i < 2; i++) {
            parts[i] = *scalars[i];
            if (!scalars[i]->tensor)
                parts[i] = pe_constructions_for(e, CONS_TENSOR_NEW, "torch.where", call, parts[i], &t->dtype);
        }
        r = av_join(e->s, &parts[0], &parts[1]);
        r.tensor = true;
        r.has_dtype = true;
        r.dtype = t->dtype;
    }
    return av_step(e->s, e->a, &r, pe_loc_of(e, call), "torch.where(...)");
}

static aval pad_values(ev *e, TSNode call, const args *g)
{
    if (g->npos < 1)
        return av_unknown_tensor();
    TSNode at;
    const aval *v = pe_arg(g, 3, "value", &at);
    aval x = as_tensor(g->posv[0]);
    if (!v) {
        kv_value z = pe_value_make(e, VK_FLOAT, 0, 0, call);
        aval zero = av_const(e->s, &z);
        return av_join(e->s, &x, &zero);
    }
    aval pv_ = av_step(e->s, e->a, v, pe_loc_of(e, call), "F.pad(..., value=...)");
    aval r = av_join(e->s, &x, &pv_);
    r.tensor = true;
    return r;
}

static aval clamp_values(ev *e, aval x, const args *g, int hi_pos)
{
    /* clamp(ids, 0, self.num_adapters): the upper bound names the range */
    TSNode mx;
    const aval *hi = pe_arg(g, hi_pos, "max", &mx);
    if (hi && av_has_integer(&x) && (pe_is(mx, "identifier") || pe_is(mx, "attribute"))) {
        const char *nm = pe_base_name(e, mx);
        pv *vals = arena_memdup(e->s, x.vals, x.n * sizeof *vals);
        for (size_t i = 0; nm && i < x.n; i++)
            if (vals[i].v.kind == VK_INTEGER) {
                vals[i].v.hi_sym = nm;
                vals[i].v.hi_sym_add = 0;
                vals[i].v.hi_unknown = false;
            }
        x.vals = vals;
        return x;
    }
    return av_without_sentinels(e->s, &x);
}

aval pe_torch_function(ev *e, const char *f, TSNode call, const args *g)
{
    const aval *a0 = g->npos > 0 ? &g->posv[0] : NULL;
    TSNode vn;
    if (strcmp(f, "full") == 0)
        return model_fill(e, "torch.full", call, NULL, pe_arg(g, 1, "fill_value", &vn), g);
    if (strcmp(f, "full_like") == 0)
        return model_fill(e, "torch.full_like", call, a0, pe_arg(g, 1, "fill_value", &vn), g);
    if (strcmp(f, "zeros") == 0 || strcmp(f, "zeros_like") == 0)
        return const_fill(e, 0, call, f[5] ? a0 : NULL, g);
    if (strcmp(f, "ones") == 0 || strcmp(f, "ones_like") == 0)
        return const_fill(e, 1, call, f[4] ? a0 : NULL, g);
    if (strcmp(f, "tensor") == 0 || strcmp(f, "as_tensor") == 0) {
        dtype_ref d;
        bool intd = false;
        aval x = a0 ? *a0 : av_unknown();
        if (x.tag == AV_SEQ)
            x = cat_values(e, g);
        if (x.tag != AV_VALUES)
            x = av_unknown();
        x = pe_stepf(e, &x, call, "torch.%s(...)", f);
        if (dtype_kwarg(e, g, &d, &intd)) {
            x = pe_constructions_for(e, CONS_TENSOR_NEW, "torch.tensor", call, x, &d);
            return with_dtype(x, &d, intd);
        }
        return as_tensor(x);
    }
    if (strcmp(f, "empty") == 0 || strcmp(f, "empty_like") == 0 || strcmp(f, "randn") == 0 || strcmp(f, "rand") == 0) {
        dtype_ref d;
        bool intd = false;
        if (dtype_kwarg(e, g, &d, &intd))
            return with_dtype(av_unknown_tensor(), &d, intd);
        return av_unknown_tensor();
    }
    if (strcmp(f, "where") == 0)
        return where_values(e, call, g);
    if (strcmp(f, "cat") == 0 || strcmp(f, "concat") == 0 || strcmp(f, "concatenate") == 0 || strcmp(f, "stack") == 0
        || strcmp(f, "hstack") == 0 || strcmp(f, "vstack") == 0) {
        aval r = cat_values(e, g);
        return pe_stepf(e, &r, call, "torch.%s(...)", f);
    }
    if (strcmp(f, "pad") == 0)
        return pad_values(e, call, g);
    if (strcmp(f, "arange") == 0)
        return arange_value(e, call, g);
    if (strcmp(f, "argmax") == 0 || strcmp(f, "argmin") == 0 || strcmp(f, "argsort") == 0 || strcmp(f, "nonzero") == 0
        || strcmp(f, "searchsorted") == 0 || strcmp(f, "bucketize") == 0 || strcmp(f, "bincount") == 0
        || strcmp(f, "randperm") == 0)
        return int_source(e, call, 0, 0, NULL, 0, true);
    if (strcmp(f, "randint") == 0) {
        double lo = 0, hi;
        const aval *h = g->npos >= 3 ? &g->posv[1] : a0;
        if (g->npos >= 3)
            av_single(a0, &lo);
        if (h && av_single(h, &hi))
            return int_source(e, call, lo, hi - 1, NULL, 0, false);
        return int_source(e, call, lo, 0, NULL, 0, true);
    }
    if (strcmp(f, "finfo") == 0 || strcmp(f, "iinfo") == 0)
        return finfo_value(e, g, call, f[0] == 'i');
    if (strcmp(f, "get_default_dtype") == 0)
        return pe_dtype_value(pe_dref(e, DREF_MODEL, call), false);
    if (strcmp(f, "maximum") == 0 || strcmp(f, "minimum") == 0 || strcmp(f, "clamp") == 0 || strcmp(f, "clip") == 0
        || strcmp(f, "clamp_min") == 0 || strcmp(f, "clamp_max") == 0 || strcmp(f, "fmax") == 0)
        return a0 && a0->tag == AV_VALUES ? clamp_values(e, as_tensor(*a0), g, 2) : av_unknown_tensor();
    if (strcmp(f, "masked_fill") == 0 && g->npos >= 3) {
        aval x = as_tensor(g->posv[0]);
        aval v = g->posv[2];
        if (x.has_dtype)
            v = pe_constructions_for(e, CONS_SCALAR_FILL, "masked_fill", call, v, &x.dtype);
        aval r = av_join(e->s, &x, &v);
        return av_step(e->s, e->a, &r, pe_loc_of(e, call), "masked_fill(...)");
    }
    if (name_in(f, view_like) && a0)
        return as_tensor(*a0);
    if (name_in(f, bool_results)) {
        aval r = av_unknown_tensor();
        r.binary = true;
        return r;
    }
    return av_unknown_tensor();
}

aval pe_tensor_method(ev *e, TSNode call, TSNode recv, aval x, const char *m, const args *g)
{
    /* facts of a method call point at the method name: k.to(d).half() has two sites */
    TSNode whole = call, site = pe_fld(e, pe_fld(e, call, F_function), F_attribute);
    if (!ts_node_is_null(site))
        call = site;
    const char *cache = pe_base_name(e, recv);
    bool is_cache = cache && py_is_cache_name(e->st, cache, strlen(cache));
    TSNode vn;
    static const struct { const char *m; int pos; const char *kw; } writes[] = {
        { "copy_", 0, "src" }, { "fill_", 0, "value" }, { "index_copy_", 2, "source" },
        { "index_put_", 1, "values" }, { "masked_fill_", 1, "value" }, { "index_fill_", 2, "value" },
        { "scatter_", 2, "src" }, { "masked_scatter_", 1, "source" }, { "put_", 1, "source" },
    };
    for (size_t i = 0; i < sizeof writes / sizeof *writes; i++) {
        if (strcmp(m, writes[i].m) != 0)
            continue;
        const aval *v = pe_arg(g, writes[i].pos, writes[i].kw, &vn);
        if (!v)
            return x;
        if (is_cache) {
            pe_store_direct(e, call, cache, vn, *v);
            return x;
        }
        const char *key = pe_var_key(e, recv);
        if (key && (strcmp(m, "copy_") == 0 || strcmp(m, "fill_") == 0)) {
            aval nv = *v;
            if (x.has_dtype && strcmp(m, "fill_") == 0)
                nv = pe_constructions_for(e, CONS_SCALAR_FILL, "fill_", call, nv, &x.dtype);
            bool tensor = x.tensor || (nv.tag == AV_VALUES && nv.tensor);
            nv = with_dtype(nv.tag == AV_VALUES ? nv : av_unknown(), &x.dtype, x.intdtype);
            nv.has_dtype = x.has_dtype;
            nv.tensor = tensor;
            pe_update_key(e, key, pe_stepf(e, &nv, call, "%s into %s", m, pe_text_of(e, recv)));
        } else if (key) {
            pe_write_into(e, recv, *v, call, m);
        }
        return key ? pe_lookup_key(e, key, recv) : x;
    }
    if (x.tag != AV_VALUES)
        x = av_unknown();
    /* Methods keep the receiver's tensor-ness: a str.split() is no tensor. Only the words the
     * prefilter counts as tensor context (py_is_tensor_word) may make a tensor out of nothing. */
    if (name_in(m, view_like))
        return x;
    if (strcmp(m, "to") == 0 || strcmp(m, "type") == 0)
        return method_to(e, call, m[0] == 't' && m[1] == 'o' ? ".to" : ".type", x, g);
    if (strcmp(m, "half") == 0)
        return concrete_cast(e, call, ".half", x, "float16");
    if (strcmp(m, "bfloat16") == 0)
        return concrete_cast(e, call, ".bfloat16", x, "bfloat16");
    if (strcmp(m, "float") == 0)
        return concrete_cast(e, call, ".float", x, "float32");
    if (strcmp(m, "double") == 0)
        return concrete_cast(e, call, ".double", x, "float64");
    if (strcmp(m, "type_as") == 0)
        return method_type_as(e, call, x, g);
    if (strcmp(m, "long") == 0 || strcmp(m, "int") == 0 || strcmp(m, "short") == 0) {
        aval r = x;
        r.intdtype = true;
        return r;
    }
    /* out-of-place fills: x.masked_fill(mask, v), x.index_fill(dim, index, v) */
    bool index_fill = strcmp(m, "index_fill") == 0;
    if (strcmp(m, "masked_fill") == 0 || index_fill) {
        const aval *v = pe_arg(g, index_fill ? 2 : 1, "value", &vn);
        if (!v)
            return as_tensor(x);
        aval nv = *v;
        if (x.has_dtype)
            nv = pe_constructions_for(e, CONS_SCALAR_FILL, m, call, nv, &x.dtype);
        aval r = av_join(e->s, &x, &nv);
        r.tensor = true;
        return av_step(e->s, e->a, &r, pe_loc_of(e, call), index_fill ? "index_fill(...)" : "masked_fill(...)");
    }
    if (strcmp(m, "new_full") == 0) {
        aval like = x.has_dtype ? x : av_unknown();
        return model_fill(e, "new_full", call, &like, pe_arg(g, 1, "fill_value", &vn), g);
    }
    if (strcmp(m, "new_zeros") == 0 || strcmp(m, "new_ones") == 0)
        return const_fill(e, m[4] == 'z' ? 0 : 1, whole, x.has_dtype ? &x : NULL, g);
    if (strcmp(m, "new_tensor") == 0 || strcmp(m, "new_empty") == 0)
        return av_unknown_tensor();
    if (strcmp(m, "where") == 0 && g->npos >= 2) {
        aval y = g->posv[1];
        aval r = av_join(e->s, &x, &y);
        r.tensor = true;
        return r;
    }
    if (strcmp(m, "argmax") == 0 || strcmp(m, "argmin") == 0 || strcmp(m, "argsort") == 0 || strcmp(m, "nonzero") == 0)
        return int_source(e, whole, 0, 0, NULL, 0, true);
    if (strcmp(m, "clamp") == 0 || strcmp(m, "clip") == 0 || strcmp(m, "clamp_min") == 0 || strcmp(m, "clamp_max") == 0) {
        return clamp_values(e, x, g, 1);
    }
    if (name_in(m, bool_results)) {
        aval r = x.tensor ? av_unknown_tensor() : av_unknown();
        r.binary = true;
        return r;
    }
    return x.tensor ? av_unknown_tensor() : av_unknown();
}
