/*
 * cxxtypes.c: what type a cache element is. The table entry of a libclang type (`__half`,
 * `c10::Half`, through typedefs to the canonical type), and which concrete types a kernel
 * template's type parameter (`cache_t`) takes in the translation unit:
 *  - calls and launches that clang resolved to a specialisation (`k<float, __half><<<g, b>>>(...)`,
 *    also where a DISPATCH_BY_KV_CACHE_DTYPE-style macro expands to them, and with deduced
 *    arguments);
 *  - explicit instantiations (`template __global__ void k<float, __half>(...);`), read from the main
 *    file's tokens because libclang 14 has no cursor for them; matched by the template's name.
 * A call from inside another template whose arguments are dependent is not resolved by clang and is
 * not seen: the set can miss types (a store then goes unchecked for them), never invent one.
 * It knows no rule and no deployment; cxxeval.c decides what a set means for a store.
 */
#include <stdio.h>
#include <string.h>

#include "cxx/cxxfe.h"

void cxx_bare_type(CXType t, char *buf, size_t n)
{
    CXString s = clang_getTypeSpelling(t);
    const char *p = clang_getCString(s);
    const char *words[] = { "const ", "volatile ", "struct ", "class ", "__restrict ", "typename " };
    for (bool again = true; again;) {
        again = false;
        for (size_t i = 0; i < sizeof words / sizeof *words; i++)
            if (strncmp(p, words[i], strlen(words[i])) == 0) {
                p += strlen(words[i]);
                again = true;
            }
    }
    snprintf(buf, n, "%s", p);
    size_t l = strlen(buf);
    while (l && (buf[l - 1] == ' ' || buf[l - 1] == '&'))
        buf[--l] = '\0';
    clang_disposeString(s);
}

const cxx_conv *cxx_type_entry(const cxx_state *st, CXType t)
{
    char name[256];
    cxx_bare_type(t, name, sizeof name);
    const cxx_conv *e = cxx_find(st->types.v, st->types.n, name);
    if (!e) {
        CXType canon = clang_getCanonicalType(t);
        if (canon.kind != CXType_Unexposed) {
            cxx_bare_type(canon, name, sizeof name);
            e = cxx_find(st->types.v, st->types.n, name);
        }
    }
    return e;
}

/* ---- instantiations in the unit ---- */

typedef struct walk {
    CXTranslationUnit tu;
    const fe_source *src;
    kv_arena *a;
    cxx_budget *budget;        /* one step per cursor visited, one per token read */
    cxx_dispatch *out;
} walk;

static const char *spelling(CXCursor c, kv_arena *a)
{
    CXString s = clang_getCursorSpelling(c);
    const char *r = arena_strdup(a, clang_getCString(s));
    clang_disposeString(s);
    return r;
}

static void add_call(walk *w, CXCursor call)
{
    CXCursor fn = clang_getCursorReferenced(call);
    if (clang_getCursorKind(fn) != CXCursor_FunctionDecl && clang_getCursorKind(fn) != CXCursor_CXXMethod)
        return;
    CXCursor tmpl = clang_getSpecializedCursorTemplate(fn);
    int n = clang_Cursor_getNumTemplateArguments(fn);
    if (clang_Cursor_isNull(tmpl) || n <= 0)
        return;
    cxx_inst in = { .tmpl = tmpl, .name = spelling(tmpl, w->a), .nargs = (size_t)n };
    in.args = arena_zalloc(w->a, (size_t)n * sizeof *in.args);
    for (int i = 0; i < n; i++)
        if (clang_Cursor_getTemplateArgumentKind(fn, (unsigned)i) == CXTemplateArgumentKind_Type) {
            in.args[i].type = clang_Cursor_getTemplateArgumentType(fn, (unsigned)i);
            in.args[i].known = true;
        }
    if (!cxx_main_loc(w->tu, call, w->src->path, &in.at))
        return;
    ARENA_PUSH(w->a, w->out->v, in);
}

