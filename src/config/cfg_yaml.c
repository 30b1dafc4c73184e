/*
 * cfg_yaml.c: dtype declarations in YAML and JSON documents.
 *
 * Each document is first classified by its own keys (precision before recall: a `dtype:` key
 * only counts where an engine reads it):
 *   - HF checkpoint config.json (model_type / architectures): torch_dtype, quantization_config
 *     (kv_cache_scheme, kv_cache_quant_algo), id ranges;
 *   - ModelOpt hf_quant_config.json (producer + quantization.kv_cache_quant_algo);
 *   - TensorRT-LLM checkpoint config (architecture + dtype) and LLM API options (kv_cache_config);
 *   - a `vllm serve --config` / SGLang config file, recognised by options only a server has;
 * anything else is walked generically: Kubernetes / compose containers (command, args, env),
 * Helm `vllmConfig` (and the production-stack operator's VLLMRuntime), Ray Serve LLM configs
 * (`model_loading_config` + `engine_kwargs`), and any string that holds a serving command line (CI `run:` blocks,
 * `bash -c` scripts). See docs/deployments.md for the heuristics and their reasons.
 * Compose files have their `${VAR}` filled in from the project's `.env` first (compose_vars.c).
 * YAML merge keys arrive merged (util/ytree.c); compose extension fields (`x-...`) are skipped, and
 * deployments that come out twins of a merge are one (cfg_groups.c). It does not evaluate Helm
 * templates.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "config/cfg.h"
#include "util/shellwords.h"
#include "util/strbuf.h"
#include "util/strlist.h"

enum { WALK_MAX_DEPTH = 256 };

typedef struct yw {
    cfg_ctx *c;
    const ystream *st;
    ywalk walk;
    kv_carrier carrier;    /* of the current document: CARRIER_K8S_ARGS, _COMPOSE, _CI, _HELM_VALUES, _YAML */
    bool *walked;          /* by ynode.anchor: an anchored node is read once, however many aliases */
    const char *node_platform; /* the pod's nodeSelector names a platform ("cuda-sm75"), or NULL */
    size_t node_off;       /* where it does */
} yw;

static const ynode *deref(yw *y, const ynode *n)
{
    return ywalk_deref(&y->walk, n);
}

static const ynode *get(yw *y, const ynode *map, const char *key)
{
    return ymap_get(&y->walk, map, key);
}

static bool is_null(const ynode *n)
{
    if (!n || n->kind != YN_SCALAR)
        return true;
    if (n->style != YAML_PLAIN_SCALAR_STYLE)
        return false;
    return n->len == 0 || !strcmp(n->val, "null") || !strcmp(n->val, "~") || !strcmp(n->val, "Null") ||
           !strcmp(n->val, "NULL");
}

static bool has_var(const char *s)
{
    return strchr(s, '$') || strstr(s, "{{") || strstr(s, "{%");
}

/* Where a block scalar's text begins: the line after its `|` / `>` header. */
static size_t block_body(const ysrc *s, size_t off)
{
    while (off < s->len && s->data[off] != '\n')
        off++;
    return off < s->len ? off + 1 : off;
}

/* The scalar as one argument, placed at its text. */
static cfg_word yword(yw *y, const ynode *n)
{
    const ysrc *s = &y->st->src;
    ypos p = ytree_pos(s, n->start);
    cfg_word w = { n->val, p.off, false, has_var(n->val) };
    switch (n->style) {
    case YAML_SINGLE_QUOTED_SCALAR_STYLE:
    case YAML_DOUBLE_QUOTED_SCALAR_STYLE:
        w.off++;
        break;
    case YAML_LITERAL_SCALAR_STYLE:
    case YAML_FOLDED_SCALAR_STYLE:
        w.off = block_body(s, p.off);
        while (w.off < s->len && (s->data[w.off] == ' ' || s->data[w.off] == '\t'))
            w.off++;
        return w;
    default:
        break;
    }
    w.exact = w.off + n->len <= s->len && memcmp(s->data + w.off, n->val, n->len) == 0;
    return w;
}

/* Split a string node as shell text: where it is written when that is faithful, else detached. */
static int shell_node(yw *y, const ynode *n, kv_carrier carrier, kv_engine hint, int bare_group, int extra)
{
    const ysrc *s = &y->st->src;
    size_t from = ytree_pos(s, n->start).off, to = ytree_pos(s, n->end).off;
    int flags = extra;
    switch (n->style) {
    case YAML_LITERAL_SCALAR_STYLE:
        from = block_body(s, from);
        break;
    case YAML_FOLDED_SCALAR_STYLE:
        from = block_body(s, from);
        flags |= SH_NEWLINE_IS_SPACE;
        break;
    case YAML_SINGLE_QUOTED_SCALAR_STYLE:
    case YAML_DOUBLE_QUOTED_SCALAR_STYLE:
        from++;
        if (to > from)
            to--;
        flags |= SH_NEWLINE_IS_SPACE;
        if (to < from || to > s->len ||
            memchr(s->data + from, n->style == YAML_DOUBLE_QUOTED_SCALAR_STYLE ? '\\' : '\'', to - from))
            return cfg_shell_text(y->c, n->val, n->len, from, flags | SH_DETACHED, carrier, hint, bare_group);
        break;
    default:
        flags |= SH_NEWLINE_IS_SPACE;
        break;
    }
    if (to < from || to > s->len || n->rewritten)
        return cfg_shell_text(y->c, n->val, n->len, from, flags | SH_DETACHED, carrier, hint, bare_group);
    return cfg_shell_text(y->c, s->data + from, to - from, from, flags, carrier, hint, bare_group);
}

