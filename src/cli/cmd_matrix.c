/*
 * cmd_matrix.c: `kvlint matrix PATH...`: the static twin of a measured table. For the code under
 * PATH, every modelled KV-cache dtype x model dtype gets a verdict: safe, or unsafe with the rule
 * that fires first and the line it points at. Each cell is one synthetic deployment evaluated by
 * the same rules as `check` (config-level rules such as invalid names are left out: a cell has no
 * config). Integer ranges (num_adapters, ...) come from the deployments found under PATH: the
 * widest of each name. When the engine's conversion paths disagree (vLLM's CUDA writer saturates
 * where its Triton writer gives -inf), a cell's verdict names the paths that make it unsafe.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/eval.h"
#include "cli/check_common.h"
#include "cli/commands.h"
#include "cli/session.h"
#include "facts/facts_json.h"
#include "report/report.h"
#include "util/json.h"
#include "util/xalloc.h"

static const char usage[] =
    "usage: kvlint matrix [options] PATH...\n"
    "\n"
    "For the code under PATH, the verdict for every KV-cache dtype kvlint models x model dtype\n"
    "(float32, bfloat16, float16): safe, or unsafe with the reason and the first offending line.\n"
    "\n"
    "options:\n"
    "      --format F          text (default) or json\n"
    "      --rules DIR         also load the rule files in DIR (repeatable)\n"
    "      --select IDS, --ignore IDS   as for check\n"
    SESSION_OPTIONS_HELP
    "  -h, --help              this help\n"
    "\n"
    "exit status: 0 printed, 2 usage, configuration or I/O error\n";

enum { OPT_FORMAT = 0x200, OPT_SELECT, OPT_IGNORE, OPT_RULES };

typedef struct cell {
    kvn_dtype kv, model;
    const finding *first;   /* first finding at warning or above, NULL: safe */
    size_t nfindings;
} cell;

typedef struct matrix {
    kvn_dtype models[3];
    kvn_dtype *kvs;
    size_t nkv;
    cell *cells;            /* nkv x 3 */
    finding_list **lists;
} matrix;

static bool modelled_kv(kvn_dtype d)
{
    const kvn_dtype_info *i = kvn_dtype_get(d);
    /* fp4 e2m1 and e8m0 are parts of block formats, not caches an engine offers; fp8_ds_mla is a
     * cache for DeepSeek MLA rows only, no column every store could be judged in. */
    return i && i->kind != KVN_KIND_AUTO && i->kind != KVN_KIND_UNMODELLED && !kvn_dtype_nope_only(d) &&
           !(i->kind == KVN_KIND_ELEMENT && (i->elem == KVN_E2M1 || i->elem == KVN_E8M0));
}

/* The id ranges the scanned deployments declare (the checkpoint's num_adapters, a command's
 * --max-model-len, ...), the widest of each name: a matrix cell stands for any deployment of the
 * code, so it must hold the largest range any of them allows. Heap array, caller frees. */
static id_range *widest_ranges(const deployment_set *ds, size_t *n)
{
    size_t total = 0;
    for (size_t i = 0; i < ds->n; i++)
        total += ds->v[i].nranges;
    id_range *out = xcalloc(total ? total : 1, sizeof *out);
    *n = 0;
    for (size_t i = 0; i < ds->n; i++)
        for (size_t k = 0; k < ds->v[i].nranges; k++) {
            const id_range *r = &ds->v[i].ranges[k];
            size_t j = 0;
            while (j < *n && strcmp(out[j].name, r->name) != 0)
                j++;
            if (j == *n)
                out[(*n)++] = *r;
            else if (r->max_id > out[j].max_id)
                out[j] = *r;
        }
    return out;
}

