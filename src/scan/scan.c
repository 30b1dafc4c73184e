/*
 * scan.c: discovery, reading and the worker pool (see scan.h).
 *
 * Work is split into two parallel passes over an array fixed before the threads start: pass 1
 * reads each file, applies the size limit, binary test and prefilter, and runs the front end's
 * index(); pass 2 runs analyze() with every index visible. Each worker takes the next index from an
 * atomic counter and writes only its own slot, so there is no lock and no shared mutable state
 * apart from that counter. A file's bytes are freed after pass 1 and read again in pass 2 (from the
 * page cache: cheap), so that memory holds the files being worked on, not the whole tree; standard
 * input, which cannot be read twice, is kept. A file that changed size in between is analysed as
 * it is then, with a note (its index is of the earlier bytes); one that can no longer be read is
 * an error, as in pass 1.
 */
#include "scan/scan.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scan/compdb.h"
#include "scan/gitignore.h"
#include "util/fsutil.h"
#include "util/xalloc.h"

typedef struct slot {
    const char *path;
    const frontend *fe;
    const char *lang;          /* the front end's claim; FE_CLAIM_BY_CONTENT until the file is read */
    bool unclaimed;            /* claimed by content, then refused: not part of the result */
    const compdb_entry *compile;  /* its compile_commands.json entry, or NULL */
    char *data;
    size_t len;
    file_facts *facts;
    const void *exports;
    bool analyse;
    bool index_only;           /* indexed for the others, not analysed, not in the result */
    size_t indexed_len;        /* its length in pass 1 (the index is of those bytes) */
    const scan_stdin *from_stdin;  /* read from standard input, not from path */
} slot;

typedef struct pool {
    slot *slots;
    size_t n;
    atomic_size_t next;
    size_t max_file_size;
    const kv_project *project;
    fe_file_index **indexes;   /* per front end, sorted by path */
    size_t *nindexes;
    const void **links;        /* per front end, from link() */
    void **states;             /* per front end, from init() */
    const size_t *order;       /* pass 2: the slots it takes, and how many (pass2_order) */
    size_t count;
    int pass;
} pool;

int scan_default_jobs(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        n = 1;
    if (n > 64)
        n = 64;
    return (int)n;
}

static fe_source source_of(const slot *s)
{
    /* The path lives as long as the facts (the discovery list is freed when the scan ends). */
    fe_source src = { .path = s->facts->path, .data = s->data, .len = s->len, .lang = s->lang };
    if (s->compile) {
        src.args = s->compile->args;
        src.nargs = s->compile->nargs;
        src.directory = s->compile->directory;
        src.from_database = true;
    }
    return src;
}

/* The slot's bytes from standard input (already read by the caller, with the same limit). */
static fs_status take_stdin(slot *s, const char **err)
{
    const scan_stdin *in = s->from_stdin;
    s->len = in->len;
    *err = in->err;
    if (in->status != FS_OK || !in->data)
        return in->status == FS_OK ? FS_ERROR : in->status;
    s->data = xmalloc(in->len + 1);
    memcpy(s->data, in->data, in->len + 1);
    return FS_OK;
}

