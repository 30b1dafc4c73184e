/*
 * pylink.c: the run-wide lookup tables over every Python file's index (built once by the
 * front end's link(), between the scanner's two passes, then read by every thread).
 *
 * `from .mod import NAME` looks up the files called mod.py, and the prefilter asks whether a
 * name is a sentinel some file exports. Both were a scan of every file's index per import,
 * which made a tree of n files cost n^2 (vLLM: a third of the run). Here they are binary
 * searches: modules sorted by (file name, path) so that a lookup meets the files of one name in
 * path order, as the scan did, and the sorted, distinct names of exported sentinels.
 * It does not decide what a file exports (pylex.c) or what an import binds (pyscope.c).
 */
#include <stdlib.h>
#include <string.h>

#include "python/pyfe.h"

static const char *file_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static int cmp_module(const void *a, const void *b)
{
    const py_module *x = a, *y = b;
    int c = strcmp(x->file, y->file);
    return c ? c : strcmp(x->path, y->path);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

const py_link *py_link_indexes(const fe_file_index *ix, size_t n, kv_arena *arena)
{
    py_link *l = arena_alloc(arena, sizeof *l);
    memset(l, 0, sizeof *l);
    py_module *mods = arena_alloc(arena, (n ? n : 1) * sizeof *mods);
    size_t nsent = 0;
    for (size_t i = 0; i < n; i++) {
        const py_exports *ex = ix[i].exports;
        mods[i] = (py_module){ file_name(ix[i].path), ix[i].path, ex };
        for (size_t k = 0; ex && k < ex->n; k++)
            nsent += ex->v[k].sentinel;
    }
    qsort(mods, n, sizeof *mods, cmp_module);
    const char **names = arena_alloc(arena, (nsent ? nsent : 1) * sizeof *names);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; ix[i].exports && k < ((const py_exports *)ix[i].exports)->n; k++) {
            const py_export *x = &((const py_exports *)ix[i].exports)->v[k];
            if (x->sentinel)
                names[m++] = x->name;
        }
    qsort(names, m, sizeof *names, cmp_str);
    size_t u = 0;
    for (size_t i = 0; i < m; i++)
        if (u == 0 || strcmp(names[u - 1], names[i]) != 0)
            names[u++] = names[i];
    l->modules = mods;
    l->nmodules = n;
    l->sentinels = names;
    l->nsentinels = u;
    return l;
}

const py_module *py_link_modules(const py_link *l, const char *file, size_t *count)
{
    *count = 0;
    if (!l || !l->nmodules)
        return NULL;
    size_t lo = 0, hi = l->nmodules;   /* first module whose file name is >= file */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(l->modules[mid].file, file) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t end = lo;
    while (end < l->nmodules && strcmp(l->modules[end].file, file) == 0)
        end++;
    *count = end - lo;
    return *count ? &l->modules[lo] : NULL;
}

bool py_link_is_sentinel(const py_link *l, const char *s, size_t n)
{
    if (!l)
        return false;
    size_t lo = 0, hi = l->nsentinels;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const char *x = l->sentinels[mid];
        int c = strncmp(x, s, n);
        if (c == 0 && x[n] != '\0')
            c = 1;   /* x is longer than s, so it sorts after it */
        if (c == 0)
            return true;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}