static bool mentions_server(const char *s)
{
    return strstr(s, "vllm") || strstr(s, "sglang") || strstr(s, "trtllm-serve");
}

/* ---- checkpoint and engine config files ---- */

static void emit_scalar_dtype(yw *y, decl_key key, const ynode *v, kv_engine engine, kv_carrier carrier,
                              int group)
{
    if (is_null(v))
        return;
    cfg_word w = yword(y, v);
    cfg_emit_dtype(y->c, key, &w, engine, carrier, group);
}

static void emit_range(yw *y, const char *name, const ynode *v, kv_engine engine, kv_carrier carrier, int group)
{
    double x;
    if (is_null(v))
        return;
    cfg_word w = yword(y, v);
    if (w.var || !cfg_range_number(y->c, &w, name, &x))
        return;
    cfg_emit_number(y->c, DECL_ID_RANGE, name, x, &w, engine, carrier, group);
}

/* compressed-tensors kv_cache_scheme {type: float, num_bits: 8} -> fp8 (E4M3), int 8 -> int8. */
static void kv_cache_scheme(yw *y, const ynode *scheme, int group)
{
    if (!scheme || scheme->kind != YN_MAP)
        return;
    const char *type = yscalar(get(y, scheme, "type"));
    const char *bits = yscalar(get(y, scheme, "num_bits"));
    const char *name = NULL;
    if (type && bits && !strcmp(bits, "8"))
        name = !strcmp(type, "float") ? "fp8_e4m3" : !strcmp(type, "int") ? "int8" : NULL;
    ypos p = ytree_pos(&y->st->src, scheme->start);
    cfg_word w = { name ? name : "unknown", p.off, false, false };
    deploy_decl *d = cfg_emit_dtype(y->c, DECL_KV_SCHEME, &w, ENGINE_HF, CARRIER_HF_CONFIG, group);
    d->raw = arena_printf(y->c->out->arena, "{type: %s, num_bits: %s}", type ? type : "?", bits ? bits : "?");
    if (!name)
        d->dtype = KVN_DTYPE_INVALID;
}

static const char *const checkpoint_ranges[] = {
    "num_adapters", "max_position_embeddings", "vocab_size", "num_experts", "num_local_experts",
    "n_routed_experts", NULL,
};

/* Every other numeric field of a checkpoint config (`attention_multiplier: 0.0078125`), top level and
 * text_config's where the top level has none: the values code reads as `config.x` (pyconfig.c). */
static void checkpoint_fields(yw *y, const ynode *m, const ynode *top, int group)
{
    for (size_t i = 0; m && m->kind == YN_MAP && i + 1 < m->nkids; i += 2) {
        const char *k = yscalar(deref(y, m->kids[i]));
        const ynode *v = deref(y, m->kids[i + 1]);
        if (!k || !v || v->kind != YN_SCALAR || v->style != YAML_PLAIN_SCALAR_STYLE || is_null(v) ||
            str_in_list(checkpoint_ranges, k) || (top && get(y, top, k)))
            continue;
        char *end;
        double x = strtod(v->val, &end);
        if (end == v->val || *end || !isfinite(x))
            continue; /* true, false, a string */
        cfg_word w = yword(y, v);
        cfg_emit_number(y->c, DECL_CKPT_FIELD, k, x, &w, ENGINE_HF, CARRIER_HF_CONFIG, group);
    }
}

static void hf_config(yw *y, const ynode *root)
{
    int group = y->c->next_group++;
    const ynode *text = get(y, root, "text_config");
    const ynode *dt = get(y, root, "torch_dtype");
    if (is_null(dt))
        dt = get(y, root, "dtype");
    if (is_null(dt) && text)
        dt = get(y, text, "torch_dtype");
    if (is_null(dt) && text)
        dt = get(y, text, "dtype");
    emit_scalar_dtype(y, DECL_MODEL_DTYPE, dt, ENGINE_HF, CARRIER_HF_CONFIG, group);
    const ynode *q = get(y, root, "quantization_config");
    if (q && q->kind == YN_MAP) {
        kv_cache_scheme(y, get(y, q, "kv_cache_scheme"), group);
        emit_scalar_dtype(y, DECL_KV_SCHEME, get(y, q, "kv_cache_quant_algo"), ENGINE_MODELOPT, CARRIER_HF_CONFIG, group);
    }
    for (size_t i = 0; checkpoint_ranges[i]; i++) {
        const ynode *v = get(y, root, checkpoint_ranges[i]);
        if (is_null(v) && text)
            v = get(y, text, checkpoint_ranges[i]);
        emit_range(y, checkpoint_ranges[i], v, ENGINE_HF, CARRIER_HF_CONFIG, group);
    }
    checkpoint_fields(y, root, NULL, group);
    if (text && text->kind == YN_MAP)
        checkpoint_fields(y, text, root, group);
}

