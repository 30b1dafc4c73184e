/*
 * pylink.c: the run-wide lookup tables over every Python file's index (built once by the
 * front end's link(), between the scanner's two passes, then read by every thread).
 *
 * `from .mod import NAME` looks up the files called mod.py, and the prefilter asks whether a
 * name is a sentinel some file exports. Both were a scan of every file's index per import,
 * which made a tree of n files cost n^2 (vLLM: a third of the run). Here they are binary
 * searches: modules sorted by (file name, path) so that a lookup meets the files of one name in
 * path order, as the scan did, and the sorted, distinct names of exported sentinels.
 * For calls of functions imported from other files (pymodule.c): a module name (`pkg.masks`,
 * `.masks`) resolves to the file it is (relative imports by path, absolute ones by path suffix,
 * the candidate sharing the longest folder prefix with the importer winning); and the functions'
 * names with their sentinel flag, where a function using a name its file imports (`from .consts
 * import NEG`) is a sentinel function if that name is a sentinel anywhere: three rounds over all
 * functions, each reading only the previous round's flags (so the result does not depend on file
 * order).
 * It does not decide what a file exports (pylex.c, pyindex.c) or what an import binds (pyscope.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include "python/pyfe.h"
#include "util/strlist.h"

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

/* ---- functions and modules, for calls into other files (pymodule.c) ---- */

typedef struct link_name {
    const char *name;
    bool sentinel, store;
} link_name;

typedef struct link_module {
    const char *name;       /* last component: "masks" for pkg/masks.py and pkg/masks/__init__.py */
    size_t name_len;
    const char *stem;       /* the path without ".py" / "/__init__.py" */
    size_t stem_len;
    size_t ix;              /* index into the context's indexes */
} link_module;

struct py_link_names {
    link_name *names;       /* sorted by name, one entry per name */
    size_t nnames;
    link_module *mods;      /* sorted by module name */
    size_t nmods;
    const fe_file_index *ix;
    size_t nix;
    bool **via_imports;     /* [file][function]: a sentinel through the names it imports */
};

static int cmp_name(const void *a, const void *b)
{
    return strcmp(((const link_name *)a)->name, ((const link_name *)b)->name);
}

static int cmp_mod(const void *a, const void *b)
{
    const link_module *x = a, *y = b;
    size_t n = x->name_len < y->name_len ? x->name_len : y->name_len;
    int c = memcmp(x->name, y->name, n);
    if (c == 0 && x->name_len != y->name_len)
        c = x->name_len < y->name_len ? -1 : 1;
    return c ? c : (x->ix < y->ix ? -1 : x->ix > y->ix);
}

/* The last c in s[0..n), or NULL (memrchr is not C17). */
static const char *last_of(const char *s, size_t n, char c)
{
    while (n > 0)
        if (s[--n] == c)
            return s + n;
    return NULL;
}

/* The module a path is, if it is a Python file. */
static bool module_of(const char *path, link_module *m)
{
    size_t n = strlen(path);
    if (mem_ends_with(path, n, "/__init__.py"))
        n -= strlen("/__init__.py");
    else if (mem_ends_with(path, n, ".py"))
        n -= 3;
    else
        return false;
    const char *slash = last_of(path, n, '/');
    m->name = slash ? slash + 1 : path;
    m->name_len = (size_t)(path + n - m->name);
    m->stem = path;
    m->stem_len = n;
    return m->name_len > 0;
}

static void add_names(const py_exports *ex, link_name *v, size_t *n)
{
    for (size_t k = 0; k < ex->n; k++)
        if (ex->v[k].sentinel)
            v[(*n)++] = (link_name){ ex->v[k].name, true, false };
    for (size_t k = 0; k < ex->nfn; k++)
        if (ex->fn[k].sentinel || ex->fn[k].store || (ex->fn[k].nuses && !ex->fn[k].is_class))
            v[(*n)++] = (link_name){ ex->fn[k].name, ex->fn[k].sentinel, ex->fn[k].store };
}

static link_name *find_name(const struct py_link_names *l, const char *name)
{
    link_name key = { name, false, false };
    return bsearch(&key, l->names, l->nnames, sizeof key, cmp_name);
}

static const fe_file_index *resolve(const struct py_link_names *l, const char *importer, const char *module,
                                   size_t module_len);

