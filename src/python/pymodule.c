/*
 * pymodule.c: calls of functions imported from other scanned files.
 *
 * `from .masks import make_mask`, `from pkg.masks import make_mask`, `import pkg.masks as M`
 * followed by `make_mask(m, k.dtype)` / `M.make_mask(...)`: the import gives the call a dotted
 * origin (pyscope.c); the link tables (pylink.c) say which scanned file that module is, and its
 * index (pylex.c) whether it defines the function at top level. The first such call parses that
 * file and evaluates its top level once (constants, imports, functions, classes), quietly, in an
 * evaluator of its own that shares the caller's arenas; each call is then the summary of the
 * function in that evaluator, with the caller's arguments bound to its parameters: the same
 * machinery as a function of the caller's own file, so the result has the caller's dtypes, and
 * its steps point into the other file.
 *
 * What a loaded module computes is not a fact of the analysed file: facts made inside it go to a
 * record that is dropped, and the values coming back lose their link to constructions made
 * there (a construction inside the helper is the helper file's own finding). The exception is
 * what a call makes of the caller's own values (a summary emits nothing else): a store or a
 * construction of a value passed in is the caller's fact, placed in the module (carry_facts), as
 * for a helper of the caller's own file. Its evaluation
 * allocates in the caller's scratch arena only; the values that come back are copied into the
 * facts arena (so a module's work costs no memory after the file is done).
 *
 * Classes: `CacheWriter(-1e9)` of an imported class builds the object in the module's evaluator
 * (its initialisers run there with the caller's arguments) and gives the caller an object whose
 * .mod is that evaluator; `w.write(k, ...)` then runs the method there like an imported function,
 * `Klass.method(...)` too. An object whose constructor got nothing that could become a fact, of a
 * class whose class level and initialisers spell no sentinel (pyindex.c's own_sentinel), is lazy:
 * its module is loaded when a method call passes a value, or calls a method that spells a
 * sentinel itself (`masker.pad(k)` returning `k.masked_fill(m, -1e9)`: the caller stores it).
 *
 * Kernels (`@triton.jit` and other compiled functions, marked by the index) are not followed: their
 * bodies compute registers, not tensors.
 *
 * Bounds, so that one file cannot make the run quadratic: a module is loaded only for a function
 * whose text spells a sentinel (or reaches one through its imports), or when the call passes a
 * sentinel or an id (an unknown tensor or a plain number through a helper cannot become a fact
 * either way); at most MAX_MODULES modules and MAX_MODULE_BYTES of
 * source per analysed file, modules nest MAX_MODULE_DEPTH deep (a helper calling a helper of a
 * third file), and each module has its own evaluation budget. Everything depends only on the
 * files' bytes and the index, never on the schedule: the same output for any -j.
 */
#include <stdlib.h>
#include <string.h>

#include "python/grammar.h"
#include "util/fsutil.h"
#include "python/pyeval.h"
#include "python/pymodcache.h"

enum {
    MAX_MODULES = 8,                 /* modules loaded per analysed file */
    MAX_MODULE_DEPTH = 2,            /* A calls B's helper, which calls C's */
    MAX_MODULE_BYTES = 1 << 20,      /* source parsed for modules per analysed file */
    MODULE_BUDGET = 20000            /* evaluations per module, plus 4 per byte parsed */
};

typedef struct loaded {
    const fe_file_index *ix;
    const py_func_export *fn;   /* the function it was loaded for */
    char *data;                 /* the file's bytes, read again (the scanner frees its copy) */
    size_t len;
    bool owns_data;             /* data is this file's (else the run's cache holds it) */
    TSTree *tree;               /* this file's copy */
    size_t bytes;               /* source bytes of the parsed ranges */
    pe_ctx *eval;               /* NULL if it could not be loaded */
} loaded;

struct pe_modules {
    TSParser *parser;
    size_t bytes;
    size_t n;
    loaded v[MAX_MODULES];
};

