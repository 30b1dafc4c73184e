/*
 * cxxtypes.c: what type a cache element is. The table entry of a libclang type (`__half`,
 * `c10::Half`, through typedefs to the canonical type), and which concrete types a kernel
 * template's type parameter (`cache_t`) takes in the translation unit:
 *  - calls and launches that clang resolved to a specialisation (`k<float, __half><<<g, b>>>(...)`,
 *    also where a DISPATCH_BY_KV_CACHE_DTYPE-style macro expands to them, and with deduced
 *    arguments);
 *  - explicit instantiations (`template __global__ void k<float, __half>(...);`), read from the main
 *    file's tokens because libclang 14 has no cursor for them; matched by the template's name.
 *  - calls and launches inside another function template that clang cannot resolve because their
 *    template arguments are dependent (`k<scalar_t, cache_t><<<g, b>>>(...)` inside
 *    `template <typename scalar_t, typename cache_t> void launch(...)`): the arguments are read as
 *    written, and one that names a type parameter of the enclosing template takes the types that
 *    parameter takes at the enclosing template's own sites, through at most four such templates.
 * A deduced argument of a dependent call, or an enclosing template the unit never instantiates,
 * leaves the set open (the KV dtype decides): the set can miss types, never invent one.
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
    bool has_within;
    CXCursor within;           /* the function template being walked, if any */
} walk;

typedef struct toks {
    CXTranslationUnit tu;
    CXToken *v;
    unsigned n;
} toks;

static unsigned explicit_args(walk *w, const toks *t, unsigned i, cxx_inst *in);

static const char *spelling(CXCursor c, kv_arena *a)
{
    CXString s = clang_getCursorSpelling(c);
    const char *r = arena_strdup(a, clang_getCString(s));
    clang_disposeString(s);
    return r;
}

/* A call resolved to a specialisation: its template and arguments; false when it is none. */
static bool add_call(walk *w, CXCursor call)
{
    CXCursor fn = clang_getCursorReferenced(call);
    if (clang_getCursorKind(fn) != CXCursor_FunctionDecl && clang_getCursorKind(fn) != CXCursor_CXXMethod)
        return false;
    CXCursor tmpl = clang_getSpecializedCursorTemplate(fn);
    int n = clang_Cursor_getNumTemplateArguments(fn);
    if (clang_Cursor_isNull(tmpl) || n <= 0)
        return false;
    cxx_inst in = { .tmpl = tmpl, .name = spelling(tmpl, w->a), .nargs = (size_t)n };
    in.args = arena_zalloc(w->a, (size_t)n * sizeof *in.args);
    for (int i = 0; i < n; i++)
        if (clang_Cursor_getTemplateArgumentKind(fn, (unsigned)i) == CXTemplateArgumentKind_Type) {
            in.args[i].type = clang_Cursor_getTemplateArgumentType(fn, (unsigned)i);
            in.args[i].known = true;
        }
    if (cxx_main_loc(w->tu, call, w->src->path, &in.at))
        ARENA_PUSH(w->a, w->out->v, in);
    return true;
}

static bool tok_is(const toks *t, unsigned i, const char *s);

/* A call inside a function template that clang left unresolved: `name<args>(...)` as written in
 * the callee's tokens, kept with the enclosing template. */
static void add_dependent_call(walk *w, CXCursor call)
{
    cxx_kids_t kd = cxx_kids(call);
    if (!w->has_within || !kd.n)
        return;
    toks t = { .tu = w->tu };
    clang_tokenize(w->tu, clang_getCursorExtent(kd.v[0]), &t.v, &t.n);
    if (cxx_charge(w->budget, t.n)) {
        /* the last name before the first `<`: ns::k<A, B> -> k */
        unsigned j = 0;
        while (j + 1 < t.n && !tok_is(&t, j + 1, "<"))
            j++;
        if (j + 1 < t.n && clang_getTokenKind(t.v[j]) == CXToken_Identifier) {
            CXString sp = clang_getTokenSpelling(t.tu, t.v[j]);
            cxx_inst in = { .tmpl = clang_getNullCursor(), .name = arena_strdup(w->a, clang_getCString(sp)),
                            .has_within = true, .within = w->within };
            clang_disposeString(sp);
            if (explicit_args(w, &t, j + 1, &in) <= t.n && in.nargs && cxx_main_loc(w->tu, call, w->src->path, &in.at))
                ARENA_PUSH(w->a, w->out->v, in);
        }
    }
    clang_disposeTokens(w->tu, t.v, t.n);
}

