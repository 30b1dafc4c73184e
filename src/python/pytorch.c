/*
 * pytorch.c: the evaluator's model of torch calls, driven by the rows of grammars/python/torch.tsv
 * (pytorch_api.h). A call of a torch function or a tensor method finds its row; the row's `values`
 * rule says what the result holds (a fill, the input joined with the fill arguments, a cast of
 * the input, unknown values, ...), its `dtype` rule in which dtype, its `returns` whether the
 * input itself is written (in-place calls, whose result is the written tensor, so that a chain
 * `torch.zeros(n).masked_fill_(m, v).to(D)` keeps v), and its `bits` whether the call reads the
 * bits as another dtype instead (x.view(torch.float8_e4m3fn), x.to(D, bitcast=True): unknown
 * values). A call without a row is unknown (a tensor when the receiver is one).
 * Dtype objects and finfo live in pydtype.c; this file emits constructions and int-casts (through
 * pystore.c) but no stores except an in-place write into a tensor named like a cache.
 */
#include <math.h>
#include <string.h>

#include "python/pyeval.h"

/* Whether the call's dtype= is torch.bool: its values are 0 or 1. */
static bool bool_kwarg(const args *g)
{
    const aval *d = pe_kwarg(g, "dtype", NULL);
    return d && d->tag == AV_DTYPE && d->binary;
}

/* A sentinel materialised in dtype d, unless d is an integer dtype (no float construction then,
 * whether or not its spelling says so: idx.dtype of an integer idx). */
static aval build_in(pe_ctx *e, construction_kind k, const char *api, TSNode at, aval x, const dtype_ref *d, bool intd)
{
    return intd ? x : pe_constructions_for(e, k, api, at, x, d);
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
static aval model_fill(pe_ctx *e, const char *api, TSNode call, const aval *like, const aval *v, const args *g)
{
    dtype_ref d;
    bool intd = false, has = pe_dtype_kwarg(e, g, &d, &intd);
    if (!has && like && like->tag == AV_VALUES && like->has_dtype) {
        d = like->dtype;
        intd = like->intdtype;
        has = true;
    }
    aval x = v && v->tag == AV_VALUES ? *v : av_unknown();
    x.binary = false;
    x = pe_stepf(e, &x, call, "%s(...)", api);
    if (has) {
        x = build_in(e, CONS_SCALAR_FILL, api, call, x, &d, intd);
        return with_dtype(x, &d, intd);
    }
    return as_tensor(x);
}

static aval const_fill(pe_ctx *e, double c, TSNode call, const aval *like, const args *g)
{
    kv_value v = pe_value_make(e, VK_FLOAT, c, c, call);
    dtype_ref d;
    bool intd = false;
    bool has = pe_dtype_kwarg(e, g, &d, &intd);
    aval x = av_const(e->s, &v);
    x.binary = bool_kwarg(g);  /* torch.ones(n, dtype=torch.bool) */
    if (has)
        return with_dtype(x, &d, intd);
    if (like && like->tag == AV_VALUES && like->has_dtype)
        return with_dtype(x, &like->dtype, like->intdtype);
    return as_tensor(x);
}

static aval int_source(pe_ctx *e, TSNode call, double lo, double hi, const char *hi_sym, double add, bool unknown)
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

/* arange(end) / arange(start, end): the upper bound known, symbolic (a range name) or unknown.
 * Built in a dtype that is not an integer one (`dtype=torch.float32`, `dtype=x.dtype`), it is a
 * ramp of coordinates in that dtype, not ids: a tensor of that dtype whose values are not
 * followed (RoPE's arange(0, dim, 2, dtype=torch.float32), a test filling a page with a ramp). */
static aval arange_value(pe_ctx *e, TSNode call, const args *g)
{
    dtype_ref d;
    bool intd = false;
    if (pe_dtype_kwarg(e, g, &d, &intd) && !intd)
        return with_dtype(av_unknown_tensor(), &d, false);
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

static aval cast_to(pe_ctx *e, TSNode call, const char *api, aval x, dtype_ref d, bool intd, bool binary)
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
    if (!pe_is_wide_float(e, &d))
        r = pe_constructions_for(e, CONS_TENSOR_CAST, api, call, r, &d);
    pe_emit_intcast(e, api, call, &r, &d);
    r = pe_stepf(e, &r, call, "%s(%s)", api, d.text ? d.text : "");
    r.has_dtype = true;
    r.dtype = d;
    r.intdtype = false;
    return r;
}

static aval concrete_cast(pe_ctx *e, TSNode call, const char *api, aval x, const char *dtype_name)
{
    dtype_ref d = pe_dref(e, DREF_CONCRETE, call);
    d.text = arena_printf(e->a, "torch.%s", dtype_name);
    d.dtype = kvn_dtype_parse(d.text, false);
    if (d.dtype == KVN_DTYPE_INVALID)
        d.kind = DREF_UNKNOWN;
    return cast_to(e, call, api, x, d, false, false);
}

/* .to(...) / .type(...): the first argument that is a dtype (or a tensor of known dtype). */
static aval method_to(pe_ctx *e, TSNode call, const char *api, aval x, const args *g)
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
    dtype_ref r = pe_dtype_of_aval(e, d, at, &found);
    return found ? cast_to(e, call, api, x, r, false, false) : x;
}

