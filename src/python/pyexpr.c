/*
 * pyexpr.c: expressions: literals, names, attributes, strings (float("-inf")), binary and unary
 * operators (with the arithmetic facts on sentinels), sequences, comprehensions and conditionals.
 * pe_eval is the one entry point, with the depth guard.
 * Calls are pycall.c; statements are pystmt.c.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "python/pyeval.h"
#include "util/hash.h"

/* av_step with a formatted description, formatted only when there is a value to carry it. */
aval pe_stepf(pe_ctx *e, const aval *x, TSNode at, const char *fmt, ...)
{
    if (x->tag != AV_VALUES || x->n == 0)
        return *x;
    va_list ap;
    va_start(ap, fmt);
    const char *what = arena_vprintf(e->a, fmt, ap);
    va_end(ap);
    return av_step(e->s, e->a, x, pe_loc_of(e, at), what);
}

kv_value pe_value_make(pe_ctx *e, value_kind k, double lo, double hi, TSNode at)
{
    kv_value v;
    memset(&v, 0, sizeof v);
    v.kind = k;
    v.lo = lo;
    v.hi = hi;
    v.sym_scale = 1;
    v.text = pe_text_of(e, at);
    v.origin = pe_loc_of(e, at);
    if (e->nguards) {   /* made on a path dtype guards chose: held only where they all hold
                         * (those on the innermost's dtype) */
        const pe_guard *g = &e->guards[e->nguards - 1];
        pe_mark_held(&v, g);
        for (uint8_t i = 0; i + 1 < e->nguards; i++)
            if (e->guards[i].kind == g->kind && (v.held_set & e->guards[i].set)
                && (v.held_auto_set & e->guards[i].aset)) {
                v.held_set &= e->guards[i].set;
                v.held_auto_set &= e->guards[i].aset;
                v.held_spelled = v.held_spelled || e->guards[i].spelled;
            }
    }
    return v;
}

aval pe_number_value(pe_ctx *e, double x, TSNode at)
{
    value_kind k = fabs(x) >= PY_SENTINEL_MAGNITUDE ? VK_SENTINEL : VK_FLOAT;
    kv_value v = pe_value_make(e, k, x, x, at);
    return av_const(e->s, &v);
}

static aval eval_string(pe_ctx *e, TSNode n)
{
    /* string_start string_content? string_end: a plain literal; anything else is unknown */
    uint32_t k = ts_node_named_child_count(n);
    aval x = av_unknown();
    x.tag = AV_STR;
    x.other = false;
    if (k == 2) {
        x.str = "";
        return x;
    }
    if (k != 3 || !pe_is(ts_node_named_child(n, 1), "string_content")
        || ts_node_named_child_count(ts_node_named_child(n, 1)) != 0) {
        x.str = NULL;
        return x;
    }
    x.str = pe_raw_text(e, ts_node_named_child(n, 1));
    return x;
}

