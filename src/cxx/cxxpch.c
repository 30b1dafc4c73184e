/*
 * cxxpch.c: the run's precompiled headers, so that the system headers every kernel file includes
 * (the C++ library, the compiler's intrinsics, for CUDA the stub prelude) are parsed once per run
 * instead of once per file.
 *
 * A precompiled header is built on first use for each distinct parse setting: the language and
 * every argument that changes what a header means (-D, -U, -std, -include, -x, ...), that is all
 * of a file's arguments except its include folders. It holds the `pch` headers of
 * grammars/cxx/cxx.tsv (each under `__has_include`, an arch-specific one under its macro), then,
 * for CUDA, the stub prelude; their function bodies are skipped (kvlint analyses only the main
 * file's functions; declarations, types and macros are what the file needs from them). A file
 * then parses with `-include-pch` instead of the prelude, as if those headers were included first;
 * its own `#include <vector>` finds the header's guard defined and costs nothing.
 *
 * Only files of a setting that two or more parsed files of the run share ask for one (frontend.c
 * decides it from pass 1, so the same for any -j): for one file, building the header costs more
 * time and memory than parsing the file plainly. A file does not use one when one of its include
 * folders holds a file named like a header of the set (the file would have read that one
 * instead), when the set's parse had errors, or when the run already holds CXX_PCH_MAX settings.
 * cxxparse.c parses again without it when libclang rejects it. The files live in a private temporary folder removed by cxx_pch_free().
 *
 * The one mutable object of the front end: threads share it under its mutex. A header is built
 * without the mutex held, so two settings build on two threads at once; a thread that needs a
 * setting another thread is building waits for it (the condition variable) instead of building it
 * again.
 */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cxx/cxxfe.h"
#include "util/fsutil.h"
#include "util/xalloc.h"

enum { CXX_PCH_MAX = 8 };

typedef struct pch_entry {
    char *key;                 /* language and setting arguments, NUL-separated, as one string */
    size_t key_len;
    char *path;                /* NULL: the setting's header could not be built (or is being built) */
    bool ready;                /* built or failed; until then, only its builder writes it */
} pch_entry;

struct cxx_pch {
    pthread_mutex_t lock;
    pthread_cond_t built;      /* signalled when an entry becomes ready */
    char dir[PATH_MAX];        /* "" until the first header is built */
    pch_entry entries[CXX_PCH_MAX];
    size_t n;
};

cxx_pch *cxx_pch_new(void)
{
    cxx_pch *p = xcalloc(1, sizeof *p);
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->built, NULL);
    return p;
}

void cxx_pch_free(cxx_pch *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->n; i++) {
        if (p->entries[i].path) {
            unlink(p->entries[i].path);
            char *h = xstrdup(p->entries[i].path);
            h[strlen(h) - 4] = '\0'; /* "x.h.pch" -> "x.h" */
            unlink(h);
            free(h);
        }
        free(p->entries[i].path);
        free(p->entries[i].key);
    }
    if (p->dir[0])
        rmdir(p->dir);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->built);
    free(p);
}

bool cxx_is_include_flag(const char *a)
{
    return !strcmp(a, "-I") || !strcmp(a, "-isystem") || !strcmp(a, "-idirafter") || !strcmp(a, "-iquote");
}

/* The setting of an argument vector: everything but include folders (and the file's language). */
static char *setting_key(const char *lang, const char *const *args, size_t nargs, size_t *len)
{
    size_t n = strlen(lang) + 1;
    for (size_t i = 0; i < nargs; i++)
        n += strlen(args[i]) + 1;
    char *k = xmalloc(n), *p = k;
    p += sprintf(p, "%s", lang) + 1;
    for (size_t i = 0; i < nargs; i++) {
        if (cxx_is_include_flag(args[i]) && i + 1 < nargs) {
            i++;
            continue;
        }
        p += sprintf(p, "%s", args[i]) + 1;
    }
    *len = (size_t)(p - k);
    return k;
}

const char *cxx_pch_setting(const char *lang, const char *const *args, size_t nargs, kv_arena *a, size_t *len)
{
    char *k = setting_key(lang, args, nargs, len);
    char *out = arena_alloc(a, *len);
    memcpy(out, k, *len);
    free(k);
    return out;
}

/* Would one of the file's include folders give it another header than the set's? */
static bool shadows_a_header(const cxx_state *st, const char *const *args, size_t nargs)
{
    for (size_t i = 0; i + 1 < nargs; i++) {
        if (strcmp(args[i], "-I") != 0 && strcmp(args[i], "-isystem") != 0)
            continue;
        for (size_t h = 0; h < st->pch_headers.n; h++) {
            /* A folder of that name (a fixture folder `limits/`) is no header: the compiler's search
             * passes it by. */
            char *p = fs_join(args[i + 1], st->pch_headers.v[h].name);
            struct stat sb;
            bool there = stat(p, &sb) == 0 && !S_ISDIR(sb.st_mode);
            free(p);
            if (there)
                return true;
        }
        i++;
    }
    return false;
}

