/*
 * pyvalue.c: value sets, joins and interval arithmetic for the Python evaluator (see pyvalue.h).
 *
 * Intervals are closed, in binary64. A symbolic sentinel (finfo(D).min of an unknown D) is carried
 * as sym_scale * finfo(D).<sym> + sym_add; an integer whose upper bound is a range name (ids up to
 * num_adapters) as [lo, hi_sym + hi_sym_add]. Anything these forms cannot express (NaN, a product
 * of two symbols) is dropped from the set and recorded as `other`, so a set never claims more
 * than is known. Arithmetic keeps a sentinel a sentinel; it never creates one (pyfe.h).
 */
#include "python/pyvalue.h"

#include <math.h>
#include <string.h>

aval av_unknown(void)
{
    aval x;
    memset(&x, 0, sizeof x);
    x.tag = AV_VALUES;
    x.other = true;
    return x;
}

aval av_unknown_tensor(void)
{
    aval x = av_unknown();
    x.tensor = true;
    return x;
}

aval av_const(kv_arena *a, const kv_value *v)
{
    aval x = av_unknown();
    x.other = false;
    pv *p = arena_zalloc(a, sizeof *p);
    p->v = *v;
    x.vals = p;
    x.n = 1;
    return x;
}

bool av_is_unknown(const aval *x)
{
    return x->tag == AV_VALUES && x->n == 0;
}

bool av_has_sentinel(const aval *x)
{
    for (size_t i = 0; x->tag == AV_VALUES && i < x->n; i++)
        if (x->vals[i].v.kind == VK_SENTINEL)
            return true;
    return false;
}

bool av_has_integer(const aval *x)
{
    for (size_t i = 0; x->tag == AV_VALUES && i < x->n; i++)
        if (x->vals[i].v.kind == VK_INTEGER)
            return true;
    return false;
}

bool av_single(const aval *x, double *out)
{
    if (x->tag != AV_VALUES || x->n != 1 || x->other)
        return false;
    const kv_value *v = &x->vals[0].v;
    if (v->sym != SYM_NONE || v->hi_sym || v->hi_unknown || v->expr || v->lo != v->hi)
        return false;
    *out = v->lo;
    return true;
}

static bool same_value(const kv_value *a, const kv_value *b)
{
    if (a->kind != b->kind || a->sym != b->sym || (a->expr == NULL) != (b->expr == NULL) || a->origin.line != b->origin.line
        || a->origin.col != b->origin.col)
        return false;
    /* the same value held under two dtype guards (two branches kept it) is two: joining them
     * into the first's mark would drop it where only the second holds */
    if (a->held_kind != b->held_kind
        || (a->held_kind != DREF_UNKNOWN && (a->held_set != b->held_set || a->held_auto_set != b->held_auto_set
                                              || a->held_spelled != b->held_spelled)))
        return false;
    if ((a->origin.path == NULL) != (b->origin.path == NULL)
        || (a->origin.path && strcmp(a->origin.path, b->origin.path) != 0))
        return false;
    if (a->sym != SYM_NONE)
        return a->sym_scale == b->sym_scale && a->sym_add == b->sym_add;
    if ((a->hi_sym == NULL) != (b->hi_sym == NULL) || (a->hi_sym && strcmp(a->hi_sym, b->hi_sym) != 0))
        return false;
    return a->lo == b->lo && a->hi == b->hi && a->hi_unknown == b->hi_unknown && a->hi_sym_add == b->hi_sym_add;
}

/* Add candidates to a bounded set: sentinels first, then integers, then floats. */
typedef struct vset {
    pv v[PV_MAX_VALUES];
    size_t n;
    bool dropped;
} vset;

static void vset_add(vset *s, const pv *p)
{
    for (size_t i = 0; i < s->n; i++)
        if (same_value(&s->v[i].v, &p->v)) {
            if (!s->v[i].cons)
                s->v[i].cons = p->cons;
            return;
        }
    if (s->n < PV_MAX_VALUES) {
        s->v[s->n++] = *p;
        return;
    }
    s->dropped = true;
    /* Full: a sentinel or an integer may replace a plain float. */
    if (p->v.kind == VK_FLOAT || p->v.kind == VK_UNKNOWN)
        return;
    for (size_t i = s->n; i-- > 0;)
        if (s->v[i].v.kind == VK_FLOAT) {
            s->v[i] = *p;
            return;
        }
}

