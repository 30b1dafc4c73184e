/*
 * compdb.c: the compilation database reader and the nvcc-to-clang flag translation (compdb.h).
 *
 * The JSON is read with the YAML tree reader (JSON is YAML), `command` strings are split with the
 * shell-word splitter the config front end uses; neither expands anything.
 */
#include "scan/compdb.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/shellwords.h"
#include "util/ytree.h"
#include "util/fsutil.h"
#include "util/xalloc.h"
#include "util/strlist.h"

/* ---- flag translation ---- */

/* Flags kept, with the spelling clang takes. `path` values are made absolute. A value may be
 * attached (-DX, -I/x, --std=c++17) or the next word. */
typedef struct kept_flag {
    const char *spelling;      /* as written (nvcc long spellings included) */
    const char *clang;         /* what clang gets */
    bool path;                 /* the value is a file or folder */
    bool joined;               /* clang takes it as one word: -std=VALUE */
} kept_flag;

static const kept_flag kept[] = {
    { "-D", "-D", false, false },              { "--define-macro", "-D", false, false },
    { "-U", "-U", false, false },              { "--undefine-macro", "-U", false, false },
    { "-I", "-I", true, false },               { "--include-path", "-I", true, false },
    { "-isystem", "-isystem", true, false },   { "--system-include", "-isystem", true, false },
    { "-iquote", "-iquote", true, false },     { "-idirafter", "-idirafter", true, false },
    { "-include", "-include", true, false },   { "--pre-include", "-include", true, false },
    { "-std", "-std=", false, true },          { "--std", "-std=", false, true },
    { "-x", "-x", false, false },              { "--x", "-x", false, false },
};

/* Dropped flags whose operand is the next word when not attached with '='. Flags not listed and
 * not kept are dropped alone (-O3, -c, -fPIC, --expt-relaxed-constexpr, -lineinfo, ...). */
static const char *const dropped_with_value[] = {
    "-o", "-MF", "-MT", "-MQ", "-gencode", "--generate-code", "-arch", "--gpu-architecture", "-code",
    "--gpu-code", "-Xcompiler", "--compiler-options", "-Xptxas", "--ptxas-options", "-Xlinker",
    "--linker-options", "-Xnvlink", "--nvlink-options", "-Xfatbin", "-Xarchive", "-Xclang", "-Xcudafe",
    "-ccbin", "--compiler-bindir", "--threads", "-t", "-maxrregcount", "--maxrregcount", "-rdc",
    "--relocatable-device-code", "--default-stream", "-target", "--cuda-path", "-include-pch",
    "--output-file", "-odir", "--output-directory", "-L", "--library-path", "-l", "--library", NULL,
};

static const kept_flag *kept_match(const char *w, const char **attached)
{
    for (size_t i = 0; i < sizeof kept / sizeof *kept; i++) {
        size_t n = strlen(kept[i].spelling);
        if (strncmp(w, kept[i].spelling, n) != 0)
            continue;
        if (w[n] == '\0') {
            *attached = NULL;
            return &kept[i];
        }
        /* -DX / -I/dir attach directly; long and word flags (--std, -isystem, -include) take '='. */
        bool word = n > 2;
        if (w[n] == '=' || (!word && w[n] != '\0')) {
            *attached = w + n + (w[n] == '=');
            return &kept[i];
        }
    }
    return NULL;
}

static bool drops_value(const char *w)
{
    for (size_t i = 0; dropped_with_value[i]; i++)
        if (strcmp(w, dropped_with_value[i]) == 0)
            return true;
    return false;
}

static const char *absolute_in(kv_arena *a, const char *directory, const char *p)
{
    if (p[0] == '/' || !directory)
        return arena_strdup(a, p);
    char *j = fs_join(directory, p);
    char *n = fs_normalize(j);
    const char *r = arena_strdup(a, n);
    free(j);
    free(n);
    return r;
}

size_t compdb_translate(const char *const *argv, size_t argc, const char *directory, const char *file,
                        kv_arena *a, const char *const **out, bool *cuda)
{
    ARENA_VEC(const char *) args = {0};
    const char *cc = argc ? argv[0] : "";
    const char *base = strrchr(cc, '/') ? strrchr(cc, '/') + 1 : cc;
    *cuda = strstr(base, "nvcc") != NULL || (file && str_ends_with(file, ".cu"));
    for (size_t i = 1; i < argc; i++) {
        const char *w = argv[i];
        const char *val = NULL;
        const kept_flag *k = w[0] == '-' ? kept_match(w, &val) : NULL;
        if (k) {
            if (!val) {
                if (i + 1 >= argc)
                    break;
                val = argv[++i];
            }
            if (strcmp(k->clang, "-x") == 0) {
                if (strcmp(val, "cu") == 0 || strcmp(val, "cuda") == 0) {
                    val = "cuda";
                    *cuda = true;
                }
            }
            if (k->path)
                val = absolute_in(a, directory, val);
            if (k->joined) {
                ARENA_PUSH(a, args, arena_printf(a, "%s%s", k->clang, val));
            } else {
                ARENA_PUSH(a, args, k->clang);
                ARENA_PUSH(a, args, val);
            }
            continue;
        }
        if (w[0] == '-') {
            if (!strchr(w, '=') && drops_value(w))
                i++;
            continue;
        }
        /* A word that is no flag is the input file (or another input): never passed on. */
    }
    ARENA_PUSH(a, args, NULL);
    *out = args.v;
    return args.n - 1;
}

