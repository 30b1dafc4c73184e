/*
 * python-bench.c: the Python front end against tree-sitter alone, on the same files, in one run.
 *
 *   bench/python-bench [-j N] [--datadir DIR] ROOT...
 *
 * Reads every .py file under the roots (the scanner's walk: skips .git, virtualenvs, build trees)
 * into memory first, so that no phase pays for I/O, then times on one thread:
 *   parse     tree-sitter-python parsing every file, nothing else (the reference);
 *   facts     what `kvlint facts` does per file: index, prefilter, parse the parts that can hold
 *             a fact (pyslice.c) of the files that pass and evaluate them (the prefilter and the
 *             slicing are part of the front end's cost);
 *   no-filter index, parse and evaluate every file (the evaluator's own overhead over parsing);
 * (CPU time of the thread), and finally `facts` again on N threads (wall time), as the scanner
 * runs it. Prints MB/s and the
 * ratios. It does not touch the CLI, rules or output formatting (bench/python-facts.sh times the
 * real binary end to end).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <tree_sitter/api.h>

#include "python/grammar.h"
#include "python/pyfe.h"
#include "util/fsutil.h"

typedef struct src {
    char *path;
    char *data;
    size_t len;
    const void *exports;
    file_facts *facts;
} src;

typedef struct corpus {
    src *v;
    size_t n;
    size_t bytes;
} corpus;

/* Single-threaded phases are timed in CPU time of the calling thread, so that other load on the
 * machine does not distort the ratios; the multi-threaded phase in wall time. */
static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double wall_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void load(corpus *c, const char *root, diag_list *d)
{
    fs_list l = {0};
    fs_walk(root, &l, d);
    c->v = realloc(c->v, (c->n + l.n + 1) * sizeof *c->v);
    if (!c->v)
        exit(2);
    for (size_t i = 0; i < l.n; i++) {
        size_t n = strlen(l.paths[i]);
        if (n < 3 || strcmp(l.paths[i] + n - 3, ".py") != 0)
            continue;
        src s = { 0 };
        const char *err;
        if (fs_read_file(l.paths[i], 8 << 20, &s.data, &s.len, &err) != FS_OK || fs_looks_binary(s.data, s.len)) {
            free(s.data);
            continue;
        }
        s.path = strdup(l.paths[i]);
        c->v[c->n++] = s;
        c->bytes += s.len;
    }
    fs_list_free(&l);
}

static double parse_all(const corpus *c)
{
    double t0 = cpu_now();
    TSParser *p = ts_parser_new();
    ts_parser_set_language(p, tree_sitter_python());
    for (size_t i = 0; i < c->n; i++) {
        TSTree *t = ts_parser_parse_string(p, NULL, c->v[i].data, (uint32_t)c->v[i].len);
        ts_tree_delete(t);
    }
    ts_parser_delete(p);
    return cpu_now() - t0;
}

typedef struct run {
    corpus *c;
    fe_context ctx;
    fe_file_index *idx;
    kv_arena *link_arena;      /* the run-wide lookups of the last index_all() */
    bool filter;
    atomic_size_t next;
    size_t passed;
    atomic_size_t facts;
} run;

static void index_all(run *r)
{
    for (size_t i = 0; i < r->c->n; i++) {
        src *s = &r->c->v[i];
        file_facts_free(s->facts);
        s->facts = file_facts_new(s->path);
        s->exports = py_index_source(r->ctx.state, s->data, s->len, s->facts->arena);
        r->idx[i] = (fe_file_index){ s->path, s->exports };
    }
    r->ctx.indexes = r->idx;
    r->ctx.nindexes = r->c->n;
    arena_free(r->link_arena);
    r->link_arena = arena_new();
    r->ctx.link = python_frontend.link(r->idx, r->c->n, r->link_arena);
}

static void *worker(void *arg)
{
    run *r = arg;
    for (;;) {
        size_t i = atomic_fetch_add(&r->next, 1);
        if (i >= r->c->n)
            return NULL;
        src *s = &r->c->v[i];
        if (r->filter && !py_prefilter(r->ctx.state, &r->ctx, s->path, s->data, s->len))
            continue;
        py_collect_suppressions(s->data, s->len, s->facts->arena, s->facts);
        py_analyze_file(s->path, s->data, s->len, &r->ctx, s->facts);
        file_facts *f = s->facts;
        atomic_fetch_add(&r->facts, f->stores.n + f->constructions.n + f->casts.n + f->ariths.n + f->decls.n);
    }
}