static struct pe_modules *modules(pe_ctx *e)
{
    if (!e->mods)
        e->mods = arena_zalloc(e->s, sizeof *e->mods);
    return e->mods;
}

/* The parts of the module a call of f needs: its prologue, f, and the functions of the file f
 * calls (transitively, at most MAX_FUNCS), as sorted, disjoint tree-sitter ranges. */
static TSRange *needed_ranges(pe_ctx *e, const py_exports *ex, const py_func_export *f, const char *data,
                              size_t len, uint32_t *count, size_t *bytes)
{
    enum { MAX_FUNCS = 8 };
    const py_func_export *fns[MAX_FUNCS] = { f };
    size_t nf = 1;
    for (size_t i = 0; i < nf; i++)
        for (size_t c = 0; c < fns[i]->ncalls && nf < MAX_FUNCS; c++) {
            const py_func_export *g = py_exported_function(ex, fns[i]->calls[c]);
            bool seen = !g;
            for (size_t j = 0; !seen && j < nf; j++)
                seen = fns[j] == g;
            if (!seen)
                fns[nf++] = g;
        }
    size_t n = ex->nprologue + nf, k = 0;
    py_range *r = arena_alloc(e->s, n * sizeof *r);
    for (size_t i = 0; i < ex->nprologue; i++)
        r[k++] = ex->prologue[i];
    for (size_t i = 0; i < nf; i++)
        r[k++] = (py_range){ fns[i]->start, fns[i]->end };
    TSRange *out = py_ts_ranges(data, len, r, k, e->s, count);
    *bytes = 0;
    for (uint32_t i = 0; i < *count; i++)
        *bytes += out[i].end_byte - out[i].start_byte;
    return out;
}

/* Read the module's file and parse the parts f needs, into part (tree NULL if it cannot be). */
static void parse_part(pe_ctx *e, const fe_file_index *ix, const py_func_export *f, py_modpart *part)
{
    struct pe_modules *ms = modules(e);
    size_t cap = e->ctx->project && e->ctx->project->max_file_size ? e->ctx->project->max_file_size : 8 << 20;
    const char *err = NULL;
    *part = (py_modpart){ 0 };
    if (fs_read_file(ix->path, cap, &part->data, &part->len, &err) != FS_OK || part->len > UINT32_MAX) {
        free(part->data);
        *part = (py_modpart){ 0 };
        return;
    }
    uint32_t nranges;
    TSRange *ranges = needed_ranges(e, ix->exports, f, part->data, part->len, &nranges, &part->bytes);
    if (nranges == 0)
        return;
    if (!ms->parser) {
        ms->parser = ts_parser_new();
        if (!ms->parser)
            return;
        if (!ts_parser_set_language(ms->parser, tree_sitter_python())) {
            ts_parser_delete(ms->parser);
            ms->parser = NULL;
            return;
        }
    }
    if (ts_parser_set_included_ranges(ms->parser, ranges, nranges))
        part->tree = ts_parser_parse_string(ms->parser, NULL, part->data, (uint32_t)part->len);
}

/* The parts f needs of the module, from the run's cache (pymodcache.c) or parsed here; slot owns
 * the tree, and the bytes unless the cache holds them. */
static bool part_of(pe_ctx *e, loaded *slot)
{
    py_modcache *cache = e->st ? e->st->modcache : NULL;
    py_modpart got;
    py_modkey key = { slot->ix->path, slot->fn->name, slot->fn->start, slot->fn->end };
    if (!py_modcache_get(cache, &key, &got)) {
        py_modpart mine;
        parse_part(e, slot->ix, slot->fn, &mine);
        if (!py_modcache_put(cache, &key, &mine, &got)) {
            got = mine;            /* the cache is full: this file owns its copy */
            slot->owns_data = true;
        }
    }
    slot->data = got.data;
    slot->len = got.len;
    slot->tree = got.tree;
    slot->bytes = got.bytes;
    return slot->tree != NULL;
}

