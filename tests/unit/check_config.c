/*
 * check_config.c: unit tests for the config front end's parts (shell splitter, glob, the
 * positioned YAML reader), the .kvlint.yaml loader and deployment resolution. End-to-end
 * behaviour on real config files is in tests/e2e/config_facts.sh.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "project/project.h"
#include "util/shellwords.h"
#include "util/ytree.h"
#include "frontend/frontend.h"
#include "resolve/deploy.h"
#include "util/strbuf.h"

/* ---- shell words ---- */

/* The config front end on a buffer, as the scanner would hand it over. */
static void analyze_text(const char *path, const char *text, size_t len, const fe_context *ctx, file_facts *f)
{
    fe_source src = { .path = path, .data = text, .len = len, .lang = "config" };
    config_frontend.analyze(&src, ctx, f);
}

static sh_cmds split(kv_arena *a, const char *s, int flags)
{
    sh_cmds out = {0};
    sh_split(s, strlen(s), 0, flags, a, &out);
    return out;
}

START_TEST(shell_quotes_continuations_comments)
{
    kv_arena *a = arena_new();
    const char *s = "vllm serve m \\\n  --dtype 'half' \\\n  # --kv-cache-dtype fp8\n--max-model-len \"1k\"";
    sh_cmds c = split(a, s, 0);
    ck_assert_uint_eq(c.n, 2); /* the comment ends the first command, as in bash */
    ck_assert_uint_eq(c.v[0].n, 5);
    ck_assert_str_eq(c.v[0].w[4].text, "half");
    ck_assert_int_eq(c.v[0].w[4].shift, 1);
    ck_assert_uint_eq(c.v[0].w[4].off + 1, (size_t)(strstr(s, "half") - s));
    ck_assert_str_eq(c.v[1].w[1].text, "1k");
    for (size_t i = 0; i < c.n; i++)
        for (size_t k = 0; k < c.v[i].n; k++)
            ck_assert_ptr_null(strstr(c.v[i].w[k].text, "fp8"));
    arena_free(a);
}
END_TEST

START_TEST(shell_bash_c_recursion_keeps_positions)
{
    kv_arena *a = arena_new();
    const char *s = "exec bash -lc \"vllm serve m --kv-cache-dtype fp8\" && echo done";
    sh_cmds c = split(a, s, 0);
    ck_assert_uint_ge(c.n, 2);
    const sh_cmd *inner = &c.v[1];
    ck_assert_str_eq(inner->w[0].text, "vllm");
    ck_assert_str_eq(inner->w[4].text, "fp8");
    ck_assert_uint_eq(inner->w[4].off, (size_t)(strstr(s, "fp8") - s));
    ck_assert_int_eq(inner->w[4].shift, 0);
    arena_free(a);
}
END_TEST

START_TEST(shell_script_operand_after_options)
{
    const char *lc_dashdash[] = { "/bin/bash", "-lc", "--", "vllm serve m" };
    ck_assert_int_eq(sh_script_index(lc_dashdash, 4), 3);
    const char *pipefail[] = { "bash", "-o", "pipefail", "-c", "vllm serve m" };
    ck_assert_int_eq(sh_script_index(pipefail, 5), 4);
    const char *login[] = { "bash", "--login", "-c", "vllm serve m" };
    ck_assert_int_eq(sh_script_index(login, 4), 3);
    const char *plain[] = { "sh", "-c", "vllm serve m" };
    ck_assert_int_eq(sh_script_index(plain, 3), 2);
    const char *no_c[] = { "bash", "-l", "run.sh" };
    ck_assert_int_eq(sh_script_index(no_c, 3), -1);
    const char *dangling[] = { "bash", "-c", "--" };
    ck_assert_int_eq(sh_script_index(dangling, 3), -1);
}
END_TEST

START_TEST(shell_variables_and_separators)
{
    kv_arena *a = arena_new();
    sh_cmds c = split(a, "A=1 vllm serve $MODEL --dtype ${DT:-half}; echo `date` | tee x", 0);
    ck_assert_uint_eq(c.n, 3);
    ck_assert(c.v[0].w[3].var);
    ck_assert_str_eq(c.v[0].w[5].text, "${DT:-half}");
    ck_assert(c.v[0].w[5].var);
    sh_cmds d = split(a, "--dtype=half,--kv-cache-dtype=fp8", SH_COMMA_IS_SPACE);
    ck_assert_uint_eq(d.n, 1);
    ck_assert_uint_eq(d.v[0].n, 2);
    sh_cmds e = split(a, "a\nb", SH_NEWLINE_IS_SPACE);
    ck_assert_uint_eq(e.n, 1);
    sh_cmds f = split(a, "unterminated 'quote", 0);
    ck_assert_uint_eq(f.n, 1);
    arena_free(a);
}
END_TEST

START_TEST(serving_command_starts)
{
    kv_arena *a = arena_new();
    file_facts *f = file_facts_new("x.sh");
    const char *text = "CUDA_VISIBLE_DEVICES=0 nohup python3 -u -m vllm.entrypoints.openai.api_server --dtype half\n"
                       "echo To serve, run vllm serve m --kv-cache-dtype fp8\n"
                       "docker run --gpus all -p 8000:8000 vllm/vllm-openai:v0.9 --kv-cache-dtype fp8_e5m2\n"
                       "please run sudo vllm serve m --dtype float16 now\n";
    kv_project *proj = project_default(".");
    fe_context ctx = { .project = proj };
    analyze_text("x.sh", text, strlen(text), &ctx, f);
    ck_assert_uint_eq(f->decls.n, 3); /* --dtype half, its implicit KV auto, the docker run KV; not prose */
    ck_assert_int_eq(f->decls.v[0].key, DECL_KV_CACHE_DTYPE);
    ck_assert(f->decls.v[0].implicit);
    ck_assert_ptr_null(f->decls.v[0].raw);
    ck_assert_str_eq(f->decls.v[1].raw, "half");
    ck_assert_str_eq(f->decls.v[2].raw, "fp8_e5m2");
    ck_assert_uint_eq(f->decls.v[2].loc.line, 3);
    ck_assert_uint_eq(f->decls.v[2].loc.col, 75);
    project_free(proj);
    file_facts_free(f);
    arena_free(a);
}
END_TEST

