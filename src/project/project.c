/*
 * project.c: `.kvlint.yaml`, the project's settings (see project.h and docs/configuration.md).
 *
 * Discovery walks up from the first scanned path to the directory holding .git (or the file
 * system root). The file is read with the same positioned YAML reader as deployment configs, so
 * every problem has a line and column; unknown keys and bad values are errors, and what could be
 * read is still returned. Globs are matched against paths relative to the file's directory.
 * It deliberately has no inheritance between nested .kvlint.yaml files: the nearest one wins.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "project/project.h"
#include "util/ytree.h"
#include "util/fsutil.h"
#include "util/strlist.h"
#include "util/xalloc.h"

enum { PROJECT_MAX_BYTES = 1 << 20, DEFAULT_MAX_FILE = 8 << 20 };

kv_project *project_default(const char *root)
{
    kv_project *p = xcalloc(1, sizeof *p);
    p->arena = arena_new();
    p->root = arena_strdup(p->arena, root && *root ? root : ".");
    p->assume_model = KVN_DTYPE_INVALID;
    p->max_file_size = DEFAULT_MAX_FILE;
    p->respect_gitignore = true;
    char *real = realpath(p->root, NULL);
    if (real) {
        p->root_real = arena_strdup(p->arena, real);
        free(real);
    }
    return p;
}

void project_free(kv_project *p)
{
    if (!p)
        return;
    arena_free(p->arena);
    free(p);
}

/* ---- loading ---- */

typedef struct loader {
    kv_project *p;
    const ystream *st;
    ywalk walk;
    diag_list *diags;
    const char *path;
    ARENA_VEC(const ynode *) assume_kv_nodes;
    const ynode *assume_model_node;
} loader;

static void err(loader *l, const ynode *n, const char *fmt, const char *arg)
{
    ypos p = n ? ytree_pos(&l->st->src, n->start) : (ypos){ 0, 0, 0 };
    diag_add(l->diags, DIAG_ERROR, l->path, p.line, p.col, fmt, arg);
}

static kv_loc loc_of(loader *l, const ynode *n)
{
    ypos p = ytree_pos(&l->st->src, n->start);
    return kv_loc_make(l->p->path, p.line, p.col, 0, 0);
}

static const ynode *deref(loader *l, const ynode *n)
{
    return ywalk_deref(&l->walk, n);
}

/* A scalar or a list of scalars. */
static void strings(loader *l, const ynode *v, const char *key, void *vecp)
{
    ARENA_VEC(const char *) *vec = vecp;
    v = deref(l, v);
    if (v && v->kind == YN_SCALAR) {
        ARENA_PUSH(l->p->arena, *vec, arena_strdup(l->p->arena, v->val));
        return;
    }
    if (!v || v->kind != YN_SEQ) {
        err(l, v, "%s: expected a list of strings", key);
        return;
    }
    for (size_t i = 0; i < v->nkids; i++) {
        const ynode *it = deref(l, v->kids[i]);
        if (it && it->kind == YN_SCALAR)
            ARENA_PUSH(l->p->arena, *vec, arena_strdup(l->p->arena, it->val));
        else
            err(l, it, "%s: expected a string", key);
    }
}

static bool number(const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s)
        return false;
    if (*end == 'k' || *end == 'K')
        v *= 1024, end++;
    else if (*end == 'm' || *end == 'M')
        v *= 1024 * 1024, end++;
    else if (*end == 'g' || *end == 'G')
        v *= 1024.0 * 1024 * 1024, end++;
    if (*end)
        return false;
    *out = v;
    return true;
}