/* Parse (or take from the cache) the parts f needs and evaluate the module's top level in a new
 * evaluator sharing e's arenas. NULL if over a bound or unreadable. */
static pe_ctx *load(pe_ctx *e, loaded *slot)
{
    struct pe_modules *ms = modules(e);
    if (!part_of(e, slot) || ms->bytes + slot->bytes > MAX_MODULE_BYTES)
        return NULL;
    size_t bytes = slot->bytes, len = slot->len;
    ms->bytes += bytes;
    file_facts *dropped = arena_zalloc(e->s, sizeof *dropped);
    dropped->path = arena_strdup(e->s, slot->ix->path);
    dropped->arena = e->s;
    diag_init(&dropped->diags, e->s);
    pe_ctx *m = arena_zalloc(e->s, sizeof *m);
    m->path = dropped->path;
    m->src = slot->data;
    m->len = len;
    m->a = e->s;  /* what comes back is copied into e->a (export_value) */
    m->s = e->s;
    m->out = dropped;
    m->ctx = e->ctx;
    m->st = e->st;
    m->cur = &m->module;
    m->quiet = 1;
    m->mods = ms;
    m->module_depth = e->module_depth + 1;
    m->budget = MODULE_BUDGET + 4 * bytes;
    memcpy(m->fields, e->fields, sizeof m->fields);
    m->kinds = e->kinds;   /* the same grammar: the caller's symbol table */
    m->nkinds = e->nkinds;
    pe_exec_block(m, ts_tree_root_node(slot->tree));
    return m;
}

/* The evaluator of the module file ix loaded for its function f, loading it on first use. */
static pe_ctx *module_ev(pe_ctx *e, const fe_file_index *ix, const py_func_export *f)
{
    struct pe_modules *ms = modules(e);
    for (size_t i = 0; i < ms->n; i++)
        if (ms->v[i].ix == ix && ms->v[i].fn == f)
            return ms->v[i].eval;
    if (ms->n >= MAX_MODULES)
        return NULL;
    loaded *slot = &ms->v[ms->n++];
    memset(slot, 0, sizeof *slot);
    slot->ix = ix;
    slot->fn = f;
    slot->eval = load(e, slot);
    return slot->eval;
}

/* Does the call pass anything a helper without sentinel or int-cast words could carry to a
 * store: a sentinel, or (ids) an id whose range is symbolic or unknown? (Plain numbers, like the
 * 16 of cdiv(n, 16), cannot become a fact.) A class's methods are followed for sentinels only:
 * ids passed to a layer (positions into a rotary embedding, token ids into an embedding) are that
 * file's own int-casts, and following every model's layers for them made the vLLM tree take 25%
 * longer. */
static bool value_matters(const aval *x, bool ids)
{
    if (x->tag == AV_SEQ || x->tag == AV_DICT) {
        for (size_t i = 0; i < x->nelems; i++)
            if (value_matters(&x->elems[i], ids))
                return true;
        return false;
    }
    for (size_t i = 0; x->tag == AV_VALUES && i < x->n; i++) {
        const kv_value *v = &x->vals[i].v;
        if (v->kind == VK_SENTINEL || (ids && v->kind == VK_INTEGER && (v->hi_sym || v->hi_unknown)))
            return true;
    }
    return false;
}

static bool args_carry_values(const args *g, bool ids)
{
    for (size_t i = 0; i < g->npos; i++)
        if (value_matters(&g->posv[i], ids))
            return true;
    for (size_t i = 0; i < g->nkw; i++)
        if (value_matters(&g->kwv[i], ids))
            return true;
    return false;
}

/* A string of a loaded module's evaluation, copied into the facts arena (NULL stays NULL). */
static const char *keep_str(pe_ctx *e, const char *x)
{
    return x ? arena_strdup(e->a, x) : NULL;
}