/* ---- glob ---- */

START_TEST(glob_dialect)
{
    ck_assert(kv_glob_match("deploy/**/*.yaml", "deploy/a/b/c.yaml"));
    ck_assert(kv_glob_match("deploy/**/*.yaml", "deploy/c.yaml"));
    ck_assert(!kv_glob_match("deploy/*.yaml", "deploy/a/c.yaml"));
    ck_assert(kv_glob_match("**/config.json", "models/x/config.json"));
    ck_assert(kv_glob_match("**/config.json", "config.json"));
    ck_assert(kv_glob_match("vendor/**", "vendor/a/b.py"));
    ck_assert(kv_glob_match("?.py", "a.py"));
    ck_assert(!kv_glob_match("?.py", "/.py"));
    ck_assert(kv_glob_match("./src/*.py", "src/a.py"));
    ck_assert(!kv_glob_match("*.py", "src/a.py"));
    ck_assert(kv_glob_match("a/**", "a/"));
    ck_assert(kv_glob_match("a/**", "a/b/c"));
    ck_assert(!kv_glob_match("**/b", "ab"));
    ck_assert(kv_glob_match("***", "ab/c"));
    ck_assert(kv_glob_match_dirs("vendor", "vendor/a/b.py"));
    ck_assert(kv_glob_match_dirs("v*/a", "vendor/a/b.py"));
    ck_assert(!kv_glob_match_dirs("v*/b", "vendor/a/b.py"));
    ck_assert(!kv_glob_match_dirs("vendor", "vendors/a.py"));
}
END_TEST

/* The backtracking matcher kv_glob_match replaced (exponential on `*a*a*a...b`), kept as the
 * reference: on every small pattern and path both must agree. */
static bool ref_match(const char *p, const char *s)
{
    for (;;) {
        if (*p == '\0')
            return *s == '\0';
        if (p[0] == '*' && p[1] == '*') {
            const char *rest = p + 2;
            bool slash = *rest == '/';
            if (slash)
                rest++;
            if (ref_match(rest, s))
                return true;
            for (const char *t = s; *t; t++)
                if (*t == '/' && ref_match(rest, t + 1))
                    return true;
            return !slash && *rest == '\0';
        }
        if (*p == '*') {
            for (const char *t = s;; t++) {
                if (ref_match(p + 1, t))
                    return true;
                if (*t == '\0' || *t == '/')
                    return false;
            }
        }
        if (*s == '\0')
            return false;
        if (*p == '?' ? *s == '/' : *p != *s)
            return false;
        p++;
        s++;
    }
}

static void all_words(const char *alphabet, size_t len, char *buf, size_t at, void (*fn)(const char *, void *), void *arg)
{
    if (at == len) {
        buf[at] = '\0';
        fn(buf, arg);
        return;
    }
    for (const char *c = alphabet; *c; c++) {
        buf[at] = *c;
        all_words(alphabet, len, buf, at + 1, fn, arg);
    }
}

typedef struct glob_case {
    const char *pattern;
    size_t checked;
} glob_case;

static void against_path(const char *path, void *arg)
{
    glob_case *g = arg;
    bool want = ref_match(g->pattern, path), got = kv_glob_match(g->pattern, path);
    if (want != got)
        ck_abort_msg("glob '%s' on '%s': %d, reference %d", g->pattern, path, got, want);
    g->checked++;
}

static void with_pattern(const char *pattern, void *arg)
{
    size_t *checked = arg;
    glob_case g = { pattern, 0 };
    char buf[8];
    for (size_t len = 0; len <= 5; len++)
        all_words("ab/", len, buf, 0, against_path, &g);
    *checked += g.checked;
}

START_TEST(glob_agrees_with_backtracking_reference)
{
    size_t checked = 0;
    char buf[8];
    for (size_t len = 0; len <= 5; len++)
        all_words("a*?/", len, buf, 0, with_pattern, &checked);
    ck_assert_uint_gt(checked, 100000);
}
END_TEST

/* Patterns longer than one word of states (64 tokens): a literal prefix pushes the small patterns'
 * tokens, and runs of `*`, across the word boundaries of the bit-parallel sets. */
#define ALL_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

typedef struct long_case {
    const char *prefix;
    const char *pattern;
    size_t checked;
} long_case;

static void against_long_path(const char *path, void *arg)
{
    long_case *g = arg;
    char p[256], s[256];
    snprintf(p, sizeof p, "%s%s", g->prefix, g->pattern);
    snprintf(s, sizeof s, "%s%s", g->prefix, path);
    bool want = ref_match(p, s), got = kv_glob_match(p, s);
    if (want != got)
        ck_abort_msg("glob '%s' on '%s': %d, reference %d", p, s, got, want);
    g->checked++;
}