static aval method_type_as(pe_ctx *e, TSNode call, const char *api, aval x, const args *g)
{
    if (g->npos < 1)
        return x;
    const aval *y = &g->posv[0];
    if (y->tag == AV_VALUES && y->has_dtype)
        return cast_to(e, call, api, x, y->dtype, y->intdtype, false);
    if (y->tag == AV_VALUES && y->intdtype)
        return cast_to(e, call, api, x, pe_dref(e, DREF_UNKNOWN, g->pos[0]), true, y->binary);
    aval d = pe_dtype_of_unknown(e, g->pos[0], g->pos[0]);
    d.dtype.text = arena_printf(e->a, "%s.dtype", pe_text_of(e, g->pos[0]));
    return cast_to(e, call, api, x, d.dtype, d.intdtype, false);
}

static aval cat_values(pe_ctx *e, const args *g)
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

static aval where_values(pe_ctx *e, TSNode call, const aval *a, const aval *b)
{
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
                parts[i] = build_in(e, CONS_TENSOR_NEW, "torch.where", call, parts[i], &t->dtype, t->intdtype);
        }
        r = av_join(e->s, &parts[0], &parts[1]);
        r.tensor = true;
        r.has_dtype = true;
        r.dtype = t->dtype;
    }
    return av_step(e->s, e->a, &r, pe_loc_of(e, call), "torch.where(...)");
}

static aval clamp_values(pe_ctx *e, aval x, const args *g, int hi_pos)
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

/* One call being modelled: its row, where its facts point, its arguments and its input. */
typedef struct tcall {
    const pt_entry *row;
    TSNode site;       /* where facts point: the method name of a method call */
    TSNode whole;      /* the whole call (origins of the values it makes) */
    TSNode recv;       /* a method's receiver, or a null node */
    const args *g;
    int shift;         /* a `both` row called as a function: its argument 0 is the input */
    aval in;           /* the input: the receiver, or argument 0 */
    bool method;
} tcall;

/* Fill argument i of the row, or its default as a constant, or NULL. */
static const aval *fill_arg(pe_ctx *e, const tcall *c, size_t i, aval *tmp, TSNode *at)
{
    const pt_arg *p = pt_fill(c->row, i);
    if (!p)
        return NULL;
    const aval *v = pe_arg(c->g, p->pos < 0 ? -1 : p->pos + c->shift, p->kw, at);
    if (v || !p->has_default)
        return v;
    kv_value z = pe_value_make(e, VK_FLOAT, p->def, p->def, c->whole);
    *tmp = av_const(e->s, &z);
    tmp->binary = p->def == 0 || p->def == 1;  /* a 0/1 constant keeps a mask a mask */
    *at = c->whole;
    return tmp;
}

/* The result's dtype by the row's rule; false when it is not known. */
static bool result_dtype(pe_ctx *e, const tcall *c, dtype_ref *d, bool *intd)
{
    *intd = false;
    switch (c->row->dtype) {
    case PTD_KW:
        return pe_dtype_kwarg(e, c->g, d, intd);
    case PTD_KW_OR_INPUT:
        if (pe_dtype_kwarg(e, c->g, d, intd))
            return true;
        if (c->in.tag == AV_VALUES && c->in.has_dtype) {
            *d = c->in.dtype;
            *intd = c->in.intdtype;
            return true;
        }
        return false;
    case PTD_KW_OR_INT:
        if (pe_dtype_kwarg(e, c->g, d, intd))
            return true;
        *intd = true;  /* int64: a class without a dtype_ref (integer dtypes are not the numerics') */
        return false;
    case PTD_INT:
    case PTD_BOOL:
        *intd = true;
        return false;
    case PTD_INPUT:
        *intd = c->in.tag == AV_VALUES && c->in.intdtype;
        if (c->in.tag == AV_VALUES && c->in.has_dtype) {
            *d = c->in.dtype;
            return true;
        }
        return false;
    default:
        return false;
    }
}