static dtype_ref keep_dtype(pe_ctx *e, dtype_ref d)
{
    d.text = keep_str(e, d.text);
    d.loc.path = keep_str(e, d.loc.path);
    return d;
}

/* A value coming back from the loaded module m. Its evaluation allocates in the caller's scratch
 * arena, so what a fact may point to (texts, steps, paths) is copied into the facts arena; it
 * keeps no construction index (that numbers the module's dropped facts, not the caller's); a
 * class becomes unknown (it would name another file's node); a function value (a closure that
 * `make_fill(v)` returns, a partial, a function) and an object of one of m's classes keep m as
 * the evaluator they run in (.mod: pe_call_module_value, pe_call_module_method). */
static aval export_value(pe_ctx *e, pe_ctx *m, aval x)
{
    if (x.tag == AV_CLASS)
        return av_unknown();
    if (x.tag == AV_FUNC && x.node_id == PE_LAZY_PRODUCT) {   /* a factory's product: its origin */
        x.str = keep_str(e, x.str);
        return x;
    }
    if (x.tag == AV_FUNC || x.tag == AV_PARTIAL) {
        if (!x.mod)
            x.mod = m;
        if (x.mod == e && x.tag == AV_FUNC)
            x.mod = NULL;   /* one of the caller's own (a partial's .mod is always its maker) */
        return x;
    }
    if (x.tag == AV_INSTANCE) {
        if (!x.mod && x.node_id != PE_LAZY_CLASS)
            x.mod = m;
        if (x.mod == e)
            x.mod = NULL;
        x.str = keep_str(e, x.str);
        return x;
    }
    x.dtype = keep_dtype(e, x.dtype);
    x.str = keep_str(e, x.str);
    if ((x.tag == AV_SEQ || x.tag == AV_DICT) && x.nelems) {
        aval *el = arena_alloc(e->s, x.nelems * sizeof *el);
        for (size_t i = 0; i < x.nelems; i++)
            el[i] = export_value(e, m, x.elems[i]);
        x.elems = el;
    }
    if (x.tag == AV_DICT && x.nelems && x.keys) {
        const char **keys = arena_alloc(e->s, x.nelems * sizeof *keys);
        for (size_t i = 0; i < x.nelems; i++)
            keys[i] = keep_str(e, x.keys[i]);
        x.keys = keys;
    }
    if (x.tag != AV_VALUES || x.n == 0)
        return x;
    pv *vals = arena_memdup(e->s, x.vals, x.n * sizeof *vals);
    for (size_t i = 0; i < x.n; i++) {
        kv_value *v = &vals[i].v;
        vals[i].cons = 0;
        v->text = keep_str(e, v->text);
        v->hi_sym = keep_str(e, v->hi_sym);
        v->id_class = keep_str(e, v->id_class);
        v->sym_dtype = keep_dtype(e, v->sym_dtype);
        v->origin.path = keep_str(e, v->origin.path);
        if (v->nsteps) {
            kv_step *st = arena_alloc(e->a, v->nsteps * sizeof *st);
            for (size_t j = 0; j < v->nsteps; j++) {
                st[j] = v->steps[j];
                st[j].loc.path = keep_str(e, st[j].loc.path);
                st[j].what = keep_str(e, st[j].what);
            }
            v->steps = st;
        }
    }
    x.vals = vals;
    return x;
}

aval pe_module_value(pe_ctx *e, pe_ctx *m, aval x)
{
    return export_value(e, m, x);
}

/* An argument going into the loaded module m: the caller's functions, classes and objects mean
 * nothing there; an object of one of m's own classes is m's again. */