static aval eval_attribute(pe_ctx *e, TSNode n)
{
    const char *key = pe_self_key(e, n);
    if (key)
        return pe_lookup_self(e, key, n);
    TSNode objn = pe_fld(e, n, F_object);
    const char *attr = pe_raw_text(e, pe_fld(e, n, F_attribute));
    aval obj = pe_eval(e, objn);
    if (obj.tag == AV_MODULE) {
        aval d;
        if (py_is_infinity_word(attr, strlen(attr)))
            return pe_number_value(e, attr[0] == 'N' ? -INFINITY : INFINITY, n);
        if (strcmp(obj.str, "torch") == 0 && pe_torch_dtype_name(e, attr, n, &d))
            return d;
        if (strcmp(attr, "functional") == 0 || strcmp(attr, "nn") == 0)
            return obj;
        aval imp = av_unknown();
        imp.tag = AV_IMPORT;
        imp.str = arena_printf(e->a, "%s.%s", obj.str, attr);
        return imp;
    }
    if (obj.tag == AV_FINFO)
        return pe_finfo_attr(e, &obj, attr, n);
    if (obj.tag == AV_CLASS && obj.node_id < e->node_cls.n && e->node_cls.v[obj.node_id]) {
        const aval *c = pe_class_member(e->node_cls.v[obj.node_id], attr, PE_MEMBER_CONSTS, false);  /* Klass.CONST */
        if (c)
            return *c;
    }
    pe_ctx *owner = obj.tag == AV_INSTANCE && obj.mod ? obj.mod : e;  /* an imported class's object */
    if (obj.tag == AV_INSTANCE && obj.node_id < owner->node_cls.n && owner->node_cls.v[obj.node_id]) {
        const klass *k = obj.own ? obj.own : owner->node_cls.v[obj.node_id];  /* helper.dtype, helper.CONST */
        const aval *c = pe_class_member(k, attr, PE_MEMBER_ANY, false);
        if (c)
            return owner == e ? *c : pe_module_value(e, owner, *c);
    }
    if (obj.tag == AV_IMPORT) {
        aval c;
        if (obj.str && pe_module_constant(e, obj.str, attr, &c))  /* consts.GAIN */
            return pe_stepf(e, &c, n, "read as %s.%s", pe_last_dotted(obj.str), attr);
        aval imp = obj;
        imp.str = arena_printf(e->a, "%s.%s", obj.str, attr);
        return imp;
    }
    if (strcmp(attr, "dtype") == 0)
        return pe_dtype_attr(e, &obj, objn, n);
    if (pe_dtype_by_name(attr))
        return pe_dtype_value(pe_dref(e, pe_dtype_kind_by_name(attr), n), false);
    if (obj.tag == AV_VALUES && obj.tensor && (strcmp(attr, "T") == 0 || strcmp(attr, "mT") == 0 || strcmp(attr, "data") == 0))
        return obj;
    const char *idc = py_name_id_class(e->st, attr, strlen(attr));
    if (idc)
        return pe_id_class_value(e, idc, n);
    aval field;
    if (pe_config_attr(e, n, objn, &obj, attr, &field))
        return field;
    return av_unknown();
}

static aval eval_identifier(pe_ctx *e, TSNode n)
{
    uint32_t b = ts_node_start_byte(n), t = ts_node_end_byte(n);
    const char *s = e->src + b;
    size_t len = t > b ? t - b : 0;
    uint32_t h = kv_hash32(s, len);
    const aval *v = pe_env_find_n(e->cur, s, len, h);
    if (!v && e->cur != &e->module)
        v = pe_env_find_n(&e->module, s, len, h);
    if (v)
        return *v;
    return pe_default_for_name(e, pe_raw_text(e, n), n);
}

/* Whether the value of the sum n is only ever compared: `a + b == 0`, or `x = a + b` directly
 * followed by `x = x == 0` (transformers' _update_causal_mask builds its padding test so). A sum
 * that overflows to -inf orders and compares exactly as the finite sum would, so it is no hazard. */
static bool sum_only_compared(pe_ctx *e, TSNode n)
{
    TSNode p = ts_node_parent(n);
    while (!ts_node_is_null(p) && pe_is(p, "parenthesized_expression"))
        n = p, p = ts_node_parent(p);
    if (ts_node_is_null(p))
        return false;
    if (pe_is(p, "comparison_operator"))
        return true;
    if (!pe_is(p, "assignment"))
        return false;
    TSNode lhs = pe_fld(e, p, F_left), stmt = ts_node_parent(p);
    if (ts_node_is_null(lhs) || !pe_is(lhs, "identifier") || ts_node_is_null(stmt) || !pe_is(stmt, "expression_statement"))
        return false;
    TSNode next = ts_node_next_named_sibling(stmt);
    while (!ts_node_is_null(next) && pe_is(next, "comment"))
        next = ts_node_next_named_sibling(next);
    if (ts_node_is_null(next) || !pe_is(next, "expression_statement") || ts_node_named_child_count(next) != 1)
        return false;
    TSNode as = ts_node_named_child(next, 0);
    if (!pe_is(as, "assignment"))
        return false;
    TSNode l2 = pe_fld(e, as, F_left), r2 = pe_fld(e, as, F_right);
    if (ts_node_is_null(l2) || ts_node_is_null(r2) || !pe_same_bytes(e, l2, lhs) || !pe_is(r2, "comparison_operator"))
        return false;
    for (uint32_t i = 0; i < ts_node_named_child_count(r2); i++) {
        TSNode k = ts_node_named_child(r2, i);
        if (pe_is(k, "identifier") && pe_same_bytes(e, k, lhs))
            return true;
    }
    return false;
}

