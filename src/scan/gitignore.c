/*
 * gitignore.c: git's ignore rules for directory walks (see gitignore.h).
 *
 * Every path is judged relative to the work tree's top: the walk root's place below the top is
 * computed once, and each level (a .gitignore's folder, "" for the top and for info/exclude)
 * keeps its folder relative to the top. A level is pushed when the walk enters its folder and
 * popped when it leaves, so a folder's patterns apply to its subtree only. Patterns that are a
 * plain name, `*` + a plain suffix or a plain path (most of a Python .gitignore) are compared
 * without the automaton, and the others' literal start first (`cmake-build-` of
 * `cmake-build-*`, a path's folders before a wildcard). The tracked files are read at most once
 * per walk, and only when a pattern ignores something: from the index, else from git.
 */
#include "scan/gitignore.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "project/project.h"
#include "scan/gitdir.h"
#include "util/arena.h"
#include "util/process.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

enum { GITIGNORE_MAX_BYTES = 1 << 20, MAX_LEVELS = 160 };

typedef enum pat_kind { P_NAME, P_SUFFIX, P_PATH, P_GLOB } pat_kind;

typedef struct pattern {
    const char *text;     /* the glob (leading '/' and trailing '/' removed), or the name/suffix */
    pat_kind kind;
    bool negate, dir_only, anchored;
    size_t lit;           /* P_GLOB: the bytes before its first wildcard, class or escape */
    size_t len;           /* strlen(text) */
    const char *needle;   /* P_GLOB: its longest run of plain bytes without '/', which every match
                             holds (`_hip` of `*_hip*`), or NULL */
} pattern;

typedef struct level {
    const char *prefix;   /* its folder relative to the top ("" for the top) */
    pattern *v;
    size_t n;
    bool ignored;         /* the folder is ignored, entered only for the tracked files below it */
} level;

struct kv_gitignore {
    kv_arena *arena;
    char *root;           /* the walk's root as it spells paths (normalised) */
    char *root_rel;       /* root relative to the top ("" at the top) */
    level exclude;        /* .git/info/exclude */
    level *stack;         /* from the top down to the folder being walked */
    size_t n, cap;
    size_t base;          /* levels above the root, loaded by gitignore_open */
    char *top;            /* the work tree's top (canonical) */
    char *dotgit;         /* its .git (a folder or a file) */
    char **tracked;       /* tracked files (relative to the top, sorted; in arena): all the index
                             lists, or (from git) only those that patterns match */
    size_t ntracked;
    bool tracked_loaded;  /* read once, at the first path a pattern ignores */
};

/* Whether s holds a character the glob dialect treats specially. */
static bool has_magic(const char *s)
{
    return strpbrk(s, "*?[\\") != NULL;
}

/* The longest run of bytes that are neither a wildcard, a class, an escape nor '/' (a `**`'s
 * slash may match nothing), or NULL when it is shorter than 2. */
static const char *longest_plain_run(kv_arena *a, const char *s)
{
    size_t best = 0, at = 0;
    for (size_t i = 0; s[i];) {
        size_t n = strcspn(s + i, "*?[\\/");
        if (n > best)
            best = n, at = i;
        i += n;
        if (s[i] == '[') {   /* a class's bytes are no literal: skip to its ']' (none: '[' is one) */
            size_t j = i + 1;
            j += s[j] == '!' || s[j] == '^';
            for (bool first = true; s[j] && (first || s[j] != ']'); first = false)
                j += s[j] == '\\' && s[j + 1] ? 2 : 1;   /* `\]` is a member, as glob.c reads it */
            i = s[j] == ']' ? j + 1 : i + 1;
        } else if (s[i] == '\\') {   /* an escaped byte: the run ends there */
            i += s[i + 1] ? 2 : 1;
        } else if (s[i]) {
            i++;
        }
    }
    return best >= 2 ? arena_strndup(a, s + at, best) : NULL;
}

