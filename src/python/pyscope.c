/*
 * pyscope.c: names and what they are bound to. Environments (bindings in order, hash-indexed, copied
 * at branches and joined after them), module/class/self lookups, assignment targets (names, tuples,
 * attributes of self, subscripts: a subscript store into a cache tensor is a store), parameters
 * bound from a call's arguments or defaults, and imports (torch, math, numpy, from-imports of other
 * scanned files through the index).
 * It does not evaluate expressions (pyexpr.c) or model torch (pytorch.c).
 */
#include <stdio.h>
#include <string.h>

#include "python/pyeval.h"
#include "util/hash.h"

static void assign_inner(pe_ctx *e, TSNode target, aval v, TSNode at);

static uint32_t name_hash(const char *s)
{
    return kv_hash32(s, strlen(s));
}

/* The position of the binding of the name s (n bytes, hash h) in en->v, or -1. */
static ptrdiff_t env_index(const env *en, const char *s, size_t n, uint32_t h)
{
    if (en->slot) {
        size_t mask = en->nslot - 1, k = h & mask;
        for (size_t probes = 0; probes < en->nslot; probes++, k = (k + 1) & mask) {
            uint32_t at = en->slot[k];
            if (at == 0)
                return -1;
            const binding *b = &en->v[at - 1];
            if (at - 1 < en->n && b->hash == h && strncmp(b->name, s, n) == 0 && b->name[n] == '\0')
                return (ptrdiff_t)(at - 1);
        }
        /* every slot taken (another environment sharing the index filled it): scan */
    }
    for (size_t i = en->n; i-- > 0;)
        if (en->v[i].hash == h && strncmp(en->v[i].name, s, n) == 0 && en->v[i].name[n] == '\0')
            return (ptrdiff_t)i;
    return -1;
}

/* Look a name up by its bytes (no copy: identifiers are looked up straight from the source). */
const aval *pe_env_find_n(const env *en, const char *s, size_t n, uint32_t h)
{
    ptrdiff_t i = env_index(en, s, n, h);
    return i < 0 ? NULL : en->v[i].v;
}

static const aval *env_find(const env *en, const char *name, uint32_t h)
{
    return pe_env_find_n(en, name, strlen(name), h);
}

const aval *pe_env_get(const env *en, const char *name)
{
    return env_find(en, name, name_hash(name));
}

/* Put position pos (hash h) into the index; false when it has no empty slot left. */
static bool index_put(env *en, uint32_t h, size_t pos)
{
    size_t mask = en->nslot - 1, k = h & mask;
    for (size_t probes = 0; probes < en->nslot; probes++, k = (k + 1) & mask)
        if (!en->slot[k]) {
            en->slot[k] = (uint32_t)(pos + 1);
            return true;
        }
    return false;
}

/* A fresh index of every binding, room for twice as many (an old one, maybe shared, stays as is). */
static void index_build(kv_arena *a, env *en)
{
    size_t nslot = 4 * PE_ENV_LINEAR;
    while (nslot < 4 * en->n)
        nslot *= 2;
    en->slot = arena_zalloc(a, nslot * sizeof *en->slot);
    en->nslot = nslot;
    for (size_t i = 0; i < en->n; i++)
        index_put(en, en->v[i].hash, i);
}

static void env_bind(kv_arena *a, env *en, const char *name, uint32_t h, const aval *v)
{
    ptrdiff_t i = env_index(en, name, strlen(name), h);
    if (i >= 0) {
        en->v[i].v = v;
        return;
    }
    en->v = arena_grow(a, en->v, &en->cap, en->n + 1, sizeof *en->v);
    en->v[en->n++] = (binding){ name, h, v };
    if (en->slot && 2 * en->n <= en->nslot && index_put(en, h, en->n - 1))
        return;
    if (en->slot || en->n > PE_ENV_LINEAR)
        index_build(a, en);
}

void pe_env_set(kv_arena *a, env *en, const char *name, aval v)
{
    env_bind(a, en, name, name_hash(name), arena_memdup(a, &v, sizeof v));
}