/* A new tensor of unknown values in the row's dtype (empty, randn, randint, new_empty). */
static aval unknown_values(pe_ctx *e, const tcall *c)
{
    dtype_ref d;
    bool intd;
    aval r = av_unknown_tensor();
    r.binary = bool_kwarg(c->g);
    if (result_dtype(e, c, &d, &intd))
        return with_dtype(r, &d, intd);
    r.intdtype = intd;
    r.binary = r.binary || c->row->dtype == PTD_BOOL;
    return r;
}

/* The bits of the input read as another dtype: nothing is known of the values. */
static aval reinterpret(const aval *target)
{
    aval r = av_unknown_tensor();
    if (target && target->tag == AV_DTYPE) {
        r.intdtype = target->intdtype;
        if (!target->intdtype)
            r = with_dtype(r, &target->dtype, false);
    }
    return r;
}

/* x.view(torch.uint8), x.to(D, bitcast=True): the target dtype, if the call reinterprets. */
static bool reinterprets(pe_ctx *e, const tcall *c, const aval **target)
{
    *target = NULL;
    if (c->row->bits == PTB_DTYPE_ARG) {
        const aval *a = pe_arg(c->g, c->shift, "dtype", NULL);
        *target = a;
        return a && a->tag == AV_DTYPE;
    }
    if (c->row->bits == PTB_BITCAST_KW) {
        TSNode at;
        if (!pe_kwarg(c->g, "bitcast", &at) || ts_node_is_null(at) || strcmp(pe_raw_text(e, at), "True") != 0)
            return false;
        *target = pe_kwarg(c->g, "dtype", NULL);
        for (size_t i = 0; !*target && i < c->g->npos; i++)
            if (c->g->posv[i].tag == AV_DTYPE)
                *target = &c->g->posv[i];
        return true;
    }
    return false;
}

static aval apply_cast(pe_ctx *e, const tcall *c, aval x)
{
    const pt_entry *row = c->row;
    aval cast;
    switch (row->dtype) {
    case PTD_CONCRETE:
        cast = concrete_cast(e, c->site, row->api, x, row->dtype_name);
        break;
    case PTD_TARGET:
        cast = method_to(e, c->site, row->api, x, c->g);
        break;
    case PTD_LIKE:
        cast = method_type_as(e, c->site, row->api, x, c->g);
        break;
    case PTD_INT:
    case PTD_BOOL: {
        aval r = row->values == PTV_BOOL ? (x.tensor ? av_unknown_tensor() : av_unknown()) : x;
        r.intdtype = true;
        r.binary = r.binary || row->dtype == PTD_BOOL;
        return r;
    }
    default:
        return x;
    }
    /* a float cast remembers that its input was float32 or wider (the store's wide_source) */
    cast.wide_source = cast.tag == AV_VALUES && x.tag == AV_VALUES && x.has_dtype && pe_is_wide_float(e, &x.dtype);
    return cast;
}

/* The input joined with the fill arguments (masked_fill, index_fill, F.pad, x.where(c, y)); a
 * scalar filled into a tensor of known dtype is materialised in that dtype. */