/* One line of a .gitignore into p; false for a blank line or a comment. Modifies line. */
static bool parse_line(kv_arena *a, char *line, pattern *p)
{
    size_t n = strlen(line);
    if (n && line[n - 1] == '\r')
        line[--n] = '\0';
    if (line[0] == '#')
        return false;
    /* trailing spaces go unless escaped ("\ " keeps one: the glob reads it as a literal space) */
    while (n && line[n - 1] == ' ' && !(n >= 2 && line[n - 2] == '\\'))
        line[--n] = '\0';
    *p = (pattern){ 0 };
    if (line[0] == '!') {
        p->negate = true;
        line++, n--;
    }
    if (n && line[n - 1] == '/') {
        p->dir_only = true;
        line[--n] = '\0';
    }
    if (n == 0)
        return false;
    p->anchored = strchr(line, '/') != NULL;
    if (line[0] == '/')
        line++;
    if (!*line)
        return false;
    p->kind = P_GLOB;
    if (!p->anchored && !has_magic(line))
        p->kind = P_NAME;
    else if (!p->anchored && line[0] == '*' && line[1] && !has_magic(line + 1))
        p->kind = P_SUFFIX, line++;
    else if (!has_magic(line))
        p->kind = P_PATH;
    p->lit = strcspn(line, "*?[\\");
    p->text = arena_strdup(a, line);
    p->len = strlen(line);
    p->needle = p->kind == P_GLOB ? longest_plain_run(a, line) : NULL;
    return true;
}

/* The patterns of file (a .gitignore or info/exclude) as a level for the folder prefix. */
static level load_level(kv_gitignore *g, const char *file, const char *prefix)
{
    level lv = { .prefix = arena_strdup(g->arena, prefix) };
    char *data = NULL;
    size_t len = 0;
    const char *why;
    if (fs_read_file(file, GITIGNORE_MAX_BYTES, &data, &len, &why) != FS_OK) {
        free(data);
        return lv;
    }
    size_t cap = 0;
    char *save = NULL;
    for (char *line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        pattern p;
        if (!parse_line(g->arena, line, &p))
            continue;
        lv.v = arena_grow(g->arena, lv.v, &cap, lv.n + 1, sizeof *lv.v);
        lv.v[lv.n++] = p;
    }
    free(data);
    return lv;
}

static void push(kv_gitignore *g, level lv)
{
    g->stack = xgrow(g->stack, &g->cap, g->n + 1, sizeof *g->stack);
    g->stack[g->n++] = lv;
}

/* One path against one pattern. Called for every walked entry and pattern of every level (vLLM:
 * 12,000 entries, 120 patterns), so each kind first compares what is cheapest: a first byte, a
 * length. base_len is strlen(base). */
static bool pattern_hits(const pattern *p, const char *rel, const char *base, size_t base_len, bool is_dir)
{
    if (p->dir_only && !is_dir)
        return false;
    switch (p->kind) {
    case P_NAME: return p->len == base_len && p->text[0] == base[0] && memcmp(p->text, base, base_len) == 0;
    case P_SUFFIX:
        return base_len >= p->len && memcmp(base + base_len - p->len, p->text, p->len) == 0;
    case P_PATH: return p->text[0] == rel[0] && strcmp(p->text, rel) == 0;
    case P_GLOB: {
        const char *s = p->anchored ? rel : base;   /* the whole of it must match: so must the start */
        return (p->lit == 0 || (s[0] == p->text[0] && strncmp(s, p->text, p->lit) == 0)) &&
               (!p->needle || strstr(s, p->needle)) && kv_glob_match_git(p->text, s);
    }
    }
    return false;
}