/* The first sentinel x may hold (a mask holds {0, min}: the min is what the sum is about). */
static const kv_value *first_sentinel(const aval *x)
{
    for (size_t i = 0; x->tag == AV_VALUES && i < x->n; i++)
        if (x->vals[i].v.kind == VK_SENTINEL)
            return &x->vals[i].v;
    return NULL;
}

/* An infinity written as a constant (float("-inf"), -math.inf, torch.inf), not a finfo bound. */
static const kv_value *pure_infinity(const aval *x)
{
    for (size_t i = 0; x->tag == AV_VALUES && i < x->n; i++)
        if (isinf(x->vals[i].v.lo) && x->vals[i].v.lo == x->vals[i].v.hi && x->vals[i].v.sym == SYM_NONE)
            return &x->vals[i].v;
    return NULL;
}

/* Whether the factor n (value x) can be 0 somewhere: a mask or comparison (binary, unless it is
 * the constant 1), `c - m` / `m - c` of a constant and an unknown (1 - keep is 0 where keep is 1),
 * or a tensor of unknown values. A known constant or value set without 0 cannot. */
static bool may_be_zero(pe_ctx *e, TSNode n, const aval *x)
{
    while (!ts_node_is_null(n) && pe_is(n, "parenthesized_expression") && ts_node_named_child_count(n))
        n = ts_node_named_child(n, 0);
    double c;
    if (x->tag == AV_VALUES && !x->other && x->n) {
        for (size_t i = 0; i < x->n; i++)
            if (x->vals[i].v.lo <= 0 && x->vals[i].v.hi >= 0)
                return true;
        return false;  /* every value is known and nonzero */
    }
    if (x->binary)
        return !(av_single(x, &c) && c == 1);
    if (!ts_node_is_null(n) && pe_is(n, "binary_operator")) {
        TSNode on = pe_fld(e, n, F_operator);
        const char *op = ts_node_is_null(on) ? "" : ts_node_type(on);
        TSNode a = pe_fld(e, n, F_left), b = pe_fld(e, n, F_right);
        bool la = !ts_node_is_null(a) && (pe_is(a, "integer") || pe_is(a, "float"));
        bool lb = !ts_node_is_null(b) && (pe_is(b, "integer") || pe_is(b, "float"));
        if ((strcmp(op, "-") == 0 || strcmp(op, "+") == 0) && la != lb)
            return true;
    }
    return x->tensor && x->other;
}

/* (1 - mask) * float("-inf"): 0 * inf is NaN wherever the factor is 0, in every dtype. */
static void zero_times_inf(pe_ctx *e, TSNode n, TSNode ln, const aval *l, TSNode rn, const aval *r)
{
    const kv_value *inf = pure_infinity(r);
    TSNode factor = ln;
    const aval *fx = l;
    if (!inf) {
        inf = pure_infinity(l);
        factor = rn;
        fx = r;
    }
    if (!inf || pure_infinity(fx) || !may_be_zero(e, factor, fx))
        return;
    dtype_ref d = l->has_dtype ? l->dtype : r->has_dtype ? r->dtype : pe_dref(e, DREF_UNKNOWN, n);
    if (!l->has_dtype && !r->has_dtype)
        d.text = NULL;  /* no dtype is written: the expression is not one */
    kv_value zero = pe_value_make(e, VK_INTEGER, 0, 1, factor);
    pe_emit_arith(e, ARITH_ZERO_TIMES_INF, n, &zero, inf, &d);
}