static char *header_text(const cxx_state *st, bool cuda)
{
    size_t cap = 256;
    for (size_t h = 0; h < st->pch_headers.n; h++)
        cap += 2 * strlen(st->pch_headers.v[h].name) + strlen(st->pch_headers.v[h].macro) + 64;
    cap += strlen(st->stubs) + 64;
    char *s = xmalloc(cap), *p = s;
    p += sprintf(p, "/* kvlint: the system headers parsed once per run (src/cxx/cxxpch.c) */\n");
    for (size_t h = 0; h < st->pch_headers.n; h++) {
        const cxx_pch_header *e = &st->pch_headers.v[h];
        if (*e->macro)
            p += sprintf(p, "#if defined(%s) && __has_include(<%s>)\n", e->macro, e->name);
        else
            p += sprintf(p, "#if __has_include(<%s>)\n", e->name);
        p += sprintf(p, "#include <%s>\n#endif\n", e->name);
    }
    if (cuda)
        p += sprintf(p, "#include \"%s/kvlint_cuda_prelude.h\"\n", st->stubs);
    return s;
}

static bool has_errors(CXTranslationUnit tu)
{
    unsigned n = clang_getNumDiagnostics(tu);
    bool bad = false;
    for (unsigned i = 0; i < n && !bad; i++) {
        CXDiagnostic d = clang_getDiagnostic(tu, i);
        bad = clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error;
        clang_disposeDiagnostic(d);
    }
    return bad;
}

/* The run's private folder, made on first use; false if it cannot be. Lock held. */
static bool make_dir(cxx_pch *p)
{
    if (p->dir[0])
        return true;
    const char *tmp = getenv("TMPDIR");
    snprintf(p->dir, sizeof p->dir, "%s/kvlint-pch.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(p->dir)) {
        p->dir[0] = '\0';
        return false;
    }
    return true;
}

/* Build the header of setting number `which` into dir; the path of the .pch, or NULL. Lock not
 * held: it touches nothing shared but the read-only table. */
static char *build(const char *dir, size_t which, const cxx_state *st, const char *lang, const char *const *args,
                   size_t nargs)
{
    bool cuda = strcmp(lang, "cuda") == 0;
    char name[PATH_MAX + 64];
    snprintf(name, sizeof name, "%s/set%zu.%s", dir, which, cuda ? "cuh" : "hpp");
    char *text = header_text(st, cuda);
    FILE *f = fopen(name, "w");
    bool written = f && fputs(text, f) >= 0;
    if (f && fclose(f) != 0)
        written = false;
    free(text);
    if (!written) {
        unlink(name);
        return NULL;
    }
    /* The setting's arguments (no include folders: the set is found where the compiler finds
     * system headers) and the stubs, as cxxparse.c gives them to a file. */
    const char **v = xmalloc((nargs + 2) * sizeof *v);
    size_t n = 0;
    for (size_t i = 0; i < nargs; i++) {
        /* A file's forced includes (-include x.h) come after the set, as before it: not in it. */
        if ((cxx_is_include_flag(args[i]) || !strcmp(args[i], "-include")) && i + 1 < nargs) {
            i++;
            continue;
        }
        v[n++] = args[i];
    }
    v[n++] = "-idirafter";
    v[n++] = st->stubs;
    CXIndex idx = clang_createIndex(0, 0);
    CXTranslationUnit tu = NULL;
    unsigned flags = CXTranslationUnit_Incomplete | CXTranslationUnit_ForSerialization |
                     CXTranslationUnit_SkipFunctionBodies | CXTranslationUnit_KeepGoing;
    enum CXErrorCode err = clang_parseTranslationUnit2(idx, name, v, (int)n, NULL, 0, flags, &tu);
    free(v);
    char *out = NULL;
    if (err == CXError_Success && tu && !has_errors(tu)) {
        char pch[PATH_MAX + 72];
        snprintf(pch, sizeof pch, "%s.pch", name);
        if (clang_saveTranslationUnit(tu, pch, clang_defaultSaveOptions(tu)) == CXSaveError_None)
            out = xstrdup(pch);
    }
    if (tu)
        clang_disposeTranslationUnit(tu);
    clang_disposeIndex(idx);
    if (!out)
        unlink(name);
    return out;
}

const char *cxx_pch_for(const cxx_state *st, const char *lang, const char *const *args, size_t nargs)
{
    cxx_pch *p = st->pch;
    if (!p || !st->pch_headers.n || strcmp(lang, "c") == 0 || shadows_a_header(st, args, nargs))
        return NULL;
    size_t len;
    char *key = setting_key(lang, args, nargs, &len);
    const char *path = NULL;
    pthread_mutex_lock(&p->lock);
    size_t i = 0;
    while (i < p->n && !(p->entries[i].key_len == len && memcmp(p->entries[i].key, key, len) == 0))
        i++;
    if (i < p->n) {
        while (!p->entries[i].ready)
            pthread_cond_wait(&p->built, &p->lock);
        path = p->entries[i].path;
        free(key);
    } else if (p->n < CXX_PCH_MAX && make_dir(p)) {
        /* The entry is claimed (and its key visible) before the build, so that no other thread
         * builds it too; the folder name does not change once made. */
        pch_entry *e = &p->entries[p->n];
        e->key = key;
        e->key_len = len;
        e->path = NULL;
        e->ready = false;
        size_t which = p->n++;
        pthread_mutex_unlock(&p->lock);
        char *built = build(p->dir, which, st, lang, args, nargs);
        pthread_mutex_lock(&p->lock);
        e->path = built;
        e->ready = true;
        pthread_cond_broadcast(&p->built);
        path = built;
    } else {
        free(key);
    }
    pthread_mutex_unlock(&p->lock);
    return path;
}

size_t cxx_pch_count(cxx_pch *p)
{
    if (!p)
        return 0;
    pthread_mutex_lock(&p->lock);
    size_t n = p->n;
    pthread_mutex_unlock(&p->lock);
    return n;
}