static void modelopt_config(yw *y, const ynode *root)
{
    int group = y->c->next_group++;
    const ynode *q = get(y, root, "quantization");
    emit_scalar_dtype(y, DECL_KV_SCHEME, get(y, q, "kv_cache_quant_algo"), ENGINE_MODELOPT, CARRIER_MODELOPT, group);
}

static void trtllm_checkpoint(yw *y, const ynode *root, const ynode *build)
{
    int group = y->c->next_group++;
    if (build && build->kind == YN_MAP)
        emit_range(y, "max_seq_len", get(y, build, "max_seq_len"), ENGINE_TRTLLM, CARRIER_TRTLLM_CHECKPOINT, group);
    emit_scalar_dtype(y, DECL_MODEL_DTYPE, get(y, root, "dtype"), ENGINE_TRTLLM, CARRIER_TRTLLM_CHECKPOINT, group);
    const ynode *q = get(y, root, "quantization");
    emit_scalar_dtype(y, DECL_KV_SCHEME, get(y, q, "kv_cache_quant_algo"), ENGINE_TRTLLM, CARRIER_TRTLLM_CHECKPOINT, group);
    emit_range(y, "max_position_embeddings", get(y, root, "max_position_embeddings"), ENGINE_TRTLLM,
               CARRIER_TRTLLM_CHECKPOINT, group);
    emit_range(y, "vocab_size", get(y, root, "vocab_size"), ENGINE_TRTLLM, CARRIER_TRTLLM_CHECKPOINT, group);
}

static void trtllm_options(yw *y, const ynode *root)
{
    int group = y->c->next_group++;
    emit_scalar_dtype(y, DECL_MODEL_DTYPE, get(y, root, "dtype"), ENGINE_TRTLLM, CARRIER_TRTLLM_OPTIONS, group);
    emit_scalar_dtype(y, DECL_KV_CACHE_DTYPE, get(y, get(y, root, "kv_cache_config"), "dtype"), ENGINE_TRTLLM,
                      CARRIER_TRTLLM_OPTIONS, group);
    emit_range(y, "max_seq_len", get(y, root, "max_seq_len"), ENGINE_TRTLLM, CARRIER_TRTLLM_OPTIONS, group);
    cfg_finish_group(y->c, group, ENGINE_TRTLLM, CARRIER_TRTLLM_OPTIONS, ytree_pos(&y->st->src, root->start).off);
}

static void normalise_key(const char *k, char *buf, size_t cap)
{
    size_t n = strlen(k);
    if (n >= cap)
        n = cap - 1;
    for (size_t i = 0; i < n; i++)
        buf[i] = k[i] == '_' ? '-' : k[i];
    buf[n] = '\0';
}

/* Options that only a serving engine's config file has (a training recipe has none of them). */
static const char *const server_only[] = {
    "kv-cache-dtype", "max-model-len", "tensor-parallel-size", "gpu-memory-utilization", "max-num-seqs",
    "max-num-batched-tokens", "served-model-name", "enable-prefix-caching", "enforce-eager", "max-loras",
    "enable-lora", "calculate-kv-scales", "kv-cache-dtype-skip-layers", "pipeline-parallel-size",
    "context-length", "mem-fraction-static", "tp-size", "swap-space", "block-size", NULL,
};
static const char *const sglang_only[] = { "context-length", "mem-fraction-static", "tp-size", NULL };

/* Keys no engine accepts in its config file (vLLM rejects unknown options), but training and
 * evaluation recipes have: TRL/open-r1 (`model_name_or_path`, `torch_dtype`, `use_vllm`, `vllm_*`),
 * axolotl (`base_model`, `datasets`), HF Trainer arguments. */
static const char *const recipe_only[] = {
    "torch-dtype", "model-name-or-path", "use-vllm", "base-model", "datasets", "dataset-name",
    "learning-rate", "output-dir", "num-train-epochs", "per-device-train-batch-size",
    "gradient-accumulation-steps", "micro-batch-size", "max-steps", NULL,
};

/* ENGINE_VLLM, ENGINE_SGLANG or ENGINE_NONE: is this mapping a `--config` file of a serving engine?
 * A file named by a command's --config is one when one of its keys is an engine option (a file of
 * only `model` and `dtype` is one); a `--config` of another program (a CI script's
 * `select_tests.py --config test_config.yaml`) names a file with none. */
static kv_engine server_config_engine(const ynode *root, bool named)
{
    bool server = false, option = false, sglang = false;
    for (size_t i = 0; i + 1 < root->nkids; i += 2) {
        const char *k = yscalar(root->kids[i]);
        if (!k)
            continue;
        if (!strcmp(k, "apiVersion") || !strcmp(k, "services") || !strcmp(k, "jobs") || !strcmp(k, "steps"))
            return ENGINE_NONE;
        char name[64];
        normalise_key(k, name, sizeof name);
        if (str_in_list(recipe_only, name) || !strncmp(name, "vllm-", 5))
            return ENGINE_NONE;
        server = server || str_in_list(server_only, name);
        sglang = sglang || str_in_list(sglang_only, name);
        option = option || cfg_option_find(name, ENGINE_VLLM) || cfg_option_find(name, ENGINE_SGLANG);
    }
    return !(server || (named && option)) ? ENGINE_NONE : sglang ? ENGINE_SGLANG : ENGINE_VLLM;
}