static void read_one(pool *p, slot *s)
{
    s->facts = file_facts_new(s->path);
    const char *err = NULL;
    fs_status st = s->from_stdin ? take_stdin(s, &err) : fs_read_file(s->path, p->max_file_size, &s->data, &s->len, &err);
    if (st == FS_TOO_LARGE && s->from_stdin) {
        diag_limit(&s->facts->diags, DIAG_WARNING, s->path, 0, 0,
                   "skipped: standard input is over the %zu-byte limit (--max-file-size)", s->from_stdin->limit);
        s->facts->skipped = true;
        return;
    }
    if (st == FS_TOO_LARGE) {
        diag_limit(&s->facts->diags, DIAG_WARNING, s->path, 0, 0,
                   "skipped: %zu bytes is over the %zu-byte limit (--max-file-size)", s->len, p->max_file_size);
        s->facts->skipped = true;
        return;
    }
    if (st == FS_ERROR) {
        diag_add(&s->facts->diags, DIAG_ERROR, s->path, 0, 0, "cannot read%s: %s",
                 s->from_stdin ? " standard input" : "", err ? err : "unknown error");
        s->facts->skipped = true;
        return;
    }
    if (fs_looks_binary(s->data, s->len)) {
        diag_add(&s->facts->diags, DIAG_NOTE, s->path, 0, 0, "skipped: binary file");
        s->facts->skipped = true;
        free(s->data);
        s->data = NULL;
        return;
    }
    fs_lone_cr_to_lf(s->data, s->len);
    if (s->lang == FE_CLAIM_BY_CONTENT) {
        s->lang = s->fe->claim(s->path, s->data, s->len);
        if (!s->lang || s->lang == FE_CLAIM_BY_CONTENT) {
            s->unclaimed = true;
            s->facts->skipped = true;
            free(s->data);
            s->data = NULL;
            return;
        }
    }
    fe_source src = source_of(s);
    if (s->fe->prefilter && !s->fe->prefilter(&src)) {
        s->facts->skipped = true;
        free(s->data);
        s->data = NULL;
        return;
    }
    s->analyse = true;
    s->indexed_len = s->len;
    if (s->fe->index)
        s->exports = s->fe->index(&src, p->states[kv_frontend_index(s->fe)], s->facts->arena);
    if (!s->from_stdin) {
        free(s->data);
        s->data = NULL;
    }
}

/* Pass 2: the file's bytes again, as pass 1 prepared them. False (with an error) if they are gone. */
static bool reread(pool *p, slot *s)
{
    const char *err = NULL;
    fs_status st = fs_read_file(s->path, p->max_file_size, &s->data, &s->len, &err);
    if (st != FS_OK || !s->data) {
        diag_add(&s->facts->diags, DIAG_ERROR, s->path, 0, 0, "cannot read again (changed while kvlint ran?): %s",
                 st == FS_TOO_LARGE ? "now over the size limit (--max-file-size)" : err ? err : "unknown error");
        s->facts->skipped = true;
        free(s->data);
        s->data = NULL;
        return false;
    }
    fs_lone_cr_to_lf(s->data, s->len);
    if (s->len != s->indexed_len)
        diag_add(&s->facts->diags, DIAG_NOTE, s->path, 0, 0,
                 "changed while kvlint ran (%zu bytes, then %zu): analysed as it is now", s->indexed_len, s->len);
    return true;
}

static void analyze_one(pool *p, slot *s)
{
    if (!s->analyse || (!s->data && !reread(p, s)))
        return;
    size_t k = kv_frontend_index(s->fe);
    fe_context ctx = {
        .project = p->project,
        .state = p->states[k],
        .indexes = p->indexes[k],
        .nindexes = p->nindexes[k],
        .link = p->links[k],
    };
    fe_source src = source_of(s);
    s->fe->analyze(&src, &ctx, s->facts);
    free(s->data);
    s->data = NULL;
}

static void *worker(void *arg)
{
    pool *p = arg;
    for (;;) {
        size_t i = atomic_fetch_add(&p->next, 1);
        if (i >= (p->pass == 1 ? p->n : p->count))
            break;
        if (p->pass == 1)
            read_one(p, &p->slots[i]);
        else
            analyze_one(p, &p->slots[p->order[i]]);
    }
    return NULL;
}

static void run_pass(pool *p, int pass, int jobs)
{
    p->pass = pass;
    atomic_store(&p->next, 0);
    size_t n = pass == 1 ? p->n : p->count;
    if (jobs <= 1 || n < 2) {
        worker(p);
        return;
    }
    if ((size_t)jobs > n)
        jobs = (int)n;
    pthread_t *t = xcalloc((size_t)jobs, sizeof *t);
    int started = 0;
    for (int i = 1; i < jobs; i++) {
        if (pthread_create(&t[i], NULL, worker, p) != 0)
            break;
        started = i;
    }
    worker(p);
    for (int i = 1; i <= started; i++)
        pthread_join(t[i], NULL);
    free(t);
}

