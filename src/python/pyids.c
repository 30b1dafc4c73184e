/*
 * pyids.c: integer id families by name: which identifiers hold adapter, expert, position,
 * token or slot ids, and which config range names bound them (symbolic until resolve/ binds them).
 * It does not decide where ranges come from (resolve/).
 */
#include <string.h>

#include "python/pyeval.h"

static const char *choose_bound(ev *e, const char *family, double *add)
{
    const double *adds;
    const char *const *b = py_family_bounds(family, &adds);
    for (size_t i = 0; b[i]; i++) {
        bool seen = pe_env_get(&e->module, b[i]) || (e->fr && pe_env_get(&e->fr->locals, b[i]))
                    || (e->cls && (pe_env_get(&e->cls->attrs, b[i]) || pe_env_get(&e->cls->consts, b[i])))
                    || (e->fr && pe_env_get(&e->fr->locals, arena_printf(e->a, "self.%s", b[i])));
        if (seen) {
            *add = adds[i];
            return b[i];
        }
    }
    *add = adds[0];
    return b[0];
}

/* An id named by its family (adapter_ids, positions, ...): [0, bound]. */
aval pe_family_value(ev *e, const char *family, TSNode at)
{
    kv_value v = pe_value_make(e, VK_INTEGER, 0, 0, at);
    v.family = family;
    v.hi_sym = choose_bound(e, family, &v.hi_sym_add);
    v.hi_unknown = v.hi_sym == NULL;
    aval x = av_const(e->s, &v);
    x.tensor = true;
    x.intdtype = true;
    return x;
}

/* Name each unbounded integer of x after the family of the variable it is assigned to. */
aval pe_refine_family(ev *e, const char *name, aval x, TSNode at)
{
    const char *fam = py_name_family(name, strlen(name));
    if (!fam || x.tag != AV_VALUES)
        return x;
    if (x.n == 0)
        return pe_family_value(e, fam, at);
    pv *vals = arena_memdup(e->s, x.vals, x.n * sizeof *vals);
    for (size_t i = 0; i < x.n; i++) {
        kv_value *v = &vals[i].v;
        if (v->kind != VK_INTEGER)
            continue;
        if (!v->family)
            v->family = fam;
        if (v->hi_unknown) {
            v->hi_sym = choose_bound(e, fam, &v->hi_sym_add);
            v->hi_unknown = v->hi_sym == NULL;
        }
    }
    x.vals = vals;
    return x;
}

/* What a name means when nothing in the file binds it. */
aval pe_default_for_name(ev *e, const char *name, TSNode at)
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
    const char *fam = py_name_family(name, strlen(name));
    if (fam)
        return pe_family_value(e, fam, at);
    if (strstr(name, "mask")) {
        aval x = av_unknown_tensor();
        x.binary = true;
        return x;
    }
    return av_unknown();
}