/* ---- reading the database ---- */

static char *resolved(const char *path)
{
    char buf[PATH_MAX];
    if (realpath(path, buf))
        return xstrdup(buf);
    if (path[0] == '/')
        return fs_normalize(path);
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
        return fs_normalize(path);
    char *j = fs_join(cwd, path);
    char *n = fs_normalize(j);
    free(j);
    return n;
}

static int entry_cmp(const void *x, const void *y)
{
    return strcmp(((const compdb_entry *)x)->file, ((const compdb_entry *)y)->file);
}

/* The words of an entry: `arguments`, else `command` split as sh would. */
static size_t entry_words(ywalk *w, const ynode *e, kv_arena *a, const char *const **out)
{
    ARENA_VEC(const char *) words = {0};
    const ynode *args = ymap_get(w, e, "arguments");
    if (args && args->kind == YN_SEQ) {
        for (size_t i = 0; i < args->nkids; i++) {
            const char *s = yscalar(ywalk_deref(w, args->kids[i]));
            if (s)
                ARENA_PUSH(a, words, s);
        }
    } else {
        const char *cmd = yscalar(ymap_get(w, e, "command"));
        if (!cmd)
            return 0;
        sh_cmds cmds = {0};
        sh_split(cmd, strlen(cmd), 0, SH_NEWLINE_IS_SPACE | SH_DETACHED, a, &cmds);
        for (size_t i = 0; cmds.n && i < cmds.v[0].n; i++)
            ARENA_PUSH(a, words, cmds.v[0].w[i].text);
    }
    *out = words.v;
    return words.n;
}

static bool read_entry(compdb *db, ywalk *w, const ynode *e, const char *dbdir, compdb_entry *out)
{
    kv_arena *a = db->arena;
    const char *dir = yscalar(ymap_get(w, e, "directory"));
    const char *file = yscalar(ymap_get(w, e, "file"));
    if (!dir || !file)
        return false;
    const char *absdir = absolute_in(a, dbdir, dir);
    char *f = resolved(absolute_in(a, absdir, file));
    out->file = arena_strdup(a, f);
    free(f);
    out->directory = absdir;
    const char *const *words;
    size_t n = entry_words(w, e, a, &words);
    if (n == 0)
        return false;
    out->nargs = compdb_translate(words, n, absdir, out->file, a, &out->args, &out->cuda);
    return true;
}

compdb *compdb_load(const char *path, diag_list *diags)
{
    char *data;
    size_t len;
    const char *err = NULL;
    if (fs_read_file(path, 256u << 20, &data, &len, &err) != FS_OK) {
        diag_add(diags, DIAG_ERROR, path, 0, 0, "cannot read the compilation database: %s",
                 err ? err : "too large");
        return NULL;
    }
    compdb *db = xcalloc(1, sizeof *db);
    db->arena = arena_new();
    db->path = arena_strdup(db->arena, path);
    ystream *st = ytree_parse(path, data, len, db->arena, diags, DIAG_ERROR);
    const ynode *root = st->ndocs ? st->docs[0].root : NULL;
    if (!root || root->kind != YN_SEQ) {
        if (!st->failed)
            diag_add(diags, DIAG_ERROR, path, 1, 1, "not a compilation database (want a JSON list of entries)");
        free(data);
        compdb_free(db);
        return NULL;
    }
    char *abs = resolved(path);
    char *slash = strrchr(abs, '/');
    if (slash)
        *slash = '\0';
    ywalk w;
    ywalk_init(&w, st);
    db->v = arena_zalloc(db->arena, (root->nkids ? root->nkids : 1) * sizeof *db->v);
    for (size_t i = 0; i < root->nkids; i++) {
        const ynode *e = ywalk_deref(&w, root->kids[i]);
        if (e && e->kind == YN_MAP && read_entry(db, &w, e, abs, &db->v[db->n])) {
            db->n++;
            continue;
        }
        ypos p = e ? ytree_pos(&st->src, e->start) : (ypos){ 1, 1, 0 };
        diag_add(diags, DIAG_WARNING, path, p.line, p.col,
                 "compilation database entry skipped: it needs `directory`, `file` and `arguments` or `command`");
    }
    free(abs);
    free(data);
    qsort(db->v, db->n, sizeof *db->v, entry_cmp);
    return db;
}

void compdb_free(compdb *db)
{
    if (!db)
        return;
    arena_free(db->arena);
    free(db);
}

const compdb_entry *compdb_find(const compdb *db, const char *path)
{
    if (!db || !db->n)
        return NULL;
    char *abs = resolved(path);
    compdb_entry key = { .file = abs };
    const compdb_entry *hit = bsearch(&key, db->v, db->n, sizeof *db->v, entry_cmp);
    free(abs);
    return hit;
}

char *compdb_discover(const char *root)
{
    char *dir = fs_is_dir(root) ? xstrdup(root) : NULL;
    if (!dir) {
        const char *slash = strrchr(root, '/');
        dir = slash ? xstrndup(root, (size_t)(slash - root)) : xstrdup(".");
    }
    static const char *const where[] = { "compile_commands.json", "build/compile_commands.json", NULL };
    for (size_t i = 0; where[i]; i++) {
        char *p = fs_join(dir, where[i]);
        if (access(p, R_OK) == 0) {
            free(dir);
            return p;
        }
        free(p);
    }
    free(dir);
    return NULL;
}