/* index + (prefilter) + analyse every file on `jobs` threads; returns seconds. */
static double analyse_all(run *r, bool filter, int jobs, size_t *passed)
{
    double (*now)(void) = jobs > 1 ? wall_now : cpu_now;
    double t0 = now();
    index_all(r);
    r->filter = filter;
    atomic_store(&r->next, 0);
    atomic_store(&r->facts, 0);
    pthread_t t[64];
    int started = 0;
    for (int i = 1; i < jobs && i < 64; i++)
        if (pthread_create(&t[started], NULL, worker, r) == 0)
            started++;
    worker(r);
    for (int i = 0; i < started; i++)
        pthread_join(t[i], NULL);
    double dt = now() - t0;
    *passed = 0;
    for (size_t i = 0; i < r->c->n; i++) {
        if (!filter || py_prefilter(r->ctx.state, &r->ctx, r->c->v[i].path, r->c->v[i].data, r->c->v[i].len))
            (*passed)++;
    }
    return dt;
}

/* Of the files the prefilter keeps: their bytes, and the bytes the slicing (pyslice.c) parses. */
static void sliced_bytes(const run *r, size_t *kept, size_t *parsed)
{
    *kept = *parsed = 0;
    for (size_t i = 0; i < r->c->n; i++) {
        const src *s = &r->c->v[i];
        if (!py_prefilter(r->ctx.state, &r->ctx, s->path, s->data, s->len))
            continue;
        *kept += s->len;
        *parsed += py_slice_bytes(r->ctx.state, &r->ctx, s->path, s->data, s->len);
    }
}

int main(int argc, char **argv)
{
    int jobs = 2;
    const char *datadir = KVLINT_SOURCE_DIR;
    corpus c = { 0 };
    kv_arena *a = arena_new();
    diag_list d;
    diag_init(&d, a);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-j") == 0 && i + 1 < argc)
            jobs = atoi(argv[++i]);
        else if (strcmp(argv[i], "--datadir") == 0 && i + 1 < argc)
            datadir = argv[++i];
        else
            load(&c, argv[i], &d);
    }
    if (c.n == 0) {
        fprintf(stderr, "usage: python-bench [-j N] [--datadir DIR] ROOT...  (no .py file found)\n");
        return 2;
    }
    kv_project *proj = project_default(".");
    py_state *st = py_state_load(datadir, proj, &d);
    run r = { .c = &c, .ctx = { .project = proj, .state = st } };
    r.idx = calloc(c.n, sizeof *r.idx);
    double mb = (double)c.bytes / 1e6;
    size_t passed, all;

    parse_all(&c); /* warm the caches */
    double t_parse = parse_all(&c);
    double t_facts = analyse_all(&r, true, 1, &passed);
    size_t nfacts = atomic_load(&r.facts);
    double t_nofilter = analyse_all(&r, false, 1, &all);
    double t_wall = analyse_all(&r, true, jobs, &passed);

    printf("python front end benchmark: %zu files, %.1f MB (%zu pass the prefilter, %zu facts)\n",
           c.n, mb, passed, nfacts);
    size_t kept, parsed;
    sliced_bytes(&r, &kept, &parsed);
    printf("  files the prefilter keeps: %.1f MB, of which the parts parsed: %.1f MB (%.0f%%)\n",
           (double)kept / 1e6, (double)parsed / 1e6, kept ? 100.0 * (double)parsed / (double)kept : 0.0);
    printf("  parse-only (tree-sitter, 1 thread, CPU)      %7.3f s  %7.1f MB/s\n", t_parse, mb / t_parse);
    printf("  facts: prefilter + analysis (1 thread, CPU)  %7.3f s  %7.1f MB/s  %.2fx parse-only\n",
           t_facts, mb / t_facts, t_facts / t_parse);
    printf("  analysis of every file, no prefilter (CPU)   %7.3f s  %7.1f MB/s  %.2fx parse-only\n",
           t_nofilter, mb / t_nofilter, t_nofilter / t_parse);
    printf("  facts on %d threads (wall)                    %7.3f s  %7.1f MB/s\n", jobs, t_wall, mb / t_wall);

    for (size_t i = 0; i < c.n; i++) {
        free(c.v[i].path);
        free(c.v[i].data);
        file_facts_free(c.v[i].facts);
    }
    free(c.v);
    free(r.idx);
    arena_free(r.link_arena);
    py_state_free(st);
    project_free(proj);
    arena_free(a);
    return 0;
}
