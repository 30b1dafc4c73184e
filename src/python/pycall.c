/*
 * pycall.c: calls. A call's arguments are evaluated once into an args record; the callee is
 * then dispatched to a sink, a sink class, the torch model, a dtype declaration, or a summary of a
 * function or method of this file (parameters bound to the arguments, the joined return value
 * back, cached when the arguments carry nothing, guarded against recursion).
 * Methods are followed on any object of a class of this file, not only self: `MaskBuilder(cfg)`
 * makes an instance, `self.helper.build(x)` / `MaskBuilder.build(obj, x)` / `MaskBuilder.pad(k, d)`
 * (static or class methods) / calling the instance (its forward) are summaries of that class's
 * methods, whose `self.x` are the class's attributes as its __init__ sets them, or, for an object
 * built with arguments that carry values (PadMasker(-1e9)), the attributes its initialisers set
 * from those. Functions and classes imported from other scanned files are followed through
 * pymodule.c (an object of an imported class carries the module's evaluator in .mod, and its
 * methods run there). A method a class inherits from a base of this file is found on self, on
 * its objects and through super(), and runs with self an object of the subclass; a
 * functools.partial is a value whose call is the dispatch of its callee with the bound
 * arguments first.
 */
#include <string.h>

#include "python/pyeval.h"

static aval call_summary_uncached(pe_ctx *e, size_t id, const args *g, klass *own, const env *closure);

/* An empty argument list. Only the counts and the first ARGS_ZEROED positions are cleared (a
 * reader may look at posv[0] of a call without arguments and find it unknown); the rest of the
 * 8 KB block is written before it is counted, and clearing it all was 6.6% of the largest vLLM
 * file's instructions. */
enum { ARGS_ZEROED = 4 };

static void clear_args(args *g)
{
    g->npos = g->nkw = 0;
    g->star = false;
    g->written = NULL;
    memset(g->pos, 0, ARGS_ZEROED * sizeof *g->pos);
    memset(g->posv, 0, ARGS_ZEROED * sizeof *g->posv);
}

static void eval_args(pe_ctx *e, TSNode list, args *g)
{
    clear_args(g);
    if (ts_node_is_null(list))
        return;
    if (!pe_is(list, "argument_list")) {  /* f(x for x in y) */
        pe_eval(e, list);
        g->star = true;
        return;
    }
    uint32_t n;
    TSNode *ks = pe_kids(e, list, &n);
    for (uint32_t i = 0; i < n; i++) {
        TSNode c = ks[i];
        if (pe_is(c, "keyword_argument")) {
            aval v = pe_eval(e, pe_fld(e, c, F_value));
            if (g->nkw < MAX_ARGS) {
                g->kwname[g->nkw] = pe_raw_text(e, pe_fld(e, c, F_name));
                g->kw[g->nkw] = pe_fld(e, c, F_value);
                g->kwv[g->nkw++] = v;
            }
        } else if (pe_is(c, "list_splat") || pe_is(c, "dictionary_splat")) {
            pe_eval(e, ts_node_named_child(c, 0));
            g->star = true;
        } else {
            aval v = pe_eval(e, c);
            if (g->npos < MAX_ARGS && !g->star) {
                g->pos[g->npos] = c;
                g->posv[g->npos++] = v;
            }
        }
    }
}

const aval *pe_kwarg(const args *g, const char *name, TSNode *node)
{
    for (size_t i = 0; name && i < g->nkw; i++)
        if (strcmp(g->kwname[i], name) == 0) {
            if (node)
                *node = g->kw[i];
            return &g->kwv[i];
        }
    return NULL;
}

/* Argument by position or keyword. */
const aval *pe_arg(const args *g, int pos, const char *kw, TSNode *node)
{
    const aval *k = pe_kwarg(g, kw, node);
    if (k)
        return k;
    if (pos >= 0 && (size_t)pos < g->npos) {
        if (node)
            *node = g->pos[pos];
        return &g->posv[pos];
    }
    return NULL;
}

/* Do the arguments carry nothing the callee could use? Then every such call has the same summary. */
static bool plain_args(const args *g)
{
    if (g->star)
        return false;
    for (size_t i = 0; i < g->npos; i++)
        if (g->posv[i].tag != AV_VALUES || g->posv[i].n || g->posv[i].binary || g->posv[i].has_dtype
            || g->posv[i].tensor)
            return false;
    for (size_t i = 0; i < g->nkw; i++)
        if (g->kwv[i].tag != AV_VALUES || g->kwv[i].n || g->kwv[i].binary || g->kwv[i].has_dtype
            || g->kwv[i].tensor)
            return false;
    return true;
}