static aval vset_aval(kv_arena *a, const vset *s, aval shape)
{
    shape.tag = AV_VALUES;
    shape.n = (unsigned char)s->n;
    shape.vals = s->n ? arena_memdup(a, s->v, s->n * sizeof *s->v) : NULL;
    if (s->dropped)
        shape.other = true;
    return shape;
}

static bool same_dtype(const dtype_ref *a, const dtype_ref *b)
{
    if (a->kind != b->kind)
        return false;
    if (a->kind == DREF_CONCRETE)
        return a->dtype == b->dtype;
    return (a->text && b->text) ? strcmp(a->text, b->text) == 0 : a->text == b->text;
}

/* Two dicts with the same keys in the same order: each value joined; anything else unknown. */
static aval join_dicts(kv_arena *a, const aval *x, const aval *y)
{
    if (x->tag != AV_DICT || y->tag != AV_DICT || x->nelems != y->nelems)
        return av_unknown();
    for (size_t i = 0; i < x->nelems; i++)
        if (strcmp(x->keys[i], y->keys[i]) != 0)
            return av_unknown();
    aval r = *x;
    r.other = x->other || y->other;
    aval *el = arena_alloc(a, (x->nelems ? x->nelems : 1) * sizeof *el);
    for (size_t i = 0; i < x->nelems; i++)
        el[i] = av_join(a, &x->elems[i], &y->elems[i]);
    r.elems = el;
    return r;
}

aval av_seq_element(kv_arena *a, const aval *seq)
{
    if (seq->tag != AV_SEQ || seq->nelems == 0)
        return av_unknown();
    aval el = seq->elems[0];
    for (size_t i = 1; i < seq->nelems; i++)
        el = av_join(a, &el, &seq->elems[i]);
    return el;
}

aval av_join(kv_arena *a, const aval *x, const aval *y)
{
    if (x->tag != AV_VALUES || y->tag != AV_VALUES) {
        /* an empty list joined with one that was appended to (a loop run zero or one time):
         * whatever it may hold */
        if (x->tag == AV_SEQ && y->tag == AV_SEQ && (!x->nelems || !y->nelems))
            return x->nelems ? *x : *y;
        if (x->tag == AV_SEQ && y->tag == AV_SEQ && x->nelems == y->nelems) {
            aval r = *x;
            aval *e = arena_alloc(a, x->nelems * sizeof *e);
            for (size_t i = 0; i < x->nelems; i++)
                e[i] = av_join(a, &x->elems[i], &y->elems[i]);
            r.elems = e;
            return r;
        }
        if (x->tag == AV_DICT || y->tag == AV_DICT)
            return join_dicts(a, x, y);
        if (x->tag == AV_VALUES && av_is_unknown(x) && !x->tensor)
            return *y;
        return *x;
    }
    vset s = { .n = 0 };
    for (size_t i = 0; i < x->n; i++)
        vset_add(&s, &x->vals[i]);
    for (size_t i = 0; i < y->n; i++)
        vset_add(&s, &y->vals[i]);
    aval r = *x;
    r.other = x->other || y->other;
    r.tensor = x->tensor || y->tensor;
    r.binary = x->binary && y->binary;
    r.intdtype = x->intdtype && y->intdtype;
    if (x->has_dtype && y->has_dtype && !same_dtype(&x->dtype, &y->dtype))
        r.has_dtype = false;
    else if (!x->has_dtype && y->has_dtype) {
        r.has_dtype = true;
        r.dtype = y->dtype;
    }
    return vset_aval(a, &s, r);
}

aval av_step(kv_arena *a, kv_arena *keep, const aval *x, kv_loc loc, const char *what)
{
    if (x->tag != AV_VALUES || x->n == 0)
        return *x;
    aval r = *x;
    pv *vals = arena_memdup(a, x->vals, x->n * sizeof *vals);
    for (size_t i = 0; i < x->n; i++) {
        kv_value *v = &vals[i].v;
        if (v->nsteps >= PV_MAX_STEPS)
            continue;
        kv_step *st = arena_alloc(keep, (v->nsteps + 1) * sizeof *st);
        if (v->nsteps)
            memcpy(st, v->steps, v->nsteps * sizeof *st);
        st[v->nsteps] = (kv_step){ loc, what };
        v->steps = st;
        v->nsteps++;
    }
    r.vals = vals;
    return r;
}

