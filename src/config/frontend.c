/*
 * frontend.c: `config_frontend`, the front end for deployment configs.
 *
 * Claims YAML (.yaml, .yml), JSON, shell scripts (.sh, .bash), Dockerfiles, env files (.env, *.env,
 * .env.*) and systemd units (*.service), never the project's own .kvlint.yaml; prefilters on words
 * every declaration needs, and dispatches by file kind to cfg_yaml.c (YAML/JSON through libyaml),
 * cfg_text.c (shell, Dockerfile) or cfg_env.c (env files, units). It keeps no state between files.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/cfg.h"
#include "frontend/frontend.h"
#include "util/strlist.h"

static const char *base_of(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

typedef enum file_kind { FK_NONE, FK_YAML, FK_SHELL, FK_DOCKER, FK_ENV, FK_UNIT } file_kind;

static file_kind kind_of(const char *path)
{
    const char *b = base_of(path);
    if (!strcmp(b, ".kvlint.yaml") || !strcmp(b, ".kvlint.yml") || !strcmp(b, ".kvlint-baseline.json"))
        return FK_NONE;
    if (str_ends_with(b, ".yaml") || str_ends_with(b, ".yml") || str_ends_with(b, ".json"))
        return FK_YAML;
    if (str_ends_with(b, ".sh") || str_ends_with(b, ".bash"))
        return FK_SHELL;
    if (!strcmp(b, ".env") || !strncmp(b, ".env.", 5) || str_ends_with(b, ".env"))
        return FK_ENV;
    if (str_ends_with(b, ".service"))
        return FK_UNIT;
    if (!strcmp(b, "Dockerfile") || !strncmp(b, "Dockerfile.", 11) || str_ends_with(b, ".dockerfile") ||
        !strcmp(b, "Containerfile"))
        return FK_DOCKER;
    return FK_NONE;
}

static void version(char *buf, size_t n)
{
    snprintf(buf, n, "libyaml %s", yaml_get_version_string());
}

static const char *claim(const char *path, const char *head, size_t head_len)
{
    (void)head;
    (void)head_len;
    return kind_of(path) != FK_NONE ? "config" : NULL;
}

/* Every declaration the front end records contains one of these (sound: false only when none). */
static const char *const needles[] = {
    "dtype", "vllm", "sglang", "trtllm", "max_model_len", "max-model-len", "maxModelLen", "max_loras",
    "max-loras", "maxLoras", "context-length", "context_length", "num_adapters", "max_position_embeddings",
    "vocab_size", "num_experts", "n_routed_experts", "max_seq_len", "max-seq-len", "kv_cache", "kv-cache",
    "calculate", NULL,
};

static bool prefilter(const fe_source *src)
{
    const char *data = src->data;
    for (size_t i = 0; needles[i]; i++)
        if (strstr(data, needles[i]))
            return true;
    return false;
}

static int by_position(const void *a, const void *b)
{
    const deploy_decl *x = a, *y = b;
    if (x->loc.line != y->loc.line)
        return x->loc.line < y->loc.line ? -1 : 1;
    if (x->loc.col != y->loc.col)
        return x->loc.col < y->loc.col ? -1 : 1;
    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    return (int)x->key - (int)y->key;
}

/* index(): the files this one's commands name with `--config FILE` / `--extra_llm_api_options FILE`
 * (a lexical look, so that a config file holding only `model` and `dtype`, no server-only option, is
 * still read as the engine config it is). NULL-terminated list of names, or NULL. */
static const void *index_config_names(const fe_source *src, const void *state, kv_arena *a)
{
    (void)state;
    const char *data = src->data;
    static const char *const opts[] = { "--config", "--extra_llm_api_options", "--extra-llm-api-options", NULL };
    ARENA_VEC(const char *) names = {0};
    for (size_t k = 0; opts[k]; k++) {
        size_t olen = strlen(opts[k]);
        for (const char *p = strstr(data, opts[k]); p; p = strstr(p + olen, opts[k])) {
            const char *q = p + olen;
            if (*q && !strchr(" \t\r\n=\"',", *q))
                continue; /* --config-format, --configure */
            q += strspn(q, " \t\r\n=\"',-"); /* also a YAML list's next `- FILE` item */
            size_t n = strcspn(q, " \t\r\n\"',]\\;&|)");
            if (n == 0 || n > 512)
                continue;
            ARENA_PUSH(a, names, arena_strndup(a, q, n));
        }
    }
    if (names.n == 0)
        return NULL;
    ARENA_PUSH(a, names, NULL);
    return names.v;
}

static const char *strip_dot_slash(const char *s)
{
    while (s[0] == '.' && s[1] == '/')
        s += 2;
    return s;
}

/* Is path named by a --config option somewhere in the scanned tree? (By path suffix; resolution
 * later matches the command's FILE exactly.) */
static bool named_by_a_command(const char *path, const fe_context *ctx)
{
    const char *p = strip_dot_slash(path);
    size_t plen = strlen(p);
    for (size_t i = 0; ctx && i < ctx->nindexes; i++) {
        const char *const *names = ctx->indexes[i].exports;
        for (size_t k = 0; names && names[k]; k++) {
            const char *n = names[k][0] == '/' ? names[k] : strip_dot_slash(names[k]);
            size_t nlen = strlen(n);
            if (nlen <= plen && !strcmp(p + plen - nlen, n) && (nlen == plen || p[plen - nlen - 1] == '/'))
                return true;
        }
    }
    return false;
}

static void analyze(const fe_source *s, const fe_context *ctx, file_facts *out)
{
    const char *path = s->path, *data = s->data;
    size_t len = s->len;
    ysrc src;
    /* Parse structures (YAML nodes, shell words, the line table) live in a scratch arena freed
     * when the file is done; what the facts keep (spellings, paths) is copied into out->arena. */
    kv_arena *scratch = arena_new();
    cfg_ctx c = { .path = out->path ? out->path : path, .out = out, .a = scratch, .src = &src, .config_group = -1 };
    c.named_config = kind_of(path) == FK_YAML && named_by_a_command(c.path, ctx);
    switch (kind_of(path)) {
    case FK_YAML:
        cfg_analyze_yaml(&c, data, len); /* sets c.src to the stream's own table */
        break;
    case FK_SHELL:
        ysrc_init(&src, data, len, scratch);
        cfg_analyze_shell(&c, src.data, len);
        break;
    case FK_DOCKER:
        ysrc_init(&src, data, len, scratch);
        cfg_analyze_dockerfile(&c, src.data, len);
        break;
    case FK_ENV:
    case FK_UNIT:
        ysrc_init(&src, data, len, scratch);
        (kind_of(path) == FK_ENV ? cfg_analyze_env : cfg_analyze_unit)(&c, src.data, len);
        break;
    case FK_NONE:
        arena_free(scratch);
        return;
    }
    cfg_suppressions(&c, c.src->data, len);
    arena_free(scratch);
    cfg_drop_twin_groups(out);
    if (out->decls.n > 1)
        qsort(out->decls.v, out->decls.n, sizeof *out->decls.v, by_position);
}

const frontend config_frontend = {
    .name = "config",
    .version = version,
    .claim = claim,
    .prefilter = prefilter,
    .index = index_config_names,
    .analyze = analyze,
};