static aval import_value(pe_ctx *m, aval x)
{
    if (x.tag == AV_INSTANCE && x.mod == m) {
        x.mod = NULL;
        return x;
    }
    if ((x.tag == AV_FUNC || x.tag == AV_PARTIAL) && x.mod == m) {   /* m's own function value, back */
        if (x.tag == AV_FUNC)
            x.mod = NULL;
        return x;
    }
    if (x.tag == AV_FUNC || x.tag == AV_CLASS || x.tag == AV_INSTANCE || x.tag == AV_PARTIAL)
        return av_unknown();
    if ((x.tag == AV_SEQ || x.tag == AV_DICT) && x.nelems) {   /* a caller's function in a tuple too */
        aval *el = arena_alloc(m->s, x.nelems * sizeof *el);
        for (size_t i = 0; i < x.nelems; i++)
            el[i] = import_value(m, x.elems[i]);
        x.elems = el;
    }
    return x;
}

/* The facts a call of a loaded module's function made about the caller's own values (a summary
 * keeps only those: pystore.c), from the given counts on: the caller's facts, at the place in the
 * module where they happen. `write_kv(k.masked_fill(pad, -1e9), ...)` whose body calls
 * reshape_and_cache_flash stores the caller's -1e9, and `make_full(shape, -1e9, torch.float16)`
 * builds it, which the module's own analysis (its parameters unknown) cannot see. A fact the
 * caller already has (a second call with the same value) is not added again. Int-casts stay
 * behind: the module's own analysis already casts a parameter named as ids (`positions`), and a
 * caller's ids through it would be the same cast reported twice, from two files. */
static bool same_store(const store_fact *a, const store_fact *b)
{
    return kv_loc_same(&a->loc, &b->loc) && a->operand == b->operand && a->nvalues == b->nvalues
           && (a->nvalues == 0 || (kv_loc_same(&a->values[0].origin, &b->values[0].origin)
                                   && a->values[0].lo == b->values[0].lo));
}

static void carry_facts(pe_ctx *e, const file_facts *from, size_t stores, size_t cons)
{
    file_facts *to = e->out;
    for (size_t i = stores; i < from->stores.n; i++) {
        bool dup = false;
        for (size_t j = 0; j < to->stores.n && !dup; j++)
            dup = same_store(&to->stores.v[j], &from->stores.v[i]);
        if (!dup)
            ARENA_PUSH(to->arena, to->stores, store_fact_copy(to, &from->stores.v[i]));
    }
    for (size_t i = cons; i < from->constructions.n; i++) {
        const construction_fact *c = &from->constructions.v[i];
        bool dup = false;
        for (size_t j = 0; j < to->constructions.n && !dup; j++) {
            const construction_fact *o = &to->constructions.v[j];
            dup = kv_loc_same(&o->loc, &c->loc) && kv_loc_same(&o->value.origin, &c->value.origin)
                  && o->value.lo == c->value.lo && o->dtype.kind == c->dtype.kind;
        }
        if (!dup)
            ARENA_PUSH(to->arena, to->constructions, construction_fact_copy(to, c));
    }
}

/* What a call runs in the loaded module: a function's summary, an object of a class built, a
 * method of a class or object, or a function value it returned. */
typedef enum run_kind { RUN_FUNCTION, RUN_NEW, RUN_METHOD, RUN_VALUE } run_kind;

/* Run one call in m with the caller's arguments: its result made the caller's (export_value), the
 * facts it made of the caller's values carried (carry_facts), and what it wrote into the caller's
 * arguments exported. False if the callee has no such method. */
