/*
 * cxxsinks.c: the C/C++/CUDA sink table (grammars/cxx/sinks.tsv) and how a function definition
 * or a call is matched against it.
 *
 * A sink is an exact signature copied from an engine's source: a function whose cache parameters
 * are KV caches (whatever their names) and whose value parameters are stored into them. A
 * definition matches when its qualified name ends with the table's name on a `::` boundary and
 * its parameter count fits; a call matches the same way through the function clang resolves it
 * to, or, in a template where the callee is dependent, through the callee as written (template
 * arguments dropped; a call operator through the type of the object called). Overloads that take
 * a different number of arguments are not the sink.
 *
 * What it does not do: evaluate anything or make facts (cxxeval.c does, with the pairs this file
 * hands it), or know any function by name in C.
 */
#include <stdio.h>
#include <string.h>

#include "cxx/cxxfe.h"

enum { MAX_PARAMS = 64, QNAME_MAX = 512 };

static size_t split_list(kv_arena *a, const char *s, const char **out, size_t max)
{
    size_t n = 0;
    while (*s && n < max) {
        size_t len = strcspn(s, ",");
        out[n++] = arena_strndup(a, s, len);
        s += len;
        if (*s == ',')
            s++;
    }
    return n;
}

static bool param_index(const cxx_sink *k, const char *name, size_t *out)
{
    for (size_t i = 0; i < k->nparams; i++)
        if (strcmp(k->params[i], name) == 0) {
            *out = i;
            return true;
        }
    return false;
}

bool cxx_sink_parse(kv_arena *a, char **f, size_t n, cxx_sink *out)
{
    static const struct { const char *name; cxx_sink_conv conv; } convs[] = {
        { "element", CXK_ELEMENT }, { "fp8-saturating", CXK_FP8_SATURATING },
        { "saturating", CXK_SATURATING }, { "non-saturating", CXK_NONSATURATING },
    };
    memset(out, 0, sizeof *out);
    if (n < 8 || strcmp(f[0], "sink") != 0)
        return false;
    out->name = arena_strdup(a, f[1]);
    const char *raw[MAX_PARAMS];
    out->nparams = split_list(a, f[2], raw, MAX_PARAMS);
    const char **params = arena_zalloc(a, (out->nparams ? out->nparams : 1) * sizeof *params);
    for (size_t i = 0; i < out->nparams; i++) {
        size_t len = strlen(raw[i]);
        bool dflt = len && raw[i][len - 1] == '=';
        params[i] = dflt ? arena_strndup(a, raw[i], len - 1) : raw[i];
        if (!dflt && out->nrequired != i)
            return false; /* a required parameter after a defaulted one */
        out->nrequired += !dflt;
    }
    out->params = params;
    const char *caches[CXX_SINK_MAX_PAIRS + 1], *values[CXX_SINK_MAX_PAIRS + 1];
    size_t nc = split_list(a, f[3], caches, CXX_SINK_MAX_PAIRS + 1);
    size_t nv = split_list(a, f[4], values, CXX_SINK_MAX_PAIRS + 1);
    if (nc == 0 || nc > CXX_SINK_MAX_PAIRS || nc != nv)
        return false;
    for (size_t i = 0; i < nc; i++)
        if (!param_index(out, caches[i], &out->cache[i]) || !param_index(out, values[i], &out->value[i]))
            return false;
    out->npairs = nc;
    size_t c = 0;
    while (c < sizeof convs / sizeof convs[0] && strcmp(convs[c].name, f[5]) != 0)
        c++;
    if (c == sizeof convs / sizeof convs[0])
        return false;
    out->conv = convs[c].conv;
    if (!engine_parse(f[6], &out->engine))
        return false;
    if (strcmp(f[7], "kv") == 0)
        out->latent = true;
    else if (strcmp(f[7], "kv-split") != 0)
        return false;
    return true;
}

/* "const ns::Klass<T, U>::fn<V> &" -> "ns::Klass::fn", in place: template arguments, a leading
 * const and trailing spaces and & dropped. */
static void drop_template_args(char *s)
{
    char *w = s;
    int depth = 0;
    for (char *r = s; *r; r++) {
        if (*r == '<' && !(r - s >= 8 && strncmp(r - 8, "operator", 8) == 0))
            depth++;
        else if (*r == '>' && depth > 0)
            depth--;
        else if (depth == 0)
            *w++ = *r;
    }
    *w = '\0';
    while (w > s && (w[-1] == ' ' || w[-1] == '&'))
        *--w = '\0';
    if (strncmp(s, "const ", 6) == 0)
        memmove(s, s + 6, strlen(s + 6) + 1);
}