env pe_env_copy(kv_arena *a, const env *en)
{
    env c = { NULL, en->n, en->n, NULL, 0 };
    if (en->n)
        c.v = arena_memdup(a, en->v, en->n * sizeof *en->v);
    if (en->slot)
        index_build(a, &c);  /* not a copy of the index: it may hold another environment's slots */
    return c;
}

aval pe_value_held(kv_arena *a, const aval *v, const pe_guard *g)
{
    if (v->tag != AV_VALUES || !v->n)
        return *v;
    aval t = *v;
    pv *vals = arena_memdup(a, v->vals, v->n * sizeof *vals);
    for (size_t j = 0; j < v->n; j++) {
        if (vals[j].v.held_kind == DREF_MODEL || vals[j].v.held_kind == DREF_KV)
            continue;   /* an inner branch's condition stays */
        pe_mark_held(&vals[j].v, g);
    }
    t.vals = vals;
    return t;
}

env pe_env_join(kv_arena *a, const env *x, const env *y)
{
    env r = pe_env_copy(a, x);
    for (size_t i = 0; i < y->n; i++) {
        const binding *b = &y->v[i];
        if (i < r.n && r.v[i].name == b->name) {  /* same binding before the branches split */
            if (r.v[i].v != b->v) {
                aval j = av_join(a, r.v[i].v, b->v);
                r.v[i].v = arena_memdup(a, &j, sizeof j);
            }
            continue;
        }
        const aval *old = env_find(&r, b->name, b->hash);
        if (!old) {
            env_bind(a, &r, b->name, b->hash, b->v);
        } else if (old != b->v) {
            aval j = av_join(a, old, b->v);
            env_bind(a, &r, b->name, b->hash, arena_memdup(a, &j, sizeof j));
        }
    }
    return r;
}

const char *pe_self_key(pe_ctx *e, TSNode attr_node)
{
    if (!e->fr || !e->fr->self_name)
        return NULL;
    TSNode obj = pe_fld(e, attr_node, F_object);
    if (!pe_is(obj, "identifier") || strcmp(pe_raw_text(e, obj), e->fr->self_name) != 0)
        return NULL;
    return arena_join(e->a, "self", '.', pe_raw_text(e, pe_fld(e, attr_node, F_attribute)));
}

/* The classes of k's chain in the order Python searches them for single inheritance (k, its
 * first base, that one's first base, ..., then the other bases depth first), at most PE_MAX_MRO. */
static size_t class_chain(const klass *k, const klass **out, size_t n, size_t cap)
{
    if (!k || n >= cap)
        return n;
    for (size_t i = 0; i < n; i++)
        if (out[i] == k)
            return n;
    out[n++] = k;
    for (size_t i = 0; i < k->nbases; i++)
        n = class_chain(k->bases[i], out, n, cap);
    return n;
}

size_t pe_class_chain(const klass *k, const klass **out)
{
    return class_chain(k, out, 0, PE_MAX_MRO);
}

const char *pe_class_import_base(const klass *k)
{
    const klass *chain[PE_MAX_MRO];
    size_t n = pe_class_chain(k, chain);
    for (size_t i = 0; i < n; i++)
        if (chain[i]->import_base)
            return chain[i]->import_base;
    return NULL;
}

const aval *pe_class_member(const klass *k, const char *name, pe_member which, bool skip_own)
{
    const klass *chain[PE_MAX_MRO];
    size_t n = pe_class_chain(k, chain);
    const aval *v = NULL;
    for (size_t i = skip_own ? 1 : 0; which != PE_MEMBER_CONSTS && !v && i < n; i++)
        v = pe_env_get(&chain[i]->attrs, name);
    for (size_t i = skip_own ? 1 : 0; which != PE_MEMBER_ATTRS && !v && i < n; i++)
        v = pe_env_get(&chain[i]->consts, name);
    return v;
}