/* Every key of map that names an engine option (`kv_cache_dtype`, `max-model-len`, ...) as a
 * declaration of group: a `--config` file's top level, a Ray Serve LLM config's engine_kwargs. */
static void option_map(yw *y, const ynode *root, kv_engine engine, kv_carrier carrier, int group)
{
    for (size_t i = 0; i + 1 < root->nkids; i += 2) {
        const char *k = yscalar(root->kids[i]);
        const ynode *v = deref(y, root->kids[i + 1]);
        if (!k || !v)
            continue;
        char name[64];
        normalise_key(k, name, sizeof name);
        const cfg_option *opt = cfg_option_find(name, engine);
        if (!opt)
            continue;
        if (v->kind == YN_SEQ && opt->key == DECL_SKIP_LAYERS && v->nkids) {
            const ynode *first = deref(y, v->kids[0]);
            if (!first || first->kind != YN_SCALAR)
                continue;
            cfg_word w = yword(y, first);
            w.exact = false;
            strbuf sb = STRBUF_INIT;
            for (size_t j = 0; j < v->nkids; j++) {
                const char *t = yscalar(deref(y, v->kids[j]));
                sb_addf(&sb, "%s%s", j ? "," : "", t ? t : "?");
            }
            w.text = arena_strdup(y->c->a, sb_str(&sb));
            sb_release(&sb);
            cfg_emit(y->c, opt, &w, engine, carrier, group);
        } else if (v->kind == YN_SCALAR && !is_null(v)) {
            cfg_word w = yword(y, v);
            cfg_emit(y->c, opt, &w, engine, carrier, group);
        }
    }
}

static void server_config(yw *y, const ynode *root, kv_engine engine)
{
    int group = y->c->next_group++;
    option_map(y, root, engine, CARRIER_VLLM_CONFIG, group);
    cfg_finish_group(y->c, group, engine, CARRIER_VLLM_CONFIG, ytree_pos(&y->st->src, root->start).off);
}

/* A Ray Serve LLM config (ray.serve.llm.LLMConfig as YAML: an item of `llm_configs:` in a Serve
 * config's application args, or a file of its own that `llm_configs:` names): `model_loading_config`
 * (required by Ray) says it is one; `engine_kwargs` are the engine's arguments under their Python
 * names (vLLM's engine arguments; SGLang's server arguments when `server_cls` is SGLangServer).
 * One deployment per config. */
static bool is_ray_llm_config(yw *y, const ynode *m)
{
    const ynode *mlc = get(y, m, "model_loading_config");
    return mlc && (mlc->kind == YN_MAP || mlc->kind == YN_SCALAR) &&
           (get(y, m, "engine_kwargs") || get(y, m, "accelerator_type") || get(y, m, "deployment_config") ||
            get(y, m, "llm_engine") || get(y, m, "server_cls") || get(y, m, "lora_config"));
}

static void ray_llm_config(yw *y, const ynode *m)
{
    int group = y->c->next_group++;
    const char *cls = yscalar(get(y, m, "server_cls"));
    kv_engine engine = cls && (strstr(cls, "SGLang") || strstr(cls, "sglang")) ? ENGINE_SGLANG : ENGINE_VLLM;
    const ynode *kw = get(y, m, "engine_kwargs");
    if (kw && kw->kind == YN_MAP)
        option_map(y, kw, engine, CARRIER_RAY_SERVE, group);
    /* accelerator_type is where Ray places the replicas: a T4 or V100 has no bfloat16 */
    const ynode *acc = deref(y, get(y, m, "accelerator_type"));
    const char *p = cfg_ray_accelerator_platform(yscalar(acc));
    if (p)
        cfg_platform(y->c, yword(y, acc).off, engine, CARRIER_RAY_SERVE, group, p);
    cfg_finish_group(y->c, group, engine, CARRIER_RAY_SERVE, ytree_pos(&y->st->src, m->start).off);
}

/* ---- generic documents: containers, Helm values, command strings ---- */

static void walk(yw *y, const ynode *n, int depth);

/* Argument list items as words (non-scalars become empty words that match nothing). */
static size_t seq_words(yw *y, const ynode *seq, cfg_word *out, const ynode **nodes, size_t at)
{
    for (size_t i = 0; i < seq->nkids; i++) {
        const ynode *it = deref(y, seq->kids[i]);
        nodes[at] = it;
        out[at++] = it && it->kind == YN_SCALAR ? yword(y, it) : (cfg_word){ "", 0, false, false };
    }
    return at;
}

static kv_engine image_engine(const char *image)
{
    if (!image)
        return ENGINE_NONE;
    if (strstr(image, "vllm"))
        return ENGINE_VLLM;
    if (strstr(image, "sglang"))
        return ENGINE_SGLANG;
    if (strstr(image, "tensorrt") || strstr(image, "trtllm") || strstr(image, "tritonserver"))
        return ENGINE_TRTLLM;
    return ENGINE_NONE;
}

/* Env vars that carry extra server arguments: VLLM_ADDITIONAL_ARGS (KServe), *_EXTRA_ARGS, ... */
static bool args_env(const char *name, const char *value)
{
    return name && value && strstr(name, "ARGS") && strstr(value, "--");
}