/* The verdict of one level: 1 ignored, 0 re-included, -1 no pattern matches. */
static int level_verdict(const level *lv, const char *rel_top, const char *base, bool is_dir)
{
    size_t pl = strlen(lv->prefix), bl = strlen(base);
    const char *rel = pl ? rel_top + pl + 1 : rel_top;
    for (size_t i = lv->n; i-- > 0;)
        if (pattern_hits(&lv->v[i], rel, base, bl, is_dir))
            return !lv->v[i].negate;
    return -1;
}

/* path as the walk spells it -> relative to the top (in sb). */
static void rel_to_top(const kv_gitignore *g, const char *path, strbuf *sb)
{
    size_t rl = strlen(g->root);
    const char *suffix = path;
    if (!strcmp(path, g->root))
        suffix = "";
    else if (strcmp(g->root, ".") != 0 && !strncmp(path, g->root, rl) && path[rl] == '/')
        suffix = path + rl + 1;
    sb_reset(sb);
    sb_adds(sb, g->root_rel);
    if (*g->root_rel && *suffix)
        sb_addc(sb, '/');
    sb_adds(sb, suffix);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* git never ignores a tracked file: the index lists them (gitdir.h), or where it cannot be read
 * here, `git ls-files -ci --exclude-standard` lists those that a pattern matches (usually none; a
 * few that were added with `git add -f`). */
static void load_tracked(kv_gitignore *g)
{
    g->tracked_loaded = true;
    if (gitdir_index_paths(g->top, g->dotgit, g->arena, &g->tracked, &g->ntracked))
        return;
    static const char *const argv[] = { "git", "ls-files", "-z", "-c", "-i", "--exclude-standard", NULL };
    strbuf out = STRBUF_INIT;
    if (proc_run(g->top, argv, &out, NULL) == 0) {
        size_t cap = 0;
        for (size_t at = 0; at < out.len;) {
            const char *name = out.buf + at;
            size_t len = strlen(name);
            g->tracked = arena_grow(g->arena, g->tracked, &cap, g->ntracked + 1, sizeof *g->tracked);
            g->tracked[g->ntracked++] = arena_strndup(g->arena, name, len);
            at += len + 1;
        }
        if (g->ntracked)
            qsort(g->tracked, g->ntracked, sizeof *g->tracked, cmp_str);
    }
    sb_release(&out);
}

/* Whether rel is a tracked file, or (is_dir) a folder holding one. */
static bool tracked_at(kv_gitignore *g, const char *rel, bool is_dir)
{
    if (!g->tracked_loaded)
        load_tracked(g);
    if (!g->ntracked)
        return false;
    size_t lo = 0, hi = g->ntracked, n = strlen(rel);
    while (lo < hi) {   /* the first entry >= rel */
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(g->tracked[mid], rel) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i < g->ntracked && !strncmp(g->tracked[i], rel, n); i++)
        if (is_dir ? g->tracked[i][n] == '/' : g->tracked[i][n] == '\0')
            return true;
    return false;
}

/* The patterns' verdict on rel (relative to the top): true when ignored, also for everything in
 * a folder that is ignored (nothing below it can be re-included). */
static bool patterns_ignore(const kv_gitignore *g, const char *rel, bool is_dir)
{
    if (g->n && g->stack[g->n - 1].ignored)
        return true;
    const char *slash = strrchr(rel, '/');
    const char *base = slash ? slash + 1 : rel;
    int v = -1;
    for (size_t i = g->n; v < 0 && i-- > 0;) {
        size_t pl = strlen(g->stack[i].prefix);
        if (!pl || (!strncmp(rel, g->stack[i].prefix, pl) && rel[pl] == '/'))
            v = level_verdict(&g->stack[i], rel, base, is_dir);
    }
    if (v < 0)
        v = level_verdict(&g->exclude, rel, base, is_dir);
    return v == 1;
}

bool gitignore_excluded(kv_gitignore *g, const char *path, bool is_dir)
{
    strbuf sb = STRBUF_INIT;
    rel_to_top(g, path, &sb);
    bool out = patterns_ignore(g, sb_str(&sb), is_dir) && !tracked_at(g, sb_str(&sb), is_dir);
    sb_release(&sb);
    return out;
}

/* .git/info/exclude, also for a worktree or submodule whose .git is a file. Heap string. */
static char *exclude_file(const char *top, const char *dotgit)
{
    char *common = gitdir_resolve(top, dotgit, true);
    char *out = common ? fs_join(common, "info/exclude") : NULL;
    free(common);
    return out;
}

kv_gitignore *gitignore_open(const char *root)
{
    char *dotgit = NULL;
    char *top = gitdir_find_top(root, &dotgit);
    if (!top)
        return NULL;
    kv_gitignore *g = xcalloc(1, sizeof *g);
    g->arena = arena_new();
    g->root = fs_normalize(root);
    char *real = fs_canonical(root);
    size_t tl = strlen(top);
    g->root_rel = xstrdup(!strcmp(top, "/") ? real + 1 : real[tl] == '/' ? real + tl + 1 : "");
    char *ex = exclude_file(top, dotgit);
    if (ex)
        g->exclude = load_level(g, ex, "");
    /* the folders from the top down to the root's parent (the root's own file: when it is entered) */
    strbuf dir = STRBUF_INIT, rel = STRBUF_INIT;
    sb_adds(&dir, top);
    for (const char *p = g->root_rel; *g->root_rel;) {
        char *file = fs_join(sb_str(&dir), ".gitignore");
        push(g, load_level(g, file, sb_str(&rel)));
        free(file);
        const char *end = strchr(p, '/');
        if (!end)
            break;
        if (rel.len)
            sb_addc(&rel, '/');
        sb_add(&rel, p, (size_t)(end - p));
        sb_addc(&dir, '/');
        sb_add(&dir, p, (size_t)(end - p));
        p = end + 1;
    }
    g->base = g->n;
    sb_release(&dir);
    sb_release(&rel);
    free(ex);
    free(real);
    g->top = top;
    g->dotgit = dotgit;
    return g;
}

static void enter(void *arg, const char *dir)
{
    kv_gitignore *g = arg;
    strbuf rel = STRBUF_INIT;
    rel_to_top(g, dir, &rel);
    char *file = fs_join(dir, ".gitignore");
    /* an ignored folder is entered only when it holds tracked files (the root: when named) */
    bool ignored = strcmp(dir, g->root) != 0 && patterns_ignore(g, sb_str(&rel), true);
    /* a level per folder, empty or not, so that leave() pops what enter() pushed */
    level lv = g->n < MAX_LEVELS ? load_level(g, file, sb_str(&rel)) : (level){ .prefix = "" };
    lv.ignored = ignored;
    push(g, lv);
    free(file);
    sb_release(&rel);
}

static void leave(void *arg, const char *dir)
{
    (void)dir;
    kv_gitignore *g = arg;
    if (g->n > g->base)
        g->n--;
}

static bool excluded(void *arg, const char *path, bool is_dir)
{
    return gitignore_excluded(arg, path, is_dir);
}

fs_filter gitignore_filter(kv_gitignore *g)
{
    return (fs_filter){ .enter = enter, .leave = leave, .excluded = excluded, .arg = g };
}

void gitignore_free(kv_gitignore *g)
{
    if (!g)
        return;
    arena_free(g->arena);
    free(g->top);
    free(g->dotgit);
    free(g->stack);
    free(g->root);
    free(g->root_rel);
    free(g);
}

bool gitignore_walk(const char *root, bool respect, fs_list *out, diag_list *diags)
{
    kv_gitignore *g = respect && fs_is_dir(root) ? gitignore_open(root) : NULL;
    if (!g)
        return fs_walk(root, out, diags);
    fs_filter f = gitignore_filter(g);
    bool ok = fs_walk_filtered(root, &f, out, diags);
    gitignore_free(g);
    return ok;
}