aval pe_lookup_self(pe_ctx *e, const char *key, TSNode at)
{
    const aval *v = e->fr ? pe_env_get(&e->fr->locals, key) : NULL;
    if (v)
        return *v;
    const char *attr = key + 5;
    if (e->cls && (v = pe_class_member(e->cls, attr, PE_MEMBER_ANY, false)))
        return *v;
    return pe_default_for_name(e, attr, at);
}

/* The frame's record of what happened to a parameter bound from a call's argument (bind_params
 * makes the entries; only those are followed). */
static mutation *mutation_of(frame *f, const char *name, bool add)
{
    for (size_t i = 0; i < f->nmuts; i++)
        if (strcmp(f->muts[i].name, name) == 0)
            return &f->muts[i];
    if (!add || f->nmuts >= MAX_MUTATIONS)
        return NULL;
    mutation *m = &f->muts[f->nmuts++];
    memset(m, 0, sizeof *m);
    m->name = name;
    return m;
}

void pe_set_name(pe_ctx *e, const char *name, aval v)
{
    /* a parameter bound to a new object: later writes into it no longer reach the caller's */
    mutation *m = e->fr && e->cur == &e->fr->locals ? mutation_of(e->fr, name, false) : NULL;
    if (m)
        m->rebound = true;
    pe_env_set(e->s, e->cur, name, v);
}

/* Write into a local tensor in place (k[...] = x, k.masked_fill_(...)): if it is still the object a
 * parameter was bound to, the caller's argument sees the write (pycall.c applies it). */
static void set_in_place(pe_ctx *e, const char *name, aval v)
{
    mutation *m = e->fr && e->cur == &e->fr->locals ? mutation_of(e->fr, name, false) : NULL;
    if (m && !m->rebound) {
        m->v = v;
        m->written = true;
    }
    pe_env_set(e->s, e->cur, name, v);
}

/* The variable a tensor expression names (k, self.k), for in-place updates; NULL otherwise. */
const char *pe_var_key(pe_ctx *e, TSNode n)
{
    while (pe_is(n, "subscript"))
        n = pe_fld(e, n, F_value);
    if (pe_is(n, "identifier"))
        return pe_raw_text(e, n);
    if (pe_is(n, "attribute"))
        return pe_self_key(e, n);
    return NULL;
}

aval pe_lookup_key(pe_ctx *e, const char *key, TSNode at)
{
    if (strncmp(key, "self.", 5) == 0)
        return pe_lookup_self(e, key, at);
    const aval *v = pe_env_get(e->cur, key);
    if (!v && e->cur != &e->module)
        v = pe_env_get(&e->module, key);
    return v ? *v : pe_default_for_name(e, key, at);
}

void pe_update_key(pe_ctx *e, const char *key, aval v)
{
    if (!key)
        return;
    if (strncmp(key, "self.", 5) == 0 && e->fr) {
        pe_env_set(e->s, &e->fr->locals, key, v);
        if (e->fr->is_init && e->cls) {
            const aval *old = pe_env_get(&e->cls->attrs, key + 5);
            pe_env_set(e->s, &e->cls->attrs, key + 5, old ? av_join(e->s, old, &v) : v);
        }
        return;
    }
    set_in_place(e, key, v);
}

/* The constant NAME a scanned file exports, when MODULE (dotted, as written: `.consts`,
 * `pkg.consts`) names that file by its last part (pylink.c resolves it; the last binding in the file
 * wins). Any number is taken, sentinel or not: a gain of 1920 stored in fp8 matters as much as a
 * mask (KV012). */
