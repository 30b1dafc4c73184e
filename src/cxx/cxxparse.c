/*
 * cxxparse.c: libclang for the C/C++/CUDA front end: which arguments a source is parsed with, the
 * translation unit, what its diagnostics say, and locations and text in the main file.
 *
 * Also the small cursor helpers the walk uses (children, the expression under casts).
 *
 * Arguments: the language (from the claim), then defaults (C++17; for CUDA no SDK: -nocudainc,
 * host side only, and the stub prelude force-included), then the compilation database's flags
 * (which win), then the stub headers with -idirafter, so a real SDK or torch on the database's
 * include path is found first. Without a database every ancestor folder of the file is an include
 * folder, so `#include "attention/x.cuh"` from inside a tree resolves. Parsing keeps going after
 * errors (CXTranslationUnit_KeepGoing) with no error limit: a missing header costs what depends on
 * it, never the file. The index excludes the declarations of the precompiled headers (cxxpch.c)
 * from the unit's cursors: the walk, which reads only the main file's, then no longer loads the
 * system headers' tens of thousands of declarations from the header file to skip them; it sees
 * the unit's own top-level declarations, among them the functions the compiler instantiated
 * from templates, which it leaves out (cxx_is_instantiation).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cxx/cxxfe.h"
#include "cxx/libclang.h"
#include "util/fsutil.h"
#include "util/xalloc.h"

enum { MAX_NOTES = 3 };

static void push(kv_arena *a, void *vec, const char *s)
{
    ARENA_VEC(const char *) *v = vec;
    ARENA_PUSH(a, *v, s);
}

/* -I for every folder from the file's own up to the filesystem root of its absolute path. */
static void ancestor_includes(kv_arena *a, void *args, const char *path)
{
    char abs[PATH_MAX];
    if (!realpath(path, abs))
        return;
    char *slash;
    int depth = 0;
    while ((slash = strrchr(abs, '/')) != NULL && slash != abs && depth++ < 32) {
        *slash = '\0';
        push(a, args, "-I");
        push(a, args, arena_strdup(a, abs));
    }
}

static bool is_cuda_sdk(const char *dir)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/cuda_runtime_api.h", dir);
    return access(p, R_OK) == 0;
}

static const char *clang_lang(const char *lang)
{
    if (strcmp(lang, "cuda") == 0)
        return "cuda";
    if (strcmp(lang, "c") == 0)
        return "c";
    return "c++";
}

/* Did libclang refuse the precompiled header (another compiler, a changed setting)? */
static bool pch_rejected(CXTranslationUnit tu)
{
    unsigned n = clang_getNumDiagnostics(tu);
    bool bad = false;
    for (unsigned i = 0; i < n && !bad; i++) {
        CXDiagnostic d = clang_getDiagnostic(tu, i);
        CXString c = clang_getDiagnosticCategoryText(d);
        const char *cat = clang_getCString(c);
        bad = clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error && cat && strstr(cat, "Deserialization");
        clang_disposeString(c);
        clang_disposeDiagnostic(d);
    }
    return bad;
}

static enum CXErrorCode parse_with(const fe_source *src, const char *const *args, size_t n, CXIndex *idx,
                                   CXTranslationUnit *tu)
{
    *idx = clang_createIndex(1, 0);  /* the walk visits no declaration of the precompiled headers */
    *tu = NULL;
    unsigned flags = CXTranslationUnit_KeepGoing | CXTranslationUnit_IgnoreNonErrorsFromIncludedFiles;
    struct CXUnsavedFile unsaved = { src->path, src->data, (unsigned long)src->len };
    enum CXErrorCode err = clang_parseTranslationUnit2(*idx, src->path, args, (int)n, &unsaved, 1, flags, tu);
    if (err != CXError_Success && *tu) {
        clang_disposeTranslationUnit(*tu);
        *tu = NULL;
    }
    return err;
}