static kv_engine env_engine(const char *name, kv_engine hint)
{
    if (!strncmp(name, "VLLM_", 5))
        return ENGINE_VLLM;
    if (!strncmp(name, "SGLANG_", 7) || !strncmp(name, "SGL_", 4))
        return ENGINE_SGLANG;
    return hint != ENGINE_NONE ? hint : ENGINE_VLLM;
}

static int env_var(yw *y, const char *name, const ynode *v, kv_engine hint, int group)
{
    if (!v || v->kind != YN_SCALAR || !args_env(name, v->val))
        return group;
    kv_engine engine = env_engine(name, hint);
    if (group < 0)
        group = y->c->next_group++;
    int comma = !strchr(v->val, ' ') && strchr(v->val, ',') ? SH_COMMA_IS_SPACE : 0;
    shell_node(y, v, CARRIER_ENV, engine, group, comma);
    cfg_finish_group(y->c, group, engine, CARRIER_ENV, yword(y, v).off);
    return group;
}

/* compose `environment: ["VLLM_ADDITIONAL_ARGS=--dtype half"]`: the text after '=' */
static int env_item(yw *y, const ynode *item, kv_engine hint, int group)
{
    const char *eq = strchr(item->val, '=');
    if (!eq)
        return group;
    char *name = arena_strndup(y->c->a, item->val, (size_t)(eq - item->val));
    if (!args_env(name, eq + 1))
        return group;
    kv_engine engine = env_engine(name, hint);
    if (group < 0)
        group = y->c->next_group++;
    cfg_word w = yword(y, item);
    size_t k = (size_t)(eq + 1 - item->val);
    int comma = !strchr(eq + 1, ' ') && strchr(eq + 1, ',') ? SH_COMMA_IS_SPACE : 0;
    if (w.exact)
        cfg_shell_text(y->c, y->st->src.data + w.off + k, item->len - k, w.off + k, comma, CARRIER_ENV, engine, group);
    else
        cfg_shell_text(y->c, eq + 1, item->len - k, w.off, comma | SH_DETACHED, CARRIER_ENV, engine, group);
    cfg_finish_group(y->c, group, engine, CARRIER_ENV, w.off);
    return group;
}

static int container_env(yw *y, const ynode *env, kv_engine hint, int group)
{
    if (!env)
        return group;
    if (env->kind == YN_MAP) { /* compose: environment: {KEY: value} */
        for (size_t i = 0; i + 1 < env->nkids; i += 2)
            group = env_var(y, yscalar(env->kids[i]), deref(y, env->kids[i + 1]), hint, group);
    } else if (env->kind == YN_SEQ) {
        for (size_t i = 0; i < env->nkids; i++) {
            const ynode *e = deref(y, env->kids[i]);
            if (e && e->kind == YN_MAP)
                group = env_var(y, yscalar(get(y, e, "name")), get(y, e, "value"), hint, group);
            else if (e && e->kind == YN_SCALAR)
                group = env_item(y, e, hint, group);
        }
    }
    return group;
}

/* compose `env_file: app.env` (a path, a list of paths, or of {path: ...}): the files' assignments
 * are the container's environment, read as `environment:` entries are (detached: at the path). */
static int env_files(yw *y, const ynode *ef, kv_engine hint, int group)
{
    ef = deref(y, ef);
    size_t n = ef && ef->kind == YN_SEQ ? ef->nkids : ef ? 1 : 0;
    for (size_t i = 0; i < n; i++) {
        const ynode *it = ef->kind == YN_SEQ ? deref(y, ef->kids[i]) : ef;
        if (it && it->kind == YN_MAP)
            it = deref(y, get(y, it, "path"));
        const char *rel = yscalar(it);
        const char **names, **values;
        size_t nv = rel && *rel ? cfg_compose_env_file(y->c, rel, &names, &values) : 0;
        for (size_t k = 0; k < nv; k++) {
            if (!args_env(names[k], values[k]))
                continue;
            kv_engine engine = env_engine(names[k], hint);
            if (group < 0)
                group = y->c->next_group++;
            int comma = !strchr(values[k], ' ') && strchr(values[k], ',') ? SH_COMMA_IS_SPACE : 0;
            size_t off = yword(y, it).off;
            cfg_shell_text(y->c, values[k], strlen(values[k]), off, comma | SH_DETACHED, CARRIER_ENV_FILE, engine, group);
            cfg_finish_group(y->c, group, engine, CARRIER_ENV_FILE, off);
        }
    }
    return group;
}

static bool is_container(yw *y, const ynode *m)
{
    bool where = get(y, m, "image") || get(y, m, "build") || get(y, m, "modelFormat") || get(y, m, "modelCommand");
    bool what = get(y, m, "command") || get(y, m, "args") || get(y, m, "entrypoint") || get(y, m, "env") ||
                get(y, m, "environment") || get(y, m, "env_file");
    return where && what;
}

/* A ROCm build of the server (rocm/vllm, vllm/vllm-openai-rocm, lmsysorg/sglang:...-rocm...): the
 * container's deployment runs on ROCm, where fp8 means e4m3fnuz; a CPU build (vllm-cpu) on vLLM's
 * CPU backend. Else the pod's nodeSelector may name a GPU below sm80 (a T4 node). */