bool pe_module_constant(pe_ctx *e, const char *module, const char *name, aval *out)
{
    const py_export *x = NULL;
    const char *xpath = NULL;
    if (!e->ctx)
        return false;
    size_t nm = 0;
    const py_module *m = py_link_modules_of(e->ctx->link, module, &nm);
    for (size_t k = 0; !x && k < nm; k++)
        for (size_t j = 0; m[k].exports && j < m[k].exports->n; j++)
            if (strcmp(m[k].exports->v[j].name, name) == 0) {
                x = &m[k].exports->v[j];
                xpath = m[k].path;
            }
    if (!x)
        return false;
    kv_value v;
    memset(&v, 0, sizeof v);
    v.kind = x->sentinel ? VK_SENTINEL : VK_FLOAT;
    v.lo = v.hi = x->value;
    v.sym_scale = 1;
    v.text = arena_strdup(e->a, x->text);
    v.origin = kv_loc_make(arena_strdup(e->a, xpath), x->line, x->col, 0, 0);
    *out = av_const(e->s, &v);
    return true;
}

/* Is target a table the code allocated itself in a dtype no KV cache has, though named like one
 * (`self.kv_cache_scores = torch.full(..., dtype=torch.float32)`, `mask_buffer`, int64
 * `kv_cache_positions`)? An engine's cache arrives in the model's or the cache dtype; int8 and
 * uint8 (int8 caches, fp8 caches allocated as bytes) and the low-precision floats stay caches. */
bool pe_own_table(pe_ctx *e, TSNode target)
{
    const char *key = pe_var_key(e, target);
    if (!key)
        return false;
    aval t = pe_lookup_key(e, key, target);
    if (t.tag != AV_VALUES)
        return false;
    if (t.intdtype)
        return t.dtype.text && !strstr(t.dtype.text, "int8");   /* int8, uint8: maybe a cache */
    return t.has_dtype && t.dtype.kind == DREF_CONCRETE && t.dtype.dtype != KVN_DTYPE_INVALID
           && !strcmp(kvn_dtype_name(t.dtype.dtype), "float32");
}

/* x written into part of target (k[..., 0] = x, k.masked_fill_(m, x)): join into the variable. */
void pe_write_into(pe_ctx *e, TSNode target, aval x, TSNode at, const char *what)
{
    const char *cache = pe_base_name(e, target);
    if (cache && py_is_cache_name(e->st, cache, strlen(cache)) && !pe_own_table(e, target)) {
        pe_store_direct(e, at, cache, ts_node_is_null(target) ? at : target, x);
        return;
    }
    const char *key = pe_var_key(e, target);
    if (!key)
        return;
    aval old = pe_lookup_key(e, key, target);
    if (old.tag == AV_DICT)
        pe_update_key(e, key, av_unknown());   /* d["k"] = v: the dict is no longer the literal */
    if (old.tag != AV_VALUES)
        return;
    if (old.has_dtype && !x.tensor)
        x = pe_constructions_for(e, CONS_SCALAR_FILL, what, at, x, &old.dtype);
    else if (old.has_dtype && !(x.has_dtype && x.dtype.kind == old.dtype.kind))
        x = pe_constructions_for(e, CONS_TENSOR_CAST, what, at, x, &old.dtype);
    x = pe_stepf(e, &x, at, "written into %s", pe_text_of(e, target));
    aval nv = av_join(e->s, &old, &x);
    nv.has_dtype = old.has_dtype;
    nv.dtype = old.dtype;
    nv.intdtype = old.intdtype;
    nv.binary = old.binary && x.binary;
    nv.tensor = old.tensor || x.tensor;
    pe_update_key(e, key, nv);
}

void pe_assign(pe_ctx *e, TSNode target, aval v, TSNode at)
{
    if (ts_node_is_null(target) || e->depth >= MAX_DEPTH)
        return;
    e->depth++;
    assign_inner(e, target, v, at);
    e->depth--;
}