/* ---- arithmetic on one pair of values ---- */

static bool is_integral(double x)
{
    return isfinite(x) && x == floor(x);
}

static bool concrete(const kv_value *v)
{
    return v->sym == SYM_NONE && !v->hi_sym && !v->hi_unknown && !v->expr;
}

static bool constant(const kv_value *v, double *c)
{
    if (!concrete(v) || v->lo != v->hi)
        return false;
    *c = v->lo;
    return true;
}

static bool interval_op(char op, const kv_value *p, const kv_value *q, double *lo, double *hi)
{
    double c[4];
    switch (op) {
    case '+': *lo = p->lo + q->lo; *hi = p->hi + q->hi; break;
    case '-': *lo = p->lo - q->hi; *hi = p->hi - q->lo; break;
    case '*':
        c[0] = p->lo * q->lo; c[1] = p->lo * q->hi; c[2] = p->hi * q->lo; c[3] = p->hi * q->hi;
        *lo = fmin(fmin(c[0], c[1]), fmin(c[2], c[3]));
        *hi = fmax(fmax(c[0], c[1]), fmax(c[2], c[3]));
        for (int i = 0; i < 4; i++)
            if (isnan(c[i]))
                return false;
        break;
    case '/':
        if (q->lo <= 0 && q->hi >= 0)
            return false;
        c[0] = p->lo / q->lo; c[1] = p->lo / q->hi; c[2] = p->hi / q->lo; c[3] = p->hi / q->hi;
        *lo = fmin(fmin(c[0], c[1]), fmin(c[2], c[3]));
        *hi = fmax(fmax(c[0], c[1]), fmax(c[2], c[3]));
        break;
    case 'p':
        if (p->lo != p->hi || q->lo != q->hi)
            return false;
        *lo = *hi = pow(p->lo, q->lo);
        break;
    default:
        return false;
    }
    return !isnan(*lo) && !isnan(*hi);
}

/* A symbolic sentinel combined with a constant. */
static bool sym_op(char op, kv_value *r, const kv_value *s, double c, bool s_left)
{
    *r = *s;
    switch (op) {
    case '+': r->sym_add += c; return true;
    case '-':
        if (s_left) {
            r->sym_add -= c;
        } else {
            r->sym_scale = -r->sym_scale;
            r->sym_add = c - r->sym_add;
        }
        return true;
    case '*': r->sym_scale *= c; r->sym_add *= c; return c != 0;
    case '/':
        if (!s_left || c == 0)
            return false;
        r->sym_scale /= c;
        r->sym_add /= c;
        return true;
    default: return false;
    }
}

/* An integer with a symbolic bound combined with a constant. */
static bool symint_op(char op, kv_value *r, const kv_value *s, double c, bool s_left)
{
    *r = *s;
    if (op == '+' || (op == '-' && s_left)) {
        double d = op == '+' ? c : -c;
        r->lo += d;
        r->hi_sym_add += d;
        r->kind = is_integral(c) ? VK_INTEGER : VK_FLOAT;
        return true;
    }
    if (op == '*' && c > 0) {
        r->lo *= c;
        r->hi_sym = NULL;
        r->hi_unknown = true;
        return true;
    }
    return false;
}

static value_kind result_kind(char op, const kv_value *p, const kv_value *q, double lo, double hi)
{
    if (p->kind == VK_SENTINEL || q->kind == VK_SENTINEL)
        return VK_SENTINEL;
    bool pi = p->kind == VK_INTEGER, qi = q->kind == VK_INTEGER;
    if ((pi || qi) && (op == '+' || op == '-' || op == '*') && is_integral(lo) && (is_integral(hi) || isinf(hi))) {
        double c;
        if ((pi && qi) || (pi && constant(q, &c)) || (qi && constant(p, &c)))
            return VK_INTEGER;
    }
    return VK_FLOAT;
}

/* A checkpoint-field expression operand: its tree, or a constant as a leaf; NULL for anything else
 * (an interval, a sentinel, an id range: the result is not one expression). */
static const kv_expr *expr_operand(kv_arena *keep, const kv_value *v)
{
    double c;
    if (v->expr)
        return v->expr;
    if (!constant(v, &c))
        return NULL;
    kv_expr *x = arena_zalloc(keep, sizeof *x);
    x->op = KX_CONST;
    x->num = c;
    return x;
}

/* p op q where an operand is computed from checkpoint fields: the expression (p op q), unknown until a
 * deployment's checkpoint gives the fields. */
