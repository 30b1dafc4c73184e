/*
 * cxxeval.c: from a libclang translation unit to store facts: which pointers are KV caches, which
 * stores write through them, what value each store may hold and how the code converts it.
 *
 * Per function defined in the main file (templates are read as written, not per instantiation):
 *  1. a pre-pass records every local variable's assigned expressions (initialiser and `x = e`;
 *     a compound assignment, ++ or -- makes the variable unknown) and every store through a pointer
 *     (`p[i] = e`, `*p = e`, `*(p + i) = e`, and the same through operator= of a class element type);
 *  2. a store is kept when the pointer is a cache: a parameter or variable named like one (the
 *     shared cache-name patterns), one whose element type is the template parameter `cache_t`, or a
 *     pointer computed from such a pointer (`cache_t *dst = key_cache + off`). A float* logits or
 *     LSE buffer is none of these and stays silent;
 *  3. the stored expression is evaluated into the values it may hold: literals (and the macros that
 *     expand to them: -1e9f, -FLT_MAX), the table's sentinel builtins (INFINITY is __builtin_inff()),
 *     constants through their initialisers (constexpr), conditional expressions (both arms), local
 *     variables (every assignment), unary minus, bit-pattern readers (CUDART_INF_FP16 is
 *     __ushort_as_half(0x7C00)), numeric_limits<T>::infinity()/lowest()/max(), fmin/fmax clamps,
 *     and conversions from the table (static_cast<cache_t>, __float2half, fp8::scaled_convert,
 *     __nv_cvt_float_to_fp8 with __NV_SATFINITE). Unknown stays unknown: no fact.
 * Only stores that may hold a special value (|x| >= KV_SENTINEL_MAGNITUDE, 1e4 in facts/facts.h, inf,
 * a numeric limit) become facts.
 * Arithmetic is not folded (1e2f * 1e3f is unknown): every special value therefore starts at a
 * literal of that magnitude or at a word of the table, which is what the prefilter looks for.
 * Every cursor visited, expression evaluated and assignment compared is a step of the unit's
 * budget (cxx_budget); when it is spent the walk stops where it is and the file gets a note: a
 * count, not a clock, so the facts of a file do not depend on the machine's load (a variable with
 * many assignments of variables with many assignments costs their product).
 * libclang 14 exposes no operator kinds, so an operator is read from the source bytes after the
 * left operand; a store whose left operand ends inside a macro expansion is not seen.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cxx/cxxfe.h"
#include "util/strlist.h"

enum { MAX_DEPTH = 24, MAX_VALUES = 16 };

/* One value a stored expression may hold, with the conversion on its way (if any). */
typedef struct cval {
    kv_value v;
    bool converted;
    store_conv conv;
    const char *conv_api;
    bool conv_fixed;          /* the conversion fixes the dtype (conv_dtype) */
    bool conv_elem;           /* a cast or construction to cache_t: its overflow is cache_t's own */
    kvn_dtype conv_dtype;
} cval;

typedef struct cvals {
    cval v[MAX_VALUES];
    size_t n;
    bool unknown;             /* some path holds a value the evaluator does not know */
} cvals;

typedef struct assign {
    CXCursor var;             /* the VarDecl */
    CXCursor expr;            /* assigned expression; null cursor = unknown (compound assignment) */
} assign;

typedef struct store_site {
    CXCursor stmt, lhs, rhs;
} store_site;

/* A call of a sink of the table (cxxsinks.c); its arguments from first on bind to its parameters. */
typedef struct sink_call {
    CXCursor call;
    const cxx_sink *sink;
    unsigned first;
} sink_call;

typedef struct fn_ctx {
    const cxx_state *st;
    CXTranslationUnit tu;
    const fe_source *src;
    file_facts *out;
    kv_arena *a;
    ARENA_VEC(assign) assigns;
    ARENA_VEC(store_site) stores;
    ARENA_VEC(sink_call) sink_calls;
    const char *buf;          /* main file bytes as libclang has them */
    size_t buflen;
    CXCursor fn;              /* the function being analysed */
    const cxx_sink *fn_sink;  /* the sink it is (its cache parameters are caches), or NULL */
    cxx_dispatch dispatch;    /* the unit's instantiations (cxxtypes.c) */
    CXCursor visiting[MAX_DEPTH];
    size_t nvisiting;
    cxx_budget budget;        /* the unit's: every walker below charges it */
} fn_ctx;

static bool offset_of(const fn_ctx *x, CXSourceLocation l, unsigned *off)
{
    return cxx_offset(x->tu, l, NULL, NULL, off);
}

/* ---- small helpers over cursors and the source bytes ---- */

static bool offset_of(const struct fn_ctx *x, CXSourceLocation l, unsigned *off);

/* The operator after the left operand of a binary expression ("=", "+=", "==", ...), from the bytes. */
static bool binop_after(const fn_ctx *x, CXCursor lhs, char op[4])
{
    unsigned off;
    if (!offset_of(x, clang_getRangeEnd(clang_getCursorExtent(lhs)), &off))
        return false;
    size_t i = off;
    while (i < x->buflen && (x->buf[i] == ' ' || x->buf[i] == '\t' || x->buf[i] == '\n' || x->buf[i] == '\r'))
        i++;
    size_t k = 0;
    while (i < x->buflen && k < 3 && strchr("=+-*/%<>&|^!", x->buf[i]))
        op[k++] = x->buf[i++];
    op[k] = '\0';
    return k > 0;
}

/* The first character of a unary expression's first token (its operator when prefix), from the
 * tokens so that it works in headers as well as in the main file. */
