/*
 * cxxeval.c: the values a stored C/C++/CUDA expression may hold, and the conversions on the way
 * (the walk that finds stores and makes facts is cxxwalk.c).
 *
 * Read: literals (and the macros that expand to them: -1e9f, -FLT_MAX), the table's sentinel
 * builtins (INFINITY is __builtin_inff()), constants through their initialisers (constexpr),
 * conditional expressions (both arms), local variables (every assignment the pre-pass recorded),
 * unary minus, bit-pattern readers (CUDART_INF_FP16 is __ushort_as_half(0x7C00)),
 * numeric_limits<T>::infinity()/lowest()/max(), fmin/fmax clamps, ids of the id vocabulary
 * (cxxids.c: slot_mapping[i]), and conversions from the table (static_cast<cache_t>,
 * __float2half, fp8::scaled_convert, __nv_cvt_float_to_fp8 with __NV_SATFINITE). Unknown stays
 * unknown. Arithmetic is not folded (1e2f * 1e3f is unknown): every special value therefore starts
 * at a literal of magnitude KV_SENTINEL_MAGNITUDE or more, at a word of the table, or at an id,
 * which is what the prefilter looks for. libclang 14 exposes no operator kinds, so an operator is
 * read from the source bytes after the left operand.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cxx/cxxeval.h"
#include "util/strlist.h"

/* ---- small helpers over cursors and the source bytes ---- */

bool cxx_offset_of(const fn_ctx *x, CXSourceLocation l, unsigned *off)
{
    return cxx_offset(x->tu, l, NULL, NULL, off);
}

/* The operator after the left operand of a binary expression ("=", "+=", "==", ...), from the bytes. */
bool cxx_binop_after(const fn_ctx *x, CXCursor lhs, char op[4])
{
    unsigned off;
    if (!cxx_offset_of(x, clang_getRangeEnd(clang_getCursorExtent(lhs)), &off))
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
char cxx_unop_char(const fn_ctx *x, CXCursor c)
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
cvals cxx_converted(cvals in, store_conv conv, const char *api, bool fixed, kvn_dtype dt)
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

store_conv cxx_conv_of(cxx_sat s)
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
    cvals in = n > 0 ? cxx_eval(x, clang_Cursor_getArgument(call, 0), 1) : (cvals){ .unknown = true };
    kvn_dtype dt = cv->dtype;
    bool fixed = cv->dt_kind == CXD_FIXED;
    store_conv conv = cxx_conv_of(cv->sat);
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
        conv = cxx_conv_of(w->sat);
    }
    return cxx_converted(in, conv, name, fixed, dt);
}

/* fminf(a, b) / fmaxf(a, b): constants fold; a numeric limit as the bound saturates. */
static cvals eval_clamp(fn_ctx *x, CXCursor call, bool is_min, int depth)
{
    cvals r = { .n = 0 };
    if (clang_Cursor_getNumArguments(call) != 2) {
        r.unknown = true;
        return r;
    }
    cvals a = cxx_eval(x, clang_Cursor_getArgument(call, 0), depth + 1);
    cvals b = cxx_eval(x, clang_Cursor_getArgument(call, 1), depth + 1);
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
        cvals r = cxx_converted(cxx_eval(x, clang_Cursor_getArgument(c, 0), depth + 1), cxx_conv_of(cv->sat), api,
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
        cvals r = negate(cxx_eval(x, clang_Cursor_getArgument(c, 0), depth + 1));
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
            cvals e = cxx_eval(x, x->assigns.v[i].expr, depth + 1);
            merge(&r, &e);
        }
    if (!local) {
        /* A constant defined outside this function (constexpr, const): its initialiser. */
        cxx_kids_t kd = cxx_kids(var);
        CXType t = clang_getCursorType(var);
        if (kd.n && cxx_is_expr(kd.v[kd.n - 1]) && clang_isConstQualifiedType(t)) {
            cvals e = cxx_eval(x, kd.v[kd.n - 1], depth + 1);
            merge(&r, &e);
        } else {
            r.unknown = true;
        }
    }
    x->nvisiting--;
    (void)ref;
    return r;
}

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

cvals cxx_eval(fn_ctx *x, CXCursor c, int depth)
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
        char op = cxx_unop_char(x, c);
        if (kd.n == 1 && (op == '-' || op == '+')) {
            r = cxx_eval(x, kd.v[0], depth + 1);
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
        cvals a = cxx_eval(x, kd.v[1], depth + 1), b = cxx_eval(x, kd.v[2], depth + 1);
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
        CXCursor base = cxx_pointer_base(c);
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
        cvals in = cxx_eval(x, kd.v[j - 1], depth + 1);
        const cxx_conv *te = cxx_type_entry(x->st, clang_getCursorType(c));
        if (!te)
            return in; /* a cast to another float type or one the table does not know: passes through */
        const char *api = cxx_text(x->tu, c, x->a);
        if (api && strchr(api, '('))
            api = arena_strndup(x->a, api, (size_t)(strchr(api, '(') - api));
        if (!api)
            api = "a cast";
        in = cxx_converted(in, cxx_conv_of(te->sat), api, te->dt_kind == CXD_FIXED, te->dtype);
        for (size_t i = 0; i < in.n; i++)
            in.v[i].conv_elem = in.v[i].conv_api == api && te->dt_kind == CXD_KV;
        return in;
    }
    default: {
        /* Parentheses, implicit conversions, temporaries: the one expression inside. */
        cxx_kids_t kd = cxx_kids(c);
        if ((k == CXCursor_ParenExpr || k == CXCursor_UnexposedExpr) && kd.n == 1 && cxx_is_expr(kd.v[0]))
            return cxx_eval(x, kd.v[0], depth + 1);
        if (k == CXCursor_UnexposedExpr && kd.n >= 1 && clang_getCursorKind(kd.v[0]) == CXCursor_CallExpr)
            return cxx_eval(x, kd.v[0], depth + 1);
        r.unknown = true;
        return r;
    }
    }
}