static bool expr_op(kv_arena *keep, char op, const kv_value *a, const kv_value *b, pv *out, kv_loc where,
                    const char *text)
{
    const kv_expr *x = expr_operand(keep, a), *y = expr_operand(keep, b);
    kv_expr_op k = op == '+' ? KX_ADD : op == '-' ? KX_SUB : op == '*' ? KX_MUL : op == '/' ? KX_DIV
                   : op == 'p' ? KX_POW : KX_CONST;
    if (!x || !y || k == KX_CONST || kv_expr_nodes(x) + kv_expr_nodes(y) >= KV_EXPR_MAX_NODES)
        return false;   /* longer than any expression is read (`g = g * g` forty times): unknown */
    kv_expr *r = arena_zalloc(keep, sizeof *r);
    r->op = k;
    r->a = x;
    r->b = y;
    r->nodes = 1 + kv_expr_nodes(x) + kv_expr_nodes(y);
    out->v.kind = VK_UNKNOWN;
    out->v.lo = -INFINITY;
    out->v.hi = INFINITY;
    out->v.sym_scale = 1;
    out->v.text = text;
    out->v.origin = where;
    out->v.expr = r;
    return true;
}

/* p op q; false if the result cannot be expressed (it becomes `other`). */
static bool pv_op(kv_arena *facts, char op, const pv *p, const pv *q, pv *out, kv_loc where, const char *text)
{
    const kv_value *a = &p->v, *b = &q->v;
    double c;
    memset(out, 0, sizeof *out);
    out->cons = p->cons ? p->cons : q->cons;
    out->arg = p->arg || q->arg;
    if (a->expr || b->expr)
        return expr_op(facts, op, a, b, out, where, text);
    if (a->sym != SYM_NONE || b->sym != SYM_NONE) {
        if (a->sym != SYM_NONE && b->sym != SYM_NONE) {
            out->v = *a;  /* two planes: keep one; the caller records the sum */
            return op == '+' || op == '-';
        }
        if (a->sym != SYM_NONE)
            return constant(b, &c) && sym_op(op, &out->v, a, c, true);
        return constant(a, &c) && sym_op(op, &out->v, b, c, false);
    }
    if (a->hi_sym || a->hi_unknown || b->hi_sym || b->hi_unknown) {
        if ((a->hi_sym || a->hi_unknown) && constant(b, &c))
            return symint_op(op, &out->v, a, c, true);
        if ((b->hi_sym || b->hi_unknown) && constant(a, &c) && op != '-')
            return symint_op(op, &out->v, b, c, false);
        return false;
    }
    double lo, hi;
    if (!interval_op(op, a, b, &lo, &hi))
        return false;
    /* History: a sentinel or an integer keeps its own origin; a new constant starts here. */
    const kv_value *keep = a->kind == VK_SENTINEL ? a : b->kind == VK_SENTINEL ? b
                           : a->kind == VK_INTEGER ? a : b->kind == VK_INTEGER ? b : NULL;
    if (keep) {
        out->v = *keep;
    } else {
        out->v.text = text;
        out->v.origin = where;
        out->v.steps = a->steps;
        out->v.nsteps = a->nsteps;
    }
    out->v.kind = result_kind(op, a, b, lo, hi);
    out->v.lo = lo;
    out->v.hi = hi;
    out->v.binary32 = a->binary32 || b->binary32;
    return true;
}

static char op_char(const char *op)
{
    if (strcmp(op, "**") == 0)
        return 'p';
    return op[0];
}

aval av_arith(kv_arena *a, kv_arena *keep, const char *op, const aval *x, const aval *y, kv_loc where,
              const char *text)
{
    if (x->tag != AV_VALUES || y->tag != AV_VALUES)
        return av_unknown();
    char o = op_char(op);
    aval shape = av_unknown();
    shape.other = false;
    shape.tensor = x->tensor || y->tensor;
    if (x->has_dtype || y->has_dtype) {
        shape.has_dtype = true;
        shape.dtype = x->has_dtype ? x->dtype : y->dtype;
    }
    if (o == '*' && ((y->binary && y->n == 0) || (x->binary && x->n == 0))) {
        aval r = av_times_binary(a, y->binary && y->n == 0 ? x : y);
        r.tensor = shape.tensor;
        return r;
    }
    vset s = { .n = 0 };
    bool other = x->other || y->other;
    for (size_t i = 0; i < x->n; i++)
        for (size_t j = 0; j < y->n; j++) {
            pv r;
            if (pv_op(keep, o, &x->vals[i], &y->vals[j], &r, where, text))
                vset_add(&s, &r);
            else
                other = true;
        }
    /* An unknown operand added to a sentinel leaves (about) the sentinel: x + finfo.min. */
    if ((o == '+' || o == '-') && (x->other || y->other)) {
        const aval *known = x->other ? y : x;
        for (size_t i = 0; i < known->n; i++)
            if (known->vals[i].v.kind == VK_SENTINEL)
                vset_add(&s, &known->vals[i]);
    }
    shape.other = other;
    return vset_aval(a, &s, shape);
}

