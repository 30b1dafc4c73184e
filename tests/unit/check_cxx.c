/*
 * check_cxx.c: unit tests for the C/C++/CUDA front end's pieces that need no golden: the
 * compilation database (nvcc flag translation, both entry forms, relative directories), the
 * front end's claims, the prefilter's soundness (every fixture file it drops is parsed and
 * analysed anyway, and must give no store fact), the run's precompiled headers (one per parse
 * setting, none where an include folder would shadow a header of the set) and the per-file budgets.
 */
#include <check.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cxx/cxxfe.h"
#include "scan/compdb.h"
#include "util/fsutil.h"
#include "util/xalloc.h"

static const char *srcdir(void)
{
    const char *s = getenv("top_srcdir");
    return s && *s ? s : KVLINT_SOURCE_DIR;
}

/* The translated arguments joined by spaces. */
static const char *translate(kv_arena *a, const char *const *argv, size_t argc, const char *dir, const char *file,
                             bool *cuda)
{
    const char *const *out;
    size_t n = compdb_translate(argv, argc, dir, file, a, &out, cuda);
    char *s = arena_strdup(a, "");
    for (size_t i = 0; i < n; i++)
        s = arena_printf(a, "%s%s%s", s, i ? " " : "", out[i]);
    ck_assert_ptr_null(out[n]);
    return s;
}

START_TEST(nvcc_flags)
{
    kv_arena *a = arena_new();
    bool cuda = false;
    const char *argv[] = { "/usr/local/cuda/bin/nvcc", "-DTORCH_EXTENSION_NAME=_C", "-I", "inc", "-I/abs/inc",
                           "-isystem", "/usr/include/torch", "-gencode", "arch=compute_80,code=sm_80",
                           "-gencode=arch=compute_90,code=sm_90", "--expt-relaxed-constexpr",
                           "--expt-extended-lambda", "-Xcompiler", "-fPIC", "-Xcompiler=-Wall", "-O3", "-std=c++17",
                           "-x", "cu", "--use_fast_math", "-c", "/src/a.cu", "-o", "a.o", "--threads", "4",
                           "--std", "c++20", "--include-path=more", "-arch=sm_80", "-ccbin", "/usr/bin/g++" };
    const char *s = translate(a, argv, sizeof argv / sizeof *argv, "/build", "/src/a.cu", &cuda);
    ck_assert_str_eq(s, "-D TORCH_EXTENSION_NAME=_C -I /build/inc -I /abs/inc -isystem /usr/include/torch -std=c++17 "
                        "-x cuda -std=c++20 -I /build/more");
    ck_assert(cuda);

    const char *gcc[] = { "c++", "-x", "c++", "-iquote", "../q", "-include", "pre.h", "-Wall", "-fopenmp", "-MF",
                          "dep.d", "-MMD", "k.cpp" };
    s = translate(a, gcc, sizeof gcc / sizeof *gcc, "/b/build", "/b/k.cpp", &cuda);
    ck_assert_str_eq(s, "-x c++ -iquote /b/q -include /b/build/pre.h");
    ck_assert(!cuda);

    const char *clangcu[] = { "clang++", "k.cu", "-U", "NDEBUG", "-Dx" };
    s = translate(a, clangcu, 5, "/b", "/b/k.cu", &cuda);
    ck_assert_str_eq(s, "-U NDEBUG -D x");
    ck_assert(cuda); /* a .cu input */
    const char *dangling[] = { "nvcc", "-I" };
    s = translate(a, dangling, 2, "/b", NULL, &cuda);
    ck_assert_str_eq(s, "");
    arena_free(a);
}
END_TEST