/* Config-level rules say nothing about a cell. */
static const char **cell_ignores(const rule_set *rules, const eval_options *base)
{
    size_t n = 0;
    while (base->ignore && base->ignore[n])
        n++;
    const char **v = xcalloc(n + rules->rules.n + 1, sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = base->ignore[i];
    for (size_t i = 0; i < rules->rules.n; i++) {
        if (!rule_judges_values(&rules->rules.v[i]))
            v[n++] = rules->rules.v[i].id;
    }
    return v;
}

static void evaluate_cells(matrix *m, const rule_set *rules, const session *s, const eval_options *base)
{
    size_t nranges;
    id_range *ranges = widest_ranges(s->deployments, &nranges);
    eval_options eo = *base;
    eo.ignore = cell_ignores(rules, base);
    for (size_t i = 0; i < m->nkv; i++)
        for (size_t j = 0; j < 3; j++) {
            deployment d = {
                .name = "matrix",
                .kv = { .dtype = m->kvs[i], .how = "matrix cell" },
                .model = { .dtype = m->models[j], .how = "matrix cell" },
                .platform = s->project->platform,
                .rocm = s->project->platform == KVN_PLAT_ROCM,
                .ranges = ranges,
                .nranges = nranges,
            };
            deployment_set ds = { .v = &d, .n = 1 };
            finding_list *l = evaluate(rules, s->scan->files, s->scan->n, &ds, &eo);
            cell *c = &m->cells[i * 3 + j];
            *c = (cell){ m->kvs[i], m->models[j], NULL, 0 };
            for (size_t k = 0; k < l->v.n; k++)
                if (l->v.v[k].severity >= SEV_WARNING) {
                    if (!c->first)
                        c->first = &l->v.v[k];
                    c->nfindings++;
                }
            m->lists[i * 3 + j] = l;
        }
    free((void *)eo.ignore);
    free(ranges);
}

/* Whether path i of f is one the rule fires on (its outcome is one of the rule's classes). */
static bool path_fires(const finding *f, size_t i)
{
    int o = f->stored[i].outcome;
    return o >= 0 && ((f->rule->outcomes >> o) & 1u);
}

/* The paths that make f unsafe when others do not ("vLLM's Triton cache writer"), else NULL:
 * the conversion path changes the verdict. */
static const char *verdict_paths(const finding *f, char *buf, size_t n)
{
    size_t fire = 0, len = 0;
    for (size_t i = 0; i < f->nstored; i++)
        fire += path_fires(f, i);
    if (fire == 0 || fire == f->nstored)
        return NULL;
    buf[0] = '\0';
    for (size_t i = 0; i < f->nstored && len < n; i++)
        if (path_fires(f, i)) {
            int w = snprintf(buf + len, n - len, "%s%s", len ? ", " : "", f->stored[i].path);
            len += w > 0 ? (size_t)w : 0;
        }
    return buf;
}

static void cell_text(const cell *c, char *buf, size_t n)
{
    if (!c->first)
        snprintf(buf, n, "safe");
    else
    {
        /* The table stays narrow: the file's base name here, the full location in the list below. */
        const char *path = report_path(c->first->loc.path);
        const char *base = strrchr(path, '/');
        snprintf(buf, n, "%s %s:%u", c->first->rule->id, base ? base + 1 : path, c->first->loc.line);
    }
}

static void print_text(const matrix *m)
{
    int w = 16;
    char buf[256];
    for (size_t i = 0; i < m->nkv * 3; i++) {
        cell_text(&m->cells[i], buf, sizeof buf);
        if ((int)strlen(buf) > w)
            w = (int)strlen(buf);
    }
    printf("%-20s", "KV cache \\ model");
    for (size_t j = 0; j < 3; j++)
        printf("  %-*s", j < 2 ? w : 0, kvn_dtype_name(m->models[j]));
    putchar('\n');
    for (size_t i = 0; i < m->nkv; i++) {
        printf("%-20s", kvn_dtype_name(m->kvs[i]));
        for (size_t j = 0; j < 3; j++) {
            cell_text(&m->cells[i * 3 + j], buf, sizeof buf);
            printf("  %-*s", j < 2 ? w : 0, buf);
        }
        putchar('\n');
    }
    bool header = false;
    for (size_t i = 0; i < m->nkv * 3; i++) {
        const cell *c = &m->cells[i];
        if (!c->first)
            continue;
        if (!header)
            puts("\nunsafe cells (first finding of each):");
        header = true;
        char paths[256];
        const char *by = verdict_paths(c->first, paths, sizeof paths);
        printf("  kv %s, model %s: %s:%u:%u: %s [%s]%s%s%s\n", kvn_dtype_name(c->kv), kvn_dtype_name(c->model),
               report_path(c->first->loc.path), c->first->loc.line, c->first->loc.col, c->first->message,
               c->first->rule->id, by ? " (unsafe only on: " : "", by ? by : "", by ? ")" : "");
    }
}

static void print_json(const matrix *m)
{
    json_writer w;
    json_init_file(&w, stdout, true);
    json_object_begin(&w);
    json_kv_int(&w, "version", JSON_REPORT_VERSION);
    json_key(&w, "model_dtypes");
    json_array_begin(&w);
    for (size_t j = 0; j < 3; j++)
        json_string(&w, kvn_dtype_name(m->models[j]));
    json_array_end(&w);
    json_key(&w, "cells");
    json_array_begin(&w);
    for (size_t i = 0; i < m->nkv * 3; i++) {
        const cell *c = &m->cells[i];
        json_object_begin(&w);
        json_kv_string(&w, "kv_cache_dtype", kvn_dtype_name(c->kv));
        json_kv_string(&w, "dtype", kvn_dtype_name(c->model));
        json_kv_string(&w, "verdict", c->first ? "unsafe" : "safe");
        if (c->first) {
            json_kv_string(&w, "rule", c->first->rule->id);
            json_kv_string(&w, "reason", c->first->message);
            json_kv_string(&w, "path", report_path(c->first->loc.path));
            json_kv_int(&w, "line", c->first->loc.line);
            json_kv_int(&w, "column", c->first->loc.col);
            json_kv_int(&w, "findings", (int64_t)c->nfindings);
            char paths[256];
            const char *by = verdict_paths(c->first, paths, sizeof paths);
            if (by) {
                json_key(&w, "unsafe_paths");
                json_array_begin(&w);
                for (size_t k = 0; k < c->first->nstored; k++)
                    if (path_fires(c->first, k))
                        json_string(&w, c->first->stored[k].path);
                json_array_end(&w);
            }
        }
        json_object_end(&w);
    }
    json_array_end(&w);
    json_object_end(&w);
    json_finish(&w);
}

static matrix *matrix_new(void)
{
    matrix *m = xcalloc(1, sizeof *m);
    m->models[0] = kvn_dtype_by_fmt(KVN_F32);
    m->models[1] = kvn_dtype_by_fmt(KVN_BF16);
    m->models[2] = kvn_dtype_by_fmt(KVN_F16);
    size_t n = kvn_dtype_count();
    m->kvs = xcalloc(n ? n : 1, sizeof *m->kvs);
    for (size_t d = 0; d < n; d++)
        if (modelled_kv((kvn_dtype)d))
            m->kvs[m->nkv++] = (kvn_dtype)d;
    m->cells = xcalloc(m->nkv * 3 + 1, sizeof *m->cells);
    m->lists = xcalloc(m->nkv * 3 + 1, sizeof *m->lists);
    return m;
}

static void matrix_free(matrix *m)
{
    for (size_t i = 0; i < m->nkv * 3; i++)
        finding_list_free(m->lists[i]);
    free(m->lists);
    free(m->cells);
    free(m->kvs);
    free(m);
}

int cmd_matrix(int argc, char **argv)
{
    static const struct option longopts[] = {
        SESSION_LONG_OPTIONS,
        { "format", required_argument, NULL, OPT_FORMAT },
        { "select", required_argument, NULL, OPT_SELECT },
        { "ignore", required_argument, NULL, OPT_IGNORE },
        { "rules", required_argument, NULL, OPT_RULES },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    session_options so = {0};
    check_common cc = {0};
    const char *format = "text";
    int c, status = -1;
    optind = 1;
    opterr = 0;   /* one message, ours, not getopt's as well */
    while (status < 0 && (c = getopt_long(argc, argv, "j:h", longopts, NULL)) != -1) {
        int r = session_option(&so, c, optarg, "matrix");
        if (r < 0)
            status = EXIT_USAGE;
        else if (r == 0)
            switch (c) {
            case OPT_FORMAT: format = optarg; break;
            case OPT_SELECT: common_add_ids(&cc.select, optarg); break;
            case OPT_IGNORE: common_add_ids(&cc.ignore, optarg); break;
            case OPT_RULES: common_add_dir(&cc, optarg); break;
            case 'h': fputs(usage, stdout); status = EXIT_CLEAN; break;
            default: status = usage_error("matrix", "unknown option or missing argument: '%s'", argv[optind - 1]);
            }
    }
    if (status < 0 && strcmp(format, "text") != 0 && strcmp(format, "json") != 0)
        status = usage_error("matrix", "--format is text or json, not '%s'", format);
    if (status < 0 && optind >= argc)
        status = usage_error("matrix", "no PATH given");
    rule_set *rules = status < 0 ? common_load_rules(&cc, "matrix") : NULL;
    session *s = rules ? session_open("matrix", argv + optind, (size_t)(argc - optind), &so) : NULL;
    if (status < 0 && !s)
        status = EXIT_USAGE;
    if (status < 0) {
        eval_options eo = common_eval_options(&cc, s->project);
        matrix *m = matrix_new();
        evaluate_cells(m, rules, s, &eo);
        if (strcmp(format, "json") == 0)
            print_json(m);
        else
            print_text(m);
        matrix_free(m);
        common_eval_options_free(&eo);
        bool errors = session_print_diags(s);
        status = !session_complete(s, "matrix") || errors || fflush(stdout) != 0 ? EXIT_USAGE : EXIT_CLEAN;
    }
    session_free(s, NULL);
    rule_set_free(rules);
    common_free(&cc);
    session_free(NULL, &so);
    return status;
}