static char unop_char(const fn_ctx *x, CXCursor c)
{
    CXToken *toks = NULL;
    unsigned n = 0;
    clang_tokenize(x->tu, clang_getCursorExtent(c), &toks, &n);
    char ch = 0;
    if (n) {
        CXString s = clang_getTokenSpelling(x->tu, toks[0]);
        ch = clang_getCString(s)[0];
        clang_disposeString(s);
    }
    clang_disposeTokens(x->tu, toks, n);
    return ch;
}

/* ---- values ---- */

static void add_val(cvals *out, const cval *v)
{
    for (size_t i = 0; i < out->n; i++)
        if (out->v[i].v.lo == v->v.lo && out->v[i].v.sym == v->v.sym && out->v[i].conv == v->conv &&
            out->v[i].conv_api == v->conv_api && out->v[i].v.origin.line == v->v.origin.line &&
            out->v[i].v.origin.col == v->v.origin.col)
            return;
    if (out->n < MAX_VALUES)
        out->v[out->n++] = *v;
    else
        out->unknown = true;
}

static void merge(cvals *out, const cvals *in)
{
    for (size_t i = 0; i < in->n; i++)
        add_val(out, &in->v[i]);
    out->unknown |= in->unknown;
}

static cval constant(fn_ctx *x, CXCursor at, double d, bool binary32)
{
    cval c = { .v = { .kind = (isinf(d) || fabs(d) >= KV_SENTINEL_MAGNITUDE) ? VK_SENTINEL : VK_FLOAT,
                      .lo = d, .hi = d, .binary32 = binary32, .sym_scale = 1 } };
    c.v.text = cxx_text(x->tu, at, x->a);
    if (!cxx_any_loc(x->tu, at, x->src->path, x->a, &c.v.origin))
        c.v.origin = kv_loc_make(x->src->path, 0, 0, 0, 0);
    return c;
}

static cvals eval(fn_ctx *x, CXCursor c, int depth);

/* Constant folding by clang itself, for expressions it can evaluate. */
static bool clang_constant(CXCursor c, double *out, bool *binary32)
{
    CXEvalResult r = clang_Cursor_Evaluate(c);
    if (!r)
        return false;
    bool ok = true;
    switch (clang_EvalResult_getKind(r)) {
    case CXEval_Float: *out = clang_EvalResult_getAsDouble(r); break;
    case CXEval_Int: *out = (double)clang_EvalResult_getAsLongLong(r); break;
    default: ok = false;
    }
    clang_EvalResult_dispose(r);
    if (ok) {
        CXType t = clang_getCanonicalType(clang_getCursorType(c));
        *binary32 = t.kind == CXType_Float;
    }
    return ok;
}

/* Apply a conversion to every value of in (a value converted twice keeps the first conversion). */
static cvals converted(cvals in, store_conv conv, const char *api, bool fixed, kvn_dtype dt)
{
    for (size_t i = 0; i < in.n; i++)
        if (!in.v[i].converted) {
            in.v[i].converted = true;
            in.v[i].conv = conv;
            in.v[i].conv_api = api;
            in.v[i].conv_fixed = fixed;
            in.v[i].conv_dtype = dt;
        }
    return in;
}

static store_conv conv_of(cxx_sat s)
{
    return s == CXS_SAT ? CONV_SATURATING : CONV_NONSATURATING;
}

static cvals negate(cvals in)
{
    for (size_t i = 0; i < in.n; i++) {
        kv_value *v = &in.v[i].v;
        double lo = v->lo;
        v->lo = -v->hi;
        v->hi = -lo;
        v->sym_scale = -v->sym_scale;
        v->sym_add = -v->sym_add;
    }
    return in;
}

/* numeric_limits<T>::NAME() as written: T and NAME, and whether it is libcu++'s (cuda::std). */
static cvals eval_limits(fn_ctx *x, CXCursor call, const char *text)
{
    cvals r = { .n = 0 };
    const char *lim = NULL;
    for (size_t i = 0; i < x->st->limits.n && !lim; i++)
        lim = strstr(text, x->st->limits.v[i]);
    const char *lt = lim ? strchr(lim, '<') : NULL;
    const char *gt = lt ? strchr(lt, '>') : NULL;
    if (!gt || strncmp(gt, ">::", 3) != 0) {
        r.unknown = true;
        return r;
    }
    char T[128], name[32];
    snprintf(T, sizeof T, "%.*s", (int)(gt - lt - 1), lt + 1);
    snprintf(name, sizeof name, "%.*s", (int)strcspn(gt + 3, " ("), gt + 3);
    bool libcuxx = strstr(text, "cuda::std") != NULL || strstr(text, "cuda :: std") != NULL;
    const cxx_conv *te = cxx_find(x->st->types.v, x->st->types.n, T);
    bool is_float = strcmp(T, "float") == 0 || strcmp(T, "double") == 0;
    if (!te && !is_float) {
        r.unknown = true;
        return r;
    }
    /* Only float, double and c10's types have a real specialisation: libcu++ before CCCL 2.3 has
     * none for __half/__nv_bfloat16, nor has the C++ library, so the primary template returns T(),
     * zero, for every limit (a mask that does not mask; no store value to report). */
    bool c10 = te && (strncmp(T, "c10::", 5) == 0 || strncmp(T, "at::", 4) == 0);
    if (te && te->dt_kind == CXD_FIXED && !is_float && (libcuxx || !c10)) {
        r.unknown = true;
        return r;
    }
    if (libcuxx && te && te->dt_kind == CXD_KV) {
        r.unknown = true; /* zero for half types, the real limit for float: depends on cache_t */
        return r;
    }
    const cxx_member *m = cxx_find_member(x->st, name);
    cval c = constant(x, call, 0, false);
    c.v.kind = VK_SENTINEL;
    if (m && m->kind == CXL_INFINITY) {
        c.v.lo = c.v.hi = INFINITY;
    } else if (m) {
        double sign = m->kind == CXL_LOWEST ? -1 : 1;
        if (is_float || (te->dt_kind == CXD_FIXED && te->dtype == kvn_dtype_parse("float32", false))) {
            c.v.lo = c.v.hi = sign * (strcmp(T, "double") == 0 ? 1.7976931348623157e308 : 3.4028234663852886e38);
        } else {
            c.v.sym = sign < 0 ? SYM_FINFO_MIN : SYM_FINFO_MAX;
            c.v.sym_dtype.kind = te->dt_kind == CXD_KV ? DREF_KV : DREF_CONCRETE;
            c.v.sym_dtype.dtype = te->dtype;
            c.v.sym_dtype.text = arena_strdup(x->a, T);
            c.v.lo = c.v.hi = sign * INFINITY; /* replaced by value_concrete() once the dtype is known */
        }
    } else {
        r.unknown = true;
        return r;
    }
    add_val(&r, &c);
    return r;
}

