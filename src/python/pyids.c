/*
 * pyids.c: integer id classes by name: values of identifiers that hold adapter, expert,
 * position, token or slot ids, bounded by its id class's config range names (symbolic until resolve/
 * binds them). Which names and bounds those are is the id vocabulary's (grammars/ids.tsv,
 * facts/idvocab.h); where ranges come from is resolve/'s.
 */
#include <string.h>

#include "python/pyeval.h"

/* The bound of an id class's ids: the first of its bounds (grammars/ids.tsv) that the module, class
 * or function defines, else its first; a count n bounds ids by n - 1. NULL: the id class has none.
 * Returned in the file's facts arena (the vocabulary does not outlive the scan). */
static const char *choose_bound(pe_ctx *e, const char *idc, double *add)
{
    const id_class *f = id_vocab_class(e->st ? e->st->ids : NULL, idc);
    if (!f || !f->bounds.n) {
        *add = 0;
        return NULL;
    }
    for (size_t i = 0; i < f->bounds.n; i++) {
        const char *b = f->bounds.v[i].key;
        bool seen = pe_env_get(&e->module, b) || (e->fr && pe_env_get(&e->fr->locals, b))
                    || (e->cls && pe_class_member(e->cls, b, PE_MEMBER_ANY, false))
                    || (e->fr && pe_env_get(&e->fr->locals, arena_printf(e->a, "self.%s", b)));
        if (seen) {
            *add = f->bounds.v[i].count ? -1 : 0;
            return arena_strdup(e->a, b);
        }
    }
    *add = f->bounds.v[0].count ? -1 : 0;
    return arena_strdup(e->a, f->bounds.v[0].key);
}

/* An id named by its id class (adapter_ids, positions, ...): [0, bound]. */
aval pe_id_class_value(pe_ctx *e, const char *idc, TSNode at)
{
    kv_value v = pe_value_make(e, VK_INTEGER, 0, 0, at);
    v.id_class = arena_strdup(e->a, idc);
    v.hi_sym = choose_bound(e, idc, &v.hi_sym_add);
    v.hi_unknown = v.hi_sym == NULL;
    aval x = av_const(e->s, &v);
    x.tensor = true;
    x.intdtype = true;
    return x;
}

/* Name each unbounded integer of x after the id class of the variable it is assigned to. */
aval pe_refine_id_class(pe_ctx *e, const char *name, aval x, TSNode at)
{
    const char *idc = py_name_id_class(e->st, name, strlen(name));
    if (!idc || x.tag != AV_VALUES)
        return x;
    if (x.n == 0)
        return pe_id_class_value(e, idc, at);
    pv *vals = arena_memdup(e->s, x.vals, x.n * sizeof *vals);
    for (size_t i = 0; i < x.n; i++) {
        kv_value *v = &vals[i].v;
        if (v->kind != VK_INTEGER)
            continue;
        if (!v->id_class)
            v->id_class = arena_strdup(e->a, idc);
        if (v->hi_unknown) {
            v->hi_sym = choose_bound(e, idc, &v->hi_sym_add);
            v->hi_unknown = v->hi_sym == NULL;
        }
    }
    x.vals = vals;
    return x;
}

/* What a name means when nothing in the file binds it. */
aval pe_default_for_name(pe_ctx *e, const char *name, TSNode at)
{
    const pt_entry *mod = pt_lookup(e->st ? e->st->torch : NULL, PT_MODULE, name, strlen(name));
    if (mod) {  /* torch, F, np, math: the module rows of grammars/python/torch.tsv */
        aval x = av_unknown();
        x.tag = AV_MODULE;
        x.str = mod->module;
        return x;
    }
    if (pe_dtype_by_name(name))
        return pe_dtype_value(pe_dref(e, pe_dtype_kind_by_name(name), at), false);
    const char *idc = py_name_id_class(e->st, name, strlen(name));
    if (idc)
        return pe_id_class_value(e, idc, at);
    if (strstr(name, "mask")) {   /* a mask: a 0/1 tensor */
        aval x = av_unknown_tensor();
        x.binary = true;
        return x;
    }
    /* a predicate by Python's naming (is_pad, has_image): 0/1, a tensor or not (is_causal is a
     * bool); not tensor context, so the prefilter needs no word for it (a stdlib full of is_x) */
    if ((!strncmp(name, "is_", 3) && name[3]) || (!strncmp(name, "has_", 4) && name[4])) {
        aval x = av_unknown();
        x.binary = true;
        return x;
    }
    return av_unknown();
}