static enum CXChildVisitResult visit(CXCursor c, CXCursor parent, CXClientData d)
{
    (void)parent;
    walk *w = d;
    if (!cxx_charge(w->budget, 1))
        return CXChildVisit_Break;
    if (clang_getCursorKind(c) == CXCursor_CallExpr)
        add_call(w, c);
    return CXChildVisit_Recurse;
}

static enum CXChildVisitResult top(CXCursor c, CXCursor parent, CXClientData d)
{
    (void)parent;
    walk *w = d;
    if (w->budget->spent)
        return CXChildVisit_Break;
    if (clang_Location_isFromMainFile(clang_getCursorLocation(c)))
        clang_visitChildren(c, visit, w);
    return CXChildVisit_Continue;
}

typedef struct toks {
    CXTranslationUnit tu;
    CXToken *v;
    unsigned n;
} toks;

static bool tok_is(const toks *t, unsigned i, const char *s)
{
    if (i >= t->n)
        return false;
    CXString sp = clang_getTokenSpelling(t->tu, t->v[i]);
    bool eq = strcmp(clang_getCString(sp), s) == 0;
    clang_disposeString(sp);
    return eq;
}

static bool tok_word(const toks *t, unsigned i)
{
    CXTokenKind k = clang_getTokenKind(t->v[i]);
    return k == CXToken_Identifier || k == CXToken_Keyword;
}

/* The template arguments after the `<` at i, as written; the index after the closing `>`. */
static unsigned explicit_args(walk *w, const toks *t, unsigned i, cxx_inst *in)
{
    ARENA_VEC(cxx_targ) args = {0};
    char buf[256] = "";
    size_t len = 0;
    int depth = 1;
    for (i++; i < t->n && depth > 0; i++) {
        CXString sp = clang_getTokenSpelling(t->tu, t->v[i]);
        const char *s = clang_getCString(sp);
        int closes = !strcmp(s, ">") ? 1 : !strcmp(s, ">>") ? 2 : 0;
        bool end = !strcmp(s, ";") || !strcmp(s, "{");
        if (!strcmp(s, "<"))
            depth++;
        if ((depth == 1 && !strcmp(s, ",")) || depth - closes <= 0) {
            cxx_targ a = { .text = arena_strdup(w->a, buf), .known = len > 0 };
            ARENA_PUSH(w->a, args, a);
            len = 0;
            buf[0] = '\0';
        } else if (!end) {
            bool space = len && tok_word(t, i) && i > 0 && tok_word(t, i - 1);
            len += (size_t)snprintf(buf + len, sizeof buf - (len < sizeof buf ? len : sizeof buf), "%s%s",
                                    space ? " " : "", s);
            if (len >= sizeof buf)
                len = sizeof buf - 1;
        }
        depth -= closes;
        clang_disposeString(sp);
        if (end)
            return t->n;  /* not a template argument list */
    }
    in->args = args.v;
    in->nargs = args.n;
    return i;
}

/* `template [extern-free declaration] name<args>(`: an explicit instantiation of a function. */
static void explicit_instantiations(walk *w)
{
    CXFile f = clang_getFile(w->tu, w->src->path);
    if (!f)
        return;
    size_t len = 0;
    if (!clang_getFileContents(w->tu, f, &len) || len == 0)
        return;
    CXSourceRange r = clang_getRange(clang_getLocationForOffset(w->tu, f, 0),
                                     clang_getLocationForOffset(w->tu, f, (unsigned)len));
    toks t = { .tu = w->tu };
    clang_tokenize(w->tu, r, &t.v, &t.n);
    if (!cxx_charge(w->budget, t.n)) {
        clang_disposeTokens(w->tu, t.v, t.n);
        return;
    }
    for (unsigned i = 0; i + 1 < t.n; i++) {
        if (!tok_is(&t, i, "template") || tok_is(&t, i + 1, "<") || tok_is(&t, i + 1, "class") ||
            tok_is(&t, i + 1, "struct"))
            continue;
        for (unsigned j = i + 1; j + 1 < t.n && !tok_is(&t, j, ";") && !tok_is(&t, j, "{"); j++) {
            if (clang_getTokenKind(t.v[j]) != CXToken_Identifier || !tok_is(&t, j + 1, "<"))
                continue;
            CXString sp = clang_getTokenSpelling(t.tu, t.v[j]);
            cxx_inst in = { .tmpl = clang_getNullCursor(), .name = arena_strdup(w->a, clang_getCString(sp)) };
            clang_disposeString(sp);
            unsigned after = explicit_args(w, &t, j + 1, &in);
            if (after < t.n && tok_is(&t, after, "(")) {
                unsigned line, col;
                clang_getExpansionLocation(clang_getTokenLocation(t.tu, t.v[j]), NULL, &line, &col, NULL);
                in.at = kv_loc_make(w->src->path, line, col, 0, 0);
                ARENA_PUSH(w->a, w->out->v, in);
            }
            i = j;
            break;
        }
    }
    clang_disposeTokens(w->tu, t.v, t.n);
}