static const char *callee_name(fn_ctx *x, CXCursor call)
{
    CXString s = clang_getCursorSpelling(call);
    const char *n = arena_strdup(x->a, clang_getCString(s));
    clang_disposeString(s);
    if (*n)
        return n;
    cxx_kids_t kd = cxx_kids(call);
    if (!kd.n)
        return n;
    const char *t = cxx_text(x->tu, kd.v[0], x->a);
    if (!t)
        return n;
    /* The last name outside template arguments: "fp8::scaled_convert<cache_t, scalar_t, kv_dt>" ->
     * "scaled_convert", "std::numeric_limits<cache_t>::infinity" -> "infinity". */
    const char *b = t, *end = NULL;
    int depth = 0;
    for (const char *p = t; *p; p++) {
        if (*p == '<')
            depth++, end = end ? end : (depth == 1 ? p : end);
        else if (*p == '>' && depth > 0)
            depth--;
        else if (depth == 0 && (p[0] == ':' || p[0] == '.' || p[0] == ' ' || (p[0] == '-' && p[1] == '>'))) {
            b = p + 1 + (p[0] == '-');
            end = NULL;
        }
    }
    if (!end)
        end = t + strlen(t);
    return end > b ? arena_strndup(x->a, b, (size_t)(end - b)) : n;
}

static bool arg_mentions(fn_ctx *x, CXCursor call, const char *word)
{
    int n = clang_Cursor_getNumArguments(call);
    for (int i = 0; i < n; i++) {
        const char *t = cxx_text(x->tu, clang_Cursor_getArgument(call, (unsigned)i), x->a);
        if (t && strstr(t, word))
            return true;
    }
    return false;
}

/* The first argument word of the table a call's arguments spell, of the kind asked; NULL: none. */
static const cxx_argword *argword_in(fn_ctx *x, CXCursor call, bool is_dtype)
{
    for (size_t i = 0; i < x->st->argwords.n; i++)
        if (x->st->argwords.v[i].is_dtype == is_dtype && arg_mentions(x, call, x->st->argwords.v[i].word))
            return &x->st->argwords.v[i];
    return NULL;
}

static cvals eval_convert(fn_ctx *x, CXCursor call, const cxx_conv *cv, const char *name)
{
    int n = clang_Cursor_getNumArguments(call);
    cvals in = n > 0 ? eval(x, clang_Cursor_getArgument(call, 0), 1) : (cvals){ .unknown = true };
    kvn_dtype dt = cv->dtype;
    bool fixed = cv->dt_kind == CXD_FIXED;
    store_conv conv = conv_of(cv->sat);
    /* Format and saturation given as arguments: unreadable ones (a variable) leave the value unknown. */
    const cxx_argword *w;
    if (cv->dt_kind == CXD_FP8_ARG) {
        if (!(w = argword_in(x, call, true)))
            return (cvals){ .unknown = true };
        fixed = true;
        dt = w->dtype;
    }
    if (cv->sat == CXS_SATFINITE_ARG) {
        if (!(w = argword_in(x, call, false)))
            return (cvals){ .unknown = true };
        conv = conv_of(w->sat);
    }
    return converted(in, conv, name, fixed, dt);
}

/* fminf(a, b) / fmaxf(a, b): constants fold; a numeric limit as the bound saturates. */
static cvals eval_clamp(fn_ctx *x, CXCursor call, bool is_min, int depth)
{
    cvals r = { .n = 0 };
    if (clang_Cursor_getNumArguments(call) != 2) {
        r.unknown = true;
        return r;
    }
    cvals a = eval(x, clang_Cursor_getArgument(call, 0), depth + 1);
    cvals b = eval(x, clang_Cursor_getArgument(call, 1), depth + 1);
    if (a.unknown || b.unknown || !a.n || !b.n) {
        r.unknown = true;
        return r;
    }
    for (size_t i = 0; i < a.n; i++)
        for (size_t j = 0; j < b.n; j++) {
            const cval *p = &a.v[i], *q = &b.v[j];
            if (p->v.sym || q->v.sym) {
                r.unknown = true; /* a limit of the cache's own type as the bound: saturates */
                continue;
            }
            double m = is_min ? fmin(p->v.lo, q->v.lo) : fmax(p->v.lo, q->v.lo);
            add_val(&r, m == p->v.lo ? p : q);
        }
    return r;
}