static void with_long_pattern(const char *pattern, void *arg)
{
    long_case *g = arg;
    g->pattern = pattern;
    char buf[8];
    for (size_t len = 0; len <= 4; len++)
        all_words("ab/", len, buf, 0, against_long_path, g);
}

START_TEST(glob_long_patterns_agree_with_reference)
{
    static const size_t pads[] = { 60, 62, 63, 64, 65, 126, 127, 128 };
    size_t checked = 0;
    for (size_t i = 0; i < sizeof pads / sizeof *pads; i++) {
        char prefix[160];
        memset(prefix, 'a', pads[i]);
        prefix[pads[i]] = '\0';
        long_case g = { prefix, NULL, 0 };
        char buf[8];
        for (size_t len = 0; len <= 4; len++)
            all_words("a*?/", len, buf, 0, with_long_pattern, &g);
        checked += g.checked;
    }
    ck_assert_uint_gt(checked, 200000);
    char stars[80], path[80];   /* `**` then `*`: a run that the closure carries into word 1 */
    snprintf(stars, sizeof stars, "%.63s***b", ALL_A);
    snprintf(path, sizeof path, "%.63sxyzb", ALL_A);
    ck_assert(kv_glob_match(stars, path));
    snprintf(path, sizeof path, "%.63sxy/z", ALL_A);
    ck_assert(!kv_glob_match(stars, path));
}
END_TEST

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Patterns that took the backtracking matcher more than 120 s; now linear. */
START_TEST(glob_linear_time)
{
    char name[4001];
    memset(name, 'a', 4000);
    name[4000] = '\0';
    char deep[4096] = "";
    for (int i = 0; i < 400; i++)
        strcat(deep, "d/");
    strcat(deep, "x.c");
    double t0 = seconds();
    ck_assert(!kv_glob_match("*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b", name));
    ck_assert(!kv_glob_match("**/**/**/**/**/**/**/**/**/**/**/**/*.b", deep));
    ck_assert(!kv_glob_match_dirs("**/**/**/**/**/**/**/**/**/**/**/**/*.b", deep));
    ck_assert(kv_glob_match("**/**/**/**/**/**/**/**/**/**/**/**/*.c", deep));
    ck_assert_double_lt(seconds() - t0, 1.0);
}
END_TEST

/* ---- positioned YAML ---- */

START_TEST(ytree_byte_columns_bom_and_repair)
{
    kv_arena *a = arena_new();
    diag_list d;
    diag_init(&d, a);
    const char *text = "\xEF\xBB\xBF" "k\xC3\xA9y: \xC3\xA9 v\n\xFFx: 'q'\n";
    ystream *st = ytree_parse("t.yaml", text, strlen(text), a, &d, DIAG_WARNING);
    ck_assert_uint_eq(d.items.n, 0);
    ck_assert_uint_eq(st->ndocs, 1);
    const ynode *root = st->docs[0].root;
    ck_assert_uint_eq(root->nkids, 4);
    ypos p = ytree_pos(&st->src, root->kids[1]->start);
    ck_assert_uint_eq(p.line, 1);
    ck_assert_uint_eq(p.col, 7); /* bytes after the BOM: k, 2-byte e-acute, y, :, space */
    ck_assert_str_eq(root->kids[2]->val, "?x");
    p = ytree_pos(&st->src, root->kids[3]->start);
    ck_assert_uint_eq(p.line, 2);
    ck_assert_uint_eq(p.col, 5);
    arena_free(a);
}
END_TEST

START_TEST(ytree_aliases_are_bounded)
{
    kv_arena *a = arena_new();
    diag_list d;
    diag_init(&d, a);
    strbuf sb = STRBUF_INIT;
    sb_adds(&sb, "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for (int i = 1; i < 30; i++) {
        sb_addf(&sb, "a%d: &a%d [", i, i);
        for (int k = 0; k < 10; k++)
            sb_addf(&sb, "%s*a%d", k ? ", " : "", i - 1);
        sb_adds(&sb, "]\n");
    }
    ystream *st = ytree_parse("b.yaml", sb_str(&sb), sb.len, a, &d, DIAG_WARNING);
    ck_assert_uint_lt(st->nnodes, 1000);
    ywalk w;
    ywalk_init(&w, st);
    /* walk everything depth-first through aliases: must stop on the budget */
    const ynode *stack[4096];
    size_t top = 0, visits = 0;
    stack[top++] = st->docs[0].root;
    while (top) {
        const ynode *n = ywalk_deref(&w, stack[--top]);
        if (!n)
            continue;
        visits++;
        for (size_t i = 0; i < n->nkids && top < 4096; i++)
            stack[top++] = n->kids[i];
    }
    ck_assert(w.exhausted);
    ck_assert_uint_lt(visits, 64 * st->nnodes + 100000 + 1);
    sb_release(&sb);
    arena_free(a);
}
END_TEST

START_TEST(ytree_malformed_reports_line_col)
{
    kv_arena *a = arena_new();
    diag_list d;
    diag_init(&d, a);
    const char *text = "a: 1\n---\nb: [1, 2\n";
    ystream *st = ytree_parse("m.yaml", text, strlen(text), a, &d, DIAG_WARNING);
    ck_assert_uint_eq(d.items.n, 1);
    ck_assert_uint_ge(d.items.v[0].line, 3);
    ck_assert_uint_eq(st->ndocs, 1); /* the good first document is kept, the broken one dropped */
    arena_free(a);
}
END_TEST