static void assign_inner(pe_ctx *e, TSNode target, aval v, TSNode at)
{
    if (pe_is(target, "identifier")) {
        const char *name = pe_raw_text(e, target);
        v = pe_refine_id_class(e, name, v, target);
        pe_set_name(e, name, pe_stepf(e, &v, target, "assigned to %s", name));
        return;
    }
    if (pe_is(target, "attribute")) {
        const char *key = pe_self_key(e, target);
        if (key) {
            v = pe_refine_id_class(e, key + 5, v, target);
            pe_update_key(e, key, pe_stepf(e, &v, target, "assigned to %s", pe_text_of(e, target)));
        }
        return;
    }
    if (pe_is(target, "subscript")) {
        pe_write_into(e, target, v, at, "[]=");
        return;
    }
    if (pe_is(target, "pattern_list") || pe_is(target, "tuple_pattern") || pe_is(target, "list_pattern")
        || pe_is(target, "tuple") || pe_is(target, "list") || pe_is(target, "parenthesized_expression")) {
        uint32_t n = ts_node_named_child_count(target);
        if (pe_is(target, "parenthesized_expression")) {
            pe_assign(e, ts_node_named_child(target, 0), v, at);
            return;
        }
        for (uint32_t i = 0; i < n; i++) {
            TSNode t = ts_node_named_child(target, i);
            if (v.tag == AV_SEQ && v.nelems == n)
                pe_assign(e, t, v.elems[i], at);
            else
                pe_assign(e, t, v.tag == AV_VALUES && v.tensor ? v : av_unknown(), at);
        }
    }
}

void pe_bind_imports(pe_ctx *e, TSNode n)
{
    if (pe_is(n, "import_statement")) {
        uint32_t k;
        TSNode *ks = pe_kids(e, n, &k);
        for (uint32_t i = 0; i < k; i++) {
            TSNode c = ks[i];
            const char *full = NULL, *alias = NULL;
            if (pe_is(c, "aliased_import")) {
                full = pe_raw_text(e, pe_fld(e, c, F_name));
                alias = pe_raw_text(e, pe_fld(e, c, F_alias));
            } else if (pe_is(c, "dotted_name")) {
                full = pe_raw_text(e, c);
                alias = arena_strndup(e->a, full, strcspn(full, "."));
                full = alias;
            }
            if (!full)
                continue;
            aval m = av_unknown();
            m.tag = AV_MODULE;
            m.str = strncmp(full, "torch", 5) == 0 ? "torch" : strncmp(full, "numpy", 5) == 0 ? "numpy"
                    : strcmp(full, "math") == 0 ? "math" : NULL;
            if (!m.str) {
                m.tag = AV_IMPORT;
                m.str = full;
            }
            pe_set_name(e, alias, m);
        }
        return;
    }
    /* from M import a, b as c */
    TSNode mod = pe_fld(e, n, F_module_name);
    const char *mtext = ts_node_is_null(mod) ? "" : pe_raw_text(e, mod);
    uint32_t nk;
    TSNode *ks = pe_kids(e, n, &nk);
    for (uint32_t i = 0; i < nk; i++) {
        TSNode c = ks[i];
        if (ts_node_eq(c, mod))
            continue;
        const char *name = NULL, *alias = NULL;
        if (pe_is(c, "aliased_import")) {
            name = pe_raw_text(e, pe_fld(e, c, F_name));
            alias = pe_raw_text(e, pe_fld(e, c, F_alias));
        } else if (pe_is(c, "dotted_name")) {
            name = alias = pe_raw_text(e, c);
        }
        if (!name)
            continue;
        /* a constant exported by the scanned file that is this module? (pylink.c resolves it) */
        aval a;
        if (pe_module_constant(e, mtext, name, &a)) {
            pe_set_name(e, alias, pe_stepf(e, &a, c, "imported as %s", alias));
            continue;
        }
        aval m = av_unknown();
        m.tag = strncmp(mtext, "torch", 5) == 0 && strchr(name, '.') == NULL
                && (strcmp(name, "nn") == 0 || strcmp(name, "functional") == 0) ? AV_MODULE : AV_IMPORT;
        /* `from . import masks` names .masks, `from .pkg import masks` .pkg.masks */
        size_t ml = strlen(mtext);
        m.str = m.tag == AV_MODULE ? "torch"
                : arena_printf(e->a, "%s%s%s", mtext, ml && mtext[ml - 1] == '.' ? "" : ".", name);
        pe_set_name(e, alias, m);
    }
}

