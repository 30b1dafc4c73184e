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
 * store: a sentinel, or an id whose range is symbolic or unknown? (Plain numbers, like the 16 of
 * cdiv(n, 16), cannot become a fact.) */
static bool value_matters(const aval *x)
{
    if (x->tag == AV_SEQ) {
        for (size_t i = 0; i < x->nelems; i++)
            if (value_matters(&x->elems[i]))
                return true;
        return false;
    }
    for (size_t i = 0; x->tag == AV_VALUES && i < x->n; i++) {
        const kv_value *v = &x->vals[i].v;
        if (v->kind == VK_SENTINEL || (v->kind == VK_INTEGER && (v->hi_sym || v->hi_unknown)))
            return true;
    }
    return false;
}

static bool args_carry_values(const args *g)
{
    for (size_t i = 0; i < g->npos; i++)
        if (value_matters(&g->posv[i]))
            return true;
    for (size_t i = 0; i < g->nkw; i++)
        if (value_matters(&g->kwv[i]))
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

/* A value coming back from a loaded module. Its evaluation allocates in the caller's scratch
 * arena, so what a fact may point to (texts, steps, paths) is copied into the facts arena; it
 * keeps no construction index (that numbers the module's dropped facts, not the caller's); and
 * functions, classes and instances, numbered per evaluator, become unknown (a callback passed in
 * or a class returned would name another file's node). */
static aval export_value(pe_ctx *e, aval x)
{
    if (x.tag == AV_FUNC || x.tag == AV_CLASS || x.tag == AV_INSTANCE)
        return av_unknown();
    x.dtype = keep_dtype(e, x.dtype);
    x.str = keep_str(e, x.str);
    if (x.tag == AV_SEQ && x.nelems) {
        aval *el = arena_alloc(e->s, x.nelems * sizeof *el);
        for (size_t i = 0; i < x.nelems; i++)
            el[i] = export_value(e, x.elems[i]);
        x.elems = el;
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

/* An argument going into a loaded module: its own functions and classes mean nothing there. */
static aval import_value(aval x)
{
    if (x.tag == AV_FUNC || x.tag == AV_CLASS || x.tag == AV_INSTANCE)
        return av_unknown();
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

bool pe_call_imported(pe_ctx *e, const char *origin, TSNode call, const args *g, aval *out)
{
    (void)call;
    const char *dot = origin ? strrchr(origin, '.') : NULL;
    if (!dot || dot == origin || !e->ctx || !e->ctx->link || e->module_depth >= MAX_MODULE_DEPTH)
        return false;
    const char *fname = dot + 1;
    const fe_file_index *ix = py_link_module(e->ctx->link, e->path, origin, (size_t)(dot - origin));
    const py_func_export *f = ix ? py_exported_function(ix->exports, fname) : NULL;
    if (!f || f->kernel || (!py_link_function_sentinel(e->ctx->link, ix, f) && !args_carry_values(g)))
        return false;
    pe_ctx *m = module_ev(e, ix, f);
    const aval *fv = m ? pe_env_get(&m->module, fname) : NULL;
    if (!fv || fv->tag != AV_FUNC)
        return false;
    args local = *g;
    for (size_t i = 0; i < local.npos; i++)
        local.posv[i] = import_value(local.posv[i]);
    for (size_t i = 0; i < local.nkw; i++)
        local.kwv[i] = import_value(local.kwv[i]);
    size_t written_before = g->written ? g->written->n : 0;
    size_t stores = m->out->stores.n, cons = m->out->constructions.n;
    /* the callee runs as deep in expressions and summaries as the caller is */
    m->depth = e->depth;
    m->call_depth = e->call_depth;
    *out = export_value(e, pe_call_summary(m, fv->node_id, &local));
    carry_facts(e, m->out, stores, cons);
    for (size_t i = written_before; g->written && i < g->written->n; i++)
        g->written->v[i] = export_value(e, g->written->v[i]);
    return true;
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