static aval join_fills(pe_ctx *e, const tcall *c, aval x)
{
    aval r = as_tensor(x);
    bool any = false;
    for (size_t i = 0; i < c->row->nfill; i++) {
        aval tmp;
        TSNode at;
        const aval *v = fill_arg(e, c, i, &tmp, &at);
        if (!v)
            continue;
        aval nv = *v;
        bool tensor = nv.tag == AV_VALUES && nv.tensor;
        if (x.tag == AV_VALUES && x.has_dtype && !tensor)
            nv = build_in(e, CONS_SCALAR_FILL, c->row->api, c->site, nv, &x.dtype, x.intdtype);
        else if (x.tag == AV_VALUES && x.has_dtype && c->row->dtype == PTD_INPUT
                 && !(nv.has_dtype && nv.dtype.kind == x.dtype.kind))
            nv = build_in(e, CONS_TENSOR_CAST, c->row->api, c->site, nv, &x.dtype, x.intdtype);
        r = av_join(e->s, &r, &nv);
        any = any || v != &tmp;  /* a step for what an argument brought, not for tril's zeros */
    }
    r.tensor = true;
    r.has_dtype = x.tag == AV_VALUES && x.has_dtype;
    if (r.has_dtype) {
        r.dtype = x.dtype;
        r.intdtype = x.intdtype;
    }
    if (!any)
        return r;
    const pt_arg *f0 = pt_fill(c->row, 0);
    if (f0 && f0->has_default && f0->kw)  /* F.pad(..., value=...): the argument is optional */
        return pe_stepf(e, &r, c->site, "%s(..., %s=...)", c->row->api, f0->kw);
    return pe_stepf(e, &r, c->site, "%s(...)", c->row->api);
}

static aval where_fills(pe_ctx *e, const tcall *c)
{
    aval ta, tb;
    TSNode at;
    const aval *a = fill_arg(e, c, 0, &ta, &at), *b = fill_arg(e, c, 1, &tb, &at);
    return a && b ? where_values(e, c->site, a, b) : av_unknown_tensor();
}

static aval literal_values(pe_ctx *e, const tcall *c)
{
    const aval *a0 = c->g->npos > 0 ? &c->g->posv[0] : NULL;
    aval x = a0 ? *a0 : av_unknown();
    if (x.tag == AV_SEQ)
        x = cat_values(e, c->g);
    if (x.tag != AV_VALUES)
        x = av_unknown();
    x = pe_stepf(e, &x, c->whole, "%s(...)", c->row->api);
    dtype_ref d;
    bool intd = false;
    if (pe_dtype_kwarg(e, c->g, &d, &intd)) {
        x = build_in(e, CONS_TENSOR_NEW, "torch.tensor", c->whole, x, &d, intd);
        return with_dtype(x, &d, intd);
    }
    return as_tensor(x);
}

/* The values rule of a row that is not an in-place write. */
static aval apply_values(pe_ctx *e, const tcall *c)
{
    const pt_entry *row = c->row;
    aval x = c->in, tmp;
    TSNode at;
    const aval *like = row->dtype == PTD_KW_OR_INPUT && x.tag == AV_VALUES && x.has_dtype ? &x : NULL;
    switch (row->values) {
    case PTV_FILL:
        return model_fill(e, row->api, c->method ? c->site : c->whole, like, fill_arg(e, c, 0, &tmp, &at), c->g);
    case PTV_ZEROS:
    case PTV_ONES:
        return const_fill(e, row->values == PTV_ONES, c->whole, like, c->g);
    case PTV_LITERAL:
        return literal_values(e, c);
    case PTV_UNKNOWN:
        return unknown_values(e, c);
    case PTV_SAME:
        return row->dtype == PTD_INT ? apply_cast(e, c, x) : x;
    case PTV_JOIN:
        return join_fills(e, c, x);
    case PTV_WHERE:
        return where_fills(e, c);
    case PTV_CAT: {
        aval r = cat_values(e, c->g);
        return pe_stepf(e, &r, c->whole, "%s(...)", row->api);
    }
    case PTV_ARANGE:
        return arange_value(e, c->whole, c->g);
    case PTV_INDEX:
        return int_source(e, c->whole, 0, 0, NULL, 0, true);
    case PTV_FINFO:
    case PTV_IINFO:
        return pe_finfo_value(e, c->g, c->whole, row->values == PTV_IINFO);
    case PTV_DEFAULT_DTYPE:
        return pe_dtype_value(pe_dref(e, DREF_MODEL, c->whole), false);
    case PTV_CLAMP: {
        const pt_arg *hi = pt_fill_kw(row, "max");
        return x.tag == AV_VALUES ? clamp_values(e, as_tensor(x), c->g, hi ? hi->pos + c->shift : -1)
                                  : av_unknown_tensor();
    }
    case PTV_BOOL: {
        aval r = x.tensor || !c->method ? av_unknown_tensor() : av_unknown();
        r.binary = true;
        return r;
    }
    case PTV_CAST:
        return apply_cast(e, c, x);
    }
    return av_unknown_tensor();
}