static void platform_from_image(yw *y, const ynode *image, kv_engine engine, int group)
{
    if (group < 0)
        return;
    const char *p = image && image->kind == YN_SCALAR ? cfg_image_platform(image->val, strlen(image->val)) : NULL;
    if (p)
        cfg_platform(y->c, yword(y, image).off, engine, y->carrier, group, p);
    else if (y->node_platform)
        cfg_platform(y->c, y->node_off, engine, y->carrier, group, y->node_platform);
}

/* A pod spec's nodeSelector: the platform its labels name (cfg_node_platform), or NULL. */
static const char *selector_platform(yw *y, const ynode *sel, size_t *off)
{
    sel = deref(y, sel);
    for (size_t i = 0; sel && sel->kind == YN_MAP && i + 1 < sel->nkids; i += 2) {
        const ynode *v = deref(y, sel->kids[i + 1]);
        const char *p = cfg_node_platform(yscalar(deref(y, sel->kids[i])), yscalar(v));
        if (p) {
            *off = yword(y, v).off;
            return p;
        }
    }
    return NULL;
}

/* compose `entrypoint: python3 -m sglang.launch_server` (a string) with `command:` (a string or a
 * list) appended, or a list entrypoint with a string command: one argv, as Docker runs it. Returns
 * the group, or -1 when the entrypoint starts no server (then the parts are read one by one). */
static int entrypoint_and_command(yw *y, const ynode *entry, const ynode *cmd, kv_engine hint)
{
    kv_carrier carrier = y->carrier;
    kv_engine engine = hint;
    int group = -1;
    size_t where = 0;
    if (entry->kind == YN_SCALAR) {
        y->c->defer_finish = true;
        y->c->open_engine = ENGINE_NONE;
        group = shell_node(y, entry, carrier, hint, -1, 0);
        y->c->defer_finish = false;
        if (group < 0 || y->c->open_engine == ENGINE_NONE)
            return -1;
        engine = y->c->open_engine;
        where = y->c->open_where;
    } else if (entry->kind == YN_SEQ) {
        cfg_word *w = arena_alloc(y->c->a, (entry->nkids + 1) * sizeof *w);
        const ynode **nodes = arena_alloc(y->c->a, (entry->nkids + 1) * sizeof *nodes);
        size_t n = seq_words(y, entry, w, nodes, 0);
        long start = cfg_serving_start(w, n, &engine);
        if (start < 0)
            return -1;
        group = y->c->next_group++;
        cfg_argv_decls(y->c, w + start, n - (size_t)start, engine, carrier, group);
        where = w[start > 0 ? start - 1 : 0].off;
    } else {
        return -1;
    }
    if (cmd->kind == YN_SCALAR) {
        shell_node(y, cmd, carrier, engine, group, 0);
    } else if (cmd->kind == YN_SEQ) {
        cfg_word *w = arena_alloc(y->c->a, (cmd->nkids + 1) * sizeof *w);
        const ynode **nodes = arena_alloc(y->c->a, (cmd->nkids + 1) * sizeof *nodes);
        size_t n = seq_words(y, cmd, w, nodes, 0);
        cfg_argv_decls(y->c, w, n, engine, carrier, group);
    }
    cfg_finish_group(y->c, group, engine, carrier, where);
    return group;
}

static void container(yw *y, const ynode *m)
{
    kv_engine hint = image_engine(yscalar(get(y, m, "image")));
    const char *fmt = yscalar(get(y, get(y, m, "modelFormat"), "name"));
    if (hint == ENGINE_NONE && fmt && !strcmp(fmt, "huggingface"))
        hint = ENGINE_VLLM; /* KServe's Hugging Face runtime hands unknown args to vLLM's parser */
    const char *model_command = yscalar(get(y, m, "modelCommand"));
    if (model_command && !strcmp(model_command, "vllmServe"))
        hint = ENGINE_VLLM; /* llm-d ModelService chart: `vllm serve MODEL` + args, whatever the image */
    kv_carrier carrier = y->carrier;
    /* Kubernetes: command replaces the image entrypoint, args its CMD; compose: entrypoint, command. */
    bool compose = carrier == CARRIER_COMPOSE;
    const ynode *parts[2] = { get(y, m, compose ? "entrypoint" : "command"), get(y, m, compose ? "command" : "args") };
    bool bare_args = hint != ENGINE_NONE && !parts[0]; /* the image's own entrypoint is the server */
    int group = -1;
    size_t cap = 0;
    bool mixed = parts[0] && parts[1] && (parts[0]->kind == YN_SCALAR || parts[1]->kind == YN_SCALAR);
    if (mixed && !(parts[0]->kind == YN_SCALAR && is_null(parts[0])) &&
        !(parts[1]->kind == YN_SCALAR && is_null(parts[1])))
        group = entrypoint_and_command(y, parts[0], parts[1], hint);
    for (int i = 0; i < 2 && group < 0; i++) {
        if (parts[i] && parts[i]->kind == YN_SEQ) {
            cap += parts[i]->nkids;
        } else if (parts[i] && parts[i]->kind == YN_SCALAR && !is_null(parts[i])) {
            int bare = i == 1 && bare_args ? y->c->next_group++ : -1;
            int g = shell_node(y, parts[i], carrier, hint, bare, 0);
            /* `command: python3 -m sglang.launch_server ...` names the server itself: its own group */
            if (bare >= 0 && g == bare)
                cfg_finish_group(y->c, bare, hint, carrier, yword(y, parts[i]).off);
            if (g >= 0 && group < 0)
                group = g;
        }
    }
    cfg_word *w = arena_alloc(y->c->a, (cap + 1) * sizeof *w);
    const ynode **nodes = arena_alloc(y->c->a, (cap + 1) * sizeof *nodes);
    size_t n = 0;
    for (int i = 0; i < 2 && group < 0; i++)
        if (parts[i] && parts[i]->kind == YN_SEQ)
            n = seq_words(y, parts[i], w, nodes, n);
    if (n) {
        const char **texts = arena_alloc(y->c->a, (n + 1) * sizeof *texts);
        for (size_t i = 0; i < n; i++)
            texts[i] = w[i].text;
        long script = sh_script_index(texts, n);
        kv_engine engine = hint;
        long start = -1;
        if (script >= 0 && nodes[script] && nodes[script]->kind == YN_SCALAR) {
            int g = shell_node(y, nodes[script], carrier, hint, -1, 0);
            if (g >= 0 && group < 0)
                group = g;
        } else {
            start = cfg_serving_start(w, n, &engine);
            if (start < 0 && bare_args)
                start = 0;
        }
        if (start >= 0) {
            int g = y->c->next_group++;
            cfg_argv_decls(y->c, w + start, n - (size_t)start, engine, carrier, g);
            cfg_finish_group(y->c, g, engine, carrier, w[start > 0 ? start - 1 : 0].off);
            if (group < 0)
                group = g;
        }
    }
    const ynode *env = get(y, m, "env");
    if (compose) /* environment: overrides env_file: (read last, its words come after) */
        group = env_files(y, get(y, m, "env_file"), hint, group);
    group = container_env(y, env ? env : get(y, m, "environment"), hint, group);
    platform_from_image(y, get(y, m, "image"), hint, group);
}