/* The qualified name of a declaration: its spelling after its enclosing namespaces and classes. */
static void qualified_name(CXCursor c, char *buf, size_t n)
{
    CXString s = clang_getCursorSpelling(c);
    snprintf(buf, n, "%s", clang_getCString(s));
    clang_disposeString(s);
    for (CXCursor p = clang_getCursorSemanticParent(c); !clang_Cursor_isNull(p);
         p = clang_getCursorSemanticParent(p)) {
        enum CXCursorKind k = clang_getCursorKind(p);
        if (k != CXCursor_Namespace && k != CXCursor_ClassDecl && k != CXCursor_StructDecl &&
            k != CXCursor_ClassTemplate && k != CXCursor_ClassTemplatePartialSpecialization)
            break;
        CXString ps = clang_getCursorSpelling(p);
        char tmp[QNAME_MAX];
        snprintf(tmp, sizeof tmp, "%s::%s", clang_getCString(ps), buf);
        clang_disposeString(ps);
        snprintf(buf, n, "%s", tmp);
    }
}

static bool name_matches(const char *qualified, const char *name)
{
    size_t q = strlen(qualified), m = strlen(name);
    if (m > q || strcmp(qualified + q - m, name) != 0)
        return false;
    return q == m || (q - m >= 2 && qualified[q - m - 1] == ':' && qualified[q - m - 2] == ':');
}

static const cxx_sink *find(const cxx_state *st, const char *qualified, size_t nargs)
{
    for (size_t i = 0; i < st->sinks.n; i++) {
        const cxx_sink *k = &st->sinks.v[i];
        if (nargs >= k->nrequired && nargs <= k->nparams && name_matches(qualified, k->name))
            return k;
    }
    return NULL;
}

static enum CXChildVisitResult count_parm(CXCursor c, CXCursor parent, CXClientData d)
{
    (void)parent;
    if (clang_getCursorKind(c) == CXCursor_ParmDecl)
        ++*(size_t *)d;
    return CXChildVisit_Continue;
}

const cxx_sink *cxx_sink_of_function(const cxx_state *st, CXCursor fn)
{
    if (!st->sinks.n)
        return NULL;
    char q[QNAME_MAX];
    qualified_name(fn, q, sizeof q);
    size_t nparams = 0;
    clang_visitChildren(fn, count_parm, &nparams);
    return find(st, q, nparams);
}

bool cxx_sink_cache_param(const cxx_sink *k, CXCursor parm, size_t *pair)
{
    CXString s = clang_getCursorSpelling(parm);
    const char *name = clang_getCString(s);
    bool found = false;
    for (size_t i = 0; i < k->npairs && !found; i++)
        if (strcmp(k->params[k->cache[i]], name) == 0) {
            *pair = i;
            found = true;
        }
    clang_disposeString(s);
    return found;
}

static bool is_function_kind(enum CXCursorKind k)
{
    return k == CXCursor_FunctionDecl || k == CXCursor_FunctionTemplate || k == CXCursor_CXXMethod ||
           k == CXCursor_ConversionFunction;
}

/* The callee of an unresolved call as written: `ns::f<T>` -> "ns::f"; an object `op` of type
 * `Op<A, B>` called -> "Op::operator()". */
static void written_callee(CXTranslationUnit tu, CXCursor call, kv_arena *a, char *buf, size_t n)
{
    buf[0] = '\0';
    cxx_kids_t kd = cxx_kids(call);
    if (!kd.n)
        return;
    CXCursor callee = cxx_strip(kd.v[0]);
    if (clang_getCursorKind(callee) == CXCursor_DeclRefExpr) {
        CXCursor var = clang_getCursorReferenced(callee);
        enum CXCursorKind vk = clang_getCursorKind(var);
        if (vk == CXCursor_VarDecl || vk == CXCursor_ParmDecl || vk == CXCursor_FieldDecl) {
            CXString ts = clang_getTypeSpelling(clang_getCursorType(var));
            char t[QNAME_MAX / 2];
            snprintf(t, sizeof t, "%s", clang_getCString(ts));
            clang_disposeString(ts);
            drop_template_args(t);
            snprintf(buf, n, "%s::operator()", t);
            return;
        }
    }
    const char *text = cxx_text(tu, callee, a);
    if (!text)
        return;
    snprintf(buf, n, "%s", text);
    drop_template_args(buf);
}

const cxx_sink *cxx_sink_of_call(const cxx_state *st, CXTranslationUnit tu, CXCursor call, kv_arena *a,
                                 unsigned *first_arg)
{
    *first_arg = 0;
    int nargs = clang_Cursor_getNumArguments(call);
    if (!st->sinks.n || nargs < 0)
        return NULL;
    char q[QNAME_MAX];
    CXCursor ref = clang_getCursorReferenced(call);
    if (is_function_kind(clang_getCursorKind(ref))) {
        qualified_name(ref, q, sizeof q);
        /* obj(a, b) resolved to a call operator: the object is the first argument */
        CXString s = clang_getCursorSpelling(ref);
        bool op_call = strcmp(clang_getCString(s), "operator()") == 0;
        clang_disposeString(s);
        if (op_call && nargs > 0) {
            const cxx_sink *k = find(st, q, (size_t)nargs - 1);
            if (k) {
                *first_arg = 1;
                return k;
            }
        }
        return find(st, q, (size_t)nargs);
    }
    written_callee(tu, call, a, q, sizeof q);
    return q[0] ? find(st, q, (size_t)nargs) : NULL;
}