/* Is function k of file i a sentinel function, by its own text or the imports flagged so far? */
static bool fn_flagged(const struct py_link_names *l, bool *const *via, size_t i, const py_func_export *f)
{
    const py_exports *ex = l->ix[i].exports;
    return f && (f->sentinel || via[i][f - ex->fn]);
}

/* Does the module file define any function flagged so far? */
static bool module_flagged(const struct py_link_names *l, bool *const *via, const fe_file_index *m)
{
    const py_exports *ex = m ? m->exports : NULL;
    for (size_t k = 0; ex && k < ex->nfn; k++)
        if (fn_flagged(l, via, (size_t)(m - l->ix), &ex->fn[k]))
            return true;
    return false;
}

/* Is `name`, used by a function of file i, a sentinel? A function of the same file (module NULL);
 * else imported with `from module import name`: a sentinel constant of a file named like the
 * module's last part (pyscope.c binds constants so), a function of the module file (resolved as
 * pymodule.c does), or, where name is itself a module (`from . import masks`), any function of it. */
static bool use_is_sentinel(const struct py_link_names *l, const py_link *pl, bool *const *via, size_t i,
                            const char *name, const char *module)
{
    const char *importer = l->ix[i].path;
    if (!module)
        return fn_flagged(l, via, i, py_exported_function(l->ix[i].exports, name));
    if (py_link_module_const_sentinel(pl, module, name, strlen(name)))
        return true;
    const fe_file_index *m = resolve(l, importer, module, strlen(module));
    if (m && m - l->ix < (ptrdiff_t)l->nix
        && fn_flagged(l, via, (size_t)(m - l->ix), py_exported_function(m->exports, name)))
        return true;
    char dotted[512];
    size_t ml = strlen(module);
    int w = snprintf(dotted, sizeof dotted, "%s%s%s", module, ml && module[ml - 1] == '.' ? "" : ".", name);
    return w > 0 && (size_t)w < sizeof dotted && module_flagged(l, via, resolve(l, importer, dotted, (size_t)w));
}

/* A function using an imported name that is a sentinel (a constant, or a function flagged in an
 * earlier round) is a sentinel function: a few rounds follow chains of helpers across files.
 * Each round reads the flags of the one before (so the result does not depend on the order of
 * files), and names resolve to the module they are imported from, never by spelling alone. */
static void propagate_imports(struct py_link_names *l, const py_link *pl, kv_arena *arena)
{
    enum { ROUNDS = 3 };
    bool **via = arena_zalloc(arena, (l->nix ? l->nix : 1) * sizeof *via);
    bool **next = arena_zalloc(arena, (l->nix ? l->nix : 1) * sizeof *next);
    for (size_t i = 0; i < l->nix; i++) {
        const py_exports *ex = l->ix[i].exports;
        if (ex && ex->nfn) {
            via[i] = arena_zalloc(arena, ex->nfn * sizeof **via);
            next[i] = arena_zalloc(arena, ex->nfn * sizeof **next);
        }
    }
    l->via_imports = via;
    for (int round = 0; round < ROUNDS; round++) {
        bool changed = false;
        for (size_t i = 0; i < l->nix; i++) {
            const py_exports *ex = l->ix[i].exports;
            for (size_t k = 0; ex && k < ex->nfn; k++) {
                const py_func_export *f = &ex->fn[k];
                next[i][k] = via[i][k];
                if (f->sentinel || via[i][k] || f->is_class)   /* a class's uses: py_link_class_follows */
                    continue;
                for (size_t u = 0; u < f->nuses && !next[i][k]; u++)
                    if (use_is_sentinel(l, pl, via, i, f->uses[u], f->use_modules ? f->use_modules[u] : NULL))
                        next[i][k] = changed = true;
            }
        }
        if (!changed)
            return;
        for (size_t i = 0; i < l->nix; i++) {
            const py_exports *ex = l->ix[i].exports;
            for (size_t k = 0; ex && k < ex->nfn; k++)
                if (next[i][k] && !via[i][k]) {
                    via[i][k] = true;
                    link_name *nm = find_name(l, ex->fn[k].name);
                    if (nm)
                        nm->sentinel = true;   /* for the by-name fallback (py_link_is_sentinel_function) */
                }
        }
    }
}

/* A constant of the module that is a mask-like sentinel: an infinity, a value <= -1e4, or one of
 * magnitude >= 1e4 written as a float (`NEG = -1e9`, `FILL = 1e30`; `MAX_TOKENS = 16384` is a
 * size). A class naming an imported sentinel function is not followed for it: that flag counts
 * sizes too, and would follow every layer of vLLM calling one. */