void cxx_dispatch_collect(CXTranslationUnit tu, const fe_source *src, kv_arena *a, cxx_budget *b, cxx_dispatch *out)
{
    walk w = { .tu = tu, .src = src, .a = a, .budget = b, .out = out };
    clang_visitChildren(clang_getTranslationUnitCursor(tu), top, &w);
    explicit_instantiations(&w);
}

typedef struct param_walk {
    const char *param;
    int i, found;
} param_walk;

static enum CXChildVisitResult count_param(CXCursor c, CXCursor parent, CXClientData d)
{
    (void)parent;
    param_walk *p = d;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k != CXCursor_TemplateTypeParameter && k != CXCursor_NonTypeTemplateParameter &&
        k != CXCursor_TemplateTemplateParameter)
        return CXChildVisit_Continue;
    CXString s = clang_getCursorSpelling(c);
    if (k == CXCursor_TemplateTypeParameter && strcmp(clang_getCString(s), p->param) == 0 && p->found < 0)
        p->found = p->i;
    clang_disposeString(s);
    p->i++;
    return CXChildVisit_Continue;
}

static bool same_template(const cxx_inst *in, CXCursor tmpl, const char *name)
{
    if (!clang_Cursor_isNull(in->tmpl))
        return clang_equalCursors(in->tmpl, tmpl);
    return strcmp(in->name, name) == 0;
}

void cxx_param_types_of(const cxx_state *st, const cxx_dispatch *d, CXCursor fn, const char *param,
                     cxx_param_types *out)
{
    memset(out, 0, sizeof *out);
    if (clang_getCursorKind(fn) != CXCursor_FunctionTemplate)
        return;
    param_walk pw = { .param = param, .i = 0, .found = -1 };
    clang_visitChildren(fn, count_param, &pw);
    if (pw.found < 0)
        return;
    CXString s = clang_getCursorSpelling(fn);
    const char *name = clang_getCString(s);
    for (size_t i = 0; i < d->v.n; i++) {
        const cxx_inst *in = &d->v.v[i];
        if (!same_template(in, fn, name))
            continue;
        out->sites++;
        const cxx_targ *a = (size_t)pw.found < in->nargs ? &in->args[pw.found] : NULL;
        const cxx_conv *te = NULL;
        char type[128] = "";
        if (a && a->known && a->text) {
            snprintf(type, sizeof type, "%s", a->text);
            te = cxx_find(st->types.v, st->types.n, type);
        } else if (a && a->known) {
            cxx_bare_type(a->type, type, sizeof type);
            te = cxx_type_entry(st, a->type);
        }
        if (!a || !a->known || !type[0]) {
            out->open = true;  /* deduced or not a type: unknown here */
            continue;
        }
        if (!te || te->dt_kind != CXD_FIXED) {
            out->containers = true;  /* uint8_t, uint16_t: bytes whose format the KV dtype decides */
            continue;
        }
        bool dup = false;
        for (size_t k = 0; k < out->n && !dup; k++)
            dup = out->types[k].entry->dtype == te->dtype;
        if (!dup && out->n < CXX_MAX_PARAM_TYPES) {
            out->types[out->n].entry = te;
            snprintf(out->types[out->n].name, sizeof out->types[out->n].name, "%s", type);
            out->types[out->n].at = in->at;
            out->n++;
        }
    }
    clang_disposeString(s);
}