static cvals eval_call(fn_ctx *x, CXCursor c, int depth)
{
    const cxx_state *st = x->st;
    const char *name = callee_name(x, c);
    int nargs = clang_Cursor_getNumArguments(c);
    const cxx_conv *cv;
    double d;
    bool b32;
    if (mem_in_array(st->sentinels.v, st->sentinels.n, name, strlen(name)) && clang_constant(c, &d, &b32)) {
        cvals r = { .n = 0 };  /* __builtin_inff() from INFINITY, __builtin_huge_valf() */
        cval v = constant(x, c, d, b32);
        add_val(&r, &v);
        return r;
    }
    if ((cv = cxx_find(st->converts.v, st->converts.n, name)))
        return eval_convert(x, c, cv, name);
    /* A constructor of an element type (__nv_fp8_e4m3(x), the implicit c10::Half(float)): by its
     * name, else by the type it makes. */
    if (nargs == 1 && clang_getCursorKind(clang_getCursorReferenced(c)) == CXCursor_Constructor && !cxx_find(st->types.v, st->types.n, name))
        cv = cxx_type_entry(st, clang_getCursorType(c));
    else
        cv = cxx_find(st->types.v, st->types.n, name);
    if (cv && nargs == 1) {
        const char *api = arena_printf(x->a, "conversion to %s", name);
        cvals r = converted(eval(x, clang_Cursor_getArgument(c, 0), depth + 1), conv_of(cv->sat), api,
                            cv->dt_kind == CXD_FIXED, cv->dtype);
        for (size_t i = 0; i < r.n; i++)
            r.v[i].conv_elem = r.v[i].conv_api == api && cv->dt_kind == CXD_KV;
        return r;
    }
    if ((cv = cxx_find(st->bits.v, st->bits.n, name)) && nargs == 1) {
        double bits;
        const kvn_dtype_info *di = kvn_dtype_get(cv->dtype);
        if (di && clang_constant(clang_Cursor_getArgument(c, 0), &bits, &b32) && bits >= 0 && bits < 4294967296.0) {
            cvals r = { .n = 0 };
            cval v = constant(x, c, kvn_decode(di->elem, (uint32_t)bits), false);
            add_val(&r, &v);
            return r;
        }
        return (cvals){ .unknown = true };
    }
    bool is_min = mem_in_array(st->clamp_min.v, st->clamp_min.n, name, strlen(name));
    if (is_min || mem_in_array(st->clamp_max.v, st->clamp_max.n, name, strlen(name)))
        return eval_clamp(x, c, is_min, depth);
    if (mem_in_array(st->negates.v, st->negates.n, name, strlen(name)) && nargs == 1) {
        cvals r = negate(eval(x, clang_Cursor_getArgument(c, 0), depth + 1));
        for (size_t i = 0; i < r.n; i++)  /* -CUDART_INF_FP16: made here, with its sign */
            if (!r.v[i].converted) {
                r.v[i].v.text = cxx_text(x->tu, c, x->a);
                cxx_any_loc(x->tu, c, x->src->path, x->a, &r.v[i].v.origin);
            }
        return r;
    }
    if (cxx_find_member(st, name)) {
        const char *t = cxx_text(x->tu, c, x->a);
        if (t)
            return eval_limits(x, c, t);
    }
    return (cvals){ .unknown = true };
}

static cvals eval_var(fn_ctx *x, CXCursor ref, CXCursor var, int depth)
{
    cvals r = { .n = 0 };
    for (size_t i = 0; i < x->nvisiting; i++)
        if (clang_equalCursors(x->visiting[i], var)) {
            r.unknown = true;  /* x = f(x): a loop through the variable */
            return r;
        }
    if (x->nvisiting >= MAX_DEPTH || !cxx_charge(&x->budget, x->assigns.n)) {
        r.unknown = true;
        return r;
    }
    x->visiting[x->nvisiting++] = var;
    bool local = false;
    for (size_t i = 0; i < x->assigns.n; i++)
        if (clang_equalCursors(x->assigns.v[i].var, var)) {
            local = true;
            if (clang_Cursor_isNull(x->assigns.v[i].expr)) {
                r.unknown = true;
                continue;
            }
            cvals e = eval(x, x->assigns.v[i].expr, depth + 1);
            merge(&r, &e);
        }
    if (!local) {
        /* A constant defined outside this function (constexpr, const): its initialiser. */
        cxx_kids_t kd = cxx_kids(var);
        CXType t = clang_getCursorType(var);
        if (kd.n && cxx_is_expr(kd.v[kd.n - 1]) && clang_isConstQualifiedType(t)) {
            cvals e = eval(x, kd.v[kd.n - 1], depth + 1);
            merge(&r, &e);
        } else {
            r.unknown = true;
        }
    }
    x->nvisiting--;
    (void)ref;
    return r;
}

static CXCursor pointer_base(CXCursor c);

/* An id read (slot_mapping[i], a parameter positions_i): the id vocabulary's value when decl's name
 * and integer type say so, else r (what the evaluator found: nothing known). */
static cvals id_read(fn_ctx *x, CXCursor at, CXCursor decl, bool subscripted, cvals r)
{
    cval v = { .converted = false };
    if (!cxx_id_value(x->st, x->tu, at, decl, subscripted, x->src->path, x->a, &v.v))
        return r;
    cvals out = { .n = 0 };
    add_val(&out, &v);
    return out;
}