static bool module_const_mask_like(const py_link *pl, const char *module, const char *name)
{
    size_t nm, n = strlen(name);
    const py_module *m = py_link_modules_of(pl, module, &nm);
    for (size_t k = 0; k < nm; k++)
        for (size_t j = 0; m[k].exports && j < m[k].exports->n; j++) {
            const py_export *x = &m[k].exports->v[j];
            if (!x->sentinel || strlen(x->name) != n || memcmp(x->name, name, n) != 0)
                continue;
            bool hex = x->text && strstr(x->text, "0x");
            bool float_spelt = x->text && !hex && strpbrk(x->text, ".eE");
            if (isinf(x->value) || x->value <= -PY_SENTINEL_MAGNITUDE || float_spelt)
                return true;
        }
    return false;
}

bool py_link_class_follows(const py_link *link, const fe_file_index *ix, const py_func_export *c, const char *method)
{
    const py_exports *ex = ix->exports;
    if (method ? py_class_member_spells(ex, c, method) : c->own_sentinel)
        return true;
    for (size_t u = 0; link && u < c->nuses; u++)
        if (c->use_modules && c->use_modules[u] && module_const_mask_like(link, c->use_modules[u], c->uses[u]))
            return true;
    return false;
}

bool py_link_function_sentinel(const py_link *link, const fe_file_index *ix, const py_func_export *f)
{
    const struct py_link_names *l = link ? link->fns : NULL;
    if (f->sentinel)
        return true;
    if (!l || ix < l->ix || ix >= l->ix + l->nix)
        return false;
    const py_exports *ex = ix->exports;
    size_t i = (size_t)(ix - l->ix);
    if (!ex || f < ex->fn || f >= ex->fn + ex->nfn || !l->via_imports[i])
        return false;
    return l->via_imports[i][f - ex->fn];
}

static const struct py_link_names *link_functions(const fe_file_index *ix, size_t n, const py_link *pl, kv_arena *arena)
{
    struct py_link_names *l = arena_zalloc(arena, sizeof *l);
    size_t cap = 0;
    for (size_t i = 0; i < n; i++) {
        const py_exports *ex = ix[i].exports;
        if (ex)
            cap += ex->n + ex->nfn;
    }
    l->names = arena_alloc(arena, (cap ? cap : 1) * sizeof *l->names);
    l->mods = arena_alloc(arena, (n ? n : 1) * sizeof *l->mods);
    for (size_t i = 0; i < n; i++) {
        if (ix[i].exports)
            add_names(ix[i].exports, l->names, &l->nnames);
        link_module m;
        if (module_of(ix[i].path, &m)) {
            m.ix = i;
            l->mods[l->nmods++] = m;
        }
    }
    qsort(l->names, l->nnames, sizeof *l->names, cmp_name);
    size_t k = 0;
    for (size_t i = 0; i < l->nnames; i++) {
        if (k && strcmp(l->names[k - 1].name, l->names[i].name) == 0) {
            l->names[k - 1].sentinel |= l->names[i].sentinel;
            l->names[k - 1].store |= l->names[i].store;
            continue;
        }
        l->names[k++] = l->names[i];
    }
    l->nnames = k;
    qsort(l->mods, l->nmods, sizeof *l->mods, cmp_mod);
    l->ix = ix;
    l->nix = n;
    propagate_imports(l, pl, arena);
    return l;
}

static bool names_word(const struct py_link_names *l, const char *s, size_t n, bool *sentinel, bool *store)
{
    if (!l || n == 0 || n > 200)
        return false;
    char buf[201];
    memcpy(buf, s, n);
    buf[n] = '\0';
    const link_name *f = find_name(l, buf);
    if (!f)
        return false;
    *sentinel = f->sentinel;
    *store = f->store;
    return true;
}