/* Bind a function's parameters in the current frame: from the call's arguments (a summary), else
 * the default value, else what the name says (an id class, a dtype, a mask). The first parameter
 * of a method (self/cls) is the frame's self. */
bool pe_first_param_is_self(pe_ctx *e, TSNode fn)
{
    TSNode ps = pe_fld(e, fn, F_parameters);
    if (ts_node_is_null(ps) || ts_node_named_child_count(ps) == 0)
        return false;
    TSNode p = ts_node_named_child(ps, 0);
    if (pe_is(p, "typed_parameter"))
        p = ts_node_named_child(p, 0);
    return pe_is(p, "identifier") && strcmp(pe_raw_text(e, p), "self") == 0;
}

void pe_bind_params(pe_ctx *e, TSNode fn, const args *g)
{
    TSNode ps = pe_fld(e, fn, F_parameters);
    uint32_t k;
    TSNode *ks = pe_kids(e, ps, &k);
    size_t pos = 0;
    bool first = true;
    for (uint32_t i = 0; i < k; i++) {
        TSNode p = ks[i];
        TSNode name = p, dflt = { 0 };
        bool has_default = false;
        if (pe_is(p, "default_parameter") || pe_is(p, "typed_default_parameter")) {
            name = pe_fld(e, p, F_name);
            dflt = pe_fld(e, p, F_value);
            has_default = true;
        } else if (pe_is(p, "typed_parameter")) {
            name = ts_node_named_child(p, 0);
        } else if (!pe_is(p, "identifier")) {
            first = false;
            continue;  /* *args, **kw, / and * markers */
        }
        if (ts_node_is_null(name) || !pe_is(name, "identifier"))
            continue;
        const char *nm = pe_raw_text(e, name);
        if (first && e->cls && (strcmp(nm, "self") == 0 || strcmp(nm, "cls") == 0)) {
            e->fr->self_name = nm;
            first = false;
            continue;
        }
        first = false;
        aval v;
        bool have = false;
        if (g) {
            TSNode argn = { 0 };
            const aval *a = pe_kwarg(g, nm, &argn);
            if (!a && pos < g->npos && !g->star) {
                a = &g->posv[pos];
                argn = g->pos[pos];
            }
            pos++;
            mutation *m = a && g->written ? mutation_of(e->fr, nm, true) : NULL;
            if (m) {
                m->arg = argn;
                m->has_arg = true;
            }
            if (a) {
                v = pe_stepf(e, a, name, "passed as %s", nm);
                if (v.tag == AV_VALUES && v.n) {
                    pv *vals = arena_memdup(e->s, v.vals, v.n * sizeof *vals);
                    for (size_t j = 0; j < v.n; j++)
                        vals[j].arg = true;
                    v.vals = vals;
                }
                have = true;
            }
        }
        /* A function analysed on its own (no call) may be called with any flag: a bool default
         * is no value of the parameter there, or `if is_logits:` would lose a branch. */
        bool flag_default = has_default && (pe_kind(e, dflt) == NK_true || pe_kind(e, dflt) == NK_false);
        if (!have && has_default && (g || !flag_default)) {
            env *saved = e->cur;
            e->cur = &e->module;
            v = pe_eval(e, dflt);
            e->cur = saved;
            have = !av_is_unknown(&v);
        }
        if (!have) {
            const char *idc = py_name_id_class(e->st, nm, strlen(nm));
            v = idc ? pe_id_class_value(e, idc, name) : pe_default_for_name(e, nm, name);
            /* q: torch.Tensor, mask: Optional[Tensor]: a tensor ("Tensor" is a tensor word) */
            if (v.tag == AV_VALUES && (pe_is(p, "typed_parameter") || pe_is(p, "typed_default_parameter"))
                && strstr(pe_raw_text(e, p), "Tensor"))
                v.tensor = true;
        }
        pe_env_set(e->s, &e->fr->locals, nm, v);
    }
}