static aval eval_binary(pe_ctx *e, TSNode n)
{
    TSNode ln = pe_fld(e, n, F_left), rn = pe_fld(e, n, F_right), on = pe_fld(e, n, F_operator);
    aval l = pe_eval(e, ln), r = pe_eval(e, rn);
    const char *op = ts_node_is_null(on) ? "?" : ts_node_type(on);
    if (strcmp(op, "@") == 0)
        return av_unknown_tensor();
    if (strcmp(op, "&") == 0 || strcmp(op, "|") == 0 || strcmp(op, "^") == 0) {
        aval x = (l.tensor || r.tensor) ? av_unknown_tensor() : av_unknown();
        x.binary = l.binary && r.binary;
        return x;
    }
    if (strcmp(op, "+") != 0 && strcmp(op, "-") != 0 && strcmp(op, "*") != 0 && strcmp(op, "/") != 0
        && strcmp(op, "**") != 0)
        return (l.tensor || r.tensor) ? av_unknown_tensor() : av_unknown();
    if (strcmp(op, "*") == 0)
        zero_times_inf(e, n, ln, &l, rn, &r);
    if (l.tag != AV_VALUES || r.tag != AV_VALUES)
        return av_unknown();
    double c;
    bool tensor_ctx = l.tensor || r.tensor;
    dtype_ref d = l.has_dtype ? l.dtype : r.has_dtype ? r.dtype : pe_dref(e, DREF_UNKNOWN, n);
    if (!l.has_dtype && !r.has_dtype) {
        /* the sentinel's own finfo dtype is the best guess of what the arithmetic runs in */
        const aval *sv = av_has_sentinel(&l) ? &l : &r;
        d.text = NULL;
        for (size_t i = 0; i < sv->n; i++)
            if (sv->vals[i].v.sym != SYM_NONE) {
                d = sv->vals[i].v.sym_dtype;
                break;
            }
    }
    /* 1 - mask is a mask */
    if (strcmp(op, "-") == 0 && av_single(&l, &c) && c == 1 && r.binary) {
        aval x = r.tensor ? av_unknown_tensor() : av_unknown();
        x.binary = true;
        return x;
    }
    if ((strcmp(op, "+") == 0 || strcmp(op, "-") == 0) && tensor_ctx) {
        bool ls = av_has_sentinel(&l), rs = av_has_sentinel(&r);
        const aval *s = ls ? &l : &r;
        const aval *o = ls ? &r : &l;
        bool compared = (ls || rs) && sum_only_compared(e, n);
        bool minus = strcmp(op, "-") == 0;  /* l - r: r enters negated; m1 - m2 is no sum of two sentinels */
        if (ls && rs && !compared)  /* the operands' sentinels, not what a join listed first */
            pe_emit_arith_signed(e, ARITH_SENTINEL_SUM, n, first_sentinel(&l), false, first_sentinel(&r), minus, &d);
        else if (!ls != !rs && o->other && !compared) {
            const kv_value *sv = first_sentinel(s);
            kv_value ov = pe_value_make(e, VK_UNKNOWN, 0, 0, ls ? rn : ln);
            if (sv)  /* x - s negates the sentinel, s - x the other operand */
                pe_emit_arith_signed(e, ARITH_SENTINEL_PLUS, n, sv, minus && rs, &ov, minus && ls, &d);
        }
    }
    return av_arith(e->s, e->a, op, &l, &r, pe_loc_of(e, n), pe_text_of(e, n));
}

static aval eval_seq(pe_ctx *e, TSNode n)
{
    uint32_t k;
    TSNode *ks = pe_kids(e, n, &k);
    aval x = av_unknown();
    x.tag = AV_SEQ;
    x.other = false;
    size_t m = k < PV_MAX_ELEMS ? k : PV_MAX_ELEMS;
    aval *el = arena_alloc(e->s, (m ? m : 1) * sizeof *el);
    size_t j = 0;
    for (uint32_t i = 0; i < k; i++) {
        TSNode c = ks[i];
        aval v = pe_eval(e, c);
        if (pe_is(c, "list_splat") || j >= m)
            continue;
        el[j++] = v;
    }
    x.elems = el;
    x.nelems = j;
    return x;
}

/* Comprehensions: bind the loop targets and evaluate the element once. [f(x) for x in xs if ...]: a list of one element that may be any f(x), as xs.append(f(x)) in a
 * loop makes it (the loop variable is an element of xs, or unknown); torch.cat of it then holds
 * f's values. Sets, dicts and generators stay unknown (their elements are evaluated for facts). */
static aval eval_comprehension(pe_ctx *e, TSNode n)
{
    env saved = pe_env_copy(e->s, e->cur);
    uint32_t k = ts_node_named_child_count(n);
    for (uint32_t i = 1; i < k; i++) {
        TSNode c = ts_node_named_child(n, i);
        if (pe_is(c, "for_in_clause")) {
            aval it = pe_eval(e, pe_fld(e, c, F_right));
            pe_assign(e, pe_fld(e, c, F_left), av_seq_element(e->s, &it), c);
        }
    }
    aval x = k > 0 ? pe_eval(e, ts_node_named_child(n, 0)) : av_unknown();
    *e->cur = saved;
    if (!pe_is(n, "list_comprehension") || x.tag != AV_VALUES || (!x.n && !x.tensor))
        return av_unknown();
    aval r = av_unknown();
    r.tag = AV_SEQ;
    aval *el = arena_alloc(e->s, sizeof *el);
    el[0] = x;
    r.elems = el;
    r.nelems = 1;
    return r;
}