static cvals eval(fn_ctx *x, CXCursor c, int depth)
{
    cvals r = { .n = 0 };
    if (depth > MAX_DEPTH || !cxx_charge(&x->budget, 1)) {
        r.unknown = true;
        return r;
    }
    enum CXCursorKind k = clang_getCursorKind(c);
    double d;
    bool b32;
    switch (k) {
    case CXCursor_FloatingLiteral:
    case CXCursor_IntegerLiteral:
        if (clang_constant(c, &d, &b32)) {
            cval v = constant(x, c, d, b32);
            add_val(&r, &v);
        } else {
            r.unknown = true;
        }
        return r;
    case CXCursor_UnaryOperator: {
        cxx_kids_t kd = cxx_kids(c);
        char op = unop_char(x, c);
        if (kd.n == 1 && (op == '-' || op == '+')) {
            r = eval(x, kd.v[0], depth + 1);
            if (op == '-')
                r = negate(r);
            /* -1e9f, -FLT_MAX: the value is made here, with its sign. */
            for (size_t i = 0; i < r.n; i++)
                if (!r.v[i].converted && clang_getCursorKind(cxx_strip(kd.v[0])) != CXCursor_DeclRefExpr) {
                    r.v[i].v.text = cxx_text(x->tu, c, x->a);
                    cxx_any_loc(x->tu, c, x->src->path, x->a, &r.v[i].v.origin);
                }
            return r;
        }
        r.unknown = true;
        return r;
    }
    case CXCursor_ConditionalOperator: {
        cxx_kids_t kd = cxx_kids(c);
        if (kd.n != 3) {
            r.unknown = true;
            return r;
        }
        cvals a = eval(x, kd.v[1], depth + 1), b = eval(x, kd.v[2], depth + 1);
        merge(&r, &a);
        merge(&r, &b);
        return r;
    }
    case CXCursor_DeclRefExpr: {
        CXCursor ref = clang_getCursorReferenced(c);
        if (clang_getCursorKind(ref) == CXCursor_VarDecl)
            r = eval_var(x, c, ref, depth);
        else
            r.unknown = true;
        return r.n ? r : id_read(x, c, ref, false, r);
    }
    case CXCursor_ArraySubscriptExpr: {
        CXCursor base = pointer_base(c);
        r.unknown = true;
        return clang_Cursor_isNull(base) ? r : id_read(x, c, base, true, r);
    }
    case CXCursor_CallExpr:
        return eval_call(x, c, depth);
    case CXCursor_CStyleCastExpr:
    case CXCursor_CXXStaticCastExpr:
    case CXCursor_CXXFunctionalCastExpr: {
        cxx_kids_t kd = cxx_kids(c);
        size_t j = kd.n;
        while (j > 0 && !cxx_is_expr(kd.v[j - 1]))
            j--;
        if (!j) {
            r.unknown = true;
            return r;
        }
        cvals in = eval(x, kd.v[j - 1], depth + 1);
        const cxx_conv *te = cxx_type_entry(x->st, clang_getCursorType(c));
        if (!te)
            return in; /* a cast to another float type or one the table does not know: passes through */
        const char *api = cxx_text(x->tu, c, x->a);
        if (api && strchr(api, '('))
            api = arena_strndup(x->a, api, (size_t)(strchr(api, '(') - api));
        if (!api)
            api = "a cast";
        in = converted(in, conv_of(te->sat), api, te->dt_kind == CXD_FIXED, te->dtype);
        for (size_t i = 0; i < in.n; i++)
            in.v[i].conv_elem = in.v[i].conv_api == api && te->dt_kind == CXD_KV;
        return in;
    }
    default: {
        /* Parentheses, implicit conversions, temporaries: the one expression inside. */
        cxx_kids_t kd = cxx_kids(c);
        if ((k == CXCursor_ParenExpr || k == CXCursor_UnexposedExpr) && kd.n == 1 && cxx_is_expr(kd.v[0]))
            return eval(x, kd.v[0], depth + 1);
        if (k == CXCursor_UnexposedExpr && kd.n >= 1 && clang_getCursorKind(kd.v[0]) == CXCursor_CallExpr)
            return eval(x, kd.v[0], depth + 1);
        r.unknown = true;
        return r;
    }
    }
}

/* ---- caches ---- */

static bool is_ptr_decl(CXCursor d)
{
    enum CXCursorKind k = clang_getCursorKind(d);
    if (k != CXCursor_ParmDecl && k != CXCursor_VarDecl && k != CXCursor_FieldDecl)
        return false;
    CXType t = clang_getCursorType(d);
    return t.kind == CXType_Pointer || t.kind == CXType_ConstantArray || t.kind == CXType_IncompleteArray ||
           t.kind == CXType_Unexposed || t.kind == CXType_DependentSizedArray;
}

static CXType element_type(CXType t)
{
    if (t.kind == CXType_Pointer)
        return clang_getPointeeType(t);
    CXType e = clang_getArrayElementType(t);
    return e.kind != CXType_Invalid ? e : t;
}