/* Pass 2's order: of the files pass 1 kept (*count of them), those of front ends that analyse
 * first (frontend.h), then the others, each group in path order. Only memory and wall time depend
 * on it: every slot is written by its own worker and the result is read in path order. */
static size_t *pass2_order(const slot *slots, size_t n, size_t *count)
{
    size_t *order = xcalloc(n ? n : 1, sizeof *order), k = 0;
    for (int first = 1; first >= 0; first--)
        for (size_t i = 0; i < n; i++)
            if (slots[i].analyse && !slots[i].index_only && slots[i].fe->analyse_first == (first == 1))
                order[k++] = i;
    *count = k;
    return order;
}

/* Add files of the project's `deployments:` globs (relative to the project root). */
static void add_deployment_files(const kv_project *proj, fs_list *files, diag_list *diags)
{
    if (!proj || proj->deployments.n == 0)
        return;
    fs_list all = {0};
    diag_list quiet;
    kv_arena *tmp = arena_new();
    diag_init(&quiet, tmp);
    fs_walk(proj->root, &all, &quiet);   /* named by the project: read even if .gitignore'd */
    size_t rootlen = strcmp(proj->root, ".") == 0 ? 0 : strlen(proj->root);
    bool *matched = arena_zalloc(tmp, proj->deployments.n * sizeof *matched);
    for (size_t i = 0; i < all.n; i++) {
        const char *rel = all.paths[i];
        if (rootlen && strncmp(rel, proj->root, rootlen) == 0 && rel[rootlen] == '/')
            rel += rootlen + 1;
        bool hit = false;
        for (size_t g = 0; g < proj->deployments.n; g++)
            if (kv_glob_match(proj->deployments.v[g], rel))
                hit = matched[g] = true;
        if (hit) {
            files->paths = xgrow(files->paths, &files->cap, files->n + 1, sizeof *files->paths);
            files->paths[files->n++] = xstrdup(all.paths[i]);
        }
    }
    /* A pre-commit run on one file is checked against these files only: say when one names nothing. */
    for (size_t g = 0; g < proj->deployments.n; g++)
        if (!matched[g])
            diag_add(diags, DIAG_WARNING, proj->path ? proj->path : proj->root, 0, 0,
                     "deployments: '%s' matches no file under %s", proj->deployments.v[g], proj->root);
    for (size_t i = 0; i < quiet.items.n; i++)
        diag_add(diags, DIAG_WARNING, quiet.items.v[i].path, 0, 0, "deployments: %s", quiet.items.v[i].msg);
    fs_list_free(&all);
    arena_free(tmp);
}

/* The compilation database of the run (--compile-commands, else the first scanned root that has
 * one), attached to every source of a front end that compiles. Says once when there is none. */
static compdb *attach_compile_args(slot *slots, size_t n, const char *const *paths, size_t npaths,
                                   const scan_options *opt, scan_result *r)
{
    bool wanted = false;
    for (size_t i = 0; i < n && !wanted; i++)
        wanted = slots[i].fe->wants_compile_args;
    if (!wanted)
        return NULL;
    char *path = opt->compile_commands ? xstrdup(opt->compile_commands) : NULL;
    for (size_t i = 0; !path && i < npaths; i++)
        path = compdb_discover(paths[i]);
    if (!path) {
        diag_add(&r->diags, DIAG_NOTE, npaths ? paths[0] : ".", 0, 0,
                 "no compile_commands.json at the scanned root or its build/ (--compile-commands FILE): "
                 "C, C++ and CUDA sources are parsed with default flags");
        return NULL;
    }
    compdb *db = compdb_load(path, &r->diags);
    free(path);
    for (size_t i = 0; db && i < n; i++)
        if (slots[i].fe->wants_compile_args)
            slots[i].compile = compdb_find(db, slots[i].path);
    return db;
}