static aval eval_number(pe_ctx *e, TSNode n)
{
    double x;
    uint32_t b = ts_node_start_byte(n), z = ts_node_end_byte(n);
    return py_parse_number(e->src + b, z - b, &x) ? pe_number_value(e, x, n) : av_unknown();
}

static aval eval_comparison(pe_ctx *e, TSNode n)
{
    bool tensor = false;
    uint32_t k;
    TSNode *ks = pe_kids(e, n, &k);
    for (uint32_t i = 0; i < k; i++)
        tensor |= pe_eval(e, ks[i]).tensor;
    aval x = tensor ? av_unknown_tensor() : av_unknown();
    x.binary = true;
    return x;
}

static aval eval_subscript(pe_ctx *e, TSNode n)
{
    aval v = pe_eval(e, pe_fld(e, n, F_value));
    if (v.tag == AV_SEQ) {
        double ix;
        TSNode sn = pe_fld(e, n, F_subscript);
        aval s = ts_node_is_null(sn) ? av_unknown() : pe_eval(e, sn);
        if (av_single(&s, &ix) && ix >= 0 && ix < (double)v.nelems)
            return v.elems[(size_t)ix];
        return av_unknown();
    }
    aval r;
    if (v.tag == AV_DICT) {  /* FILLS["pad"] */
        TSNode sn = pe_fld(e, n, F_subscript);
        aval key = ts_node_is_null(sn) ? av_unknown() : pe_eval(e, sn);
        return pe_dict_lookup(&v, &key, &r) ? pe_stepf(e, &r, n, "read as %s", pe_text_of(e, n)) : av_unknown();
    }
    if (pe_config_item(e, n, pe_fld(e, n, F_value), &v, pe_fld(e, n, F_subscript), &r))
        return r;
    return v.tag == AV_VALUES && v.tensor ? v : av_unknown();
}

static aval eval_unary(pe_ctx *e, TSNode n)
{
    TSNode op = ts_node_child(n, 0);
    aval x = pe_eval(e, pe_fld(e, n, F_argument));
    const char *o = ts_node_type(op);
    if (strcmp(o, "-") == 0)
        return av_negate(e->s, e->a, &x, pe_loc_of(e, n), pe_text_of(e, n));
    if (strcmp(o, "~") == 0) {
        /* ~ of a float raises, so the operand is a bool or an integer: a bool mask unless it is
         * known to hold integers (an int tensor, a Python int constant) */
        aval r = x.tensor ? av_unknown_tensor() : av_unknown();
        r.binary = x.tag == AV_VALUES && (x.binary || (!x.intdtype && x.n == 0));
        return r;
    }
    return x;
}

/* {"pad": -1e9, "zero": 0.0}: the values by their string keys (at most PV_MAX_ELEMS); `other` when
 * it may hold keys not listed (a `**splat`, a key that is not a string constant, more pairs). */
static aval eval_dictionary(pe_ctx *e, TSNode n)
{
    uint32_t k;
    TSNode *ks = pe_kids(e, n, &k);
    aval x = av_unknown();
    x.tag = AV_DICT;
    x.other = false;
    aval *el = arena_alloc(e->s, PV_MAX_ELEMS * sizeof *el);
    const char **keys = arena_alloc(e->s, PV_MAX_ELEMS * sizeof *keys);
    size_t j = 0;
    for (uint32_t i = 0; i < k; i++) {
        if (!pe_is(ks[i], "pair")) {
            pe_eval(e, ks[i]);
            x.other = true;   /* **splat */
            continue;
        }
        aval key = pe_eval(e, pe_fld(e, ks[i], F_key));
        aval v = pe_eval(e, pe_fld(e, ks[i], F_value));
        if (key.tag != AV_STR || !key.str || j >= PV_MAX_ELEMS) {
            x.other = true;
            continue;
        }
        size_t m = 0;
        while (m < j && strcmp(keys[m], key.str) != 0)
            m++;
        if (m == j)
            keys[j++] = key.str;
        el[m] = v;   /* a repeated key keeps its place and takes the last value */
    }
    x.elems = el;
    x.keys = keys;
    x.nelems = j;
    return x;
}