/* Is decl a KV-cache pointer? Named like one, of element type cache_t, or computed from one. */
static bool is_cache_ptr(fn_ctx *x, CXCursor decl, int depth)
{
    if (!is_ptr_decl(decl) || depth > 4)
        return false;
    CXString s = clang_getCursorSpelling(decl);
    const char *name = clang_getCString(s);
    bool named = cxx_is_cache_name(x->st, name, strlen(name));
    clang_disposeString(s);
    size_t pair;
    if (named || (x->fn_sink && clang_getCursorKind(decl) == CXCursor_ParmDecl &&
                  cxx_sink_cache_param(x->fn_sink, decl, &pair)))
        return true;
    const cxx_conv *te = cxx_type_entry(x->st, element_type(clang_getCursorType(decl)));
    if (te && te->dt_kind == CXD_KV)
        return true;
    if (clang_getCursorKind(decl) != CXCursor_VarDecl || !cxx_charge(&x->budget, x->assigns.n))
        return false;
    for (size_t i = 0; i < x->assigns.n; i++)
        if (clang_equalCursors(x->assigns.v[i].var, decl) && !clang_Cursor_isNull(x->assigns.v[i].expr)) {
            CXCursor b = pointer_base(x->assigns.v[i].expr);
            if (!clang_Cursor_isNull(b) && is_cache_ptr(x, b, depth + 1))
                return true;
        }
    return false;
}

/* The declaration of the pointer an lvalue or pointer expression goes through: p in p[i], *p,
 * *(p + i), p + i, &p[i], reinterpret_cast<T*>(p). Null cursor when there is none. */
static CXCursor pointer_base(CXCursor c)
{
    for (int i = 0; i < MAX_DEPTH; i++) {
        c = cxx_strip(c);
        enum CXCursorKind k = clang_getCursorKind(c);
        cxx_kids_t kd = cxx_kids(c);
        if (k == CXCursor_DeclRefExpr)
            return clang_getCursorReferenced(c);
        if (k == CXCursor_ArraySubscriptExpr && kd.n == 2) {
            c = kd.v[0];
            continue;
        }
        if (k == CXCursor_UnaryOperator && kd.n == 1) {
            c = kd.v[0];
            continue;
        }
        if (k == CXCursor_BinaryOperator && kd.n == 2) {
            /* p + i or i + p: the operand of pointer type */
            CXType t0 = clang_getCursorType(kd.v[0]);
            c = (t0.kind == CXType_Pointer || t0.kind == CXType_Unexposed || t0.kind == CXType_Dependent) ? kd.v[0] : kd.v[1];
            continue;
        }
        if (k == CXCursor_CallExpr && kd.n == 3) {  /* dependent p + i in a template */
            c = kd.v[0];
            continue;
        }
        break;
    }
    return clang_getNullCursor();
}

/* Is the lvalue a write through a pointer (not a local scalar or a member)? */
static bool writes_through_pointer(CXCursor lhs)
{
    CXCursor c = cxx_strip(lhs);
    enum CXCursorKind k = clang_getCursorKind(c);
    return k == CXCursor_ArraySubscriptExpr || k == CXCursor_UnaryOperator;
}

/* ---- the pre-pass ---- */

static void record_assign(fn_ctx *x, CXCursor stmt, CXCursor lhs, CXCursor rhs, bool plain)
{
    CXCursor l = cxx_strip(lhs);
    if (clang_getCursorKind(l) == CXCursor_DeclRefExpr) {
        CXCursor var = clang_getCursorReferenced(l);
        if (clang_getCursorKind(var) == CXCursor_VarDecl) {
            assign as = { var, plain ? rhs : clang_getNullCursor() };
            ARENA_PUSH(x->a, x->assigns, as);
        }
        return;
    }
    if (plain && writes_through_pointer(lhs)) {
        store_site s = { stmt, lhs, rhs };
        ARENA_PUSH(x->a, x->stores, s);
    }
}

/* A call of a sink of the table: kept for its stores; false when c is none. */
static bool record_sink_call(fn_ctx *x, CXCursor c)
{
    sink_call sc = { .call = c };
    if (!(sc.sink = cxx_sink_of_call(x->st, x->tu, c, x->a, &sc.first)))
        return false;
    ARENA_PUSH(x->a, x->sink_calls, sc);
    return true;
}

static enum CXChildVisitResult prepass(CXCursor c, CXCursor parent, CXClientData d)
{
    (void)parent;
    fn_ctx *x = d;
    if (!cxx_charge(&x->budget, 1))
        return CXChildVisit_Break;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_VarDecl) {
        cxx_kids_t kd = cxx_kids(c);
        if (kd.n && cxx_is_expr(kd.v[kd.n - 1])) {
            assign as = { c, kd.v[kd.n - 1] };
            ARENA_PUSH(x->a, x->assigns, as);
        }
    } else if (k == CXCursor_BinaryOperator || k == CXCursor_CompoundAssignOperator) {
        cxx_kids_t kd = cxx_kids(c);
        char op[4];
        if (kd.n == 2 && binop_after(x, kd.v[0], op) && op[strlen(op) - 1] == '=' && strcmp(op, "==") != 0 &&
            strcmp(op, "!=") != 0 && strcmp(op, "<=") != 0 && strcmp(op, ">=") != 0) {
            bool plain = strcmp(op, "=") == 0;
            record_assign(x, c, kd.v[0], kd.v[1], plain);
        }
    } else if (k == CXCursor_CallExpr && !record_sink_call(x, c) && clang_Cursor_getNumArguments(c) == 2) {
        CXString s = clang_getCursorSpelling(c);
        bool op_assign = strcmp(clang_getCString(s), "operator=") == 0;
        clang_disposeString(s);
        if (op_assign) {
            record_assign(x, c, clang_Cursor_getArgument(c, 0), clang_Cursor_getArgument(c, 1), true);
        }
    } else if (k == CXCursor_UnaryOperator) {
        cxx_kids_t kd = cxx_kids(c);
        char op = unop_char(x, c);
        if (kd.n == 1 && (op == '+' || op == '-')) {
            /* ++x / --x (a prefix '+' or '-' alone is not a write; the bytes say which) */
            unsigned off;
            if (offset_of(x, clang_getRangeStart(clang_getCursorExtent(c)), &off) && off + 1 < x->buflen &&
                x->buf[off + 1] == op)
                record_assign(x, c, kd.v[0], clang_getNullCursor(), false);
        } else if (kd.n == 1) {
            unsigned off;
            if (offset_of(x, clang_getRangeEnd(clang_getCursorExtent(c)), &off) && off >= 2 &&
                (strncmp(x->buf + off - 2, "++", 2) == 0 || strncmp(x->buf + off - 2, "--", 2) == 0))
                record_assign(x, c, kd.v[0], clang_getNullCursor(), false);
        }
    }
    return CXChildVisit_Recurse;
}