/* The range of modules named name[0..n). */
static const link_module *modules_named(const struct py_link_names *l, const char *name, size_t n, size_t *count)
{
    size_t lo = 0, hi = l->nmods;
    while (lo < hi) {  /* first module whose name is >= name */
        size_t mid = lo + (hi - lo) / 2;
        const link_module *m = &l->mods[mid];
        size_t k = m->name_len < n ? m->name_len : n;
        int c = memcmp(m->name, name, k);
        if (c < 0 || (c == 0 && m->name_len < n))
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t end = lo;
    while (end < l->nmods && l->mods[end].name_len == n && memcmp(l->mods[end].name, name, n) == 0)
        end++;
    *count = end - lo;
    return l->mods + lo;
}

static size_t common_dir_prefix(const char *a, const char *b)
{
    size_t i = 0, last = 0;
    while (a[i] && a[i] == b[i]) {
        if (a[i] == '/')
            last = i + 1;
        i++;
    }
    return last;
}

/* Does the stem end with the module path written dotted (a.b.c matches .../a/b/c)? */
static bool stem_matches(const link_module *m, const char *dotted, size_t n)
{
    if (m->stem_len < n)
        return false;
    const char *s = m->stem + m->stem_len - n;
    if (s > m->stem && s[-1] != '/')
        return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] != (dotted[i] == '.' ? '/' : dotted[i]))
            return false;
    return true;
}

/* The folder of `importer`, `up` levels higher: its length in importer, or -1 past the top. */
static long folder_of(const char *importer, int up)
{
    long end = (long)strlen(importer);
    for (int i = 0; i <= up; i++) {
        while (end > 0 && importer[end - 1] != '/')
            end--;
        if (end == 0)
            return i == up ? 0 : -1;
        end--;  /* drop the slash */
    }
    return end + 1;  /* keep the trailing slash */
}

static const fe_file_index *resolve(const struct py_link_names *l, const char *importer, const char *module, size_t module_len)
{
    if (!l || module_len == 0)
        return NULL;
    int dots = 0;
    while ((size_t)dots < module_len && module[dots] == '.')
        dots++;
    const char *rest = module + dots;
    size_t rest_len = module_len - (size_t)dots;
    if (rest_len == 0)
        return NULL;  /* `from . import x` names the package itself: not followed */
    const char *last = last_of(rest, rest_len, '.');
    last = last ? last + 1 : rest;
    size_t count;
    const link_module *cands = modules_named(l, last, (size_t)(rest + rest_len - last), &count);
    const link_module *best = NULL;
    size_t best_prefix = 0;
    long folder = dots ? folder_of(importer, dots - 1) : -1;
    if (dots && folder < 0)
        return NULL;
    for (size_t i = 0; i < count; i++) {
        const link_module *m = &cands[i];
        if (!stem_matches(m, rest, rest_len))
            continue;
        if (dots) {
            /* relative: the stem is exactly <importer's folder><rest as a path> */
            if (m->stem_len != (size_t)folder + rest_len || strncmp(m->stem, importer, (size_t)folder) != 0)
                continue;
            return &l->ix[m->ix];
        }
        size_t p = common_dir_prefix(m->stem, importer);
        if (!best || p > best_prefix)
            best = m, best_prefix = p;
    }
    return best ? &l->ix[best->ix] : NULL;
}

const fe_file_index *py_link_module(const py_link *link, const char *importer, const char *module, size_t module_len)
{
    return resolve(link ? link->fns : NULL, importer, module, module_len);
}

bool py_link_is_sentinel_function(const py_link *link, const char *s, size_t n)
{
    bool sentinel = false, store = false;
    return link && link->fns && names_word(link->fns, s, n, &sentinel, &store) && sentinel;
}

bool py_link_is_store_function(const py_link *link, const char *s, size_t n)
{
    bool sentinel = false, store = false;
    return link && link->fns && names_word(link->fns, s, n, &sentinel, &store) && store;
}

/* ---- the tables ---- */

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
    l->fns = link_functions(ix, n, l, arena);
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

const py_module *py_link_modules_of(const py_link *l, const char *module, size_t *count)
{
    *count = 0;
    const char *tail = strrchr(module, '.');
    tail = tail ? tail + 1 : module;
    char file[256];
    if (!*tail || snprintf(file, sizeof file, "%s.py", tail) >= (int)sizeof file)
        return NULL;
    return py_link_modules(l, file, count);
}

bool py_link_module_const_sentinel(const py_link *l, const char *module, const char *name, size_t n)
{
    size_t nm;
    const py_module *m = py_link_modules_of(l, module, &nm);
    for (size_t k = 0; k < nm; k++)
        for (size_t j = 0; m[k].exports && j < m[k].exports->n; j++) {
            const py_export *x = &m[k].exports->v[j];
            if (x->sentinel && strlen(x->name) == n && memcmp(x->name, name, n) == 0)
                return true;
        }
    return false;
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