/* The arguments without their first positional one (Klass.method(obj, x) called with obj as
 * self; partial(f, x): f is the callee, not an argument). */
static void drop_first_arg(args *g)
{
    if (g->npos == 0)
        return;
    g->npos--;
    memmove(g->pos, g->pos + 1, g->npos * sizeof *g->pos);
    memmove(g->posv, g->posv + 1, g->npos * sizeof *g->posv);
}

/* Is fn a def named as an initialiser (__init__, __post_init__, ...)? */
static bool pe_is_init_def(pe_ctx *e, TSNode fn)
{
    TSNode name = pe_fld(e, fn, F_name);
    if (ts_node_is_null(name))
        return false;
    const char *s = pe_raw_text(e, name);
    return py_is_init_name(s, strlen(s));
}

aval pe_call_summary(pe_ctx *e, size_t id, const args *g)
{
    if (id >= e->nodes.n)
        return av_unknown();
    enum { SLOTS = 5 };
    if (!plain_args(g) || g->nkw > 0 || g->npos >= SLOTS)
        return call_summary_uncached(e, id, g, NULL, NULL);
    /* only unknown positional arguments: one summary per function and argument count */
    size_t k = id * SLOTS + g->npos;
    while (e->summaries.n <= k)
        ARENA_PUSH(e->s, e->summaries, ((summary){ 0 }));
    if (e->summaries.v[k].state == SUMMARY_PENDING)
        return av_unknown();  /* being computed: recursion */
    if (e->summaries.v[k].writes_args)
        return call_summary_uncached(e, id, g, NULL, NULL);  /* each call writes into its own arguments */
    if (e->summaries.v[k].state == SUMMARY_NONE) {
        e->summaries.v[k].state = SUMMARY_PENDING;
        size_t before = g->written ? g->written->n : 0;
        aval r = call_summary_uncached(e, id, g, NULL, NULL);
        e->summaries.v[k].v = r;
        e->summaries.v[k].state = SUMMARY_DONE;
        e->summaries.v[k].writes_args = g->written && g->written->n > before;
    }
    return e->summaries.v[k].v;
}

/* A function value returned by the function fn that defines it (`return lambda t: t.masked_fill(m,
 * value)`, a nested def) keeps fn's variables as they are at the return: called later, its body
 * reads them (Python's closures see the enclosing function's last values). */
static bool defined_inside(TSNode inner, TSNode outer)
{
    return ts_node_start_byte(inner) > ts_node_start_byte(outer) && ts_node_end_byte(inner) <= ts_node_end_byte(outer);
}

static bool capturable(const pe_ctx *e, TSNode fn, const aval *r)
{
    return r->tag == AV_FUNC && !r->closure && !r->mod && r->node_id < e->nodes.n
           && defined_inside(e->nodes.v[r->node_id], fn);
}

/* ... also each function of a returned tuple or list (`return (lambda t: ...), n`), one env for
 * them all (they see the same variables). */
static aval capture(pe_ctx *e, TSNode fn, const env *locals, aval r)
{
    bool any = capturable(e, fn, &r);
    for (size_t i = 0; r.tag == AV_SEQ && i < r.nelems && !any; i++)
        any = capturable(e, fn, &r.elems[i]);
    if (!any)
        return r;
    env *c = arena_alloc(e->s, sizeof *c);
    *c = pe_env_copy(e->s, locals);
    if (r.tag == AV_FUNC) {
        r.closure = c;
        return r;
    }
    aval *el = arena_memdup(e->s, r.elems, r.nelems * sizeof *el);
    for (size_t i = 0; i < r.nelems; i++)
        if (capturable(e, fn, &el[i]))
            el[i].closure = c;
    r.elems = el;
    return r;
}

/* own: the class to run a method in, when its object was built with arguments (else the
 * class the node belongs to); closure: the variables a returned lambda or nested def sees. */