/* The value of key in a merged mapping (scalars only), or NULL. */
static const char *merged_value(const ynode *map, const char *key)
{
    for (size_t i = 0; i + 1 < map->nkids; i += 2)
        if (map->kids[i]->kind == YN_SCALAR && !strcmp(map->kids[i]->val, key))
            return map->kids[i + 1]->kind == YN_SCALAR ? map->kids[i + 1]->val : "(node)";
    return NULL;
}

/* Merge keys as PyYAML's SafeLoader reads them: own keys win, a later `<<` wins over an earlier
 * one, and in a list the earlier mapping wins; the merged value keeps its own position. */
START_TEST(ytree_merge_keys_as_pyyaml)
{
    kv_arena *a = arena_new();
    diag_list d;
    diag_init(&d, a);
    const char *text = "a: &a {x: a1, y: a2, z: a3}\n"
                       "b: &b {x: b1, w: b4}\n"
                       "own: {<<: *a, x: mine}\n"
                       "two: {<<: *a, <<: *b}\n"
                       "list: {<<: [*b, *a]}\n"
                       "chain: &c {<<: *b, v: c5}\n"
                       "deep: {<<: *c}\n"
                       "self: &s {<<: *s, k: 1}\n"
                       "bad: {<<: 3, k: 1}\n"
                       "quoted: {\"<<\": *a}\n";
    ystream *st = ytree_parse("m.yaml", text, strlen(text), a, &d, DIAG_WARNING);
    ck_assert_uint_eq(st->ndocs, 1);
    const ynode *root = st->docs[0].root;
    const ynode *own = root->kids[5], *two = root->kids[7], *list = root->kids[9], *deep = root->kids[13];
    ck_assert_str_eq(merged_value(own, "x"), "mine");
    ck_assert_str_eq(merged_value(own, "z"), "a3");
    ck_assert_ptr_null(merged_value(own, "<<"));
    ck_assert_uint_eq(own->nkids, 6);                 /* x, y, z once each */
    ck_assert_str_eq(merged_value(two, "x"), "b1");   /* the later merge key wins */
    ck_assert_str_eq(merged_value(two, "y"), "a2");
    ck_assert_str_eq(merged_value(list, "x"), "b1");  /* the earlier list item wins */
    ck_assert_str_eq(merged_value(list, "w"), "b4");
    ck_assert_str_eq(merged_value(deep, "v"), "c5");  /* merges are followed through a merged anchor */
    ck_assert_str_eq(merged_value(deep, "w"), "b4");
    ypos p = { 0, 0, 0 };   /* y's value: where it is written, in a */
    for (size_t i = 0; i + 1 < own->nkids; i += 2)
        if (!strcmp(own->kids[i]->val, "y"))
            p = ytree_pos(&st->src, own->kids[i + 1]->start);
    ck_assert_uint_eq(p.line, 1);
    ck_assert_uint_eq(p.col, 18);
    ck_assert_str_eq(merged_value(root->kids[15], "k"), "1");   /* a mapping merging itself: no loop */
    ck_assert_ptr_null(merged_value(root->kids[17], "<<"));
    ck_assert_str_eq(merged_value(root->kids[19], "<<"), "(node)");   /* a quoted "<<" is a key */
    ck_assert_uint_eq(d.items.n, 1);
    ck_assert_uint_eq(d.items.v[0].line, 9);
    ck_assert(strstr(d.items.v[0].msg, "merge key '<<' takes a mapping") != NULL);
    arena_free(a);
}
END_TEST

/* A chain of mappings each merging the one before grows quadratically: the node limit holds it. */
START_TEST(ytree_merge_chain_is_bounded)
{
    kv_arena *a = arena_new();
    diag_list d;
    diag_init(&d, a);
    strbuf sb = STRBUF_INIT;
    sb_adds(&sb, "m0: &m0 {k0: 0}\n");
    for (int i = 1; i < 3000; i++)
        sb_addf(&sb, "m%d: &m%d {<<: *m%d, k%d: %d}\n", i, i, i - 1, i, i);
    ystream *st = ytree_parse("c.yaml", sb_str(&sb), sb.len, a, &d, DIAG_WARNING);
    ck_assert_uint_le(st->nnodes, YTREE_MAX_NODES);
    ck_assert_uint_ge(d.items.n, 1);
    ck_assert(strstr(d.items.v[0].msg, "merge keys expand past") != NULL);
    sb_release(&sb);
    arena_free(a);
}
END_TEST

/* ---- .kvlint.yaml ---- */

