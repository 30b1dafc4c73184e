/*
 * frontend.c: `config_frontend`, the front end for deployment configs.
 *
 * Claims YAML (.yaml, .yml), JSON, shell scripts (.sh, .bash) and Dockerfiles (never the project's own
 * .kvlint.yaml), prefilters on words every declaration needs, and dispatches by file kind to
 * cfg_yaml.c (YAML/JSON through libyaml) or cfg_text.c (shell, Dockerfile). It keeps no state
 * between files.
 */
#include <stdlib.h>
#include <string.h>

#include "config/cfg.h"
#include "scan/frontend.h"

static const char *base_of(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

typedef enum file_kind { FK_NONE, FK_YAML, FK_SHELL, FK_DOCKER } file_kind;

static file_kind kind_of(const char *path)
{
    const char *b = base_of(path);
    if (!strcmp(b, ".kvlint.yaml") || !strcmp(b, ".kvlint.yml"))
        return FK_NONE;
    if (ends_with(b, ".yaml") || ends_with(b, ".yml") || ends_with(b, ".json"))
        return FK_YAML;
    if (ends_with(b, ".sh") || ends_with(b, ".bash"))
        return FK_SHELL;
    if (!strcmp(b, "Dockerfile") || !strncmp(b, "Dockerfile.", 11) || ends_with(b, ".dockerfile") ||
        !strcmp(b, "Containerfile"))
        return FK_DOCKER;
    return FK_NONE;
}

static bool wants(const char *path, const char *head, size_t head_len)
{
    (void)head;
    (void)head_len;
    return kind_of(path) != FK_NONE;
}

/* Every declaration the front end records contains one of these (sound: false only when none). */
static const char *const needles[] = {
    "dtype", "vllm", "sglang", "trtllm", "max_model_len", "max-model-len", "maxModelLen", "max_loras",
    "max-loras", "maxLoras", "context-length", "context_length", "num_adapters", "max_position_embeddings",
    "vocab_size", "num_experts", "n_routed_experts", "max_seq_len", "max-seq-len", "kv_cache", "kv-cache",
    "calculate", NULL,
};

static bool prefilter(const char *data, size_t len)
{
    (void)len;
    for (size_t i = 0; needles[i]; i++)
        if (strstr(data, needles[i]))
            return true;
    return false;
}

static int by_position(const void *a, const void *b)
{
    const dtype_decl *x = a, *y = b;
    if (x->loc.line != y->loc.line)
        return x->loc.line < y->loc.line ? -1 : 1;
    if (x->loc.col != y->loc.col)
        return x->loc.col < y->loc.col ? -1 : 1;
    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    return (int)x->key - (int)y->key;
}

static void analyze(const char *path, const char *data, size_t len, const fe_context *ctx, file_facts *out)
{
    (void)ctx;
    ysrc src;
    cfg_ctx c = { .path = out->path ? out->path : path, .out = out, .a = out->arena, .src = &src, .config_group = -1 };
    switch (kind_of(path)) {
    case FK_YAML:
        cfg_analyze_yaml(&c, data, len); /* sets c.src to the stream's own table */
        break;
    case FK_SHELL:
        ysrc_init(&src, data, len, out->arena);
        cfg_analyze_shell(&c, src.data, len);
        break;
    case FK_DOCKER:
        ysrc_init(&src, data, len, out->arena);
        cfg_analyze_dockerfile(&c, src.data, len);
        break;
    case FK_NONE:
        return;
    }
    cfg_suppressions(&c, c.src->data, len);
    if (out->decls.n > 1)
        qsort(out->decls.v, out->decls.n, sizeof *out->decls.v, by_position);
}

const frontend config_frontend = {
    .name = "config",
    .wants = wants,
    .prefilter = prefilter,
    .analyze = analyze,
};
