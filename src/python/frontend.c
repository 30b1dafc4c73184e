/*
 * frontend.c: the Python front end as the scanner sees it (frontend/frontend.h).
 *
 * init() loads the sink table once (read-only afterwards); index() lists a file's module
 * constants without parsing; link() builds the lookups over all of them (pylink.c); imports()
 * names the files a file imports (pyimports.c); analyze() applies the prefilter, then parses with tree-sitter-python
 * (one parser per call, so threads share nothing) and evaluates (pystmt.c and the files of pyeval.h). Suppression comments
 * are collected lexically.
 *
 * The prefilter runs inside analyze() rather than in the scanner's prefilter slot because it needs
 * the project's extra sinks and the other files' exported constants, which that slot cannot see;
 * a prefiltered file is marked skipped like one the scanner dropped.
 */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "python/grammar.h"
#include "python/pyfe.h"
#include "util/strlist.h"

static void *python_init(const char *datadir, const struct kv_project *project, diag_list *diags)
{
    return py_state_load(datadir, project, diags);
}

static void python_fini(void *state)
{
    py_state_free(state);
}

static void python_version(char *buf, size_t n)
{
    /* The core, and whether Python files are kept off its faulty path (pynest.c). */
    if (KVLINT_TSCORE_FIXED)
        snprintf(buf, n, "tree-sitter-python grammar ABI %u\ntree-sitter core: %s", python_grammar_abi(), KVLINT_TSCORE);
    else
        snprintf(buf, n,
                 "tree-sitter-python grammar ABI %u\ntree-sitter core: %s, older than 0.20.8: "
                 "brackets nested over %d deep are not parsed", python_grammar_abi(), KVLINT_TSCORE, PY_MAX_BRACKET_DEPTH);
}

static const char *python_claim(const char *path, const char *head, size_t head_len)
{
    (void)head;
    (void)head_len;
    bool py = str_ends_with(path, ".py") || str_ends_with(path, ".pyi");
    return py ? "python" : NULL;
}

static const void *python_index(const fe_source *src, const void *state, kv_arena *arena)
{
    return py_index_source(state, src->data, src->len, arena);
}

static const void *python_link(const fe_file_index *indexes, size_t n, kv_arena *arena)
{
    return py_link_indexes(indexes, n, arena);
}

static size_t python_imports(const fe_source *src, kv_arena *arena, const fe_import **out)
{
    return py_imports(src->data, src->len, arena, out);
}

static bool python_declares(const fe_source *src)
{
    return py_declares_literal_deployment(src->data, src->len);
}

static void python_analyze(const fe_source *src, const fe_context *ctx, file_facts *out)
{
    if (!py_prefilter(ctx ? ctx->state : NULL, ctx, src->path, src->data, src->len)) {
        out->skipped = true;
        return;
    }
    py_collect_suppressions(src->data, src->len, out->arena, out);
    py_analyze_file(src->path, src->data, src->len, ctx, out);
}

const frontend python_frontend = {
    .name = "python",
    .version = python_version,
    .selfcheck = python_grammar_check,
    .init = python_init,
    .fini = python_fini,
    .claim = python_claim,
    .prefilter = NULL,
    .index = python_index,
    .link = python_link,
    .analyze = python_analyze,
    .imports = python_imports,
    .declares = python_declares,
};