const char **cxx_parse_args(const cxx_state *st, const fe_source *src, kv_arena *a, size_t *n, size_t *prelude_at)
{
    ARENA_VEC(const char *) args = {0};
    bool cuda = strcmp(src->lang, "cuda") == 0;
    push(a, &args, "-x");
    push(a, &args, clang_lang(src->lang));
    if (strcmp(src->lang, "c") != 0)
        push(a, &args, "-std=c++17");
    push(a, &args, "-ferror-limit=0");
    push(a, &args, "-w");
    if (cuda) {
        push(a, &args, "-nocudainc");
        push(a, &args, "-nocudalib");
        push(a, &args, "--cuda-host-only");
    }
    *prelude_at = args.n;  /* the prelude or the precompiled headers go here */
    for (size_t i = 0; i < src->nargs; i++) {
        /* The database's language for a .cu file is CUDA already; -x c++ from a host compiler entry
         * of a CUDA file would hide the kernels. */
        if (cuda && strcmp(src->args[i], "-x") == 0 && i + 1 < src->nargs) {
            i++;
            continue;
        }
        /* A CUDA SDK on the include path is left out: libclang 14 parses against the stubs, the same
         * on every machine, whether or not the SDK (of whatever version) is installed. */
        if (cxx_is_include_flag(src->args[i]) && i + 1 < src->nargs && is_cuda_sdk(src->args[i + 1])) {
            i++;
            continue;
        }
        push(a, &args, src->args[i]);
    }
    if (!src->from_database)
        ancestor_includes(a, &args, src->path);
    push(a, &args, "-idirafter");
    push(a, &args, st->stubs);
    *n = args.n;
    return args.v;
}

const char *cxx_parse_setting(const cxx_state *st, const fe_source *src, kv_arena *a, size_t *len)
{
    size_t n, prelude_at;
    const char **args = cxx_parse_args(st, src, a, &n, &prelude_at);
    return cxx_pch_setting(src->lang, args, n, a, len);
}

CXTranslationUnit cxx_parse(const cxx_state *st, const fe_source *src, bool use_pch, CXIndex *idx, file_facts *out)
{
    const char *why;
    *idx = NULL;
    if (!kv_libclang_load(&why)) {
        diag_add(&out->diags, DIAG_WARNING, src->path, 0, 0, "not analysed: libclang is not available (%s)", why);
        return NULL;
    }
    kv_arena *a = out->arena;
    bool cuda = strcmp(src->lang, "cuda") == 0;
    size_t nargs, prelude_at;
    const char **args = cxx_parse_args(st, src, a, &nargs, &prelude_at);
    const char *pch = use_pch ? cxx_pch_for(st, src->lang, args, nargs) : NULL;
    /* args with the prelude (or the precompiled headers, which hold it) at prelude_at */
    size_t n = nargs + 2;
    const char **v = arena_alloc(a, n * sizeof *v);
    memcpy(v, args, prelude_at * sizeof *v);
    memcpy(v + prelude_at + 2, args + prelude_at, (nargs - prelude_at) * sizeof *v);
    CXTranslationUnit tu = NULL;
    enum CXErrorCode err = CXError_Failure;
    if (pch) {
        v[prelude_at] = "-include-pch";
        v[prelude_at + 1] = pch;
        err = parse_with(src, v, n, idx, &tu);
        if (tu && pch_rejected(tu)) {
            clang_disposeTranslationUnit(tu);
            tu = NULL;
        }
        if (!tu)
            clang_disposeIndex(*idx);
    }
    if (!tu) {
        size_t skip = cuda ? 0 : 2;  /* no prelude outside CUDA */
        v[prelude_at] = "-include";
        v[prelude_at + 1] = arena_printf(a, "%s/kvlint_cuda_prelude.h", st->stubs);
        if (skip)
            memmove(v + prelude_at, v + prelude_at + 2, (nargs - prelude_at) * sizeof *v);
        err = parse_with(src, v, n - skip, idx, &tu);
    }
    if (!tu) {
        diag_add(&out->diags, DIAG_NOTE, src->path, 0, 0, "not analysed: libclang could not parse it (error %d)", (int)err);
        clang_disposeIndex(*idx);
        *idx = NULL;
        return NULL;
    }
    return tu;
}

size_t cxx_unit_bytes(CXTranslationUnit tu)
{
    CXTUResourceUsage u = clang_getCXTUResourceUsage(tu);
    size_t total = 0;
    for (unsigned i = 0; i < u.numEntries; i++)
        total += u.entries[i].amount;
    clang_disposeCXTUResourceUsage(u);
    return total;
}

/* "'x.h' file not found" -> "x.h". */
static bool missing_header(const char *msg, char *name, size_t n)
{
    const char *tail = strstr(msg, "' file not found");
    if (msg[0] != '\'' || !tail)
        return false;
    snprintf(name, n, "%.*s", (int)(tail - msg - 1), msg + 1);
    return true;
}