/* Children of a function template, walked with it as the enclosing template. */
static enum CXChildVisitResult visit(CXCursor c, CXCursor parent, CXClientData d);

static void visit_within(walk *w, CXCursor tmpl)
{
    bool had = w->has_within;
    CXCursor saved = w->within;
    w->has_within = true;
    w->within = tmpl;
    clang_visitChildren(tmpl, visit, w);
    w->has_within = had;
    w->within = saved;
}

static enum CXChildVisitResult visit(CXCursor c, CXCursor parent, CXClientData d)
{
    (void)parent;
    walk *w = d;
    if (!cxx_charge(w->budget, 1))
        return CXChildVisit_Break;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_FunctionTemplate) {
        visit_within(w, c);
        return CXChildVisit_Continue;
    }
    if (k == CXCursor_CallExpr && !add_call(w, c))
        add_dependent_call(w, c);
    return CXChildVisit_Recurse;
}

static enum CXChildVisitResult top(CXCursor c, CXCursor parent, CXClientData d)
{
    (void)parent;
    walk *w = d;
    if (w->budget->spent)
        return CXChildVisit_Break;
    if (!clang_Location_isFromMainFile(clang_getCursorLocation(c)) || cxx_is_instantiation(c))
        return CXChildVisit_Continue;
    if (clang_getCursorKind(c) == CXCursor_FunctionTemplate)
        visit_within(w, c);
    else
        clang_visitChildren(c, visit, w);
    return CXChildVisit_Continue;
}

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

/* The index of fn's template type parameter called param; -1 if it has none. */
static int type_param_index(CXCursor fn, const char *param)
{
    if (clang_getCursorKind(fn) != CXCursor_FunctionTemplate)
        return -1;
    param_walk pw = { .param = param, .i = 0, .found = -1 };
    clang_visitChildren(fn, count_param, &pw);
    return pw.found;
}

static void add_type(cxx_param_types *out, const cxx_conv *te, const char *type, kv_loc at)
{
    for (size_t k = 0; k < out->n; k++)
        if (out->types[k].entry->dtype == te->dtype)
            return;
    if (out->n < CXX_MAX_PARAM_TYPES) {
        out->types[out->n].entry = te;
        snprintf(out->types[out->n].name, sizeof out->types[out->n].name, "%s", type);
        out->types[out->n].at = at;
        out->n++;
    }
}

enum { MAX_ENCLOSING = 4 };

static void param_types(const cxx_state *st, const cxx_dispatch *d, CXCursor fn, const char *param,
                        cxx_param_types *out, int depth);

/* A dependent site's argument that names a type parameter of its enclosing template: the types
 * that parameter takes (open when the enclosing template has no site). False: it names none. */
static bool through_enclosing(const cxx_state *st, const cxx_dispatch *d, const cxx_inst *in, const cxx_targ *a,
                              cxx_param_types *out, int depth)
{
    if (!in->has_within || !a->text || type_param_index(in->within, a->text) < 0)
        return false;
    cxx_param_types sub;
    if (depth < MAX_ENCLOSING)
        param_types(st, d, in->within, a->text, &sub, depth + 1);
    if (depth >= MAX_ENCLOSING || sub.sites == 0) {
        out->open = true;
        return true;
    }
    for (size_t k = 0; k < sub.n; k++)
        add_type(out, sub.types[k].entry, sub.types[k].name, sub.types[k].at);
    out->containers |= sub.containers;
    out->open |= sub.open;
    return true;
}

void cxx_param_types_of(const cxx_state *st, const cxx_dispatch *d, CXCursor fn, const char *param,
                        cxx_param_types *out)
{
    param_types(st, d, fn, param, out, 0);
}

static void param_types(const cxx_state *st, const cxx_dispatch *d, CXCursor fn, const char *param,
                        cxx_param_types *out, int depth)
{
    memset(out, 0, sizeof *out);
    param_walk pw = { .found = type_param_index(fn, param) };
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
        if (a && a->known && through_enclosing(st, d, in, a, out, depth))
            continue;
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
        add_type(out, te, type, in->at);
    }
    clang_disposeString(s);
}