static aval call_summary_uncached(pe_ctx *e, size_t id, const args *g, klass *own, const env *closure)
{
    TSNode fn = e->nodes.v[id];
    for (frame *f = e->fr; f; f = f->up)
        if (ts_node_eq(f->fn, fn))
            return av_unknown();  /* recursion */
    if (e->call_depth >= MAX_CALL_DEPTH || e->budget < 1000)
        return av_unknown();
    frame fr;
    memset(&fr, 0, sizeof fr);
    fr.fn = fn;
    fr.up = e->fr;
    fr.defined_in = e->node_cls.v[id];
    bool lambda = pe_kind(e, fn) == NK_lambda;
    /* super().__init__(...) run for an object: its self.x are that object's attributes */
    fr.is_init = own && !lambda && pe_is_init_def(e, fn);
    /* a lambda called in the function that defines it sees that function's variables as they
     * are at the call (Python's closures bind late) */
    if (closure)
        fr.locals = pe_env_copy(e->s, closure);
    else if (lambda && e->fr && defined_inside(fn, e->fr->fn))
        fr.locals = pe_env_copy(e->s, e->cur);
    frame *saved_fr = e->fr;
    env *saved_cur = e->cur;
    klass *saved_cls = e->cls;
    e->cls = own ? own : e->node_cls.v[id];
    e->fr = &fr;
    e->cur = &fr.locals;
    e->call_depth++;
    e->quiet++;
    uint8_t saved_path = e->nguards;   /* a summary is shared by every caller's path: none applies */
    e->nguards = 0;
    pe_bind_params(e, fn, g);
    if (lambda) {   /* its body is the value it returns */
        fr.ret = pe_eval(e, pe_fld(e, fn, F_body));
        fr.has_ret = true;
    } else {
        pe_exec_block(e, pe_fld(e, fn, F_body));
    }
    e->nguards = saved_path;
    e->after_return.on = false;
    e->quiet--;
    e->call_depth--;
    e->fr = saved_fr;
    e->cur = saved_cur;
    e->cls = saved_cls;
    for (size_t i = 0; g->written && i < fr.nmuts; i++) {
        const mutation *m = &fr.muts[i];
        if (m->written && !m->rebound && m->has_arg && g->written->n < MAX_MUTATIONS) {
            g->written->node[g->written->n] = m->arg;
            g->written->v[g->written->n++] = m->v;
        }
    }
    aval r = fr.has_ret ? capture(e, fn, &fr.locals, fr.ret) : av_unknown();
    if (lambda)
        return pe_stepf(e, &r, fn, "returned from the lambda");
    TSNode name = pe_fld(e, fn, F_name);
    return pe_stepf(e, &r, name, "returned from %s()", pe_raw_text(e, name));
}

/* The class a class or instance value stands for, or NULL. */
static klass *class_of(pe_ctx *e, const aval *x)
{
    if ((x->tag != AV_CLASS && x->tag != AV_INSTANCE) || x->node_id >= e->node_cls.n || (x->mod && x->mod != e))
        return NULL;
    return e->node_cls.v[x->node_id];
}

/* Is function id a method of a base of k (not of k, nor of the class k is an object's copy of)? */
static bool pe_inherited(pe_ctx *e, size_t id, const klass *k)
{
    if (!k || id >= e->node_cls.n || !e->node_cls.v[id])
        return false;
    const klass *c = e->node_cls.v[id];
    return c != k && c != k->copied_from;
}

/* m(args) of an object whose class inherits m from an imported class (origin): that class's m,
 * run in its module on an object of it built there (pymodule.c's lazy object), when the arguments
 * carry a value. The subclass's overrides and attributes are not seen there. */
static bool inherited_from_import(pe_ctx *e, const char *origin, const char *method, const args *g, aval *out)
{
    aval base = pe_lazy_instance(e, origin);
    return pe_call_module_method(e, &base, method, g, out);
}

/* super() or super(Cls, self) */
static bool pe_is_super_call(pe_ctx *e, TSNode n)
{
    if (!pe_is(n, "call"))
        return false;
    TSNode f = pe_fld(e, n, F_function);
    return !ts_node_is_null(f) && pe_is(f, "identifier") && strcmp(pe_raw_text(e, f), "super") == 0;
}

/* recv.method(args) where recv is a class of this file or one of its instances: the method's
 * summary. Through the class, a method taking self gets its instance as the first argument
 * (MaskBuilder.build(obj, x)); static and class methods take the arguments as they are. */
bool pe_call_method_of(pe_ctx *e, const aval *recv, const char *method, const args *g, aval *out)
{
    klass *k = class_of(e, recv);
    const aval *m = k ? pe_class_member(k, method, PE_MEMBER_CONSTS, false) : NULL;
    const char *base = k && !m ? pe_class_import_base(k) : NULL;
    if (base)
        return inherited_from_import(e, base, method, g, out);
    if (!m || m->tag != AV_FUNC || m->mod || m->node_id >= e->nodes.n)
        return false;
    args shifted;
    if (recv->tag == AV_CLASS && pe_first_param_is_self(e, e->nodes.v[m->node_id]) && g->npos > 0) {
        shifted = *g;
        drop_first_arg(&shifted);
        g = &shifted;
    }
    /* an object with attributes of its own has a summary of its own; so has a method inherited
     * from a base, run with self an object of the subclass (its overrides, its attributes) */
    klass *own = recv->own ? recv->own : pe_inherited(e, m->node_id, k) ? k : NULL;
    *out = own ? call_summary_uncached(e, m->node_id, g, own, NULL) : pe_call_summary(e, m->node_id, g);
    return true;
}