/* ---- facts ---- */

static kv_operand operand_of(const char *name)
{
    if (strncmp(name, "kv", 2) == 0 || strstr(name, "_kv"))
        return OPERAND_KV;
    if (strstr(name, "key") || name[0] == 'k')
        return OPERAND_KEY;
    if (strstr(name, "value") || name[0] == 'v')
        return strncmp(name, "kv", 2) == 0 ? OPERAND_KV : OPERAND_VALUE;
    return OPERAND_KV;
}

/* A value a rule may judge: a sentinel, or an id of the vocabulary's families. */
static bool special(const cval *v)
{
    return v->v.kind == VK_SENTINEL || (v->v.kind == VK_INTEGER && v->v.family);
}

static void push_fact(fn_ctx *x, store_fact f, const cval *v, const char *name, const char *why)
{
    kv_arena *a = x->a;
    kv_value *kv = arena_zalloc(a, sizeof *kv);
    *kv = v->v;
    kv_step *step = arena_zalloc(a, sizeof *step);
    step->loc = f.loc;
    step->what = arena_printf(a, "stored into %s by %s%s", name, f.conv_api, why);
    kv->steps = step;
    kv->nsteps = 1;
    f.values = kv;
    f.nvalues = 1;
    ARENA_PUSH(a, x->out->stores, f);
}

/* A cache_t store whose template the unit instantiates: one fact per fixed float type cache_t
 * takes there; false when the KV dtype must still be checked (no site, an unknown argument, or a
 * byte container such as uint8_t among the types). */
static bool emit_dispatched(fn_ctx *x, const store_fact *base, const cval *v, const char *name, const char *param)
{
    cxx_param_types pt;
    cxx_param_types_of(x->st, &x->dispatch, x->fn, param, &pt);
    for (size_t k = 0; k < pt.n; k++) {
        store_fact f = *base;
        const cxx_conv *te = pt.types[k].entry;
        if (!v->converted || v->conv_elem)
            f.conv = conv_of(te->sat);
        if (!v->converted)
            f.conv_api = arena_printf(x->a, "assignment to %s (%s)", pt.types[k].name, param);
        f.cache_dtype = (dtype_ref){ .kind = DREF_CONCRETE, .dtype = te->dtype,
                                     .text = arena_printf(x->a, "%s = %s", param, pt.types[k].name), .loc = pt.types[k].at };
        push_fact(x, f, v, name,
                  arena_printf(x->a, " (%s is %s at %s:%u)", param, pt.types[k].name, pt.types[k].at.path, pt.types[k].at.line));
    }
    return pt.n > 0 && !pt.containers && !pt.open;
}

/* A store of s->rhs through the pointer cache: by a subscript or dereference (sink NULL), or by a
 * call of a sink of the table, into its pair-th cache parameter (which converts as it says). */
static void emit_store(fn_ctx *x, const store_site *s, CXCursor cache, const cxx_sink *sink, size_t pair)
{
    cvals vals = eval(x, s->rhs, 0);
    if (sink && sink->conv != CXK_ELEMENT) {
        static const store_conv conv[] = { [CXK_FP8_SATURATING] = CONV_SATURATING_FP8,
                                           [CXK_SATURATING] = CONV_SATURATING, [CXK_NONSATURATING] = CONV_NONSATURATING };
        vals = converted(vals, conv[sink->conv], sink->name, false, KVN_DTYPE_INVALID);
    }
    size_t nspecial = 0;
    for (size_t i = 0; i < vals.n; i++)
        nspecial += special(&vals.v[i]);
    if (!nspecial)
        return;
    kv_arena *a = x->a;
    CXString cs = clang_getCursorSpelling(cache);
    const char *name = arena_strdup(a, clang_getCString(cs));
    clang_disposeString(cs);
    CXType elem = element_type(clang_getCursorType(cache));
    const cxx_conv *te = cxx_type_entry(x->st, elem);
    char elem_name[128];
    cxx_bare_type(elem, elem_name, sizeof elem_name);
    kv_loc at;
    if (!cxx_main_loc(x->tu, s->stmt, x->src->path, &at))
        return;
    /* One fact per (conversion, dtype) group of values, so each carries its own conversion. */
    for (size_t i = 0; i < vals.n; i++) {
        const cval *v = &vals.v[i];
        if (!special(v))
            continue;
        store_fact f = { .loc = at, .family = SINK_DIRECT, .sink = name, .operand = operand_of(name),
                         .tensor = cxx_text(x->tu, s->lhs, a) };
        if (sink) {
            f.family = SINK_CACHE_OP;
            f.sink = sink->name;
            f.engine = sink->engine;
            f.operand = sink->latent ? OPERAND_KV : pair == 0 ? OPERAND_KEY : OPERAND_VALUE;
        }
        if (v->converted) {
            f.conv = v->conv;
            f.conv_api = v->conv_api;
            if (v->conv_fixed)
                f.cache_dtype = (dtype_ref){ .kind = DREF_CONCRETE, .dtype = v->conv_dtype, .text = v->conv_api, .loc = at };
        } else if (te) {
            f.conv = conv_of(te->sat);
            f.conv_api = arena_printf(a, "assignment to %s", elem_name);
            if (te->dt_kind == CXD_FIXED)
                f.cache_dtype = (dtype_ref){ .kind = DREF_CONCRETE, .dtype = te->dtype, .text = arena_strdup(a, elem_name), .loc = at };
        } else {
            continue; /* a float assigned to an element type the table does not know (uint8_t) */
        }
        if (f.cache_dtype.kind != DREF_CONCRETE && te && te->dt_kind == CXD_FIXED)
            f.cache_dtype = (dtype_ref){ .kind = DREF_CONCRETE, .dtype = te->dtype, .text = arena_strdup(a, elem_name), .loc = at };
        /* cache_t: the types the unit instantiates it with, else (or also) the deployment's KV dtype */
        if (f.cache_dtype.kind != DREF_CONCRETE && te && te->dt_kind == CXD_KV && emit_dispatched(x, &f, v, name, elem_name))
            continue;
        push_fact(x, f, v, name, "");
    }
}

