/*
 * cxxwalk.c: from a libclang translation unit to store facts: which pointers are KV caches, which
 * stores write through them, and (with the evaluator, cxxeval.c) what each store may hold.
 *
 * Per function defined in the main file (templates are read as written, not per instantiation):
 *  1. a pre-pass records every local variable's assigned expressions (initialiser and `x = e`;
 *     a compound assignment, ++ or -- makes the variable unknown), every store through a pointer
 *     (`p[i] = e`, `*p = e`, `*(p + i) = e`, and the same through operator= of a class element
 *     type) and every call of a sink of grammars/cxx/sinks.tsv (cxxsinks.c);
 *  2. a store is kept when the pointer is a cache: a parameter or variable named like one (the
 *     shared cache-name patterns), one whose element type is the template parameter `cache_t`, a
 *     cache parameter of the sink the function is, or a pointer computed from such a pointer
 *     (`cache_t *dst = key_cache + off`). A float* logits or LSE buffer is none of these and stays
 *     silent. A sink's call stores its value argument into its cache argument;
 *  3. the stored expression is evaluated (cxxeval.c); only stores that may hold a special value
 *     (|x| >= KV_SENTINEL_MAGNITUDE, inf, a numeric limit) or an id become facts, one per value.
 * Every cursor visited, expression evaluated and assignment compared is a step of the unit's
 * budget (cxx_budget); when it is spent the walk stops where it is and the file gets a note: a
 * count, not a clock, so the facts of a file do not depend on the machine's load (a variable with
 * many assignments of variables with many assignments costs their product). A store whose left
 * operand ends inside a macro expansion is not seen.
 */
#include <string.h>

#include "cxx/cxxeval.h"

/* ---- caches ---- */

/* The declaration of the pointer an lvalue or pointer expression goes through: p in p[i], *p,
 * *(p + i), p + i, &p[i], reinterpret_cast<T*>(p). Null cursor when there is none. */
CXCursor cxx_pointer_base(CXCursor c)
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
            CXCursor b = cxx_pointer_base(x->assigns.v[i].expr);
            if (!clang_Cursor_isNull(b) && is_cache_ptr(x, b, depth + 1))
                return true;
        }
    return false;
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
        if (kd.n == 2 && cxx_binop_after(x, kd.v[0], op) && op[strlen(op) - 1] == '=' && strcmp(op, "==") != 0 &&
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
        char op = cxx_unop_char(x, c);
        if (kd.n == 1 && (op == '+' || op == '-')) {
            /* ++x / --x (a prefix '+' or '-' alone is not a write; the bytes say which) */
            unsigned off;
            if (cxx_offset_of(x, clang_getRangeStart(clang_getCursorExtent(c)), &off) && off + 1 < x->buflen &&
                x->buf[off + 1] == op)
                record_assign(x, c, kd.v[0], clang_getNullCursor(), false);
        } else if (kd.n == 1) {
            unsigned off;
            if (cxx_offset_of(x, clang_getRangeEnd(clang_getCursorExtent(c)), &off) && off >= 2 &&
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

/* A value a rule may judge: a sentinel, or an id of the vocabulary's id classes. */
static bool special(const cval *v)
{
    return v->v.kind == VK_SENTINEL || (v->v.kind == VK_INTEGER && v->v.id_class);
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
            f.conv = cxx_conv_of(te->sat);
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
    cvals vals = cxx_eval(x, s->rhs, 0);
    if (sink && sink->conv != CXK_ELEMENT) {
        static const store_conv conv[] = { [CXK_FP8_SATURATING] = CONV_SATURATING_FP8,
                                           [CXK_SATURATING] = CONV_SATURATING, [CXK_NONSATURATING] = CONV_NONSATURATING };
        /* facts outlive the table: its strings are copied into the file's arena */
        vals = cxx_converted(vals, conv[sink->conv], arena_strdup(x->a, sink->name), false, KVN_DTYPE_INVALID);
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
        store_fact f = { .loc = at, .via = SINK_DIRECT, .sink = name, .operand = operand_of(name),
                         .tensor = cxx_text(x->tu, s->lhs, a) };
        if (sink) {
            f.via = SINK_CACHE_OP;
            f.sink = arena_strdup(a, sink->name);
            f.engine = sink->engine;
            f.operand = sink->latent ? OPERAND_KV : pair == 0 ? OPERAND_KEY : OPERAND_VALUE;
        }
        if (v->converted) {
            f.conv = v->conv;
            f.conv_api = v->conv_api;
            if (v->conv_fixed)
                f.cache_dtype = (dtype_ref){ .kind = DREF_CONCRETE, .dtype = v->conv_dtype, .text = v->conv_api, .loc = at };
        } else if (te) {
            f.conv = cxx_conv_of(te->sat);
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
        CXCursor base = cxx_pointer_base(x->stores.v[i].lhs);
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
            CXCursor base = cxx_pointer_base(site.lhs);
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
    if (!clang_Location_isFromMainFile(clang_getCursorLocation(c)) || cxx_is_instantiation(c))
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