/* Run one initialiser of own (the first with the call's arguments, the others, __post_init__, with
 * none) as a call whose `self.x = ...` go into own's attributes. */
static void run_init(pe_ctx *e, klass *own, TSNode init, const klass *defined_in, const args *g)
{
    for (frame *f = e->fr; f; f = f->up)
        if (ts_node_eq(f->fn, init))
            return;  /* a class building itself in its __init__ */
    frame fr;
    memset(&fr, 0, sizeof fr);
    fr.fn = init;
    fr.up = e->fr;
    fr.is_init = true;
    fr.defined_in = defined_in;
    frame *saved_fr = e->fr;
    env *saved_cur = e->cur;
    klass *saved_cls = e->cls;
    e->cls = own;
    e->fr = &fr;
    e->cur = &fr.locals;
    e->call_depth++;
    e->quiet++;
    uint8_t saved_path = e->nguards;
    e->nguards = 0;
    args none;
    memset(&none, 0, sizeof none);
    pe_bind_params(e, init, g ? g : &none);
    pe_exec_block(e, pe_fld(e, init, F_body));
    e->nguards = saved_path;
    e->after_return.on = false;
    e->quiet--;
    e->call_depth--;
    e->fr = saved_fr;
    e->cur = saved_cur;
    e->cls = saved_cls;
}

/* An object of a class of this file made by calling the class. Called with arguments that carry
 * something (PadMasker(-1e9), Scaler(cfg.gain)), its initialisers run with them into attributes of
 * the object's own, so that its methods see `self.fill` as -1e9; otherwise (or past the call
 * depth and budget) self.x are the class's attributes as its own analysis of __init__ found them,
 * with the parameters unknown. */
aval pe_instance_of(pe_ctx *e, const aval *cls, const args *g)
{
    aval x = av_unknown();
    x.tag = AV_INSTANCE;
    x.other = false;
    x.node_id = cls->node_id;
    x.str = cls->str;
    klass *k = class_of(e, cls);
    if (k && !k->init_done && e->module_depth > 0 && e->call_depth < MAX_CALL_DEPTH && e->budget >= 1000) {
        /* a loaded module analyses no function on its own: its class's attributes are what the
         * initialisers set with their parameters unknown, found at the first object built */
        k->init_done = true;
        for (size_t i = 0; i < PE_MAX_INITS; i++)
            if (!ts_node_is_null(k->init[i]))
                run_init(e, k, k->init[i], k->init_cls[i], NULL);
    }
    if (!k || plain_args(g) || ts_node_is_null(k->init[0]) || e->call_depth >= MAX_CALL_DEPTH || e->budget < 1000)
        return x;
    klass *own = arena_alloc(e->s, sizeof *own);
    *own = *k;
    memset(&own->attrs, 0, sizeof own->attrs);
    own->copied_from = k;
    for (size_t i = 0; i < PE_MAX_INITS; i++)
        if (!ts_node_is_null(k->init[i]))
            run_init(e, own, k->init[i], k->init_cls[i], i == 0 ? g : NULL);
    x.own = own;
    return x;
}

size_t pe_node_id(pe_ctx *e, TSNode n, klass *cls)
{
    ARENA_PUSH(e->s, e->nodes, n);
    ARENA_PUSH(e->s, e->node_cls, cls);
    return e->nodes.n - 1;
}

/* xs.append(v) on a list the evaluator holds: the list becomes one element that may be any of
 * what it held and v (its length is not followed), so that `masks.append(mask)` in a loop and
 * then torch.stack(masks) or torch.cat(masks) hold the masks' values. */
static void list_append(pe_ctx *e, TSNode recv_node, const aval *xs, const aval *v)
{
    const char *key = pe_var_key(e, recv_node);
    if (!key)
        return;
    aval bag = *v;
    for (size_t i = 0; i < xs->nelems; i++)
        bag = av_join(e->s, &bag, &xs->elems[i]);
    aval r = *xs;
    aval *el = arena_alloc(e->s, sizeof *el);
    el[0] = bag;
    r.elems = el;
    r.nelems = 1;
    pe_update_key(e, key, r);
}