void cxx_report_diagnostics(CXTranslationUnit tu, const fe_source *src, file_facts *out)
{
    unsigned n = clang_getNumDiagnostics(tu);
    size_t missing = 0, errors = 0;
    char first_missing[256] = "", first_error[512] = "";
    uint32_t line_missing = 0, line_error = 0;
    for (unsigned i = 0; i < n; i++) {
        CXDiagnostic d = clang_getDiagnostic(tu, i);
        enum CXDiagnosticSeverity sev = clang_getDiagnosticSeverity(d);
        if (sev < CXDiagnostic_Error) {
            clang_disposeDiagnostic(d);
            continue;
        }
        CXString s = clang_getDiagnosticSpelling(d);
        const char *msg = clang_getCString(s);
        CXFile file;
        unsigned line, col;
        clang_getExpansionLocation(clang_getDiagnosticLocation(d), &file, &line, &col, NULL);
        bool main = clang_Location_isFromMainFile(clang_getDiagnosticLocation(d));
        char name[256];
        if (missing_header(msg, name, sizeof name)) {
            if (!missing++ && main) {
                snprintf(first_missing, sizeof first_missing, "%s", name);
                line_missing = line;
            } else if (!*first_missing) {
                snprintf(first_missing, sizeof first_missing, "%s", name);
            }
        } else if (!errors++) {
            snprintf(first_error, sizeof first_error, "%s", msg);
            line_error = main ? line : 0;
        }
        clang_disposeString(s);
        clang_disposeDiagnostic(d);
    }
    if (!missing && !errors)
        return;
    /* One note per file: what clang could not read, so that silence is never mistaken for a clean bill. */
    char what[1024] = "";
    if (missing)
        snprintf(what, sizeof what, "%zu included file%s not found (first: %s)", missing, missing == 1 ? "" : "s",
                 first_missing);
    if (errors)
        snprintf(what + strlen(what), sizeof what - strlen(what), "%s%zu parse error%s (first: %s)",
                 missing ? "; " : "", errors, errors == 1 ? "" : "s", first_error);
    uint32_t line = line_missing ? line_missing : line_error;
    diag_add(&out->diags, DIAG_NOTE, src->path, line, line ? 1 : 0,
             "%s; analysed as far as clang recovered it%s", what,
             src->from_database ? "" : " (no compile_commands.json entry: default flags)");
}

bool cxx_offset(CXTranslationUnit tu, CXSourceLocation l, unsigned *line, unsigned *col, unsigned *off)
{
    CXFile f;
    unsigned ln, cl, of;
    clang_getExpansionLocation(l, &f, &ln, &cl, &of);
    CXString name = clang_getTranslationUnitSpelling(tu);
    CXFile mf = clang_getFile(tu, clang_getCString(name));
    clang_disposeString(name);
    if (!f || !mf || !clang_File_isEqual(f, mf))
        return false;
    if (line)
        *line = ln;
    if (col)
        *col = cl;
    if (off)
        *off = of;
    return true;
}

bool cxx_main_loc(CXTranslationUnit tu, CXCursor c, const char *path, kv_loc *out)
{
    CXSourceRange r = clang_getCursorExtent(c);
    unsigned l1, c1, l2, c2;
    if (!cxx_offset(tu, clang_getRangeStart(r), &l1, &c1, NULL))
        return false;
    if (!cxx_offset(tu, clang_getRangeEnd(r), &l2, &c2, NULL))
        l2 = c2 = 0;
    *out = kv_loc_make(path, l1, c1, l2, c2);
    return true;
}

/* A header's path as the scanner would name it: relative to the working directory when below it. */
static const char *scanner_path(CXFile f, kv_arena *a)
{
    CXString s = clang_File_tryGetRealPathName(f);
    const char *real = clang_getCString(s);
    if (!real || !*real) {
        clang_disposeString(s);
        s = clang_getFileName(f);
        real = clang_getCString(s);
    }
    char cwd[PATH_MAX];
    const char *out = real;
    size_t n = getcwd(cwd, sizeof cwd) ? strlen(cwd) : 0;
    if (n && strncmp(real, cwd, n) == 0 && real[n] == '/')
        out = real + n + 1;
    out = arena_strdup(a, out ? out : "");
    clang_disposeString(s);
    return out;
}