static char *write_tmp(const char *dir, const char *name, const char *text)
{
    char *p = fs_join(dir, name);
    FILE *f = fopen(p, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
    return p;
}

START_TEST(database_forms)
{
    char tmpl[] = "/tmp/kvlint-compdb.XXXXXX";
    char *dir = mkdtemp(tmpl);
    ck_assert_ptr_nonnull(dir);
    char *sub = fs_join(dir, "src");
    ck_assert_int_eq(mkdir(sub, 0700), 0);
    char *cu = write_tmp(sub, "k.cu", "int x;\n");
    char *cpp = write_tmp(sub, "h.cpp", "int y;\n");
    char *text = xcalloc(1, 4096);
    snprintf(text, 4096,
             "[\n"
             " {\"directory\": \"%s/build\", \"file\": \"%s\",\n"
             "  \"command\": \"/usr/bin/nvcc -I'../src/inc dir' -x cu -gencode arch=compute_80,code=sm_80 -c %s\"},\n"
             " {\"directory\": \"src\", \"file\": \"h.cpp\", \"arguments\": [\"g++\", \"-DX=1\", \"-c\", \"h.cpp\"]},\n"
             " {\"file\": \"nodir.cpp\", \"arguments\": [\"g++\"]}\n"
             "]\n", dir, cu, cu);
    char *db_path = write_tmp(dir, "compile_commands.json", text);
    kv_arena *a = arena_new();
    diag_list d;
    diag_init(&d, a);
    compdb *db = compdb_load(db_path, &d);
    ck_assert_ptr_nonnull(db);
    ck_assert_uint_eq(db->n, 2);
    ck_assert_uint_eq(d.items.n, 1); /* the entry without a directory */
    ck_assert_int_eq(d.items.v[0].level, DIAG_WARNING);
    const compdb_entry *e = compdb_find(db, cu);
    ck_assert_ptr_nonnull(e);
    ck_assert(e->cuda);
    ck_assert_uint_eq(e->nargs, 4);
    char *want = NULL;
    ck_assert_int_gt(asprintf(&want, "%s/src/inc dir", dir), 0);
    ck_assert_str_eq(e->args[1], want);
    ck_assert_str_eq(e->args[3], "cuda");
    e = compdb_find(db, cpp);  /* relative directory: relative to the database's folder */
    ck_assert_ptr_nonnull(e);
    ck_assert(!e->cuda);
    ck_assert_uint_eq(e->nargs, 2);
    ck_assert_str_eq(e->args[1], "X=1");
    char *disc = compdb_discover(dir);
    ck_assert_str_eq(disc, db_path);
    free(disc);
    ck_assert_ptr_null(compdb_discover(sub));
    compdb_free(db);

    char *bad = write_tmp(dir, "bad.json", "{\"not\": \"a list\"}\n");
    ck_assert_ptr_null(compdb_load(bad, &d));
    ck_assert_int_eq(d.items.v[d.items.n - 1].level, DIAG_ERROR);
    unlink(bad);
    unlink(db_path);
    unlink(cu);
    unlink(cpp);
    rmdir(sub);
    rmdir(dir);
    free(bad);
    free(db_path);
    free(cu);
    free(cpp);
    free(sub);
    free(text);
    free(want);
    arena_free(a);
}
END_TEST

START_TEST(claims)
{
    ck_assert_str_eq(cxx_frontend.claim("csrc/cache_kernels.cu", NULL, 0), "cuda");
    ck_assert_str_eq(cxx_frontend.claim("a/b.cuh", NULL, 0), "cuda");
    ck_assert_str_eq(cxx_frontend.claim("a/b.cpp", NULL, 0), "c++");
    ck_assert_ptr_eq(cxx_frontend.claim("a/b.h", NULL, 0), FE_CLAIM_BY_CONTENT);
    const char *cuda = "#pragma once\n__device__ float f();\n", *cxx = "namespace vllm { int x; }\n", *c = "int x;\n";
    ck_assert_str_eq(cxx_frontend.claim("a/b.h", cuda, strlen(cuda)), "cuda");
    ck_assert_str_eq(cxx_frontend.claim("a/b.h", cxx, strlen(cxx)), "c++");
    ck_assert_ptr_null(cxx_frontend.claim("a/b.h", c, strlen(c)));
    ck_assert_ptr_null(cxx_frontend.claim("a/b.py", NULL, 0));
}
END_TEST

/* Every file under root that the prefilter drops is analysed anyway: it must hold no store. */
static void check_soundness(const char *root, size_t *files, size_t *dropped)
{
    kv_arena *a = arena_new();
    diag_list d;
    diag_init(&d, a);
    cxx_state *st = cxx_state_load(srcdir(), &d);
    ck_assert_uint_eq(d.items.n, 0);
    fs_list list = {0};
    fs_walk(root, &list, &d);
    fs_list_sort_unique(&list);
    *files = *dropped = 0;
    for (size_t i = 0; i < list.n; i++) {
        const char *lang = cxx_frontend.claim(list.paths[i], NULL, 0);
        char *data;
        size_t len;
        const char *err;
        if (!lang || fs_read_file(list.paths[i], 8 << 20, &data, &len, &err) != FS_OK)
            continue;
        if (lang == FE_CLAIM_BY_CONTENT)
            lang = cxx_frontend.claim(list.paths[i], data, len);
        if (!lang) {
            free(data);
            continue;
        }
        (*files)++;
        file_facts *f = file_facts_new(list.paths[i]);
        fe_source src = { .path = f->path, .data = data, .len = len, .lang = lang };
        if (!cxx_prefilter(st, &src, f->arena)) {
            (*dropped)++;
            CXIndex idx;
            CXTranslationUnit tu = cxx_parse(st, &src, true, &idx, f);
            if (tu) {
                cxx_analyze_unit(st, tu, &src, f);
                clang_disposeTranslationUnit(tu);
                clang_disposeIndex(idx);
            }
            ck_assert_msg(f->stores.n == 0, "prefilter dropped %s, which has %zu stores", src.path, f->stores.n);
        }
        file_facts_free(f);
        free(data);
    }
    fs_list_free(&list);
    cxx_state_free(st);
    arena_free(a);
}

START_TEST(prefilter_sound_fixtures)
{
    char root[4096];
    snprintf(root, sizeof root, "%s/tests/fixtures/cxx", srcdir());
    size_t files, dropped;
    check_soundness(root, &files, &dropped);
    ck_assert_uint_gt(files, 5);
    ck_assert_uint_gt(dropped, 0);
}
END_TEST

/* tests/fixtures/cxx/reach: the prefilter keeps every fact_* file (each has a store fact when
 * analysed) and keep_* file, and drops every drop_* file (which the test above analyses anyway). */
START_TEST(prefilter_reach)
{
    kv_arena *a = arena_new();
    diag_list d;
    diag_init(&d, a);
    cxx_state *st = cxx_state_load(srcdir(), &d);
    static const char *const files[] = { "fact_local.cu", "fact_cast.cu", "fact_header.cu", "fact_derived.cu",
                                         "fact_limits.cu", "fact_id.cu", "fact_sink_param.cu", "fact_cast_minus.cu",
                                         "keep_sink.cu",
                                         "drop_index.cu", "drop_logits.cu", "drop_decls.h", "drop_scope.cu",
                                         "drop_sink_other.cu" };
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        char *path = arena_printf(a, "%s/tests/fixtures/cxx/reach/%s", srcdir(), files[i]);
        char *data;
        size_t len;
        const char *err;
        ck_assert_int_eq(fs_read_file(path, 1 << 20, &data, &len, &err), FS_OK);
        const char *lang = cxx_frontend.claim(path, data, len);
        ck_assert_ptr_nonnull(lang);
        file_facts *f = file_facts_new(path);
        fe_source src = { .path = f->path, .data = data, .len = len, .lang = lang };
        bool kept = cxx_prefilter(st, &src, f->arena);
        ck_assert_msg(kept == (files[i][0] != 'd'), "%s: prefilter %s it", files[i], kept ? "kept" : "dropped");
        if (files[i][0] == 'f') {
            CXIndex idx;
            CXTranslationUnit tu = cxx_parse(st, &src, true, &idx, f);
            ck_assert_ptr_nonnull(tu);
            cxx_analyze_unit(st, tu, &src, f);
            clang_disposeTranslationUnit(tu);
            clang_disposeIndex(idx);
            ck_assert_msg(f->stores.n > 0, "%s: no store fact", files[i]);
        }
        file_facts_free(f);
        free(data);
    }
    cxx_state_free(st);
    arena_free(a);
}
END_TEST