static aval eval_call(pe_ctx *e, TSNode call, written_args *written);

/* self.register_buffer("name", t) / register_parameter("name", p) in a module's method: as
 * `self.name = t` (a buffer not persistent= is never overwritten by the weights). */
static bool register_on_self(pe_ctx *e, TSNode call, TSNode recv_node, const char *method, const args *g)
{
    if (strcmp(method, "register_buffer") != 0 && strcmp(method, "register_parameter") != 0)
        return false;
    if (!e->fr || !e->fr->self_name || ts_node_is_null(recv_node) || !pe_is(recv_node, "identifier")
        || strcmp(pe_raw_text(e, recv_node), e->fr->self_name) != 0 || g->npos < 1 || g->posv[0].tag != AV_STR
        || !g->posv[0].str)
        return false;
    const aval *t = g->npos >= 2 ? &g->posv[1] : NULL;
    for (size_t i = 0; !t && i < g->nkw; i++)
        if (!strcmp(g->kwname[i], "tensor") || !strcmp(g->kwname[i], "param"))
            t = &g->kwv[i];
    if (!t)
        return false;
    const char *key = arena_join(e->a, "self", '.', g->posv[0].str);
    aval v = pe_refine_id_class(e, key + 5, *t, call);
    pe_update_key(e, key, pe_stepf(e, &v, call, "registered as self.%s", g->posv[0].str));
    return true;
}

/* A method of a dict literal: `d.get("k"[, default])` reads it; a method that may change it
 * (update, setdefault, pop, ...) makes the variable unknown from here on. */
static aval dict_method(pe_ctx *e, TSNode recv_node, const aval *d, const char *method, const args *g)
{
    aval r;
    if (strcmp(method, "get") == 0 && g->npos >= 1 && !g->star) {
        if (pe_dict_lookup(d, &g->posv[0], &r))
            return r;
        bool absent = !d->other && g->posv[0].tag == AV_STR;   /* a key it does not list */
        return absent && g->npos >= 2 ? g->posv[1] : av_unknown();
    }
    static const char *const readers[] = { "get", "keys", "values", "items", "copy", "__contains__", NULL };
    bool reads = false;
    for (size_t i = 0; readers[i]; i++)
        reads |= strcmp(method, readers[i]) == 0;
    const char *key = reads ? NULL : pe_var_key(e, recv_node);
    if (key)
        pe_update_key(e, key, av_unknown());
    return av_unknown();
}

/* A call, then what its summary wrote into the caller's arguments in place (`mark(k, ids)` whose
 * body does `k[..., -1] = ...`): the caller's variable holds it from here on. */
aval pe_eval_call(pe_ctx *e, TSNode call)
{
    written_args w;
    w.n = 0;
    aval r = eval_call(e, call, &w);
    for (size_t i = 0; i < w.n; i++) {
        const char *key = pe_var_key(e, w.node[i]);
        if (key && (pe_is(w.node[i], "identifier") || pe_is(w.node[i], "attribute")))
            pe_update_key(e, key, pe_stepf(e, &w.v[i], call, "written into %s by the call", key));
    }
    return r;
}

/* What a call names, as the dispatch below reads it: the callee's spelling, the value it
 * evaluates to, and for `recv.method(...)` the receiver and the method's name. */
typedef struct callee_ref {
    TSNode fn, recv_node;
    const char *callee;   /* dotted spelling, or NULL */
    const char *method;   /* fn is recv.method: the method's name */
    aval fv, recv;
    klass *self_cls;      /* self.m() / super().m() of a base's method: the object's class to run it
                           * in (its overrides and attributes), else NULL */
    const char *base_origin;   /* self.m() / super().m() that no class of the file defines: the
                                * imported base whose method it may be, else NULL */
} callee_ref;

/* functools.partial(f, *bound, **bound): the callee and the arguments it will be called with
 * first. Its nodes (the callee's, the bound arguments') are of the tree of the evaluator that
 * made it (the aval's .mod), so it is called only there (another file's partial through
 * pe_call_module_value, pymodule.c). */
typedef struct partial_fn {
    callee_ref target;
    args bound;
} partial_fn;

enum { MAX_PARTIAL_DEPTH = 4 };   /* partial(partial(f, a), b): how deep a partial's callee nests */