static char *write_temp(const char *text)
{
    char *path = strdup("/tmp/kvlint-project-XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return path;
}

START_TEST(project_reads_every_key)
{
    char *path = write_temp("include: [src/**]\nexclude: vendor\nsinks:\n  - {name: my_write, key: 1, value: val}\n"
                            "ranges: {adapter_id: {max: 31}, position: 4095}\n"
                            "assume: {kv_cache_dtype: [fp8_e4m3, bfloat16], dtype: bfloat16}\n"
                            "deployments: [deploy/**/*.yaml]\nplatform: rocm\nrules: {select: [KV001], ignore: [KV009]}\n"
                            "max_file_size: 2M\n");
    kv_arena *a = arena_new();
    diag_list d;
    diag_init(&d, a);
    kv_project *p = project_load(path, &d);
    ck_assert_ptr_nonnull(p);
    ck_assert_uint_eq(d.items.n, 0);
    ck_assert_uint_eq(p->include.n, 1);
    ck_assert_uint_eq(p->exclude.n, 1);
    ck_assert_uint_eq(p->sinks.n, 1);
    ck_assert_int_eq(p->sinks.v[0].key_arg, 1);
    ck_assert_str_eq(p->sinks.v[0].value_kw, "val");
    ck_assert_uint_eq(p->ranges.n, 2);
    ck_assert(p->ranges.v[0].max == 31);
    ck_assert_uint_eq(p->assume_kv.n, 2);
    ck_assert_int_ne(p->assume_model, KVN_DTYPE_INVALID);
    ck_assert(p->platform == KVN_PLAT_ROCM);
    ck_assert_uint_eq(p->select.n, 1);
    ck_assert_uint_eq(p->max_file_size, 2u << 20);
    ck_assert(project_path_included(p, "/nowhere/outside"));
    project_free(p);
    unlink(path);
    free(path);

    /* include/exclude relative to the project root "." */
    path = write_temp("include: [src/**, Dockerfile]\nexclude: [src/vendor, '*.gen.py']\n");
    p = project_load(path, &d);
    p->root = ".";
    ck_assert(project_path_included(p, "src/a.py"));
    ck_assert(project_path_included(p, "./src/b/c.py"));
    ck_assert(project_path_included(p, "Dockerfile"));
    ck_assert(!project_path_included(p, "docs/x.yaml"));
    ck_assert(!project_path_included(p, "src/vendor/x.py"));
    ck_assert(!project_path_included(p, "src/m/x.gen.py"));
    project_free(p);
    unlink(path);
    free(path);
    arena_free(a);
}
END_TEST

START_TEST(project_unknown_keys_are_errors_with_position)
{
    char *path = write_temp("include: [a]\nplatfrom: rocm\nassume: {dtype: bfloat17}\n");
    kv_arena *a = arena_new();
    diag_list d;
    diag_init(&d, a);
    kv_project *p = project_load(path, &d);
    ck_assert_ptr_nonnull(p);
    ck_assert_uint_eq(d.items.n, 2);
    ck_assert_int_eq(d.items.v[0].level, DIAG_ERROR);
    ck_assert_uint_eq(d.items.v[0].line, 2);
    ck_assert_uint_eq(d.items.v[0].col, 1);
    ck_assert_ptr_nonnull(strstr(d.items.v[0].msg, "platfrom"));
    ck_assert_uint_eq(d.items.v[1].line, 3);
    ck_assert_uint_eq(d.items.v[1].col, 17);
    ck_assert_uint_eq(p->include.n, 1); /* what could be read is kept */
    project_free(p);
    unlink(path);
    free(path);
    arena_free(a);
}
END_TEST

START_TEST(project_non_scalar_values_are_named)
{
    char *path = write_temp("platform: [rocm]\nmax_file_size: {a: 1}\n");
    kv_arena *a = arena_new();
    diag_list d;
    diag_init(&d, a);
    kv_project *p = project_load(path, &d);
    ck_assert_ptr_nonnull(p);
    ck_assert_uint_eq(d.items.n, 2);
    ck_assert_str_eq(d.items.v[0].msg, "platform: expected cuda, cuda-sm75, rocm or cpu, not a list or mapping");
    ck_assert_uint_eq(d.items.v[0].line, 1);
    ck_assert_uint_eq(d.items.v[0].col, 11);
    ck_assert_str_eq(d.items.v[1].msg, "max_file_size: expected a size from 1 byte to 4G-1 such as 8M, not a list or mapping");
    project_free(p);
    unlink(path);
    free(path);
    arena_free(a);
}
END_TEST

/* ---- resolution ---- */

static deploy_decl decl(decl_key key, const char *raw, kv_carrier carrier, int group, kv_engine engine)
{
    deploy_decl d = { .key = key, .engine = engine, .raw = raw, .carrier = carrier, .group = group,
                     .dtype = KVN_DTYPE_INVALID };
    if (key == DECL_ID_RANGE)
        d.number = atof(raw);
    else
        d.dtype = kvn_dtype_parse(raw, false);
    return d;
}

static file_facts *facts_with(const char *path, const deploy_decl *d, size_t n)
{
    file_facts *f = file_facts_new(path);
    for (size_t i = 0; i < n; i++) {
        deploy_decl x = d[i];
        x.loc = kv_loc_make(f->path, (uint32_t)i + 1, 1, 0, 0);
        ARENA_PUSH(f->arena, f->decls, x);
    }
    return f;
}

static const char *dt(kvn_dtype d)
{
    const kvn_dtype_info *i = kvn_dtype_get(d);
    return i ? i->name : "invalid";
}

/* The id vocabulary the resolver reads range names with (grammars/ids.tsv), for the resolve tests. */
static id_vocab *ids;

static void load_ids(void)
{
    const char *dir = getenv("top_srcdir");
    kv_arena *a = arena_new();
    diag_list d;
    diag_init(&d, a);
    ids = id_vocab_load(dir && *dir ? dir : KVLINT_SOURCE_DIR, &d);
    ck_assert_uint_eq(d.items.n, 0);
    ck_assert_uint_ge(ids->classes.n, 5);
    arena_free(a);
}

static void free_ids(void)
{
    id_vocab_free(ids);
}

START_TEST(resolve_auto_chains)
{
    deploy_decl ck[] = {
        decl(DECL_MODEL_DTYPE, "float32", CARRIER_HF_CONFIG, 0, ENGINE_HF),
        decl(DECL_ID_RANGE, "20", CARRIER_HF_CONFIG, 0, ENGINE_HF),
        decl(DECL_ID_RANGE, "4096", CARRIER_HF_CONFIG, 0, ENGINE_HF),
    };
    ck[1].range_name = "num_adapters";
    ck[2].range_name = "max_position_embeddings";
    deploy_decl dep[] = {
        decl(DECL_KV_CACHE_DTYPE, "auto", CARRIER_CLI, 0, ENGINE_VLLM),
        decl(DECL_KV_CACHE_DTYPE, "fp8", CARRIER_CLI, 1, ENGINE_VLLM),
        decl(DECL_MODEL_DTYPE, "half", CARRIER_CLI, 1, ENGINE_VLLM),
        decl(DECL_ID_RANGE, "2048", CARRIER_CLI, 1, ENGINE_VLLM),
        decl(DECL_KV_CACHE_DTYPE, "auto", CARRIER_CLI, 2, ENGINE_SGLANG),
        decl(DECL_KV_CACHE_DTYPE, "fp9", CARRIER_CLI, 3, ENGINE_VLLM),
    };
    dep[3].range_name = "max_model_len";
    file_facts *files[2] = { facts_with("m/config.json", ck, 3), facts_with("run.sh", dep, 6) };
    resolve_options opt = { .whatif_kv = KVN_DTYPE_INVALID, .whatif_model = KVN_DTYPE_INVALID, .ids = ids };
    kv_project *proj = project_default(".");
    deployment_set *s = deployments_resolve(files, 2, proj, &opt, NULL);
    ck_assert_uint_eq(s->n, 4);
    ck_assert_str_eq(dt(s->v[0].model.dtype), "bfloat16"); /* vLLM: float32 checkpoints run as bf16 */
    ck_assert_str_eq(dt(s->v[0].kv.dtype), "bfloat16");
    ck_assert_str_eq(s->v[0].kv.how, "auto: model dtype");
    ck_assert_str_eq(dt(s->v[1].kv.dtype), "fp8_e4m3");
    ck_assert_str_eq(dt(s->v[1].model.dtype), "float16");
    ck_assert_str_eq(dt(s->v[2].model.dtype), "float16"); /* SGLang: float32 -> float16 */
    ck_assert_int_eq(s->v[3].kv.dtype, KVN_DTYPE_INVALID);
    ck_assert_ptr_nonnull(strstr(s->v[3].kv.unresolved, "fp9"));
    const id_range *r = deployment_range(&s->v[1], NULL, "position");
    ck_assert_ptr_nonnull(r);
    ck_assert_str_eq(r->name, "max_model_len");
    ck_assert(r->max == 2048);
    ck_assert(r->max_id == 2047);
    r = deployment_range(&s->v[1], "num_adapters", NULL);
    ck_assert(r && r->max == 20 && r->max_id == 20);
    ck_assert_ptr_null(deployment_range(&s->v[1], NULL, "token"));
    deployment_set_free(s);

    opt.platform = KVN_PLAT_ROCM;
    opt.whatif_model = kvn_dtype_parse("bfloat16", false);
    s = deployments_resolve(files, 2, proj, &opt, NULL);
    ck_assert_str_eq(dt(s->v[1].kv.dtype), "fp8_e4m3fnuz");
    ck_assert_str_eq(dt(s->v[1].model.dtype), "bfloat16");
    ck_assert_str_eq(s->v[1].model.how, "what-if --dtype");
    deployment_set_free(s);
    project_free(proj);
    file_facts_free(files[0]);
    file_facts_free(files[1]);
}
END_TEST

START_TEST(resolve_checkpoint_kv_scheme_and_defaults)
{
    deploy_decl ck[] = {
        decl(DECL_MODEL_DTYPE, "bfloat16", CARRIER_HF_CONFIG, 0, ENGINE_HF),
        decl(DECL_KV_SCHEME, "FP8", CARRIER_MODELOPT, 1, ENGINE_MODELOPT),
    };
    file_facts *files[1] = { facts_with("ckpt/config.json", ck, 2) };
    resolve_options opt = { .whatif_kv = KVN_DTYPE_INVALID, .whatif_model = KVN_DTYPE_INVALID, .ids = ids };
    kv_project *proj = project_default(".");
    deployment_set *s = deployments_resolve(files, 1, proj, &opt, NULL);
    ck_assert_uint_eq(s->n, 1);
    ck_assert_str_eq(s->v[0].name, "engine default");
    ck_assert_str_eq(dt(s->v[0].kv.dtype), "fp8_e4m3");
    ck_assert_str_eq(s->v[0].kv.how, "auto: checkpoint kv_cache_quant_algo");
    deployment_set_free(s);

    /* assume: one deployment per assumed KV dtype; no checkpoint: model from assume.dtype */
    ARENA_PUSH(proj->arena, proj->assume_kv, kvn_dtype_parse("fp8_e5m2", false));
    ARENA_PUSH(proj->arena, proj->assume_kv, kvn_dtype_parse("bfloat16", false));
    proj->assume_model = kvn_dtype_parse("float16", false);
    range_setting pos = { "position_id", 4095, kv_loc_make(".kvlint.yaml", 3, 5, 0, 0) };
    ARENA_PUSH(proj->arena, proj->ranges, pos);
    s = deployments_resolve(NULL, 0, proj, &opt, NULL);
    ck_assert_uint_eq(s->n, 2);
    const id_range *r = deployment_range(&s->v[0], "max_model_len", "position");
    ck_assert(r && r->max == 4096 && r->max_id == 4095); /* arange(max_model_len) reaches 4095 */
    ck_assert_str_eq(dt(s->v[0].kv.dtype), "fp8_e5m2");
    ck_assert_str_eq(dt(s->v[1].kv.dtype), "bfloat16");
    ck_assert_str_eq(dt(s->v[0].model.dtype), "float16");
    deployment_set_free(s);

    project_free(proj);
    proj = project_default(".");
    s = deployments_resolve(NULL, 0, proj, &opt, NULL);
    ck_assert_uint_eq(s->n, 1);
    ck_assert_int_eq(s->v[0].model.dtype, KVN_DTYPE_INVALID);
    ck_assert_ptr_nonnull(s->v[0].model.unresolved);
    ck_assert_ptr_nonnull(s->v[0].kv.unresolved);
    deployment_set_free(s);
    project_free(proj);
    file_facts_free(files[0]);
}
END_TEST

START_TEST(resolve_scopes_script_deployments)
{
    ck_assert(path_is_script("proj/tests/models/test_m.py", 5));
    ck_assert(path_is_script("proj/src/test_m.py", 5));           /* a test file by name */
    ck_assert(path_is_script("proj/examples/offline/run.py", 5));
    ck_assert(!path_is_script("proj/src/model.py", 5));
    ck_assert(!path_is_script("tests/proj/src/model.py", 6));     /* above the root does not count */
    ck_assert(!path_is_script("proj/src/contest.py", 5));

    deploy_decl dflt[] = { decl(DECL_MODEL_DTYPE, "bfloat16", CARRIER_PYTHON_CALL, 0, ENGINE_TORCH) };
    deploy_decl llm[] = { decl(DECL_MODEL_DTYPE, "bfloat16", CARRIER_PYTHON_CALL, 0, ENGINE_VLLM) };
    deploy_decl cli[] = { decl(DECL_KV_CACHE_DTYPE, "fp8", CARRIER_CLI, 0, ENGINE_VLLM) };
    deploy_decl lib_dflt[] = { decl(DECL_MODEL_DTYPE, "float16", CARRIER_PYTHON_CALL, 0, ENGINE_TORCH) };
    file_facts *files[5] = { facts_with("p/deploy/run.sh", cli, 1), facts_with("p/src/lib.py", lib_dflt, 1),
                             facts_with("p/tests/a/test_a.py", llm, 1), facts_with("p/tests/b/helpers.py", dflt, 1),
                             facts_with("p/tests/b/test_b.py", NULL, 0) };
    resolve_options opt = { .whatif_kv = KVN_DTYPE_INVALID, .whatif_model = KVN_DTYPE_INVALID, .ids = ids };
    kv_project *proj = project_default(".");
    deployment_set *s = deployments_resolve(files, 5, proj, &opt, NULL);
    /* set_default_dtype in a test is no deployment; in library code it stays one */
    ck_assert_uint_eq(s->n, 3);
    ck_assert_ptr_null(s->v[0].scope);                          /* deploy/run.sh: everywhere */
    ck_assert_ptr_null(s->v[1].scope);                          /* src/lib.py */
    ck_assert_str_eq(s->v[2].scope, "p/tests/a/");
    ck_assert(deployment_applies(s, &s->v[2], "p/tests/a/test_a.py"));
    ck_assert(deployment_applies(s, &s->v[2], "p/tests/a/sub/conftest.py"));
    ck_assert(deployment_applies(s, &s->v[2], "p/src/model.py")); /* the library it runs */
    ck_assert(!deployment_applies(s, &s->v[2], "p/tests/b/test_b.py"));
    ck_assert(deployment_applies(s, &s->v[0], "p/tests/b/test_b.py"));
    ck_assert_ptr_nonnull(s->fallback);
    ck_assert_str_eq(s->fallback->name, "engine default");
    deployment_set_free(s);
    project_free(proj);
    for (size_t i = 0; i < 5; i++)
        file_facts_free(files[i]);
}
END_TEST

/* ---- the front end on a buffer ---- */

START_TEST(frontend_claims_and_skips)
{
    ck_assert(config_frontend.claim("deploy/k8s.yaml", NULL, 0));
    ck_assert(config_frontend.claim("Dockerfile", NULL, 0));
    ck_assert(config_frontend.claim("a/Dockerfile.rocm", NULL, 0));
    ck_assert(config_frontend.claim("run.sh", NULL, 0));
    ck_assert(!config_frontend.claim(".kvlint.yaml", NULL, 0));
    ck_assert(!config_frontend.claim("a/.kvlint.yaml", NULL, 0));
    ck_assert(!config_frontend.claim("model.py", NULL, 0));
    const char *none = "{\"name\": \"web\"}";
    ck_assert(!config_frontend.prefilter(&(fe_source){ .path = "a.json", .data = none, .len = strlen(none) }));
    const char *yes = "args: [--kv-cache-dtype, fp8]";
    ck_assert(config_frontend.prefilter(&(fe_source){ .path = "a.yaml", .data = yes, .len = strlen(yes) }));
}
END_TEST

START_TEST(frontend_suppressions)
{
    file_facts *f = file_facts_new("s.yaml");
    const char *text = "kv-cache-dtype: fp9  # kvlint: ignore[KV009, KV001] -- testing only\n"
                       "max-model-len: 10 # kvlint: ignore\n# not kvlint: ignore\n";
    kv_project *proj = project_default(".");
    fe_context ctx = { .project = proj };
    analyze_text("s.yaml", text, strlen(text), &ctx, f);
    ck_assert_uint_eq(f->suppressions.n, 2);
    ck_assert_uint_eq(f->suppressions.v[0].line, 1);
    ck_assert_uint_eq(f->suppressions.v[0].col, 22);
    ck_assert_str_eq(f->suppressions.v[0].ids[0], "KV009");
    ck_assert_str_eq(f->suppressions.v[0].ids[1], "KV001");
    ck_assert_ptr_null(f->suppressions.v[0].ids[2]);
    ck_assert_str_eq(f->suppressions.v[0].reason, "testing only");
    ck_assert_ptr_null(f->suppressions.v[1].ids);
    ck_assert_uint_eq(f->decls.n, 2);
    ck_assert_int_eq(f->decls.v[0].dtype, KVN_DTYPE_INVALID);
    ck_assert_str_eq(f->decls.v[0].raw, "fp9");
    project_free(proj);
    file_facts_free(f);
}
END_TEST

/* Deterministic mutations of small configs: under ASan/UBSan any crash, leak or overflow fails. */
START_TEST(mutated_inputs_never_crash)
{
    static const char *const seeds[] = {
        "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n    - image: vllm/vllm-openai\n"
        "      command: [sh, -c]\n      args:\n        - |\n          vllm serve m \\\n            --kv-cache-dtype fp8\n"
        "      env: [{name: VLLM_ADDITIONAL_ARGS, value: \"--dtype half\"}]\n",
        "vllm serve m --config c.yaml --dtype 'half' \\\n  --max-model-len=4k # --kv-cache-dtype fp8\n"
        "bash -c \"python3 -m sglang.launch_server --kv-cache-dtype fp8_e5m2\"\n",
        "FROM rocm/vllm\nENTRYPOINT [\"vllm\", \"serve\"]\nCMD [\"m\", \\\n \"--kv-cache-dtype=fp8\"]\n",
        "{\"model_type\": \"x\", \"torch_dtype\": \"float32\", \"quantization_config\": "
        "{\"kv_cache_scheme\": {\"type\": \"float\", \"num_bits\": 8}}, \"num_adapters\": 3}\n",
        "a: &a [x, *a, {b: &b \"vllm serve m --dtype half\"}]\nc: [*b, *a, *a]\nvllmConfig: {dtype: half, extraArgs: [--kv-cache-dtype]}\n",
    };
    static const char *const names[] = { "a.yaml", "b.sh", "Dockerfile", "config.json", "e.yml" };
    static const char *const tokens[] = { "\\", "\"", "'", "\n", "#", "[", "{", "*a", "&z ", "|", "- ", "--", "$",
                                          "`", "\xff", "\xc3", " -c ", "bash -c \"", "vllm serve ", "\t", ": " };
    kv_project *proj = project_default(".");
    fe_context ctx = { .project = proj };
    resolve_options opt = { .whatif_kv = KVN_DTYPE_INVALID, .whatif_model = KVN_DTYPE_INVALID, .ids = ids };
    unsigned seed = 1;
    for (int it = 0; it < 1500; it++) {
        size_t which = (size_t)it % 5;
        strbuf sb = STRBUF_INIT;
        sb_adds(&sb, seeds[which]);
        for (int k = 0; k < 1 + it % 6; k++) {
            seed = seed * 1103515245u + 12345u;
            size_t pos = sb.len ? (seed >> 8) % sb.len : 0;
            const char *t = tokens[(seed >> 20) % (sizeof tokens / sizeof *tokens)];
            strbuf next = STRBUF_INIT;
            sb_add(&next, sb.buf, pos);
            if ((seed >> 4) % 3 == 0 && pos < sb.len)
                pos++; /* delete one byte */
            else
                sb_adds(&next, t);
            sb_add(&next, sb.buf + pos, sb.len - pos);
            sb_release(&sb);
            sb = next;
        }
        file_facts *f = file_facts_new(names[which]);
        analyze_text(names[which], sb_str(&sb), sb.len, &ctx, f);
        file_facts *files[1] = { f };
        deployment_set *ds = deployments_resolve(files, 1, proj, &opt, NULL);
        ck_assert_uint_ge(ds->n, 1);
        deployment_set_free(ds);
        file_facts_free(f);
        sb_release(&sb);
    }
    project_free(proj);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("config");
    TCase *t = tcase_create("config");
    tcase_add_unchecked_fixture(t, load_ids, free_ids);
    tcase_add_test(t, shell_quotes_continuations_comments);
    tcase_add_test(t, shell_bash_c_recursion_keeps_positions);
    tcase_add_test(t, shell_script_operand_after_options);
    tcase_add_test(t, shell_variables_and_separators);
    tcase_add_test(t, serving_command_starts);
    tcase_add_test(t, glob_dialect);
    tcase_add_test(t, glob_agrees_with_backtracking_reference);
    tcase_add_test(t, glob_long_patterns_agree_with_reference);
    tcase_add_test(t, glob_linear_time);
    tcase_add_test(t, ytree_byte_columns_bom_and_repair);
    tcase_add_test(t, ytree_aliases_are_bounded);
    tcase_add_test(t, ytree_malformed_reports_line_col);
    tcase_add_test(t, ytree_merge_keys_as_pyyaml);
    tcase_add_test(t, ytree_merge_chain_is_bounded);
    tcase_add_test(t, project_reads_every_key);
    tcase_add_test(t, project_unknown_keys_are_errors_with_position);
    tcase_add_test(t, project_non_scalar_values_are_named);
    tcase_add_test(t, resolve_auto_chains);
    tcase_add_test(t, resolve_checkpoint_kv_scheme_and_defaults);
    tcase_add_test(t, resolve_scopes_script_deployments);
    tcase_add_test(t, frontend_claims_and_skips);
    tcase_add_test(t, frontend_suppressions);
    tcase_add_test(t, mutated_inputs_never_crash);
    suite_add_tcase(s, t);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_ENV);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
