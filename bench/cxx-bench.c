/*
 * cxx-bench.c: where the C/C++/CUDA front end's time goes, per translation unit, on one thread.
 *
 *   bench/cxx-bench [--datadir DIR] ROOT...
 *
 * Walks the roots (regular files, no symbolic links), claims each file as the front end does
 * (by extension, .h by its first bytes), and for each claimed file prints one tab-separated line:
 * the path, its bytes, whether the prefilter lets it through and why (the cache word and the
 * special word, each with the file and line it was found at), then for a parsed file the CPU
 * seconds of the parse (cxx_parse), of the precompiled header its parse built when it was the
 * first of its setting (that parse minus a second, warm parse of the same file), of the analysis
 * (cxx_analyze_unit), libclang's memory for the unit and the store facts. Process CPU time:
 * libclang parses on a thread of its own.
 * Files are parsed without a compilation database, as `kvlint check` does on a bare checkout.
 * Ends with the totals and the number of parse settings (precompiled headers) the run built.
 * It does not time the scanner, the rules or the reports (bench/cxx.sh times the real binary).
 */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cxx/cxxfe.h"
#include "util/fsutil.h"
#include "util/xalloc.h"

typedef struct paths {
    char **v;
    size_t n, cap;
} paths;

static paths g_found; /* nftw has no user pointer; the bench is single-threaded */

static int collect(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    if (type != FTW_F)
        return 0;
    if (g_found.n == g_found.cap) {
        g_found.cap = g_found.cap ? 2 * g_found.cap : 256;
        g_found.v = xrealloc(g_found.v, g_found.cap * sizeof *g_found.v);
    }
    g_found.v[g_found.n++] = xstrdup(path);
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static const char *reason(kv_arena *a, const cxx_prefilter_reason *r, const char *self)
{
    if (!r->path)
        return "-";
    const char *where = strcmp(r->path, self) == 0 ? "" : r->path;
    const char *slash = strrchr(where, '/');
    return arena_printf(a, "%s@%s%s%u", r->word, slash ? slash + 1 : where, *where ? ":" : "", r->line);
}

int main(int argc, char **argv)
{
    const char *datadir = getenv("KVLINT_DATADIR");
    int i = 1;
    if (i + 1 < argc && strcmp(argv[i], "--datadir") == 0) {
        datadir = argv[i + 1];
        i += 2;
    }
    if (i >= argc) {
        fprintf(stderr, "usage: bench/cxx-bench [--datadir DIR] ROOT...\n");
        return 2;
    }
    for (; i < argc; i++)
        if (nftw(argv[i], collect, 32, FTW_PHYS) != 0) {
            fprintf(stderr, "cxx-bench: cannot walk %s\n", argv[i]);
            return 2;
        }
    qsort(g_found.v, g_found.n, sizeof *g_found.v, by_name);
    kv_arena *arena = arena_new();
    diag_list diags;
    diag_init(&diags, arena);
    cxx_state *st = cxx_state_load(datadir, &diags);
    size_t claimed = 0, parsed = 0, facts = 0;
    double t_pre = 0, t_parse = 0, t_an = 0, t_pch = 0;
    printf("path\tbytes\tparsed\tcache\tspecial\tparse_cpu\tpch_cpu\tanalysis_cpu\tMB\tstores\n");
    for (size_t k = 0; k < g_found.n; k++) {
        const char *path = g_found.v[k];
        char *data;
        size_t len;
        const char *err;
        if (fs_read_file(path, 8u << 20, &data, &len, &err) != FS_OK)
            continue;
        const char *lang = cxx_frontend.claim(path, NULL, 0);
        if (lang == FE_CLAIM_BY_CONTENT)
            lang = cxx_frontend.claim(path, data, len);
        if (!lang || lang == FE_CLAIM_BY_CONTENT) {
            free(data);
            continue;
        }
        claimed++;
        file_facts *out = file_facts_new(path);
        fe_source src = { .path = path, .data = data, .len = len, .lang = lang };
        cxx_prefilter_why why;
        double t0 = cpu_now();
        bool pass = cxx_prefilter_explain(st, &src, out->arena, &why);
        t_pre += cpu_now() - t0;
        printf("%s\t%zu\t%s\t%s\t%s", path, len, pass ? "yes" : "no", reason(out->arena, &why.cache, path),
               reason(out->arena, &why.special, path));
        if (pass) {
            size_t built = cxx_pch_count(st->pch);
            CXIndex idx;
            t0 = cpu_now();
            CXTranslationUnit tu = cxx_parse(st, &src, &idx, out);
            double t1 = cpu_now(), pch = 0;
            if (tu && cxx_pch_count(st->pch) > built) {  /* parse again, warm: the rest was the build */
                clang_disposeTranslationUnit(tu);
                clang_disposeIndex(idx);
                file_facts_free(out);
                out = file_facts_new(path);
                double w0 = cpu_now();
                tu = cxx_parse(st, &src, &idx, out);
                double w1 = cpu_now();
                pch = (t1 - t0) - (w1 - w0);
                t0 = w0;
                t1 = w1;
            }
            double an = 0, mb = 0;
            if (tu) {
                mb = (double)cxx_unit_bytes(tu) / (1 << 20);
                cxx_analyze_unit(st, tu, &src, out);
                an = cpu_now() - t1;
                clang_disposeTranslationUnit(tu);
                clang_disposeIndex(idx);
            }
            parsed++;
            facts += out->stores.n;
            t_parse += t1 - t0;
            t_pch += pch;
            t_an += an;
            printf("\t%.3f\t%.3f\t%.3f\t%.0f\t%zu", t1 - t0, pch, an, mb, out->stores.n);
        }
        printf("\n");
        file_facts_free(out);
        free(data);
    }
    size_t settings = cxx_pch_count(st->pch);
    printf("# %zu claimed, %zu parsed, %zu store facts; CPU s: prefilter %.3f, parse %.3f, precompiled headers %.3f "
           "(%zu settings), analysis %.3f\n",
           claimed, parsed, facts, t_pre, t_parse, t_pch, settings, t_an);
    cxx_state_free(st);
    arena_free(arena);
    for (size_t k = 0; k < g_found.n; k++)
        free(g_found.v[k]);
    free(g_found.v);
    return 0;
}