static void resolve_callee(pe_ctx *e, TSNode fn, callee_ref *c)
{
    c->fn = c->recv_node = fn;
    c->callee = pe_dotted(e, fn);
    c->method = NULL;
    c->fv = c->recv = av_unknown();
    c->self_cls = NULL;
    c->base_origin = NULL;
    if (!pe_is(fn, "attribute")) {
        c->fv = pe_eval(e, fn);
        return;
    }
    c->recv_node = pe_fld(e, fn, F_object);
    c->method = pe_raw_text(e, pe_fld(e, fn, F_attribute));
    const char *key = pe_self_key(e, fn);
    if (key && e->cls) {
        const aval *m = pe_class_member(e->cls, key + 5, PE_MEMBER_CONSTS, false);
        const aval *attr = pe_class_member(e->cls, key + 5, PE_MEMBER_ATTRS, false);
        if (!attr && e->fr)
            attr = pe_env_get(&e->fr->locals, key);
        if (attr)
            c->fv = *attr;
        else if (m)
            c->fv = *m;
        else
            c->base_origin = pe_class_import_base(e->cls);
        c->recv = pe_default_for_name(e, "self", c->recv_node);
    } else if (e->cls && pe_is_super_call(e, c->recv_node)) {
        /* super().m(...): m of the bases of the class defining the running method */
        const klass *from = e->fr && e->fr->defined_in ? e->fr->defined_in : e->cls;
        const aval *m = pe_class_member(from, c->method, PE_MEMBER_CONSTS, true);
        if (m) {   /* else a base of another file's: never the class's own method */
            c->fv = *m;
            c->recv = pe_default_for_name(e, "self", c->recv_node);
            c->self_cls = e->cls;
        } else {
            c->base_origin = pe_class_import_base(from);
        }
        return;
    } else {
        c->recv = pe_eval(e, c->recv_node);
    }
    if (c->fv.tag == AV_FUNC && !c->fv.mod && pe_inherited(e, c->fv.node_id, e->cls))
        c->self_cls = e->cls;
}

static aval dispatch(pe_ctx *e, TSNode call, const callee_ref *c, args *gp, int partials);

/* functools.partial(f, ...) with f a name or an attribute (evaluated again, as a callee) or
 * another partial: the partial, or unknown (no callee, *args, a callee of another kind). */
static aval make_partial(pe_ctx *e, const args *g)
{
    if (g->npos < 1 || g->star || ts_node_is_null(g->pos[0]))
        return av_unknown();
    bool nested = g->posv[0].tag == AV_PARTIAL;
    if (!nested && !pe_is(g->pos[0], "identifier") && !pe_is(g->pos[0], "attribute"))
        return av_unknown();
    partial_fn *p = arena_zalloc(e->s, sizeof *p);
    if (nested)
        p->target = (callee_ref){ .fn = g->pos[0], .recv_node = g->pos[0], .fv = g->posv[0], .recv = av_unknown() };
    else
        resolve_callee(e, g->pos[0], &p->target);
    p->bound = *g;
    drop_first_arg(&p->bound);
    p->bound.written = NULL;
    aval r = av_unknown();
    r.tag = AV_PARTIAL;
    r.other = false;
    r.mod = e;
    r.partial = p;
    return r;
}

/* Calling a partial: its bound positional arguments first, then the call's; the call's keywords
 * replace bound ones of the same name (as functools.partial does). */
static aval call_partial(pe_ctx *e, TSNode call, const aval *pa, const args *g, int partials)
{
    const partial_fn *p = pa->partial;
    if (!p || pa->mod != e || partials >= MAX_PARTIAL_DEPTH)
        return av_unknown();
    args m = p->bound;
    m.star = p->bound.star || g->star;
    m.written = p->bound.npos ? NULL : g->written;   /* a write names the caller's own arguments */
    for (size_t i = 0; i < g->npos; i++) {
        if (m.npos >= MAX_ARGS) {
            m.star = true;
            break;
        }
        m.pos[m.npos] = g->pos[i];
        m.posv[m.npos++] = g->posv[i];
    }
    for (size_t i = 0; i < g->nkw; i++) {
        size_t j = 0;
        while (j < m.nkw && strcmp(m.kwname[j], g->kwname[i]) != 0)
            j++;
        if (j == m.nkw && m.nkw >= MAX_ARGS)
            continue;
        m.kwname[j] = g->kwname[i];
        m.kw[j] = g->kw[i];
        m.kwv[j] = g->kwv[i];
        if (j == m.nkw)
            m.nkw++;
    }
    return dispatch(e, call, &p->target, &m, partials + 1);
}