static void analyze_function(fn_ctx *x, CXCursor fn)
{
    x->fn = fn;
    x->fn_sink = cxx_sink_of_function(x->st, fn);
    x->assigns.n = x->assigns.cap = 0;
    x->assigns.v = NULL;
    x->stores.n = x->stores.cap = 0;
    x->stores.v = NULL;
    x->sink_calls.n = x->sink_calls.cap = 0;
    x->sink_calls.v = NULL;
    clang_visitChildren(fn, prepass, x);
    for (size_t i = 0; i < x->stores.n && cxx_charge(&x->budget, 1); i++) {
        CXCursor base = pointer_base(x->stores.v[i].lhs);
        if (!clang_Cursor_isNull(base) && is_cache_ptr(x, base, 0))
            emit_store(x, &x->stores.v[i], base, NULL, 0);
    }
    /* A sink's call stores each value argument into its cache argument, whatever that is named. */
    for (size_t i = 0; i < x->sink_calls.n && cxx_charge(&x->budget, 1); i++) {
        const sink_call *sc = &x->sink_calls.v[i];
        for (size_t p = 0; p < sc->sink->npairs; p++) {
            unsigned ci = sc->first + (unsigned)sc->sink->cache[p], vi = sc->first + (unsigned)sc->sink->value[p];
            if ((int)ci >= clang_Cursor_getNumArguments(sc->call) || (int)vi >= clang_Cursor_getNumArguments(sc->call))
                continue; /* a defaulted parameter: nothing passed */
            store_site site = { sc->call, clang_Cursor_getArgument(sc->call, ci), clang_Cursor_getArgument(sc->call, vi) };
            CXCursor base = pointer_base(site.lhs);
            if (!clang_Cursor_isNull(base))
                emit_store(x, &site, base, sc->sink, p);
        }
    }
}

static bool is_function(enum CXCursorKind k)
{
    return k == CXCursor_FunctionDecl || k == CXCursor_FunctionTemplate || k == CXCursor_CXXMethod ||
           k == CXCursor_Constructor || k == CXCursor_Destructor || k == CXCursor_ConversionFunction;
}

static enum CXChildVisitResult top_level(CXCursor c, CXCursor parent, CXClientData d)
{
    (void)parent;
    fn_ctx *x = d;
    if (!cxx_charge(&x->budget, 1))
        return CXChildVisit_Break;
    if (!clang_Location_isFromMainFile(clang_getCursorLocation(c)))
        return CXChildVisit_Continue;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (is_function(k)) {
        if (clang_isCursorDefinition(c))
            analyze_function(x, c);
        return CXChildVisit_Continue;
    }
    if (k == CXCursor_Namespace || k == CXCursor_ClassDecl || k == CXCursor_StructDecl ||
        k == CXCursor_ClassTemplate || k == CXCursor_LinkageSpec || k == CXCursor_UnexposedDecl)
        return CXChildVisit_Recurse;
    return CXChildVisit_Continue;
}

void cxx_analyze_unit(const cxx_state *st, CXTranslationUnit tu, const fe_source *src, file_facts *out)
{
    fn_ctx x = { .st = st, .tu = tu, .src = src, .out = out, .a = out->arena };
    CXFile mf = clang_getFile(tu, src->path);
    x.buf = mf ? clang_getFileContents(tu, mf, &x.buflen) : NULL;
    if (!x.buf) {
        x.buf = src->data;
        x.buflen = src->len;
    }
    x.budget = cxx_budget_for(st, x.buflen);
    cxx_dispatch_collect(tu, src, x.a, &x.budget, &x.dispatch);
    if (!x.budget.spent)
        clang_visitChildren(clang_getTranslationUnitCursor(tu), top_level, &x);
    if (x.budget.spent)
        diag_limit(&out->diags, DIAG_NOTE, src->path, 0, 0,
                   "analysis stopped after its budget of %zu steps for this file (%zu + %zu per byte); "
                   "stores after that point are not checked",
                   x.budget.total, st->budget_steps, st->budget_steps_per_byte);

}