static void helm_keys(yw *y, const ynode *m, int group)
{
    static const struct { const char *key; const char *option; } keys[] = {
        { "dtype", "dtype" }, { "maxModelLen", "max-model-len" }, { "maxLoras", "max-loras" },
    };
    for (size_t i = 0; m && m->kind == YN_MAP && i < sizeof keys / sizeof *keys; i++) {
        const ynode *v = get(y, m, keys[i].key);
        if (v && v->kind == YN_SCALAR && !is_null(v)) {
            cfg_word w = yword(y, v);
            cfg_emit(y->c, cfg_option_find(keys[i].option, ENGINE_VLLM), &w, ENGINE_VLLM, CARRIER_HELM_VALUES, group);
        }
    }
}

/* A JSON schema or CRD validation of such a mapping (`properties:`, `type: object`) declares nothing. */
static bool is_schema(yw *y, const ynode *m)
{
    const ynode *p = get(y, m, "properties");
    const char *t = yscalar(get(y, m, "type"));
    return (p && p->kind == YN_MAP) || (t && !strcmp(t, "object"));
}

/* production-stack Helm values (servingEngineSpec.modelSpec[].vllmConfig: dtype, maxModelLen, maxLoras,
 * extraArgs) and its operator's VLLMRuntime resource (spec.vllmConfig: maxLoras, extraArgs; the
 * sibling spec.model: dtype, maxModelLen, as the operator's controller turns them into flags). */
static void helm_vllm_config(yw *y, const ynode *cfgmap, const ynode *parent)
{
    int group = y->c->next_group++;
    helm_keys(y, cfgmap, group);
    const ynode *model = get(y, parent, "model");
    if (model && model->kind == YN_MAP && get(y, model, "modelURL"))
        helm_keys(y, model, group);
    const ynode *extra = get(y, cfgmap, "extraArgs");
    if (extra && extra->kind == YN_SEQ) {
        cfg_word *w = arena_alloc(y->c->a, (extra->nkids + 1) * sizeof *w);
        const ynode **nodes = arena_alloc(y->c->a, (extra->nkids + 1) * sizeof *nodes);
        size_t n = seq_words(y, extra, w, nodes, 0);
        cfg_argv_decls(y->c, w, n, ENGINE_VLLM, CARRIER_HELM_VALUES, group);
    } else if (extra && extra->kind == YN_SCALAR) {
        shell_node(y, extra, CARRIER_HELM_VALUES, ENGINE_VLLM, group, 0);
    }
    cfg_finish_group(y->c, group, ENGINE_VLLM, CARRIER_HELM_VALUES, ytree_pos(&y->st->src, cfgmap->start).off);
}

/* Keys whose values are prose for people (OpenAPI descriptions, GitHub issue forms' `body`, chart
 * annotations): a `vllm serve ...` quoted there is an example, not a deployment. */
static const char *const prose_keys[] = {
    "description", "summary", "help", "placeholder", "label", "title", "message", "comment", "notes",
    "body", "example", "examples", "about", "usage", NULL,
};