/* A generated kernel with a chain of 20,000 variables (each assigned the one before) from -1e9f
 * to a cache: the prefilter stops at its bound on names and keeps the file, in linear time. */
START_TEST(prefilter_reach_bounded)
{
    kv_arena *a = arena_new();
    diag_list d;
    diag_init(&d, a);
    cxx_state *st = cxx_state_load(srcdir(), &d);
    enum { N = 20000 };
    size_t cap = (size_t)N * 48 + 256, len = 0;
    char *text = xmalloc(cap);
    len += (size_t)snprintf(text + len, cap - len, "__global__ void k(float* k_cache) {\n  float a0 = -1e9f;\n");
    for (int i = 1; i < N; i++)
        len += (size_t)snprintf(text + len, cap - len, "  float a%d = a%d;\n", i, i - 1);
    len += (size_t)snprintf(text + len, cap - len, "  k_cache[0] = a%d;\n}\n", N - 1);
    file_facts *f = file_facts_new("chain.cu");
    fe_source src = { .path = "chain.cu", .data = text, .len = len, .lang = "cuda" };
    ck_assert(cxx_prefilter(st, &src, f->arena));
    file_facts_free(f);
    free(text);
    cxx_state_free(st);
    arena_free(a);
}
END_TEST

/* KVLINT_CXX_CORPUS=/path/to/csrc: the same on a real tree (slow; not run by default). */
START_TEST(prefilter_sound_corpus)
{
    const char *root = getenv("KVLINT_CXX_CORPUS");
    if (!root || !*root)
        return;
    size_t files, dropped;
    check_soundness(root, &files, &dropped);
    printf("check_cxx: corpus %s: %zu files, %zu dropped by the prefilter, none with a store\n", root, files, dropped);
}
END_TEST