/* Map entries: calls fn(l, key node, value node) for each. */
#define EACH_PAIR(l, m, kvar, vvar)                                                                     \
    for (size_t kvar##_i = 0; (m) && (m)->kind == YN_MAP && kvar##_i + 1 < (m)->nkids; kvar##_i += 2)     \
        for (const ynode *kvar = deref(l, (m)->kids[kvar##_i]), *vvar = deref(l, (m)->kids[kvar##_i + 1]); \
             kvar; kvar = NULL)

static void arg_spec(loader *l, const ynode *v, int *index, const char **kw)
{
    double x;
    if (!v || v->kind != YN_SCALAR) {
        err(l, v, "sinks: %s must be an argument index or a keyword name", "key/value");
        return;
    }
    if (number(v->val, &x) && x >= 0 && x < 64 && x == (int)x)
        *index = (int)x;
    else
        *kw = arena_strdup(l->p->arena, v->val);
}

static void load_sinks(loader *l, const ynode *v)
{
    if (!v || v->kind != YN_SEQ) {
        err(l, v, "%s: expected a list of {name, key, value, engine}", "sinks");
        return;
    }
    for (size_t i = 0; i < v->nkids; i++) {
        const ynode *m = deref(l, v->kids[i]);
        if (!m || m->kind != YN_MAP) {
            err(l, m, "%s: each sink is a mapping", "sinks");
            continue;
        }
        user_sink s = { .key_arg = -1, .value_arg = -1, .loc = loc_of(l, m) };
        EACH_PAIR(l, m, k, val) {
            const char *name = yscalar(k);
            if (!name || !val) {
                err(l, k, "sinks: %s", "bad entry");
            } else if (!strcmp(name, "name") && val->kind == YN_SCALAR) {
                s.name = arena_strdup(l->p->arena, val->val);
            } else if (!strcmp(name, "engine") && val->kind == YN_SCALAR) {
                if (!engine_parse(val->val, &s.engine))
                    s.user_engine = arena_strdup(l->p->arena, val->val);
            } else if (!strcmp(name, "key") || !strcmp(name, "key_arg") || !strcmp(name, "key_kw")) {
                arg_spec(l, val, &s.key_arg, &s.key_kw);
            } else if (!strcmp(name, "value") || !strcmp(name, "value_arg") || !strcmp(name, "value_kw")) {
                arg_spec(l, val, &s.value_arg, &s.value_kw);
            } else {
                err(l, k, "sinks: unknown key '%s' (known: name, key, value, engine)", name);
            }
        }
        if (!s.name)
            err(l, m, "sinks: %s", "a sink needs a name");
        else if (s.key_arg < 0 && s.value_arg < 0 && !s.key_kw && !s.value_kw)
            err(l, m, "sinks: sink '%s' names neither a key nor a value argument", s.name);
        else
            ARENA_PUSH(l->p->arena, l->p->sinks, s);
    }
}

static void load_ranges(loader *l, const ynode *v)
{
    if (!v || v->kind != YN_MAP) {
        err(l, v, "%s: expected a mapping such as {adapter_id: {max: 31}}", "ranges");
        return;
    }
    EACH_PAIR(l, v, k, val) {
        const char *name = yscalar(k);
        const ynode *maxn = val && val->kind == YN_MAP ? ymap_get(&l->walk, val, "max") : val;
        double x;
        if (val && val->kind == YN_MAP) {
            EACH_PAIR(l, val, k2, v2) {
                (void)v2;
                if (yscalar(k2) && strcmp(yscalar(k2), "max") != 0)
                    err(l, k2, "ranges: unknown key '%s' (known: max)", yscalar(k2));
            }
        }
        if (!name || !maxn || maxn->kind != YN_SCALAR || !number(maxn->val, &x) || !(x >= 0) ||
            x != floor(x) || x > 9007199254740992.0) {
            err(l, val ? val : k, "ranges: %s needs {max: N} with N a whole number from 0 to 2^53", name ? name : "?");
            continue;
        }
        range_setting r = { arena_strdup(l->p->arena, name), x, loc_of(l, maxn) };
        ARENA_PUSH(l->p->arena, l->p->ranges, r);
    }
}

static void load_assume(loader *l, const ynode *v)
{
    if (!v || v->kind != YN_MAP) {
        err(l, v, "%s: expected {kv_cache_dtype: [...], dtype: ...}", "assume");
        return;
    }
    EACH_PAIR(l, v, k, val) {
        const char *name = yscalar(k);
        if (name && (!strcmp(name, "kv_cache_dtype") || !strcmp(name, "kv-cache-dtype"))) {
            if (val && val->kind == YN_SCALAR) {
                ARENA_PUSH(l->p->arena, l->assume_kv_nodes, val);
            } else if (val && val->kind == YN_SEQ) {
                for (size_t i = 0; i < val->nkids; i++)
                    ARENA_PUSH(l->p->arena, l->assume_kv_nodes, deref(l, val->kids[i]));
            } else {
                err(l, val, "assume: %s must be a dtype or a list of dtypes", name);
            }
            l->p->assume_kv_loc = loc_of(l, val ? val : k);
        } else if (name && !strcmp(name, "dtype")) {
            l->assume_model_node = val;
        } else {
            err(l, k, "assume: unknown key '%s' (known: kv_cache_dtype, dtype)", name ? name : "?");
        }
    }
}

static kvn_dtype assumed(loader *l, const ynode *n)
{
    if (!n || n->kind != YN_SCALAR) {
        err(l, n, "assume: %s", "expected a dtype name");
        return KVN_DTYPE_INVALID;
    }
    kvn_dtype d = kvn_dtype_parse(n->val, l->p->platform == KVN_PLAT_ROCM);
    if (d == KVN_DTYPE_INVALID) {
        ypos p = ytree_pos(&l->st->src, n->start);
        diag_add(l->diags, DIAG_ERROR, l->path, p.line, p.col, "assume: unknown dtype '%s'; valid: %s", n->val,
                 kvn_dtype_valid_names());
    }
    return d;
}

/* rules.severity: {KV007: warning, KV010: error}: the severity a rule's findings get in this
 * project. The names are checked here, the rule ids by the CLI (it has the rules). */
static void load_severities(loader *l, const ynode *v)
{
    if (!v || v->kind != YN_MAP) {
        err(l, v, "%s: expected {RULE: error|warning|note, ...}", "rules.severity");
        return;
    }
    EACH_PAIR(l, v, k, val) {
        const char *id = yscalar(k), *sev = yscalar(val);
        if (!id || !sev) {
            err(l, val ? val : k, "%s: each entry is RULE: error|warning|note", "rules.severity");
            continue;
        }
        if (strcmp(sev, "error") != 0 && strcmp(sev, "warning") != 0 && strcmp(sev, "note") != 0) {
            err(l, val, "rules.severity: '%s' is no severity (error, warning or note)", sev);
            continue;
        }
        rule_override o = { arena_strdup(l->p->arena, id), arena_strdup(l->p->arena, sev), loc_of(l, k) };
        ARENA_PUSH(l->p->arena, l->p->severity, o);
    }
}

/* Why a per_file_ignores glob cannot be used, or NULL: the dialect has no braces or classes, and
 * a glob is relative to the project's folder. */
static const char *bad_glob(const char *g)
{
    if (!*g)
        return "an empty glob matches nothing";
    if (g[0] == '/')
        return "globs are relative to the folder of .kvlint.yaml, not absolute";
    if (!strcmp(g, "..") || !strncmp(g, "../", 3) || strstr(g, "/../") || str_ends_with(g, "/.."))
        return "a glob cannot leave the folder of .kvlint.yaml ('..')";
    if (strpbrk(g, "[]{}"))
        return "globs have no character classes or braces (*, ** and ? only)";
    return NULL;
}

/* rules.per_file_ignores: {GLOB: [KV003, KV007], ...}. The ids are checked by the CLI. */
static void load_per_file_ignores(loader *l, const ynode *v)
{
    if (!v || v->kind != YN_MAP) {
        err(l, v, "%s: expected {GLOB: [RULE, ...], ...}", "rules.per_file_ignores");
        return;
    }
    EACH_PAIR(l, v, k, val) {
        const char *glob = yscalar(k), *why = glob ? bad_glob(glob) : NULL;
        if (!glob || why) {
            ypos p = ytree_pos(&l->st->src, k->start);
            diag_add(l->diags, DIAG_ERROR, l->path, p.line, p.col, "rules.per_file_ignores: '%s': %s",
                     glob ? glob : "?", glob ? why : "a glob is a plain string");
            continue;
        }
        if (!val) {
            err(l, k, "rules.per_file_ignores: '%s': expected a rule id or a list of them", glob);
            continue;
        }
        file_rule_ignore fi = { .glob = arena_strdup(l->p->arena, glob), .loc = loc_of(l, k) };
        const ynode *one[1] = { val };
        const ynode *const *items = val->kind == YN_SEQ ? (const ynode *const *)val->kids : one;
        size_t n = val->kind == YN_SEQ ? val->nkids : 1;
        for (size_t i = 0; i < n; i++) {
            const ynode *it = deref(l, items[i]);
            if (!it || it->kind != YN_SCALAR || !*it->val) {
                err(l, it ? it : k, "rules.per_file_ignores: '%s': expected a rule id or a list of them", glob);
                continue;
            }
            ARENA_PUSH(l->p->arena, fi.rules, arena_strdup(l->p->arena, it->val));
            ARENA_PUSH(l->p->arena, fi.rule_locs, loc_of(l, it));
        }
        if (fi.rules.n)
            ARENA_PUSH(l->p->arena, l->p->per_file_ignores, fi);
    }
}

static void load_rules(loader *l, const ynode *v)
{
    if (!v || v->kind != YN_MAP) {
        err(l, v, "%s: expected {select: [...], ignore: [...], severity: {...}, per_file_ignores: {...}}", "rules");
        return;
    }
    EACH_PAIR(l, v, k, val) {
        const char *name = yscalar(k);
        if (name && !strcmp(name, "select"))
            strings(l, val, "rules.select", &l->p->select);
        else if (name && !strcmp(name, "ignore"))
            strings(l, val, "rules.ignore", &l->p->ignore);
        else if (name && !strcmp(name, "severity"))
            load_severities(l, val);
        else if (name && (!strcmp(name, "per_file_ignores") || !strcmp(name, "per-file-ignores")))
            load_per_file_ignores(l, val);
        else
            err(l, k, "rules: unknown key '%s' (known: select, ignore, severity, per_file_ignores)", name ? name : "?");
    }
}

static void load_key(loader *l, const ynode *k, const ynode *v)
{
    const char *name = yscalar(k);
    double x;
    if (!name)
        err(l, k, "%s", "keys of .kvlint.yaml are plain names");
    else if (!strcmp(name, "include"))
        strings(l, v, name, &l->p->include);
    else if (!strcmp(name, "exclude"))
        strings(l, v, name, &l->p->exclude);
    else if (!strcmp(name, "deployments"))
        strings(l, v, name, &l->p->deployments);
    else if (!strcmp(name, "code"))
        strings(l, v, name, &l->p->code);
    else if (!strcmp(name, "model_config") || !strcmp(name, "model-config"))
        strings(l, v, name, &l->p->model_config);
    else if (!strcmp(name, "sinks"))
        load_sinks(l, v);
    else if (!strcmp(name, "ranges"))
        load_ranges(l, v);
    else if (!strcmp(name, "assume"))
        load_assume(l, v);
    else if (!strcmp(name, "rules"))
        load_rules(l, v);
    else if (!strcmp(name, "platform")) {
        const char *s = yscalar(v);
        if (!s || !kvn_platform_parse(s, &l->p->platform))
            err(l, v ? v : k,
                s ? "platform: expected cuda, cuda-sm75, rocm or cpu, not '%s'"
                  : "platform: expected cuda, cuda-sm75, rocm or cpu, not %s",
                s ? s : "a list or mapping");
    } else if (!strcmp(name, "max_file_size") || !strcmp(name, "max-file-size")) {
        const char *s = yscalar(v);
        if (s && number(s, &x) && x >= 1 && x <= (double)FS_MAX_FILE_SIZE_LIMIT)
            l->p->max_file_size = (size_t)x;
        else
            err(l, v ? v : k,
                s ? "max_file_size: expected a size from 1 byte to 4G-1 such as 8M, not '%s'"
                  : "max_file_size: expected a size from 1 byte to 4G-1 such as 8M, not %s",
                s ? s : "a list or mapping");
    } else if (!strcmp(name, "respect_gitignore") || !strcmp(name, "respect-gitignore")) {
        const char *s = yscalar(v);
        if (s && (!strcmp(s, "true") || !strcmp(s, "false")))
            l->p->respect_gitignore = !strcmp(s, "true");
        else
            err(l, v ? v : k, s ? "respect_gitignore: expected true or false, not '%s'"
                                : "respect_gitignore: expected true or false, not %s",
                s ? s : "a list or mapping");
    } else if (!strcmp(name, "compile_commands")) {
        const char *s = yscalar(v);
        if (s && *s)
            l->p->compile_commands = s[0] == '/' || !strcmp(l->p->root, ".")
                                         ? arena_strdup(l->p->arena, s)
                                         : arena_printf(l->p->arena, "%s/%s", l->p->root, s);
        else
            err(l, v ? v : k, "%s", "compile_commands: expected the path of a compile_commands.json");
    } else {
        err(l, k, "unknown key '%s' (known: include, exclude, sinks, ranges, assume, deployments, code, "
                  "model_config, platform, rules, max_file_size, respect_gitignore, compile_commands)", name);
    }
}

kv_project *project_load(const char *path, diag_list *diags)
{
    char *data = NULL;
    size_t len = 0;
    const char *why = NULL;
    fs_status st = fs_read_file(path, PROJECT_MAX_BYTES, &data, &len, &why);
    if (st != FS_OK) {
        diag_add(diags, DIAG_ERROR, path, 0, 0, "cannot read project file: %s",
                 st == FS_TOO_LARGE ? "larger than 1 MiB" : why);
        free(data);
        return NULL;
    }
    char *dir = fs_dir_of(path);
    kv_project *p = project_default(dir);
    free(dir);
    p->path = arena_strdup(p->arena, path);
    loader l = { .p = p, .diags = diags, .path = p->path };
    l.st = ytree_parse(p->path, data, len, p->arena, diags, DIAG_ERROR);
    ywalk_init(&l.walk, l.st);
    const ynode *root = l.st->ndocs ? deref(&l, l.st->docs[0].root) : NULL;
    if (root && root->kind == YN_MAP) {
        EACH_PAIR(&l, root, k, v)
            load_key(&l, k, v);
    } else if (root && !(root->kind == YN_SCALAR && root->len == 0)) {
        err(&l, root, "%s", ".kvlint.yaml must be a mapping of settings");
    }
    for (size_t i = 0; i < l.assume_kv_nodes.n; i++) {
        kvn_dtype d = assumed(&l, l.assume_kv_nodes.v[i]);
        if (d != KVN_DTYPE_INVALID)
            ARENA_PUSH(p->arena, p->assume_kv, d);
    }
    if (l.assume_model_node) {
        p->assume_model = assumed(&l, l.assume_model_node);
        p->assume_model_loc = loc_of(&l, l.assume_model_node);
    }
    free(data);
    return p;
}

static bool exists(const char *dir, const char *name, bool want_dir)
{
    char *p = fs_join(dir, name);
    struct stat sb;
    bool ok = stat(p, &sb) == 0 && (want_dir ? S_ISDIR(sb.st_mode) : true);
    free(p);
    return ok;
}

kv_project *project_discover(const char *start, diag_list *diags)
{
    char *dir = fs_is_dir(start) ? fs_normalize(start) : fs_dir_of(start);
    for (int hops = 0; hops < 128; hops++) {
        for (int k = 0; k < 2; k++) {
            const char *name = k ? ".kvlint.yml" : ".kvlint.yaml";
            if (exists(dir, name, false)) {
                char *path = fs_join(dir, name);
                char *norm = fs_normalize(path);
                kv_project *p = project_load(norm, diags);
                free(path);
                free(norm);
                free(dir);
                return p ? p : project_default(".");
            }
        }
        if (exists(dir, ".git", false))
            break;
        /* A folder that does not exist (a --stdin-filename NAME's) is passed through lexically. */
        char *real = realpath(dir, NULL);
        bool at_root = real ? !strcmp(real, "/") : !strcmp(dir, "/");
        free(real);
        if (at_root)
            break;
        char *up = fs_join(dir, "..");
        free(dir);
        dir = fs_normalize(up);
        free(up);
    }
    free(dir);
    return project_default(".");
}

/* path relative to the project root, or NULL when it lies outside. Heap string. */
static char *relative_to_root(const kv_project *p, const char *path)
{
    if (!strcmp(p->root, ".") && path[0] != '/') {
        char *n = fs_normalize(path);
        if (strncmp(n, "../", 3) != 0 && strcmp(n, ".."))
            return n;
        free(n);
    }
    if (!p->root_real)
        return NULL;
    char *real = fs_canonical(path);
    size_t n = strlen(p->root_real);
    char *rel = NULL;
    if (!strcmp(p->root_real, "/"))
        rel = xstrdup(real + 1);
    else if (!strncmp(real, p->root_real, n) && (real[n] == '/' || real[n] == '\0'))
        rel = xstrdup(real[n] ? real + n + 1 : ".");
    free(real);
    return rel;
}

/* A pattern matches the path, or a directory above it; one without '/' also matches any segment. */
static bool glob_hits(const char *pattern, const char *rel)
{
    if (kv_glob_match_dirs(pattern, rel))
        return true;
    char *buf = xstrdup(rel);
    bool hit = false;
    if (!strchr(pattern, '/')) {
        char *save = NULL;
        for (char *seg = strtok_r(buf, "/", &save); seg && !hit; seg = strtok_r(NULL, "/", &save))
            hit = kv_glob_match(pattern, seg);
    }
    free(buf);
    return hit;
}

size_t project_file_limit(const kv_project *p, size_t cli)
{
    return cli ? cli : p && p->max_file_size ? p->max_file_size : DEFAULT_MAX_FILE;
}

bool project_path_included(const kv_project *p, const char *path)
{
    if (!p || (p->include.n == 0 && p->exclude.n == 0))
        return true;
    char *rel = relative_to_root(p, path);
    if (!rel)
        return true; /* outside the project: named explicitly, so checked */
    bool ok = p->include.n == 0;
    for (size_t i = 0; i < p->include.n && !ok; i++)
        ok = glob_hits(p->include.v[i], rel);
    for (size_t i = 0; i < p->exclude.n && ok; i++)
        ok = !glob_hits(p->exclude.v[i], rel);
    free(rel);
    return ok;
}

bool project_ignores_rule_at(const kv_project *p, const char *path, const char *rule_id, const char *rule_name)
{
    if (!p || !p->per_file_ignores.n || !path)
        return false;
    char *rel = relative_to_root(p, path);
    if (!rel)
        return false;   /* outside the project: its globs do not speak of it */
    bool hit = false;
    for (size_t i = 0; i < p->per_file_ignores.n && !hit; i++) {
        const file_rule_ignore *fi = &p->per_file_ignores.v[i];
        bool named = false;
        for (size_t k = 0; k < fi->rules.n && !named; k++)
            named = !strcasecmp(fi->rules.v[k], rule_id) || !strcmp(fi->rules.v[k], rule_name);
        hit = named && glob_hits(fi->glob, rel);
    }
    free(rel);
    return hit;
}