/* Does the partial end in a function of e's file (through nested partials)? Only such a one is
 * called without the caller's call node (pe_call_value: it runs for another file's call). */
static bool partial_of_function(const pe_ctx *e, const aval *pa, int depth)
{
    const partial_fn *p = pa->partial;
    if (!p || pa->mod != e || depth >= MAX_PARTIAL_DEPTH)
        return false;
    const aval *t = &p->target.fv;
    return t->tag == AV_PARTIAL ? partial_of_function(e, t, depth + 1)
                                : t->tag == AV_FUNC && !t->mod && t->node_id < e->nodes.n && !p->target.method;
}

aval pe_call_value(pe_ctx *e, const aval *fv, const args *g)
{
    if (fv->tag == AV_FUNC && !fv->mod && fv->node_id < e->nodes.n)
        return fv->closure ? call_summary_uncached(e, fv->node_id, g, NULL, fv->closure) : pe_call_summary(e, fv->node_id, g);
    if (fv->tag == AV_PARTIAL && partial_of_function(e, fv, 0))
        return call_partial(e, (TSNode){ 0 }, fv, g, 0);
    return av_unknown();
}

static aval eval_call(pe_ctx *e, TSNode call, written_args *written)
{
    TSNode fn = pe_fld(e, call, F_function);
    TSNode an = pe_fld(e, call, F_arguments);
    if (ts_node_is_null(fn))
        return av_unknown();
    callee_ref c;
    resolve_callee(e, fn, &c);
    args g;
    eval_args(e, an, &g);
    g.written = written;
    return dispatch(e, call, &c, &g, 0);
}

/* A call of a bare name nothing else modelled: float("-inf"), getattr(config, "x", d), a sink
 * class by its name. */
static aval builtin_call(pe_ctx *e, TSNode call, const char *name, const args *g)
{
    aval r;
    if (strcmp(name, "float") == 0 && g->npos == 1) {
        if (g->posv[0].tag == AV_STR && g->posv[0].str) {
            double x;
            if (py_float_string_special(g->posv[0].str, strlen(g->posv[0].str), &x))
                return pe_number_value(e, x, call);
        }
        return g->posv[0].tag == AV_VALUES && !g->posv[0].tensor ? g->posv[0] : av_unknown();
    }
    if (strcmp(name, "getattr") == 0 && pe_config_getattr(e, call, g, &r))
        return r;
    aval inst = pe_class_instance(e, name, call, g);
    return inst.tag == AV_SINKOBJ ? inst : av_unknown();
}

/* The call of what c names with the arguments g: a sink, a declaration, a summary, the torch
 * model, ... (`call` is where its facts are placed). */