bool pe_dict_lookup(const aval *d, const aval *key, aval *out)
{
    if (d->tag != AV_DICT || key->tag != AV_STR || !key->str)
        return false;
    for (size_t i = d->nelems; i-- > 0;)
        if (d->keys[i] && strcmp(d->keys[i], key->str) == 0) {
            *out = d->elems[i];
            return true;
        }
    return false;
}

/* a if c else b: both sides joined (the condition evaluated in between, as Python reads it) */
static aval eval_conditional(pe_ctx *e, TSNode n)
{
    if (ts_node_named_child_count(n) < 3)
        return av_unknown();
    aval a = pe_eval(e, ts_node_named_child(n, 0));
    pe_guard g;
    pe_condition(e, ts_node_named_child(n, 1), &g);
    aval b = pe_eval(e, ts_node_named_child(n, 2));
    if (pe_guard_marks(&g, true))   /* `-1e4 if dtype == torch.float16 else -1e9`: each where the guard says */
        a = pe_value_held(e->s, &a, &g);
    pe_guard not_g = pe_guard_side(&g, false);
    if (pe_guard_marks(&g, false))
        b = pe_value_held(e->s, &b, &not_g);
    return av_join(e->s, &a, &b);
}

static aval eval_join2(pe_ctx *e, TSNode x, TSNode y)
{
    aval a = pe_eval(e, x), b = pe_eval(e, y);
    return av_join(e->s, &a, &b);
}

/* The first named child's value (parentheses, await), unknown if there is none. */
static aval eval_inside(pe_ctx *e, TSNode n)
{
    return ts_node_named_child_count(n) ? pe_eval(e, ts_node_named_child(n, 0)) : av_unknown();
}

static aval eval_inner(pe_ctx *e, TSNode n)
{
    switch (pe_kind(e, n)) {
    case NK_identifier: return eval_identifier(e, n);
    case NK_integer:
    case NK_float: return eval_number(e, n);
    case NK_true: return pe_number_value(e, 1, n);   /* bool is an int: True == 1 */
    case NK_false: return pe_number_value(e, 0, n);
    case NK_call: return pe_eval_call(e, n);
    case NK_conditional_expression: return eval_conditional(e, n);
    case NK_comparison_operator: return eval_comparison(e, n);
    case NK_attribute: return eval_attribute(e, n);
    case NK_await:
    case NK_parenthesized_expression: return eval_inside(e, n);
    case NK_string: return eval_string(e, n);
    case NK_subscript: return eval_subscript(e, n);
    case NK_unary_operator: return eval_unary(e, n);
    case NK_binary_operator: return eval_binary(e, n);
    case NK_boolean_operator: return eval_join2(e, pe_fld(e, n, F_left), pe_fld(e, n, F_right));
    case NK_tuple:
    case NK_list:
    case NK_expression_list: return eval_seq(e, n);
    case NK_list_comprehension:
    case NK_generator_expression: return eval_comprehension(e, n);
    case NK_named_expression: {
        aval v = pe_eval(e, pe_fld(e, n, F_value));
        pe_assign(e, pe_fld(e, n, F_name), v, n);
        return v;
    }
    case NK_not_operator:
        pe_eval(e, pe_fld(e, n, F_argument));
        return av_unknown();
    case NK_dictionary: return eval_dictionary(e, n);
    case NK_lambda: {   /* a function value; its body runs when it is called (pycall.c) */
        aval f = av_unknown();
        f.tag = AV_FUNC;
        f.other = false;
        f.node_id = pe_node_id(e, n, NULL);
        return f;
    }
    default: return av_unknown();   /* concatenated strings, and what is not modelled */
    }
}

aval pe_eval(pe_ctx *e, TSNode n)
{
    if (ts_node_is_null(n) || !pe_depth_ok(e) || !pe_budget_ok(e))
        return av_unknown();
    e->depth++;
    aval r = eval_inner(e, n);
    e->depth--;
    return r;
}