static int cmp_path(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Slots for the index-only files that nothing else scans (files: sorted). */
static size_t index_only_slots(slot *out, const fs_list *files, const scan_options *opt)
{
    size_t n = 0;
    for (size_t i = 0; i < opt->nindex_only; i++) {
        const char *path = opt->index_only[i];
        const char *key = path, *lang = NULL;
        if (files->n && bsearch(&key, files->paths, files->n, sizeof *files->paths, cmp_path))
            continue;
        const frontend *fe = kv_frontend_for(path, &lang);
        if (!fe || !fe->index || !project_path_included(opt->project, path))
            continue;
        out[n++] = (slot){ .path = path, .fe = fe, .lang = lang, .index_only = true };
    }
    return n;
}

static int cmp_slot(const void *a, const void *b)
{
    return strcmp(((const slot *)a)->path, ((const slot *)b)->path);
}

/* The per-front-end index tables of pass 1 (slots are sorted by path, so these are too), and
 * each front end's link tables over them. */
static void link_indexes(pool *p, size_t nfe, kv_arena *link_arena)
{
    const slot *slots = p->slots;
    for (size_t k = 0; k < nfe; k++) {
        size_t cnt = 0;
        for (size_t i = 0; i < p->n; i++)
            if (slots[i].analyse && slots[i].fe == kv_frontends[k] && slots[i].exports)
                cnt++;
        p->indexes[k] = xcalloc(cnt ? cnt : 1, sizeof **p->indexes);
        for (size_t i = 0; i < p->n; i++)
            if (slots[i].analyse && slots[i].fe == kv_frontends[k] && slots[i].exports)
                p->indexes[k][p->nindexes[k]++] = (fe_file_index){ slots[i].facts->path, slots[i].exports };
        if (kv_frontends[k]->link)
            p->links[k] = kv_frontends[k]->link(p->indexes[k], p->nindexes[k], link_arena);
    }
}

/* The facts of the files pass 2 analysed into r, in path order, with the run's counts; the
 * index-only and unclaimed slots' facts are freed. */
static void collect_files(scan_result *r, slot *slots, size_t n)
{
    r->files = xcalloc(n ? n : 1, sizeof *r->files);
    for (size_t i = 0; i < n; i++) {
        if (slots[i].unclaimed || slots[i].index_only) {
            file_facts_free(slots[i].facts);
            continue;
        }
        r->files[r->n++] = slots[i].facts;
        r->stats.files_seen++;
        /* A front end may prefilter inside analyze() (it needs the run's context) and mark the
         * file skipped; a file skipped with no diagnostic was prefiltered, not refused. */
        if (slots[i].analyse)
            r->stats.bytes_read += slots[i].len;
        const diag_list *d = &slots[i].facts->diags;
        if (!slots[i].facts->skipped)
            r->stats.files_analyzed++;
        else if (!d->items.n)
            r->stats.files_prefiltered++;
        else
            r->stats.files_skipped++;
        for (size_t k = 0; k < d->items.n; k++)
            r->stats.limits_hit += d->items.v[k].limit;
        r->stats.files_limited += diag_has_limits(d);
    }
}

scan_result *scan_paths(const char *const *paths, size_t npaths, const scan_options *opt)
{
    scan_result *r = xcalloc(1, sizeof *r);
    r->arena = arena_new();
    diag_init(&r->diags, r->arena);
    const kv_project *proj = opt->project;

    fs_list files = {0};
    char *stdin_path = opt->stdin_file ? fs_normalize(opt->stdin_file->path) : NULL;
    if (stdin_path) {   /* first, so that fs_list_unique_files drops its on-disk copy found by a walk */
        files.paths = xgrow(files.paths, &files.cap, 1, sizeof *files.paths);
        files.paths[files.n++] = xstrdup(stdin_path);
    }
    for (size_t i = 0; i < npaths; i++)
        if (!opt->stdin_file || strcmp(paths[i], opt->stdin_file->path) != 0)
            gitignore_walk(paths[i], proj->respect_gitignore, &files, &r->diags);
    for (size_t i = 0; i < opt->nextra; i++)
        fs_walk(opt->extra_files[i], &files, &r->diags);
    if (opt->with_deployments)
        add_deployment_files(proj, &files, &r->diags);
    fs_list_unique_files(&files);
    fs_list_sort_unique(&files);

    slot *slots = xcalloc(files.n + opt->nindex_only ? files.n + opt->nindex_only : 1, sizeof *slots);
    size_t n = 0;
    for (size_t i = 0; i < files.n; i++) {
        const char *path = files.paths[i];
        if (!project_path_included(proj, path))
            continue;
        const char *lang = NULL;
        const frontend *fe = kv_frontend_for(path, &lang);
        if (!fe)
            continue;
        slots[n].path = path;
        slots[n].fe = fe;
        slots[n].lang = lang;
        if (stdin_path && !strcmp(path, stdin_path))
            slots[n].from_stdin = opt->stdin_file;
        n++;
    }
    n += index_only_slots(slots + n, &files, opt);
    qsort(slots, n, sizeof *slots, cmp_slot);
    compdb *db = attach_compile_args(slots, n, paths, npaths, opt, r);

    size_t nfe = kv_frontend_count();
    pool p = {
        .slots = slots,
        .n = n,
        .max_file_size = project_file_limit(proj, opt->max_file_size),
        .project = proj,
        .indexes = xcalloc(nfe, sizeof *p.indexes),
        .nindexes = xcalloc(nfe, sizeof *p.nindexes),
    };
    p.states = xcalloc(nfe, sizeof *p.states);
    p.links = xcalloc(nfe, sizeof *p.links);
    kv_arena *link_arena = arena_new();
    for (size_t k = 0; k < nfe; k++)
        if (kv_frontends[k]->init)
            p.states[k] = kv_frontends[k]->init(opt->datadir, proj, &r->diags);
    int jobs = opt->jobs > 0 ? opt->jobs : scan_default_jobs();
    run_pass(&p, 1, jobs);

    link_indexes(&p, nfe, link_arena);
    size_t *order = pass2_order(slots, n, &p.count);
    p.order = order;
    run_pass(&p, 2, jobs);
    free(order);

    collect_files(r, slots, n);
    for (size_t k = 0; k < r->diags.items.n; k++)
        r->stats.limits_hit += r->diags.items.v[k].limit;
    for (size_t k = 0; k < nfe; k++) {
        free(p.indexes[k]);
        if (kv_frontends[k]->fini)
            kv_frontends[k]->fini(p.states[k]);
    }
    free(p.states);
    free(p.links);
    arena_free(link_arena);
    free(p.indexes);
    free(p.nindexes);
    free(slots);
    compdb_free(db);
    fs_list_free(&files);
    free(stdin_path);
    return r;
}

void scan_result_free(scan_result *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++)
        file_facts_free(r->files[i]);
    free(r->files);
    arena_free(r->arena);
    free(r);
}

bool scan_has_errors(const scan_result *r)
{
    if (diag_has_errors(&r->diags))
        return true;
    for (size_t i = 0; i < r->n; i++)
        if (diag_has_errors(&r->files[i]->diags))
            return true;
    return false;
}

static int cmp_diag_ptr(const void *a, const void *b)
{
    return diag_cmp(*(const diag *const *)a, *(const diag *const *)b);
}

const diag **scan_all_diags(const scan_result *r, size_t *n)
{
    size_t total = r->diags.items.n;
    for (size_t i = 0; i < r->n; i++)
        total += r->files[i]->diags.items.n;
    const diag **out = xcalloc(total ? total : 1, sizeof *out);
    size_t k = 0;
    for (size_t i = 0; i < r->diags.items.n; i++)
        out[k++] = &r->diags.items.v[i];
    for (size_t i = 0; i < r->n; i++)
        for (size_t j = 0; j < r->files[i]->diags.items.n; j++)
            out[k++] = &r->files[i]->diags.items.v[j];
    qsort(out, k, sizeof *out, cmp_diag_ptr);
    *n = k;
    return out;
}