/* One precompiled header per parse setting, reused; none for C, for a shadowing include folder. */
START_TEST(pch_per_setting)
{
    kv_arena *a = arena_new();
    diag_list d;
    diag_init(&d, a);
    cxx_state *st = cxx_state_load(srcdir(), &d);
    ck_assert_uint_eq(d.items.n, 0);
    ck_assert_uint_gt(st->pch_headers.n, 5);
    const char *cuda[] = { "-x", "cuda", "-std=c++17", "-w", "-nocudainc", "-nocudalib", "--cuda-host-only",
                           "-I", "/nonexistent/inc", "-idirafter", st->stubs };
    size_t n = sizeof cuda / sizeof *cuda;
    const char *p1 = cxx_pch_for(st, "cuda", cuda, n);
    ck_assert_ptr_nonnull(p1);
    ck_assert_int_eq(access(p1, R_OK), 0);
    /* another include folder is the same setting */
    cuda[8] = "/nonexistent/other";
    ck_assert_ptr_eq(cxx_pch_for(st, "cuda", cuda, n), p1);
    /* a macro is another setting */
    const char *defined[] = { "-x", "cuda", "-std=c++17", "-DKV_TEST=1", "-nocudainc", "--cuda-host-only" };
    const char *p2 = cxx_pch_for(st, "cuda", defined, sizeof defined / sizeof *defined);
    ck_assert_ptr_nonnull(p2);
    ck_assert_str_ne(p1, p2);
    const char *c[] = { "-x", "c" };
    ck_assert_ptr_null(cxx_pch_for(st, "c", c, 2));
    /* a project folder with its own <vector>: the file would read that one, so no shared header */
    char dir[] = "/tmp/kvlint-check-pch.XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char *vec = fs_join(dir, "vector");
    /* a folder of that name is no header (the fixtures have a `limits/`) */
    ck_assert_int_eq(mkdir(vec, 0700), 0);
    cuda[8] = dir;
    ck_assert_ptr_eq(cxx_pch_for(st, "cuda", cuda, n), p1);
    ck_assert_int_eq(rmdir(vec), 0);
    FILE *f = fopen(vec, "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    cuda[8] = dir;
    ck_assert_ptr_null(cxx_pch_for(st, "cuda", cuda, n));
    unlink(vec);
    rmdir(dir);
    free(vec);
    char *held = xstrdup(p1);
    cxx_state_free(st);
    ck_assert_int_ne(access(held, F_OK), 0); /* removed with the state */
    free(held);
    arena_free(a);
}
END_TEST

/* Analyse one fixture file through the front end with the given budgets; its store count. */
static size_t analyse_with(size_t steps, size_t per_byte, size_t bytes, const char *expect_note)
{
    kv_arena *a = arena_new();
    diag_list d;
    diag_init(&d, a);
    cxx_state *st = cxx_state_load(srcdir(), &d);
    st->budget_steps = steps;
    st->budget_steps_per_byte = per_byte;
    st->budget_bytes = bytes;
    char *path = fs_join(srcdir(), "tests/fixtures/cxx/half_cache/write_half.cu");
    char *data;
    size_t len;
    const char *err;
    ck_assert_int_eq(fs_read_file(path, 1 << 20, &data, &len, &err), FS_OK);
    file_facts *f = file_facts_new(path);
    fe_source src = { .path = f->path, .data = data, .len = len, .lang = "cuda" };
    fe_context ctx = { .state = st };
    cxx_frontend.analyze(&src, &ctx, f);
    size_t stores = f->stores.n;
    bool noted = false;
    for (size_t i = 0; i < f->diags.items.n; i++)
        noted |= f->diags.items.v[i].limit && strstr(f->diags.items.v[i].msg, expect_note) != NULL;
    ck_assert_msg(noted == (expect_note[0] != '\0'), "budget note '%s' %s", expect_note, noted ? "given" : "missing");
    file_facts_free(f);
    free(data);
    free(path);
    cxx_state_free(st);
    arena_free(a);
    return stores;
}

/* A sinks.tsv line split at tabs (the test's copy is writable, as the loader's is). */
static bool sink_line(kv_arena *a, const char *line, cxx_sink *out)
{
    char *copy = arena_strdup(a, line), *f[9];
    size_t n = 0;
    for (char *p = copy; n < 9; p++) {
        f[n++] = p;
        if (!(p = strchr(p, '\t')))
            break;
        *p = '\0';
    }
    return cxx_sink_parse(a, f, n, out);
}

/* Pass 1 and the link decide the precompiled header: a setting that one parsed file has is parsed
 * plainly (building the header would cost more than it saves); two files of a setting share one. */
static size_t pch_built_for(const char *const *paths, size_t n, size_t which, size_t *stores)
{
    kv_arena *a = arena_new();
    diag_list d;
    diag_init(&d, a);
    cxx_state *st = cxx_state_load(srcdir(), &d);
    ck_assert_uint_eq(d.items.n, 0);
    fe_file_index ix[2];
    file_facts *f[2];
    fe_source src[2];
    for (size_t i = 0; i < n; i++) {
        char *data;
        size_t len;
        const char *err;
        ck_assert_int_eq(fs_read_file(paths[i], 8 << 20, &data, &len, &err), FS_OK);
        f[i] = file_facts_new(paths[i]);
        src[i] = (fe_source){ .path = f[i]->path, .data = arena_strdup(f[i]->arena, data), .len = len, .lang = "cuda" };
        free(data);
        ix[i] = (fe_file_index){ f[i]->path, cxx_frontend.index(&src[i], st, f[i]->arena) };
    }
    fe_context ctx = { .state = st, .indexes = ix, .nindexes = n, .link = cxx_frontend.link(ix, n, a) };
    cxx_frontend.analyze(&src[which], &ctx, f[which]);
    *stores = f[which]->stores.n;
    size_t built = cxx_pch_count(st->pch);
    for (size_t i = 0; i < n; i++)
        file_facts_free(f[i]);
    cxx_state_free(st);
    arena_free(a);
    return built;
}

START_TEST(pch_only_when_shared)
{
    char one[PATH_MAX], two[PATH_MAX];
    snprintf(one, sizeof one, "%s/tests/fixtures/cxx/half_cache/write_half.cu", srcdir());
    snprintf(two, sizeof two, "%s/tests/fixtures/cxx/bf16_key/bf16.cu", srcdir());
    const char *const both[] = { two, one }; /* sorted by path, as the scanner gives them */
    size_t alone, shared;
    ck_assert_uint_eq(pch_built_for((const char *const[]){ one }, 1, 0, &alone), 0);
    ck_assert_uint_eq(pch_built_for(both, 2, 1, &shared), 1);
    ck_assert_uint_gt(alone, 0);
    ck_assert_uint_eq(alone, shared); /* the same facts either way */
}
END_TEST

START_TEST(sink_table)
{
    kv_arena *a = arena_new();
    cxx_sink k;
    ck_assert(sink_line(a, "sink\tw\tdst,src,scale=\tdst\tsrc\tfp8-saturating\tvllm\tkv", &k));
    ck_assert_uint_eq(k.nparams, 3);
    ck_assert_uint_eq(k.nrequired, 2);
    ck_assert_uint_eq(k.npairs, 1);
    ck_assert_uint_eq(k.cache[0], 0);
    ck_assert_uint_eq(k.value[0], 1);
    ck_assert(k.latent && k.conv == CXK_FP8_SATURATING);
    ck_assert_str_eq(k.params[2], "scale");
    ck_assert(sink_line(a, "sink\tf\tk,v,kc,vc\tkc,vc\tk,v\telement\tsglang\tkv-split", &k));
    ck_assert(!k.latent && k.npairs == 2 && k.cache[1] == 3 && k.value[1] == 1);
    /* malformed: a cache that is no parameter, unpaired caches, an unknown conversion or operand,
     * a required parameter after a defaulted one, missing columns */
    ck_assert(!sink_line(a, "sink\tf\ta,b\tc\ta\telement\tvllm\tkv", &k));
    ck_assert(!sink_line(a, "sink\tf\ta,b\ta,b\ta\telement\tvllm\tkv", &k));
    ck_assert(!sink_line(a, "sink\tf\ta,b\ta\tb\tclamped\tvllm\tkv", &k));
    ck_assert(!sink_line(a, "sink\tf\ta,b\ta\tb\telement\tvllm\tkv-merged", &k));
    ck_assert(!sink_line(a, "sink\tf\ta=,b\ta\tb\telement\tvllm\tkv", &k));
    ck_assert(!sink_line(a, "sink\tf\ta,b\ta\tb", &k));
    arena_free(a);
}
END_TEST

START_TEST(sink_table_shipped)
{
    /* The shipped table loads without a warning and names the writers the docs say it does. */
    kv_arena *a = arena_new();
    diag_list d;
    diag_init(&d, a);
    cxx_state *st = cxx_state_load(srcdir(), &d);
    ck_assert_uint_eq(d.items.n, 0);
    bool writer = false, nvfp4 = false;
    for (size_t i = 0; i < st->sinks.n; i++) {
        writer |= strcmp(st->sinks.v[i].name, "CopyWithScaleOp::operator()") == 0;
        nvfp4 |= strcmp(st->sinks.v[i].name, "reshape_and_cache_nvfp4_kernel") == 0 && st->sinks.v[i].nparams == 20;
    }
    ck_assert(writer && nvfp4);
    cxx_state_free(st);
    arena_free(a);
}
END_TEST

START_TEST(budget_arithmetic)
{
    cxx_state st = { .budget_steps = 10, .budget_steps_per_byte = 3 };
    cxx_budget b = cxx_budget_for(&st, 5);
    ck_assert_uint_eq(b.total, 25);
    ck_assert(cxx_charge(&b, 20));
    ck_assert(cxx_charge(&b, 5));
    ck_assert(!b.spent);
    ck_assert(!cxx_charge(&b, 1));
    ck_assert(b.spent);
    ck_assert(!cxx_charge(&b, 0)); /* spent stays spent */
    st.budget_steps_per_byte = SIZE_MAX;
    ck_assert_uint_eq(cxx_budget_for(&st, 2).total, SIZE_MAX); /* saturates, never wraps */
    st.budget_steps = st.budget_steps_per_byte = 0;
    ck_assert(cxx_budget_for(&st, 100).spent);
}
END_TEST

START_TEST(budgets)
{
    ck_assert_uint_gt(analyse_with(100000, 10, (size_t)1 << 30, ""), 0);
    ck_assert_uint_eq(analyse_with(100000, 10, 1, "over the 0 MB budget per file"), 0);
    ck_assert_uint_eq(analyse_with(0, 0, (size_t)1 << 30, "after its budget of 0 steps for this file (0 + 0 per byte)"), 0);
    /* A few hundred steps: the dispatch walk fits, the function's walk does not. */
    ck_assert_uint_eq(analyse_with(300, 0, (size_t)1 << 30, "after its budget of 300 steps"), 0);
    /* The budget is a count, not a clock: the same budget gives the same facts every time. */
    ck_assert_uint_eq(analyse_with(100000, 10, (size_t)1 << 30, ""), analyse_with(100000, 10, (size_t)1 << 30, ""));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cxx");
    TCase *t = tcase_create("core");
    tcase_set_timeout(t, 600);
    tcase_add_test(t, nvcc_flags);
    tcase_add_test(t, database_forms);
    tcase_add_test(t, claims);
    tcase_add_test(t, prefilter_sound_fixtures);
    tcase_add_test(t, prefilter_sound_corpus);
    tcase_add_test(t, prefilter_reach);
    tcase_add_test(t, prefilter_reach_bounded);
    tcase_add_test(t, pch_per_setting);
    tcase_add_test(t, pch_only_when_shared);
    tcase_add_test(t, sink_table);
    tcase_add_test(t, sink_table_shipped);
    tcase_add_test(t, budget_arithmetic);
    tcase_add_test(t, budgets);
    suite_add_tcase(s, t);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_ENV);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
