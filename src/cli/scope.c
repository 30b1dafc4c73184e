/*
 * scope.c: see scope.h. The named files are compared by realpath (a hook passes paths relative
 * to the top, the walk may produce them relative to another folder); realpath is only computed for
 * walked files whose base name is also a named file's, so a large tree costs one walk.
 */
#include "cli/scope.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/git.h"
#include "frontend/frontend.h"
#include "scan/gitignore.h"
#include "util/xalloc.h"

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_regular(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static const char *base_of(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* The language the front ends read path as: NULL (none), "config", or code ("python", "c", ...;
 * a file claimed by content, such as a .h, counts as code). */
static const char *lang_of(const char *path)
{
    const char *lang = NULL;
    return kv_frontend_for(path, &lang) ? lang : NULL;
}

static bool is_config(const char *lang)
{
    return !strcmp(lang, "config");
}

/* abs as the walk should spell it: "." for the working directory, relative below it. */
static char *spelled_from_cwd(const char *abs)
{
    char cwd[PATH_MAX];
    char *real = realpath(abs, NULL);
    if (!real || !getcwd(cwd, sizeof cwd))
        return real ? real : xstrdup(abs);
    size_t n = strlen(cwd);
    char *out;
    if (!strcmp(real, cwd))
        out = xstrdup(".");
    else if (!strncmp(real, cwd, n) && real[n] == '/')
        out = xstrdup(real + n + 1);
    else
        out = xstrdup(real);
    free(real);
    return out;
}

static bool any_glob(const char *const *globs, size_t n, const char *rel)
{
    for (size_t i = 0; i < n; i++)
        if (kv_glob_match(globs[i], rel))
            return true;
    return false;
}

static bool is_given(const run_scope *s, const char *path)
{
    char *real = fs_canonical(path);
    bool hit = s->ngiven && bsearch(&real, s->given, s->ngiven, sizeof *s->given, cmp_str) != NULL;
    free(real);
    return hit;
}

static bool given_base(const run_scope *s, const char *path)
{
    const char *b = base_of(path);
    for (size_t i = 0; i < s->ngiven; i++)
        if (!strcmp(base_of(s->given[i]), b))
            return true;
    return false;
}

/* Take the context files of one walk of the root: code when code, configs when configs. */
static void take_from(run_scope *s, const kv_project *p, const fs_list *all, bool code, bool configs)
{
    size_t rootlen = strcmp(s->root, ".") ? strlen(s->root) : 0;
    for (size_t i = 0; i < all->n; i++) {
        const char *path = all->paths[i];
        const char *rel = rootlen && !strncmp(path, s->root, rootlen) && path[rootlen] == '/' ? path + rootlen + 1 : path;
        const char *lang = lang_of(path);
        if (!lang)
            continue;
        bool take;
        if (is_config(lang))
            take = configs && (p->path ? any_glob(p->model_config.v, p->model_config.n, rel) : true);
        else
            take = code && (p->code.n ? any_glob(p->code.v, p->code.n, rel) : true);
        if (!take || (given_base(s, path) && is_given(s, path)))
            continue;
        s->extra.paths = xgrow(s->extra.paths, &s->extra.cap, s->extra.n + 1, sizeof *s->extra.paths);
        s->extra.paths[s->extra.n++] = xstrdup(path);
    }
}

/* Walk the root and keep the context files the plan asks for. The checkpoints .kvlint.yaml's
 * `model_config:` globs name are read even if .gitignore'd (the project names them, as its
 * `deployments:`); code (`code:` globs or all) and the default configs (every config of the
 * repository) leave out what git ignores. */
static void collect(run_scope *s, const kv_project *p, bool want_code, bool want_configs)
{
    bool named_code = false, named_configs = p->path != NULL;
    kv_arena *tmp = arena_new();
    diag_list quiet;
    diag_init(&quiet, tmp);
    for (int respect = 0; respect < 2; respect++) {
        /* the plain walk supplies what is named (everything with --no-ignore), the filtered one
         * the defaults */
        bool code, configs;
        if (!p->respect_gitignore) {
            code = !respect && want_code;
            configs = !respect && want_configs;
        } else {
            code = want_code && named_code == !respect;
            configs = want_configs && named_configs == !respect;
        }
        if (!code && !configs)
            continue;
        fs_list all = {0};
        gitignore_walk(s->root, respect, &all, &quiet);
        take_from(s, p, &all, code, configs);
        fs_list_free(&all);
    }
    fs_list_sort_unique(&s->extra);
    arena_free(tmp);
}

/* The nearest existing folder of path (a --stdin-filename NAME need not exist). Heap string. */
static char *existing_dir_of(const char *path)
{
    char *dir = fs_dir_of(path);
    for (int hops = 0; hops < 128 && !fs_is_dir(dir); hops++) {
        char *up = fs_join(dir, "..");
        free(dir);
        dir = fs_normalize(up);
        free(up);
    }
    return dir;
}

/* Does the code file path (or standard input's bytes, when it is stdin_name) declare a
 * deployment, as its front end reads it lexically (frontend.h's `declares`)? */
static bool declares_deployment(const char *path, const char *stdin_name, const char *stdin_data, size_t stdin_len,
                                size_t limit)
{
    const char *lang = NULL;
    const frontend *fe = kv_frontend_for(path, &lang);
    if (!fe || !fe->declares)
        return false;
    bool from_stdin = stdin_name && !strcmp(path, stdin_name);
    char *data = NULL;
    size_t len = 0;
    const char *err = NULL;
    if (!from_stdin && (fs_read_file(path, limit, &data, &len, &err) != FS_OK || !data || fs_looks_binary(data, len))) {
        free(data);
        return false;
    }
    fe_source src = { .path = path, .data = from_stdin ? stdin_data : data, .len = from_stdin ? stdin_len : len,
                      .lang = lang };
    bool yes = src.data && fe->declares(&src);
    free(data);
    return yes;
}

void scope_plan(run_scope *s, char *const *paths, size_t npaths, const kv_project *p, bool named_configs,
                const char *stdin_name, const char *stdin_data, size_t stdin_len, size_t max_file_size)
{
    memset(s, 0, sizeof *s);
    if (npaths == 0)
        return;
    size_t limit = project_file_limit(p, max_file_size);
    /* code: a named code file that is not also a deployment (a test's `LLM(dtype="float16")`) */
    bool code = false, claimed = false;
    for (size_t i = 0; i < npaths; i++) {
        if (!is_regular(paths[i]) && !(stdin_name && !strcmp(paths[i], stdin_name)))
            return;
        const char *lang = lang_of(paths[i]);
        claimed = claimed || lang;
        code = code || (lang && !is_config(lang) && !declares_deployment(paths[i], stdin_name, stdin_data,
                                                                         stdin_len, limit));
    }
    if (!claimed)
        return;
    char *top;
    if (p->path) {
        top = xstrdup(p->root);
    } else {
        char *dir = existing_dir_of(paths[0]);
        top = git_toplevel(dir);
        free(dir);
        if (!top)
            return;   /* neither .kvlint.yaml nor a repository: nothing says where the project ends */
    }
    s->root = spelled_from_cwd(top);
    free(top);
    s->given = xcalloc(npaths, sizeof *s->given);
    for (size_t i = 0; i < npaths; i++)
        s->given[s->ngiven++] = fs_canonical(paths[i]);
    qsort(s->given, s->ngiven, sizeof *s->given, cmp_str);
    s->focused = true;
    collect(s, p, !code, !named_configs);
}

/* ---- the modules named code imports (indexed only) ---- */

enum { IMPORT_LEVELS = 2, MAX_IMPORTED = 128, MAX_ROOTS = 32 };

/* Folders a rooted import of `dir`'s file is tried under, nearest first: dir and each folder
 * above it up to the project root (a script's own folder, a `src/` layout, the root itself). */
static size_t roots_of(const char *canon_root, const char *dir, char **out)
{
    size_t n = 0, rl = strlen(canon_root);
    char *d = fs_normalize(dir);
    for (;;) {
        out[n++] = d;
        char *real = fs_canonical(d);
        bool below = !strncmp(real, canon_root, rl) && (real[rl] == '/' || !strcmp(canon_root, "/"));
        free(real);
        if (!below || n == MAX_ROOTS)   /* the root itself (or a folder outside it) is the last */
            return n;
        char *up = fs_join(d, "..");
        d = fs_normalize(up);
        free(up);
    }
}

/* Is path an existing file of front end fe under the root? Then it is taken into the context
 * unless named or taken before. */
static bool take_import(run_scope *s, const char *canon_root, const frontend *fe, const char *path)
{
    const char *lang = NULL;
    if (kv_frontend_for(path, &lang) != fe || !is_regular(path))
        return false;
    char *real = fs_canonical(path);
    size_t rl = strlen(canon_root);
    bool inside = !strncmp(real, canon_root, rl) && (real[rl] == '/' || !strcmp(canon_root, "/"));
    free(real);
    if (!inside)
        return false;
    if (given_base(s, path) && is_given(s, path))
        return true;
    for (size_t i = 0; i < s->context.n; i++)
        if (!strcmp(s->context.paths[i], path))
            return true;
    s->context.paths = xgrow(s->context.paths, &s->context.cap, s->context.n + 1, sizeof *s->context.paths);
    s->context.paths[s->context.n++] = xstrdup(path);
    return true;
}

/* Folders seen while one file's imports are tried: most candidates share one (`M/a.py`,
 * `M/b.py`; an external package's under each root), so each is looked up once. */
typedef struct dir_cache {
    char *dir[64];
    bool exists[64];
    size_t n;
} dir_cache;

static bool folder_exists(dir_cache *c, const char *path)
{
    char *dir = fs_dir_of(path);
    for (size_t i = 0; i < c->n; i++)
        if (!strcmp(c->dir[i], dir)) {
            free(dir);
            return c->exists[i];
        }
    bool e = fs_is_dir(dir);
    if (c->n < sizeof c->dir / sizeof *c->dir) {
        c->dir[c->n] = dir;
        c->exists[c->n++] = e;
    } else {
        free(dir);
    }
    return e;
}

/* The files one file (data) imports that exist, into the context. */
static void imports_of(run_scope *s, const char *canon_root, const char *path, const char *data, size_t len)
{
    const char *lang = NULL;
    const frontend *fe = kv_frontend_for(path, &lang);
    if (!data || !fe || !fe->imports || s->context.n >= MAX_IMPORTED)
        return;
    kv_arena *tmp = arena_new();
    fe_source src = { .path = path, .data = data, .len = len, .lang = lang };
    const fe_import *v;
    size_t n = fe->imports(&src, tmp, &v);
    char *dir = fs_dir_of(path);
    char *roots[MAX_ROOTS];
    size_t nroots = roots_of(canon_root, dir, roots);
    dir_cache dirs = { .n = 0 };
    for (size_t i = 0; i < n && s->context.n < MAX_IMPORTED; i++)
        for (size_t r = 0; r < (v[i].rooted ? nroots : 1); r++) {
            char *joined = fs_join(v[i].rooted ? roots[r] : dir, v[i].path);
            char *c = fs_normalize(joined);
            bool found = folder_exists(&dirs, c) && take_import(s, canon_root, fe, c);
            free(joined);
            free(c);
            if (found)
                break;   /* the nearest root that has it */
        }
    for (size_t r = 0; r < nroots; r++)
        free(roots[r]);
    for (size_t i = 0; i < dirs.n; i++)
        free(dirs.dir[i]);
    free(dir);
    arena_free(tmp);
}

static void read_imports(run_scope *s, const char *canon_root, const char *path, size_t limit)
{
    char *data = NULL;
    size_t len = 0;
    const char *err = NULL;
    if (s->context.n >= MAX_IMPORTED)
        return;
    if (fs_read_file(path, limit, &data, &len, &err) == FS_OK && data && !fs_looks_binary(data, len))
        imports_of(s, canon_root, path, data, len);
    free(data);
}

void scope_add_imports(run_scope *s, char *const *paths, size_t npaths, const kv_project *p, const char *stdin_name,
                       const char *stdin_data, size_t stdin_len, size_t max_file_size)
{
    if (!s->focused || !s->root)
        return;
    size_t limit = project_file_limit(p, max_file_size);
    char *canon_root = fs_canonical(s->root);
    for (size_t i = 0; i < npaths; i++)
        if (stdin_name && !strcmp(paths[i], stdin_name))
            imports_of(s, canon_root, paths[i], stdin_data, stdin_data ? stdin_len : 0);
        else
            read_imports(s, canon_root, paths[i], limit);
    /* each further level: the imports of the files the previous one took (the last level's
     * files are indexed, their own imports not read) */
    for (size_t level = 1, begin = 0, end = s->context.n; level < IMPORT_LEVELS; level++) {
        for (size_t i = begin; i < end; i++)
            read_imports(s, canon_root, s->context.paths[i], limit);
        begin = end;
        end = s->context.n;
    }
    free(canon_root);
    fs_list_sort_unique(&s->context);
}

static bool loc_given(const run_scope *s, const kv_loc *l)
{
    return l->path && is_given(s, l->path);
}

bool scope_involves(const run_scope *s, const finding *f)
{
    if (!s->focused)
        return true;
    if (loc_given(s, &f->loc) || (f->has_dtype_origin && loc_given(s, &f->dtype_origin)))
        return true;
    for (size_t i = 0; i < f->nrelated; i++)
        if (loc_given(s, &f->related[i].loc))
            return true;
    for (size_t i = 0; i < f->nsteps; i++)
        if (loc_given(s, &f->steps[i].loc))
            return true;
    for (size_t i = 0; i < f->ndeployments; i++)   /* a site listing a named deployment */
        if (loc_given(s, &f->deployments[i].loc))
            return true;
    return false;
}

bool scope_keeps(const void *scope, const finding *f)
{
    return scope_involves(scope, f);
}

bool scope_shows_path(const run_scope *s, const char *path)
{
    if (!s->focused || !path)
        return true;
    char *key = (char *)path;
    return !s->extra.n || bsearch(&key, s->extra.paths, s->extra.n, sizeof *s->extra.paths, cmp_str) == NULL;
}

void scope_filter(const run_scope *s, finding_list *l)
{
    if (!s->focused)
        return;
    size_t k = 0;
    for (size_t i = 0; i < l->v.n; i++)
        if (scope_involves(s, &l->v.v[i]))
            l->v.v[k++] = l->v.v[i];
    l->v.n = k;
}

void scope_free(run_scope *s)
{
    for (size_t i = 0; i < s->ngiven; i++)
        free(s->given[i]);
    free(s->given);
    fs_list_free(&s->extra);
    fs_list_free(&s->context);
    free(s->root);
    memset(s, 0, sizeof *s);
}