bool cxx_any_loc(CXTranslationUnit tu, CXCursor c, const char *path, kv_arena *a, kv_loc *out)
{
    if (cxx_main_loc(tu, c, path, out))
        return true;
    CXSourceRange r = clang_getCursorExtent(c);
    CXFile f, fe;
    unsigned l1, c1, l2, c2;
    clang_getExpansionLocation(clang_getRangeStart(r), &f, &l1, &c1, NULL);
    clang_getExpansionLocation(clang_getRangeEnd(r), &fe, &l2, &c2, NULL);
    if (!f)
        return false;
    if (!fe || !clang_File_isEqual(f, fe))
        l2 = c2 = 0;
    *out = kv_loc_make(scanner_path(f, a), l1, c1, l2, c2);
    return true;
}

static bool is_ident(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

const char *cxx_text(CXTranslationUnit tu, CXCursor c, kv_arena *a)
{
    CXSourceRange r = clang_getCursorExtent(c);
    CXSourceLocation b = clang_getRangeStart(r), e = clang_getRangeEnd(r);
    unsigned ob, oe;
    CXFile file, fe;
    clang_getExpansionLocation(b, &file, NULL, NULL, &ob);
    clang_getExpansionLocation(e, &fe, NULL, NULL, &oe);
    if (!file || !fe || !clang_File_isEqual(file, fe))
        return NULL;
    size_t len = 0;
    const char *buf = clang_getFileContents(tu, file, &len);
    if (!buf || oe > len || ob >= len)
        return NULL;
    /* An extent that ends inside a macro expansion ends, as expanded, where the macro's name
     * starts: take the name, and its arguments for a function-like macro. */
    unsigned sb;
    clang_getSpellingLocation(e, NULL, NULL, NULL, &sb);
    CXFile sf;
    clang_getSpellingLocation(e, &sf, NULL, NULL, NULL);
    if ((sb != oe || !clang_File_isEqual(sf, file)) && oe < len && is_ident(buf[oe])) {
        while (oe < len && is_ident(buf[oe]))
            oe++;
        size_t k = oe;
        while (k < len && buf[k] == ' ')
            k++;
        if (k < len && buf[k] == '(') {
            int depth = 0;
            for (; k < len; k++) {
                depth += buf[k] == '(' ? 1 : buf[k] == ')' ? -1 : 0;
                if (depth == 0)
                    break;
            }
            if (k < len)
                oe = (unsigned)k + 1;
        }
    }
    if (oe <= ob || oe - ob > 200)
        return NULL;
    /* Collapse runs of blanks so a multi-line expression reads as one line. */
    char *s = arena_alloc(a, oe - ob + 1);
    size_t k = 0;
    for (unsigned i = ob; i < oe; i++) {
        char ch = buf[i];
        if (ch == '\n' || ch == '\t' || ch == '\r')
            ch = ' ';
        if (ch == ' ' && (k == 0 || s[k - 1] == ' '))
            continue;
        s[k++] = ch;
    }
    s[k] = '\0';
    return s;
}

/* ---- cursors ---- */

static enum CXChildVisitResult collect_kid(CXCursor c, CXCursor parent, CXClientData d)
{
    (void)parent;
    cxx_kids_t *k = d;
    if (k->n < CXX_MAX_KIDS)
        k->v[k->n++] = c;
    return CXChildVisit_Continue;
}

cxx_kids_t cxx_kids(CXCursor c)
{
    cxx_kids_t k = { .n = 0 };
    clang_visitChildren(c, collect_kid, &k);
    return k;
}

bool cxx_is_instantiation(CXCursor c)
{
    CXCursor t = clang_getSpecializedCursorTemplate(c);
    if (clang_Cursor_isNull(t))
        return false;
    return clang_equalLocations(clang_getCursorLocation(c), clang_getCursorLocation(t));
}

bool cxx_is_expr(CXCursor c)
{
    return clang_isExpression(clang_getCursorKind(c));
}

CXCursor cxx_strip(CXCursor c)
{
    for (int i = 0; i < 24; i++) {
        enum CXCursorKind k = clang_getCursorKind(c);
        if (k != CXCursor_ParenExpr && k != CXCursor_UnexposedExpr && k != CXCursor_CStyleCastExpr &&
            k != CXCursor_CXXReinterpretCastExpr && k != CXCursor_CXXStaticCastExpr && k != CXCursor_CXXConstCastExpr)
            return c;
        cxx_kids_t kd = cxx_kids(c);
        size_t j = kd.n;
        while (j > 0 && !cxx_is_expr(kd.v[j - 1]))
            j--;
        if (j == 0)
            return c;
        c = kd.v[j - 1];
    }
    return c;
}