static bool run_in(pe_ctx *e, pe_ctx *m, run_kind kind, const aval *callee, const char *method, const args *g,
                   aval *out)
{
    args local = *g;
    for (size_t i = 0; i < local.npos; i++)
        local.posv[i] = import_value(m, local.posv[i]);
    for (size_t i = 0; i < local.nkw; i++)
        local.kwv[i] = import_value(m, local.kwv[i]);
    aval self = *callee;   /* m's own function, class or object */
    if ((self.tag == AV_INSTANCE || self.tag == AV_FUNC) && self.mod == m)
        self.mod = NULL;
    size_t written_before = g->written ? g->written->n : 0;
    size_t stores = m->out->stores.n, cons = m->out->constructions.n;
    /* the callee runs as deep in expressions and summaries as the caller is */
    m->depth = e->depth;
    m->call_depth = e->call_depth;
    aval r = av_unknown();
    bool ok = true;
    if (kind == RUN_FUNCTION)
        r = pe_call_summary(m, self.node_id, &local);
    else if (kind == RUN_NEW)
        r = pe_instance_of(m, &self, &local);
    else if (kind == RUN_VALUE)
        r = pe_call_value(m, &self, &local);
    else
        ok = pe_call_method_of(m, &self, method, &local, &r);
    if (!ok)
        return false;
    *out = export_value(e, m, r);
    carry_facts(e, m->out, stores, cons);
    for (size_t i = written_before; g->written && i < g->written->n; i++)
        g->written->v[i] = export_value(e, m, g->written->v[i]);
    return true;
}

/* The scanned file and top-level definition a dotted origin names, its module's name ending at
 * end (`.masks.make_mask`: `.masks`, make_mask), or NULL. */
static const py_func_export *resolve(pe_ctx *e, const char *origin, const char *end, const fe_file_index **ix)
{
    if (end <= origin)
        return NULL;
    *ix = py_link_module(e->ctx->link, e->path, origin, (size_t)(end - origin));
    if (!*ix)
        return NULL;
    const char *name = end + 1, *dot = strchr(name, '.');
    char *own = dot ? arena_strndup(e->s, name, (size_t)(dot - name)) : NULL;
    return py_exported_function((*ix)->exports, own ? own : name);
}

/* The loaded module's value of the definition f (a function or a class), or NULL. A function
 * value of a third module the name was rebound to (`mask_fill = make_fill(-1e9)` after its def)
 * keeps that module in .mod: run it there (pe_call_module_value), never with m's node table. */
static const aval *definition(pe_ctx *e, const fe_file_index *ix, const py_func_export *f, pe_ctx **m)
{
    *m = module_ev(e, ix, f);
    const aval *v = *m ? pe_env_get(&(*m)->module, f->name) : NULL;
    if (!v || v->tag != (f->is_class ? AV_CLASS : AV_FUNC) || (f->is_class && v->mod))
        return NULL;
    return v;
}

bool pe_call_module_value(pe_ctx *e, const aval *fv, const args *g, aval *out)
{
    pe_ctx *m = fv->mod;
    if (!m || m == e || e->module_depth >= MAX_MODULE_DEPTH)
        return false;
    return run_in(e, m, RUN_VALUE, fv, NULL, g, out);
}

/* An object of an imported class that was not built (nothing passed in could become a fact, and
 * the class spells no sentinel): its module is loaded when one of its methods gets a value. */
aval pe_lazy_instance(pe_ctx *e, const char *origin)
{
    aval x = av_unknown();
    x.tag = AV_INSTANCE;
    x.other = false;
    x.node_id = PE_LAZY_CLASS;
    x.str = arena_strdup(e->s, origin);
    return x;
}

/* The last '.' of a dotted origin, if e may follow it into a scanned file (a link table, not too
 * deep), else NULL. */
static const char *followable(const pe_ctx *e, const char *origin)
{
    const char *dot = origin ? strrchr(origin, '.') : NULL;
    if (!dot || dot == origin || !e->ctx || !e->ctx->link || e->module_depth >= MAX_MODULE_DEPTH)
        return NULL;
    return dot;
}