aval av_negate(kv_arena *a, kv_arena *keep, const aval *x, kv_loc where, const char *text)
{
    if (x->tag != AV_VALUES)
        return av_unknown();
    vset s = { .n = 0 };
    bool other = x->other;
    for (size_t i = 0; i < x->n; i++) {
        pv r = x->vals[i];
        kv_value *v = &r.v;
        if (v->hi_sym || v->hi_unknown) {
            other = true;
            continue;
        }
        if (v->expr) {  /* -config.x */
            if (kv_expr_nodes(v->expr) >= KV_EXPR_MAX_NODES) {
                other = true;   /* longer than any expression is read: unknown */
                continue;
            }
            kv_expr *n = arena_zalloc(keep, sizeof *n);
            n->op = KX_NEG;
            n->a = v->expr;
            n->nodes = 1 + kv_expr_nodes(v->expr);
            v->expr = n;
            v->origin = where;
            v->text = text;
            vset_add(&s, &r);
            continue;
        }
        double lo = v->lo;
        v->lo = -v->hi;
        v->hi = -lo;
        if (v->sym != SYM_NONE) {
            v->sym_scale = -v->sym_scale;
            v->sym_add = -v->sym_add;
        }
        if (!x->tensor && v->nsteps == 0 && v->kind != VK_INTEGER) {
            /* -1e9 is one constant spelled at the minus sign */
            v->origin = where;
            v->text = text;
        }
        vset_add(&s, &r);
    }
    aval r = *x;
    r.other = other;
    r.binary = false;
    return vset_aval(a, &s, r);
}

aval av_times_binary(kv_arena *a, const aval *x)
{
    if (x->tag != AV_VALUES)
        return av_unknown();
    vset s = { .n = 0 };
    for (size_t i = 0; i < x->n; i++) {
        pv r = x->vals[i];
        if (r.v.sym == SYM_NONE) {
            r.v.lo = fmin(0, r.v.lo);
            if (!r.v.hi_sym && !r.v.hi_unknown)
                r.v.hi = fmax(0, r.v.hi);
        }
        vset_add(&s, &r);
    }
    aval r = *x;
    r.binary = x->binary;
    return vset_aval(a, &s, r);
}

aval av_without_sentinels(kv_arena *a, const aval *x)
{
    if (x->tag != AV_VALUES)
        return *x;
    vset s = { .n = 0 };
    for (size_t i = 0; i < x->n; i++)
        if (x->vals[i].v.kind != VK_SENTINEL)
            vset_add(&s, &x->vals[i]);
    aval r = *x;
    return vset_aval(a, &s, r);
}

bool av_integer_hull(const aval *x, kv_value *out)
{
    bool found = false;
    for (size_t i = 0; x->tag == AV_VALUES && i < x->n; i++) {
        const kv_value *v = &x->vals[i].v;
        if (v->kind != VK_INTEGER)
            continue;
        if (!found) {
            *out = *v;
            found = true;
            continue;
        }
        out->lo = fmin(out->lo, v->lo);
        if (v->hi_unknown || out->hi_unknown) {
            out->hi_unknown = true;
            out->hi_sym = NULL;
        } else if (v->hi_sym || out->hi_sym) {
            if (!out->hi_sym) {
                out->hi_sym = v->hi_sym;
                out->hi_sym_add = v->hi_sym_add;
            } else if (v->hi_sym && strcmp(v->hi_sym, out->hi_sym) == 0) {
                out->hi_sym_add = fmax(out->hi_sym_add, v->hi_sym_add);
            }
        } else {
            out->hi = fmax(out->hi, v->hi);
        }
    }
    return found;
}
