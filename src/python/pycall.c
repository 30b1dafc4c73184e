/*
 * pycall.c: calls. A call's arguments are evaluated once into an args record; the callee is
 * then dispatched to a sink, a sink class, the torch model, a dtype declaration, or a summary of a
 * function or method of this file (parameters bound to the arguments, the joined return value
 * back, cached when the arguments carry nothing, guarded against recursion).
 * It does not follow functions of other files.
 */
#include <string.h>

#include "python/pyeval.h"

static aval call_summary_uncached(ev *e, size_t id, const args *g);

static void eval_args(ev *e, TSNode list, args *g)
{
    memset(g, 0, sizeof *g);
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

static aval call_summary(ev *e, size_t id, const args *g)
{
    enum { SLOTS = 5 };
    if (!plain_args(g) || g->nkw > 0 || g->npos >= SLOTS)
        return call_summary_uncached(e, id, g);
    /* only unknown positional arguments: one summary per function and argument count */
    size_t k = id * SLOTS + g->npos;
    while (e->summaries.n <= k)
        ARENA_PUSH(e->s, e->summaries, ((summary){ 0 }));
    if (e->summaries.v[k].state == 1)
        return av_unknown();  /* being computed: recursion */
    if (e->summaries.v[k].state == 0) {
        e->summaries.v[k].state = 1;
        aval r = call_summary_uncached(e, id, g);
        e->summaries.v[k].v = r;
        e->summaries.v[k].state = 2;
    }
    return e->summaries.v[k].v;
}

static aval call_summary_uncached(ev *e, size_t id, const args *g)
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
    frame *saved_fr = e->fr;
    env *saved_cur = e->cur;
    klass *saved_cls = e->cls;
    e->cls = e->node_cls.v[id];
    e->fr = &fr;
    e->cur = &fr.locals;
    e->call_depth++;
    e->quiet++;
    pe_bind_params(e, fn, g);
    pe_exec_block(e, pe_fld(e, fn, F_body));
    e->quiet--;
    e->call_depth--;
    e->fr = saved_fr;
    e->cur = saved_cur;
    e->cls = saved_cls;
    aval r = fr.has_ret ? fr.ret : av_unknown();
    TSNode name = pe_fld(e, fn, F_name);
    return pe_stepf(e, &r, name, "returned from %s()", pe_raw_text(e, name));
}

size_t pe_node_id(ev *e, TSNode n, klass *cls)
{
    ARENA_PUSH(e->s, e->nodes, n);
    ARENA_PUSH(e->s, e->node_cls, cls);
    return e->nodes.n - 1;
}

aval pe_eval_call(ev *e, TSNode call)
{
    TSNode fn = pe_fld(e, call, F_function);
    TSNode an = pe_fld(e, call, F_arguments);
    if (ts_node_is_null(fn))
        return av_unknown();
    const char *callee = pe_dotted(e, fn);
    aval recv = av_unknown(), fv = av_unknown();
    TSNode recv_node = fn;
    const char *method = NULL;
    if (pe_is(fn, "attribute")) {
        recv_node = pe_fld(e, fn, F_object);
        method = pe_raw_text(e, pe_fld(e, fn, F_attribute));
        const char *key = pe_self_key(e, fn);
        if (key && e->cls) {
            const aval *m = pe_env_get(&e->cls->consts, key + 5);
            const aval *attr = pe_env_get(&e->cls->attrs, key + 5);
            if (!attr && e->fr)
                attr = pe_env_get(&e->fr->locals, key);
            if (attr)
                fv = *attr;
            else if (m)
                fv = *m;
            recv = pe_default_for_name(e, "self", recv_node);
        } else {
            recv = pe_eval(e, recv_node);
        }
    } else {
        fv = pe_eval(e, fn);
    }
    args g;
    eval_args(e, an, &g);

    /* what the callee names: its spelling, or the origin of an imported name */
    const char *origin = callee;
    if (fv.tag == AV_IMPORT && fv.str)
        origin = fv.str;
    /* a function or class defined in this file shadows a table sink of the same name; a method of
     * a call result (get_pool().set_kv_buffer) has no dotted spelling, only its name */
    bool defined_here = fv.tag == AV_FUNC || fv.tag == AV_CLASS || fv.tag == AV_SINKOBJ;
    if (!defined_here && (origin || method)
        && pe_sink_call(e, call, fn, &recv, callee ? callee : pe_text_of(e, fn), origin ? origin : method, &g))
        return av_unknown();
    if (origin) {
        const char *last = pe_last_dotted(origin);
        if (py_is_decl_callee(last, strlen(last))) {
            const char *mod = fv.tag == AV_IMPORT ? fv.str : callee;
            pe_dtype_decls(e, last, mod, &g);
        }
    }
    if (fv.tag == AV_SINKOBJ) {
        pe_store_sink_call(e, fv.sink, callee ? callee : pe_text_of(e, fn), call, &g);
        return av_unknown_tensor();
    }
    if (method && recv.tag == AV_SINKOBJ && strcmp(method, "forward") == 0) {
        pe_store_sink_call(e, recv.sink, callee ? callee : pe_text_of(e, fn), call, &g);
        return av_unknown_tensor();
    }
    if (fv.tag == AV_FUNC)
        return call_summary(e, fv.node_id, &g);
    if (fv.tag == AV_CLASS || fv.tag == AV_IMPORT) {
        const char *cn = fv.tag == AV_IMPORT ? pe_last_dotted(fv.str) : fv.str;
        aval inst = fv.tag == AV_IMPORT ? pe_class_instance(e, fv.str, call, &g) : av_unknown();
        if (inst.tag == AV_SINKOBJ)
            return inst;
        if (fv.tag == AV_IMPORT && strncmp(fv.str, "torch", 5) == 0)
            return pe_torch_function(e, cn, call, &g);
        return av_unknown();
    }
    if (method) {
        if (recv.tag == AV_MODULE)
            return strcmp(recv.str, "math") == 0 ? av_unknown() : pe_torch_function(e, method, call, &g);
        if (recv.tag == AV_FINFO)
            return av_unknown();
        return pe_tensor_method(e, call, recv_node, recv, method, &g);
    }
    if (pe_is(fn, "identifier")) {
        const char *name = pe_raw_text(e, fn);
        if (strcmp(name, "float") == 0 && g.npos == 1) {
            if (g.posv[0].tag == AV_STR && g.posv[0].str) {
                double x;
                if (py_float_string_special(g.posv[0].str, strlen(g.posv[0].str), &x))
                    return pe_number_value(e, x, call);
            }
            return g.posv[0].tag == AV_VALUES && !g.posv[0].tensor ? g.posv[0] : av_unknown();
        }
        aval inst = pe_class_instance(e, name, call, &g);
        if (inst.tag == AV_SINKOBJ)
            return inst;
    }
    return av_unknown();
}