/* An in-place write x.fill_(v), x.masked_fill_(m, v), x.copy_(y), ...: into a tensor named like a
 * cache it is a store; into a variable it updates the variable; either way the call returns the
 * written tensor (the start of a chain). */
static aval apply_inplace(pe_ctx *e, const tcall *c)
{
    aval x = c->in, tmp;
    TSNode vn = c->site;
    const aval *v = fill_arg(e, c, 0, &tmp, &vn);
    if (!v || c->row->values == PTV_SAME)
        return x;
    const char *cache = pe_base_name(e, c->recv);
    if (cache && py_is_cache_name(e->st, cache, strlen(cache)) && !pe_own_table(e, c->recv)) {
        pe_store_direct(e, c->site, cache, vn, *v);
        return x;
    }
    const char *key = pe_var_key(e, c->recv);
    if (c->row->values != PTV_FILL) {
        if (!key)
            return join_fills(e, c, x);
        pe_write_into(e, c->recv, *v, c->site, c->row->api);
        return pe_lookup_key(e, key, c->recv);
    }
    /* copy_ / fill_: the tensor's values are replaced, its dtype stays */
    aval nv = *v;
    if (x.has_dtype && !(nv.tag == AV_VALUES && nv.tensor))
        nv = build_in(e, CONS_SCALAR_FILL, c->row->api, c->site, nv, &x.dtype, x.intdtype);
    bool tensor = x.tensor || (nv.tag == AV_VALUES && nv.tensor);
    nv = with_dtype(nv.tag == AV_VALUES ? nv : av_unknown(), &x.dtype, x.intdtype);
    nv.has_dtype = x.has_dtype;
    nv.tensor = tensor;
    nv = pe_stepf(e, &nv, c->site, "%s into %s", c->row->api, pe_text_of(e, c->recv));
    if (!key)
        return nv;
    pe_update_key(e, key, nv);
    return pe_lookup_key(e, key, c->recv);
}

static aval apply_row(pe_ctx *e, tcall *c)
{
    const aval *target;
    if (c->row->returns == PTR_INPLACE)
        return apply_inplace(e, c);
    if (c->row->returns == PTR_REINTERPRET)
        return reinterpret(NULL);
    if (reinterprets(e, c, &target))
        return reinterpret(target);
    return apply_values(e, c);
}

aval pe_torch_function(pe_ctx *e, const char *f, TSNode call, const args *g)
{
    const pt_entry *row = pt_function(e->st ? e->st->torch : NULL, f, strlen(f));
    if (!row)
        return av_unknown_tensor();
    if ((row->on & PT_METHOD) && g->npos == 0)
        return av_unknown_tensor();  /* torch.clone() without its tensor */
    tcall c = { .row = row, .site = call, .whole = call, .recv = g->npos > 0 ? g->pos[0] : call, .g = g,
                .shift = (row->on & PT_METHOD) ? 1 : 0, .in = av_unknown(), .method = false };
    if (g->npos > 0)
        c.in = g->posv[0].tag == AV_VALUES ? g->posv[0] : av_unknown();
    aval r = apply_row(e, &c);
    if (r.tag == AV_VALUES)
        r.tensor = true;  /* what a torch function returns is a tensor */
    return r;
}

aval pe_tensor_method(pe_ctx *e, TSNode call, TSNode recv, aval x, const char *m, const args *g)
{
    const pt_entry *row = pt_method(e->st ? e->st->torch : NULL, m, strlen(m));
    if (x.tag != AV_VALUES && !(row && row->returns == PTR_INPLACE && row->values != PTV_SAME))
        x = av_unknown();
    if (!row)
        return x.tensor ? av_unknown_tensor() : av_unknown();
    /* facts of a method call point at the method name: k.to(d).half() has two sites */
    TSNode site = pe_fld(e, pe_fld(e, call, F_function), F_attribute);
    tcall c = { .row = row, .site = ts_node_is_null(site) ? call : site, .whole = call, .recv = recv, .g = g,
                .shift = 0, .in = x, .method = true };
    aval r = apply_row(e, &c);
    /* Methods keep the receiver's tensor-ness (a str.split() is no tensor); only the rows the
     * prefilter counts as tensor context (torch.tsv's `context`) make a tensor of any receiver. */
    if (r.tag == AV_VALUES && !row->tensor_ctx && !row->cast_ctx && row->returns != PTR_INPLACE)
        r.tensor = x.tensor;
    return r;
}