bool pe_call_imported(pe_ctx *e, const char *origin, TSNode call, const args *g, aval *out)
{
    (void)call;
    const char *dot = followable(e, origin);
    if (!dot)
        return false;
    const fe_file_index *ix = NULL;
    const py_func_export *f = resolve(e, origin, dot, &ix);
    const char *method = NULL;
    if (!f) {  /* .mod.Klass.method: a method through its class */
        const char *cdot = dot - 1;
        while (cdot > origin && *cdot != '.')
            cdot--;
        f = cdot > origin ? resolve(e, origin, cdot, &ix) : NULL;
        if (!f || !f->is_class)
            return false;
        method = dot + 1;
    }
    if (f->kernel)
        return false;
    bool worth = py_link_function_sentinel(e->ctx->link, ix, f) || args_carry_values(g, !f->is_class)
                 || (f->is_class && py_link_class_follows(e->ctx->link, ix, f, method));
    if (f->is_class && !method && !worth) {
        *out = pe_lazy_instance(e, origin);
        return true;
    }
    if (!f->is_class && !method && !worth && f->makes_function && f->store) {
        *out = pe_lazy_product(e, origin);   /* run when what it returns is passed a value */
        return true;
    }
    pe_ctx *m;
    const aval *fv = worth ? definition(e, ix, f, &m) : NULL;
    if (!fv)
        return false;
    if (fv->mod)
        return !method && pe_call_module_value(e, fv, g, out);
    return run_in(e, m, method ? RUN_METHOD : f->is_class ? RUN_NEW : RUN_FUNCTION, fv, method, g, out);
}

/* What a lazy value stands for, made now in its module (*m): the imported function f run, or the
 * class f built, without the arguments of its call (they carried nothing that could become a
 * fact). */
static bool run_without_arguments(pe_ctx *e, const fe_file_index *ix, const py_func_export *f, run_kind kind,
                                  pe_ctx **m, aval *out)
{
    const aval *def = definition(e, ix, f, m);
    args none;
    memset(&none, 0, sizeof none);
    return def && run_in(e, *m, kind, def, NULL, &none, out);
}

aval pe_lazy_product(pe_ctx *e, const char *origin)
{
    aval x = av_unknown();
    x.tag = AV_FUNC;
    x.node_id = PE_LAZY_PRODUCT;
    x.str = arena_strdup(e->s, origin);
    return x;
}

bool pe_call_lazy_product(pe_ctx *e, const aval *fv, const args *g, aval *out)
{
    const char *dot = followable(e, fv->str);
    const fe_file_index *ix = NULL;
    const py_func_export *f;
    if (!dot || !args_carry_values(g, true) || !(f = resolve(e, fv->str, dot, &ix)) || f->is_class)
        return false;
    pe_ctx *m;
    aval product;   /* the factory's own arguments carried nothing that could become a fact */
    if (!run_without_arguments(e, ix, f, RUN_FUNCTION, &m, &product))
        return false;
    if ((product.tag != AV_FUNC && product.tag != AV_PARTIAL) || !product.mod || product.mod == e)
        return false;
    return pe_call_module_value(e, &product, g, out);
}

bool pe_call_module_method(pe_ctx *e, const aval *recv, const char *method, const args *g, aval *out)
{
    if (recv->mod)
        return run_in(e, recv->mod, RUN_METHOD, recv, method, g, out);
    /* a lazy object: built now, without the arguments of its constructor (they carried nothing) */
    const char *dot = followable(e, recv->str);
    const fe_file_index *ix = NULL;
    const py_func_export *f;
    if (!dot || !(f = resolve(e, recv->str, dot, &ix)) || !f->is_class
        || !(py_link_class_follows(e->ctx->link, ix, f, method) || args_carry_values(g, false)))
        return false;
    pe_ctx *m;
    aval obj;
    if (!run_without_arguments(e, ix, f, RUN_NEW, &m, &obj) || obj.mod != m)
        return false;
    return run_in(e, m, RUN_METHOD, &obj, method, g, out);
}

void pe_modules_free(pe_ctx *e)
{
    struct pe_modules *ms = e->mods;
    if (!ms)
        return;
    for (size_t i = 0; i < ms->n; i++) {
        if (ms->v[i].tree)
            ts_tree_delete(ms->v[i].tree);
        if (ms->v[i].owns_data)
            free(ms->v[i].data);
    }
    if (ms->parser)
        ts_parser_delete(ms->parser);
    e->mods = NULL;
}