static aval dispatch(pe_ctx *e, TSNode call, const callee_ref *c, args *g, int partials)
{
    TSNode fn = c->fn, recv_node = c->recv_node;
    const char *callee = c->callee, *method = c->method;
    aval fv = c->fv, recv = c->recv;
    aval r;
    if (fv.tag == AV_FUNC && fv.node_id == PE_LAZY_PRODUCT)   /* what an imported factory returns */
        return pe_call_lazy_product(e, &fv, g, &r) ? r : av_unknown();
    if (method && recv.tag == AV_FUNC && recv.node_id == PE_LAZY_PRODUCT)
        recv = av_unknown();   /* not a function after all (x.masked_fill(...)): any receiver */
    if (method && register_on_self(e, call, recv_node, method, g))
        return av_unknown();   /* None */
    if ((fv.tag == AV_FUNC || fv.tag == AV_PARTIAL) && fv.mod && fv.mod != e)   /* another file's */
        return pe_call_module_value(e, &fv, g, &r) ? r : av_unknown();
    if (fv.tag == AV_PARTIAL)
        return call_partial(e, call, &fv, g, partials);

    /* what the callee names: its spelling, or the origin of an imported name */
    const char *origin = callee;
    if (fv.tag == AV_IMPORT && fv.str)
        origin = fv.str;
    if (origin && strcmp(origin, "functools.partial") == 0)
        return make_partial(e, g);
    /* a function or class defined in this file shadows a table sink of the same name; a method of
     * a call result (get_pool().set_kv_buffer) has no dotted spelling, only its name */
    bool defined_here = fv.tag == AV_FUNC || fv.tag == AV_CLASS || fv.tag == AV_SINKOBJ;
    if (!defined_here && (origin || method)
        && pe_sink_call(e, call, fn, &recv, callee ? callee : pe_text_of(e, fn), origin ? origin : method, g))
        return av_unknown();
    if (origin) {
        const char *last = pe_last_dotted(origin);
        if (py_is_decl_callee(last, strlen(last))) {
            const char *mod = fv.tag == AV_IMPORT ? fv.str : callee;
            pe_dtype_decls(e, last, mod, g);
        }
    }
    if (fv.tag == AV_SINKOBJ) {
        pe_store_sink_call(e, fv.sink, callee ? callee : pe_text_of(e, fn), call, g);
        return av_unknown_tensor();
    }
    if (method && recv.tag == AV_SINKOBJ && strcmp(method, "forward") == 0) {
        pe_store_sink_call(e, recv.sink, callee ? callee : pe_text_of(e, fn), call, g);
        return av_unknown_tensor();
    }
    if (c->base_origin && method && inherited_from_import(e, c->base_origin, method, g, &r))
        return r;
    if (fv.tag == AV_FUNC && c->self_cls)
        return fv.node_id < e->nodes.n ? call_summary_uncached(e, fv.node_id, g, c->self_cls, NULL) : av_unknown();
    if (fv.tag == AV_FUNC && fv.closure)   /* each closure its own variables: no shared summary */
        return fv.node_id < e->nodes.n ? call_summary_uncached(e, fv.node_id, g, NULL, fv.closure) : av_unknown();
    if (fv.tag == AV_FUNC)
        return pe_call_summary(e, fv.node_id, g);
    if (fv.tag == AV_INSTANCE && ((fv.mod && fv.mod != e) || fv.node_id == PE_LAZY_CLASS))  /* a loaded module's */
        return pe_call_module_method(e, &fv, "forward", g, &r) || pe_call_module_method(e, &fv, "__call__", g, &r)
               ? r : av_unknown();
    if (fv.tag == AV_INSTANCE) {  /* module(x): nn.Module.__call__ runs forward */
        if (pe_call_method_of(e, &fv, "forward", g, &r) || pe_call_method_of(e, &fv, "__call__", g, &r))
            return r;
        return av_unknown();
    }
    if (fv.tag == AV_CLASS || fv.tag == AV_IMPORT) {
        const char *cn = fv.tag == AV_IMPORT ? pe_last_dotted(fv.str) : fv.str;
        aval inst = fv.tag == AV_IMPORT ? pe_class_instance(e, fv.str, call, g) : av_unknown();
        if (inst.tag == AV_SINKOBJ)
            return inst;
        if (fv.tag == AV_IMPORT && strncmp(fv.str, "torch", 5) == 0)
            return pe_torch_function(e, cn, call, g);
        if (fv.tag == AV_IMPORT && pe_call_imported(e, fv.str, call, g, &r))
            return r;
        return fv.tag == AV_CLASS && class_of(e, &fv) ? pe_instance_of(e, &fv, g) : av_unknown();
    }
    if (method && recv.tag == AV_INSTANCE && ((recv.mod && recv.mod != e) || recv.node_id == PE_LAZY_CLASS)) {
        if (pe_call_module_method(e, &recv, method, g, &r))
            return r;
        if (recv.mod)
            return av_unknown();
        recv = av_unknown();  /* a lazy object without the method: any receiver (.to, .half) */
    }
    if (method && (recv.tag == AV_CLASS || recv.tag == AV_INSTANCE))
        return pe_call_method_of(e, &recv, method, g, &r) ? r : av_unknown();
    if (method && recv.tag == AV_IMPORT && recv.str && strncmp(recv.str, "torch", 5) != 0
        && pe_call_imported(e, arena_printf(e->s, "%s.%s", recv.str, method), call, g, &r))
        return r;  /* import pkg.masks as M; M.make_mask(...) */
    if (method && recv.tag == AV_DICT)
        return dict_method(e, recv_node, &recv, method, g);
    if (method && strcmp(method, "get") == 0 && pe_config_get(e, call, recv_node, &recv, g, &r))
        return r;
    if (method && recv.tag == AV_SEQ && strcmp(method, "append") == 0 && g->npos == 1 && !g->nkw) {
        list_append(e, recv_node, &recv, &g->posv[0]);
        return av_unknown();  /* None */
    }
    if (method) {
        if (recv.tag == AV_MODULE)
            return strcmp(recv.str, "math") == 0 ? av_unknown() : pe_torch_function(e, method, call, g);
        if (recv.tag == AV_FINFO)
            return av_unknown();
        return pe_tensor_method(e, call, recv_node, recv, method, g);
    }
    return pe_is(fn, "identifier") ? builtin_call(e, call, pe_raw_text(e, fn), g) : av_unknown();
}