static void walk(yw *y, const ynode *n, int depth)
{
    n = deref(y, n);
    if (!n || depth > WALK_MAX_DEPTH)
        return;
    if (n->anchor) {
        /* `services: {a: *svc, b: *svc}` or a "billion laughs": the same text declares once */
        if (y->walked[n->anchor])
            return;
        y->walked[n->anchor] = true;
    }
    switch (n->kind) {
    case YN_SCALAR:
        if (mentions_server(n->val))
            shell_node(y, n, y->carrier, ENGINE_NONE, -1, 0);
        break;
    case YN_SEQ:
        for (size_t i = 0; i < n->nkids; i++)
            walk(y, n->kids[i], depth + 1);
        break;
    case YN_MAP: {
        if (is_container(y, n)) {
            container(y, n);
            break;
        }
        if (is_ray_llm_config(y, n)) {
            ray_llm_config(y, n);
            break;
        }
        const char *outer = y->node_platform;
        size_t outer_off = y->node_off;
        const ynode *sel = get(y, n, "nodeSelector");
        const char *here = sel ? selector_platform(y, sel, &y->node_off) : NULL;
        if (here)
            y->node_platform = here;
        for (size_t i = 0; i + 1 < n->nkids; i += 2) {
            const char *k = yscalar(deref(y, n->kids[i]));
            const ynode *v = deref(y, n->kids[i + 1]);
            if (k && v && v->kind == YN_MAP && !strcmp(k, "vllmConfig") && !is_schema(y, v))
                helm_vllm_config(y, v, n);
            else if (k && v && v->kind == YN_MAP && !strcmp(k, "vllmConfig"))
                continue; /* values.schema.json, a CRD's openAPIV3Schema */
            else if (k && y->carrier == CARRIER_COMPOSE && !strncmp(k, "x-", 2))
                continue; /* an extension field: Compose ignores it (its anchors are merged where used) */
            else if (k && (!strcmp(k, "env") || !strcmp(k, "environment")))
                container_env(y, v, ENGINE_NONE, -1); /* e.g. an LLMInferenceService container without image */
            else if (!k || !str_in_list(prose_keys, k))
                walk(y, v, depth + 1);
        }
        y->node_platform = outer;
        y->node_off = outer_off;
        break;
    }
    case YN_ALIAS:
        break;
    }
}

static kv_carrier doc_carrier(yw *y, const ynode *root)
{
    if (root->kind != YN_MAP)
        return CARRIER_YAML;
    if (get(y, root, "apiVersion") && get(y, root, "kind"))
        return CARRIER_K8S_ARGS;
    if (get(y, root, "services"))
        return CARRIER_COMPOSE;
    if (get(y, root, "jobs") || get(y, root, "steps") || get(y, root, "stages"))
        return CARRIER_CI;
    if (get(y, root, "servingEngineSpec"))
        return CARRIER_HELM_VALUES;
    return CARRIER_YAML;
}

static void analyze_doc(yw *y, const ynode *root)
{
    root = deref(y, root);
    if (!root)
        return;
    if (root->kind == YN_MAP) {
        const ynode *q = get(y, root, "quantization");
        kv_engine engine;
        /* Checkpoints are JSON (config.json, hf_quant_config.json); a YAML with `model_type` and
         * `torch_dtype` is a training recipe (axolotl), not a checkpoint. */
        bool json = str_ends_with(y->c->path, ".json");
        if (json && !get(y, root, "apiVersion") && (get(y, root, "model_type") || get(y, root, "architectures"))) {
            hf_config(y, root);
            return;
        }
        if (json && get(y, root, "architecture") && get(y, root, "dtype")) {
            trtllm_checkpoint(y, root, NULL);
            return;
        }
        /* a TensorRT-LLM engine directory's config.json (trtllm-build output) */
        const ynode *pre = get(y, root, "pretrained_config");
        if (json && pre && pre->kind == YN_MAP && get(y, pre, "architecture") && get(y, pre, "dtype")) {
            trtllm_checkpoint(y, pre, get(y, root, "build_config"));
            return;
        }
        if (json && q && q->kind == YN_MAP && (get(y, root, "producer") || get(y, q, "kv_cache_quant_algo"))) {
            modelopt_config(y, root);
            return;
        }
        const ynode *kvc = get(y, root, "kv_cache_config");
        if (kvc && kvc->kind == YN_MAP) {
            trtllm_options(y, root);
            return;
        }
        if ((engine = server_config_engine(root, y->c->named_config)) != ENGINE_NONE) {
            server_config(y, root, engine);
            return;
        }
    }
    y->carrier = doc_carrier(y, root);
    if (y->carrier == CARRIER_COMPOSE)
        cfg_compose_interpolate(y->c, (ynode *)root);
    walk(y, root, 0);
}

void cfg_analyze_yaml(cfg_ctx *c, const char *data, size_t len)
{
    ystream *st = ytree_parse(c->path, data, len, c->a, &c->out->diags, DIAG_WARNING);
    yw y = { .c = c, .st = st, .carrier = CARRIER_YAML };
    y.walked = arena_zalloc(c->a, ((size_t)st->nanchored + 1) * sizeof *y.walked);
    c->src = &st->src;
    ywalk_init(&y.walk, st);
    for (size_t i = 0; i < st->ndocs && !y.walk.exhausted; i++)
        analyze_doc(&y, st->docs[i].root);
    if (y.walk.exhausted)
        diag_limit(&c->out->diags, DIAG_WARNING, c->path, 0, 0,
                 "YAML aliases expand beyond the work budget (%zu nodes); the rest of the file is not read",
                 st->nnodes);
}
