/*
 * pyimports.c: the files a Python file imports, as paths to try (frontend.h's imports hook), so
 * that a run on named files (a pre-commit hook's) indexes the modules they import.
 *
 * Lexical: each statement that starts a line, at any indentation (an import inside a function, as
 * vLLM writes its lazy ones, is followed by the evaluator like a top-level one): `from M import a,
 * b as c` (M's module file or package `__init__.py`, and `a`, `b` as submodules of M) and
 * `import a.b [as c]`. A relative M (`.masks`, `..pkg`) is a path from the file's folder; an
 * absolute one is rooted (the caller tries it under each source root). It does not decide which
 * paths exist, and reads no `importlib` call, star-import contents or import after `:` on the
 * line of an `if` or `try`.
 */
#include <stdio.h>
#include <string.h>

#include "python/pyfe.h"
#include "python/pylexer.h"

enum { MAX_IMPORTS = 256, MAX_MODULE = 256 };

typedef enum phase { NONE, FROM_MODULE, FROM_NAMES, IMPORT_NAMES } phase;

typedef struct import_reader {
    fe_import *v;
    size_t n;
    kv_arena *a;
    phase ph;
    char mod[MAX_MODULE];   /* the module being read (`from M`, `import M`) */
    size_t mod_len;
    bool too_long;          /* it did not fit: nothing is emitted for it */
    bool alias;             /* the next word is an `as` name */
} import_reader;

static void add(import_reader *r, const char *dir, const char *sep, const char *name, const char *suffix, bool rooted)
{
    if (r->n < MAX_IMPORTS)
        r->v[r->n++] = (fe_import){ arena_printf(r->a, "%s%s%s%s", dir, sep, name, suffix), rooted };
}

/* Module m as a folder path into buf (dots to '/'; a leading `.` is the file's folder, each
 * further one its parent). False if it does not fit; *rooted: m is absolute; *bare: m is dots only. */
static bool module_path(const char *m, char *buf, size_t cap, bool *rooted, bool *bare)
{
    size_t dots = 0, n = 0;
    while (m[dots] == '.')
        dots++;
    *rooted = dots == 0;
    *bare = m[dots] == '\0';
    for (size_t d = 1; d < dots; d++) {
        if (n + 4 > cap)
            return false;
        memcpy(buf + n, "../", 3), n += 3;
    }
    for (const char *p = m + dots; *p; p++) {
        if (n + 2 > cap)
            return false;
        buf[n++] = *p == '.' ? '/' : *p;
    }
    buf[n] = '\0';
    return true;
}

/* The module read so far (and, for `from M import name`, name) as candidate files. */
static void emit(import_reader *r, const char *name, size_t name_len)
{
    char dir[MAX_MODULE * 2];
    bool rooted, bare;
    if (r->too_long || r->mod_len == 0 || !module_path(r->mod, dir, sizeof dir, &rooted, &bare))
        return;
    if (!name) {
        if (bare)
            add(r, dir, "", "__init__", ".py", rooted);
        else
            add(r, dir, "", "", ".py", rooted), add(r, dir, "", "/__init__", ".py", rooted);
        return;
    }
    char sub[MAX_MODULE];
    if (name_len >= sizeof sub)
        return;
    memcpy(sub, name, name_len);
    sub[name_len] = '\0';
    const char *sep = bare ? "" : "/";
    add(r, dir, sep, sub, ".py", rooted);
    add(r, dir, sep, sub, "/__init__.py", rooted);
}

static void module_token(import_reader *r, const char *w, size_t n)
{
    if (r->mod_len + n + 1 > sizeof r->mod) {
        r->too_long = true;
        return;
    }
    memcpy(r->mod + r->mod_len, w, n);
    r->mod_len += n;
    r->mod[r->mod_len] = '\0';
}

static void start(import_reader *r, phase ph)
{
    if (r->ph == FROM_NAMES || r->ph == IMPORT_NAMES)
        emit(r, NULL, 0);   /* M itself: its module file or package */
    r->ph = ph;
    r->mod_len = 0;
    r->mod[0] = '\0';
    r->too_long = r->alias = false;
}

static void word(import_reader *r, const char *w, size_t n)
{
    bool as = n == 2 && memcmp(w, "as", 2) == 0;
    if (r->ph == FROM_MODULE && n == 6 && memcmp(w, "import", 6) == 0)
        r->ph = FROM_NAMES;
    else if (r->ph == FROM_MODULE)
        module_token(r, w, n);
    else if (r->alias)
        r->alias = false;
    else if (as)
        r->alias = true;
    else if (r->ph == FROM_NAMES)
        emit(r, w, n);
    else if (r->ph == IMPORT_NAMES && r->mod_len && r->mod[r->mod_len - 1] != '.')
        start(r, IMPORT_NAMES), module_token(r, w, n);   /* `import a b`: not Python; a new name */
    else if (r->ph == IMPORT_NAMES)
        module_token(r, w, n);
}

size_t py_imports(const char *data, size_t len, kv_arena *arena, const fe_import **out)
{
    import_reader r = { .v = arena_alloc(arena, MAX_IMPORTS * sizeof *r.v), .a = arena };
    lexer lx;
    py_lex_init(&lx, data, len);
    int depth = 0;
    for (lex_kind k; (k = py_lex_next(&lx)) != LEX_END;) {
        if (k == LEX_COMMENT)
            continue;
        if ((lx.at_line_start || lx.fresh_line) && depth == 0) {   /* a statement's first token */
            bool from = k == LEX_WORD && lx.len == 4 && memcmp(lx.tok, "from", 4) == 0;
            bool import = k == LEX_WORD && lx.len == 6 && memcmp(lx.tok, "import", 6) == 0;
            start(&r, from ? FROM_MODULE : import ? IMPORT_NAMES : NONE);
            if (from || import)
                continue;
        }
        if (k == LEX_PUNCT) {
            char c = *lx.tok;
            depth += c == '(' || c == '[' || c == '{' ? 1 : (c == ')' || c == ']' || c == '}') && depth > 0 ? -1 : 0;
            if (c == '.' && (r.ph == FROM_MODULE || r.ph == IMPORT_NAMES))
                module_token(&r, ".", 1);
            else if (c == ',' && r.ph == IMPORT_NAMES)
                start(&r, IMPORT_NAMES);
            else if (c == ';' && depth == 0)
                start(&r, NONE);
            continue;
        }
        if (k == LEX_WORD && r.ph != NONE)
            word(&r, lx.tok, lx.len);
        else if (r.ph != NONE && k != LEX_WORD)
            start(&r, NONE);   /* a string or number: no import statement */
    }
    start(&r, NONE);
    *out = r.v;
    return r.n;
}
