/*
 * argv.c: serving command lines -> dtype declarations.
 *
 * Knows which words start a serving engine (vllm serve, python -m vllm.entrypoints.*, python -m
 * sglang.launch_server, trtllm-serve, the vllm/vllm-openai image) and which options matter for
 * the KV cache (kv-cache-dtype, dtype, calculate-kv-scales, kv-cache-dtype-skip-layers, and the
 * id ranges max-model-len, max-loras, context-length, max-seq-len). The same option table serves
 * `vllm serve --config` YAML keys and Helm values. It does not validate other flags, and it
 * does not guess what a shell variable holds: such values are recorded as unresolved.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config/cfg.h"
#include "util/shellwords.h"

enum { E_VLLM = 1, E_SGLANG = 2, E_TRT = 4, E_ALL = 7 };

typedef struct option_row {
    cfg_option opt;
    int engines;
} option_row;

static const option_row options[] = {
    { { "kv-cache-dtype", DECL_KV_CACHE_DTYPE, NULL, false, 0 }, E_VLLM | E_SGLANG },
    { { "dtype", DECL_MODEL_DTYPE, NULL, false, 0 }, E_ALL },
    { { "calculate-kv-scales", DECL_KV_SCALES, NULL, true, 1 }, E_VLLM },
    { { "kv-cache-dtype-skip-layers", DECL_SKIP_LAYERS, NULL, false, 0 }, E_VLLM },
    { { "max-model-len", DECL_ID_RANGE, "max_model_len", false, 0 }, E_VLLM },
    { { "max-loras", DECL_ID_RANGE, "max_loras", false, 0 }, E_VLLM },
    { { "context-length", DECL_ID_RANGE, "context_length", false, 0 }, E_SGLANG },
    { { "max-loras-per-batch", DECL_ID_RANGE, "max_loras", false, 0 }, E_SGLANG },
    { { "max-seq-len", DECL_ID_RANGE, "max_seq_len", false, 0 }, E_TRT },
};

static int engine_bit(kv_engine engine)
{
    switch (engine) {
    case ENGINE_VLLM: return E_VLLM;
    case ENGINE_SGLANG: return E_SGLANG;
    case ENGINE_TRTLLM: return E_TRT;
    default: return E_ALL;
    }
}

const cfg_option *cfg_option_find(const char *name, kv_engine engine)
{
    int bit = engine_bit(engine);
    for (size_t i = 0; i < sizeof options / sizeof *options; i++)
        if ((options[i].engines & bit) && !strcmp(options[i].opt.name, name))
            return &options[i].opt;
    return NULL;
}

static const char *base_name(const char *s)
{
    const char *slash = strrchr(s, '/');
    return slash ? slash + 1 : s;
}

static bool has_prefix(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

/* Words that may precede a command on its line: `A=1`, `exec`, `nohup`, `env`, `sudo`, `numactl
 * --cpunodebind=0`, `taskset -c 0-7`, `uv run`, ... Anything else (prose such as "To serve, run
 * vllm serve ...") means the server name is not the command. */
static bool launcher_word(const char *t)
{
    static const char *const words[] = {
        "exec", "nohup", "env", "sudo", "time", "nice", "stdbuf", "numactl", "taskset", "timeout", "uv", "run",
        "poetry", "pdm", "rye", "pipenv", "conda", "micromamba", "srun", "mpirun", "torchrun", NULL,
    };
    if (strchr(t, '=') || t[0] == '-' || t[0] == '\0')
        return true;
    if (strspn(t, "0123456789,-.smh") == strlen(t))
        return true; /* CPU lists, timeouts */
    for (size_t i = 0; words[i]; i++)
        if (!strcmp(t, words[i]))
            return true;
    return false;
}

long cfg_serving_start(const cfg_word *w, size_t n, kv_engine *engine)
{
    bool container_run = false; /* after `docker run` / `podman run`, an image word starts the server */
    for (size_t i = 0; i < n; i++) {
        const char *b = base_name(w[i].text);
        if (i > 0 && !container_run && !launcher_word(w[i - 1].text) &&
            !(i > 1 && w[i - 2].text[0] == '-' && !strchr(w[i - 2].text, '=')))
            return -1; /* w[i-1] is neither a launcher nor an option's argument (sudo -u USER) */
        const char *next = i + 1 < n ? w[i + 1].text : "";
        if (!strcmp(b, "vllm") && !strcmp(next, "serve"))
            return *engine = ENGINE_VLLM, (long)i + 2;
        if (!strcmp(b, "sglang") && !strcmp(next, "serve"))
            return *engine = ENGINE_SGLANG, (long)i + 2;
        if (!strcmp(b, "trtllm-serve"))
            return *engine = ENGINE_TRTLLM, (long)i + (!strcmp(next, "serve") ? 2 : 1);
        if (has_prefix(b, "python")) {
            size_t j = i + 1; /* python3 -u -X dev -m MODULE */
            while (j < n && w[j].text[0] == '-' && strcmp(w[j].text, "-m") != 0)
                j++;
            const char *mod = j + 1 < n && !strcmp(w[j].text, "-m") ? w[j + 1].text : "";
            if (has_prefix(mod, "vllm.entrypoints"))
                return *engine = ENGINE_VLLM, (long)j + 2;
            if (!strcmp(mod, "sglang.launch_server"))
                return *engine = ENGINE_SGLANG, (long)j + 2;
        }
        if ((!strcmp(b, "docker") || !strcmp(b, "podman")) && !strcmp(next, "run"))
            container_run = true;
        /* `docker run ... vllm/vllm-openai:TAG ARGS`: the image's entrypoint is the server */
        if (container_run && has_prefix(w[i].text, "vllm/vllm-openai"))
            return *engine = ENGINE_VLLM, (long)i + 1;
    }
    return -1;
}

bool cfg_parse_number(const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || !isfinite(v))
        return false;
    static const char suffix[] = "kmgKMG";
    static const double mul[] = { 1e3, 1e6, 1e9, 1024.0, 1048576.0, 1073741824.0 };
    if (*end && end[1] == '\0' && strchr(suffix, *end)) {
        v *= mul[strchr(suffix, *end) - suffix];
        end++;
    }
    if (*end)
        return false;
    *out = v;
    return true;
}

bool cfg_range_number(cfg_ctx *c, const cfg_word *w, const char *name, double *out)
{
    const char *s = w->text;
    const char *d = s + (*s == '-' || *s == '+');
    d += *d == '.';
    if (!isdigit((unsigned char)*d))
        return false;
    double x = 0;
    const char *why = NULL;
    if (!cfg_parse_number(s, &x))
        why = isinf(strtod(s, NULL)) ? "is too large to be a number" : "is not a number";
    else if (x < 0)
        why = "is negative";
    else if (x != floor(x))
        why = "is not a whole number";
    else if (x > 9007199254740992.0)
        why = "is larger than 2^53";
    if (why) {
        kv_loc l = cfg_loc(c, w, 0);
        diag_add(&c->out->diags, DIAG_WARNING, c->path, l.line, l.col, "%s: '%s' %s; the value is not used",
                 name ? name : "range", s, why);
        return false;
    }
    *out = x;
    return true;
}

kv_loc cfg_loc(const cfg_ctx *c, const cfg_word *w, size_t index)
{
    size_t off = w->exact ? w->off + index : w->off;
    ypos p = ysrc_pos_of(c->src, off);
    kv_loc l = kv_loc_make(c->path, p.line, p.col, 0, 0);
    if (w->exact) {
        ypos e = ysrc_pos_of(c->src, w->off + strlen(w->text));
        if (e.line == p.line) {
            l.end_line = e.line;
            l.end_col = e.col;
        }
    }
    return l;
}

static deploy_decl *new_decl(cfg_ctx *c, decl_key key, const cfg_word *value, kv_engine engine,
                            kv_carrier carrier, int group)
{
    deploy_decl d = {
        .key = key,
        .engine = engine == ENGINE_NONE ? ENGINE_UNKNOWN : engine,
        .dtype = KVN_DTYPE_INVALID,
        .raw = value ? arena_strdup(c->out->arena, value->text) : NULL,
        .carrier = carrier,
        .loc = value ? cfg_loc(c, value, 0) : kv_loc_make(c->path, 1, 1, 0, 0),
        .group = group,
    };
    ARENA_PUSH(c->out->arena, c->out->decls, d);
    return &c->out->decls.v[c->out->decls.n - 1];
}

deploy_decl *cfg_emit_dtype(cfg_ctx *c, decl_key key, const cfg_word *value, kv_engine engine,
                           kv_carrier carrier, int group)
{
    deploy_decl *d = new_decl(c, key, value, engine, carrier, group);
    if (value->var)
        d->unresolved = "the value is a shell variable or template, not a literal";
    else
        d->dtype = kvn_dtype_parse(value->text, false);
    return d;
}

void cfg_emit_number(cfg_ctx *c, decl_key key, const char *range_name, double number, const cfg_word *value,
                     kv_engine engine, kv_carrier carrier, int group)
{
    deploy_decl *d = new_decl(c, key, value, engine, carrier, group);
    d->number = number;
    /* a checkpoint field's name is a YAML node's text, in the file's scratch arena */
    d->range_name = range_name ? arena_strdup(c->out->arena, range_name) : NULL;
}

static bool parse_bool(const char *s, double *out)
{
    if (!strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "1"))
        return *out = 1, true;
    if (!strcmp(s, "false") || !strcmp(s, "False") || !strcmp(s, "0"))
        return *out = 0, true;
    return false;
}

void cfg_emit(cfg_ctx *c, const cfg_option *opt, const cfg_word *value, kv_engine engine, kv_carrier carrier,
              int group)
{
    double x;
    switch (opt->key) {
    case DECL_KV_CACHE_DTYPE:
    case DECL_MODEL_DTYPE:
    case DECL_KV_SCHEME:
        cfg_emit_dtype(c, opt->key, value, engine, carrier, group);
        break;
    case DECL_KV_SCALES:
        if (!value->var && parse_bool(value->text, &x))
            cfg_emit_number(c, opt->key, NULL, x, value, engine, carrier, group);
        break;
    case DECL_ID_RANGE:
        if (!value->var && cfg_range_number(c, value, opt->range_name, &x))
            cfg_emit_number(c, opt->key, opt->range_name, x, value, engine, carrier, group);
        break;
    case DECL_SKIP_LAYERS:
    case DECL_PLATFORM:
        new_decl(c, opt->key, value, engine, carrier, group);
        break;
    case DECL_CKPT_FIELD:
        break; /* no option declares one: checkpoint configs only (cfg_yaml.c) */
    }
}

/* "--kv_cache_dtype=fp8" -> "kv-cache-dtype" in buf; returns the '=' position or NULL. */
static const char *flag_name(const char *t, char *buf, size_t cap)
{
    const char *name = t + 2;
    const char *eq = strchr(name, '=');
    size_t n = eq ? (size_t)(eq - name) : strlen(name);
    if (n >= cap)
        n = cap - 1;
    for (size_t i = 0; i < n; i++)
        buf[i] = name[i] == '_' ? '-' : name[i];
    buf[n] = '\0';
    return eq;
}

void cfg_argv_decls(cfg_ctx *c, const cfg_word *w, size_t n, kv_engine engine, kv_carrier carrier, int group)
{
    for (size_t i = 0; i < n; i++) {
        const char *t = w[i].text;
        if (t[0] != '-' || t[1] != '-' || t[2] == '\0')
            continue;
        char name[64];
        const char *eq = flag_name(t, name, sizeof name);
        /* vllm serve --config FILE, trtllm-serve --extra_llm_api_options FILE: applied by cfg_finish_group */
        if ((!strcmp(name, "config") || !strcmp(name, "extra-llm-api-options")) && (eq || i + 1 < n)) {
            c->config_group = group;
            c->config_file = arena_strdup(c->out->arena, eq ? eq + 1 : w[++i].text);
            continue;
        }
        bool negated = has_prefix(name, "no-");
        const cfg_option *opt = cfg_option_find(negated ? name + 3 : name, engine);
        if (!opt || (negated && !opt->flag))
            continue;
        if (opt->flag && !eq) {
            cfg_word self = w[i];
            cfg_emit_number(c, opt->key, opt->range_name, negated ? 0 : opt->flag_value, &self, engine, carrier,
                            group);
            continue;
        }
        cfg_word value;
        if (eq) {
            size_t k = (size_t)(eq + 1 - t);
            value = (cfg_word){ eq + 1, w[i].exact ? w[i].off + k : w[i].off, w[i].exact, w[i].var };
        } else if (i + 1 < n) {
            value = w[++i];
        } else {
            continue;
        }
        cfg_emit(c, opt, &value, engine, carrier, group);
    }
}

void cfg_finish_group(cfg_ctx *c, int group, kv_engine engine, kv_carrier carrier, size_t where)
{
    /* Groups are numbered in emission order, so the group's declarations are all after the first
     * declaration of a smaller group when scanning back: the scan stays within this unit. */
    const char *config = c->config_group == group ? c->config_file : NULL;
    bool has_kv = false;
    for (size_t i = c->out->decls.n; i-- > 0 && c->out->decls.v[i].group >= group;) {
        deploy_decl *d = &c->out->decls.v[i];
        if (d->group != group)
            continue;
        has_kv = has_kv || d->key == DECL_KV_CACHE_DTYPE;
        if (config)
            d->config_file = config;
    }
    if (has_kv)
        return;
    cfg_word at = { "", where, false, false };
    deploy_decl *d = new_decl(c, DECL_KV_CACHE_DTYPE, &at, engine, carrier, group);
    d->raw = NULL;
    d->implicit = true;
    d->config_file = config;
    d->dtype = kvn_dtype_parse("auto", false);
}

void cfg_platform(cfg_ctx *c, size_t where, kv_engine engine, kv_carrier carrier, int group,
                  const char *platform)
{
    cfg_word at = { platform, where, false, false };
    new_decl(c, DECL_PLATFORM, &at, engine, carrier, group);
}

/* Whether s[0..len) holds word as a whole word (bounded by non-alphanumerics), any case. */
static bool has_word(const char *s, size_t len, const char *word)
{
    size_t wl = strlen(word);
    for (size_t i = 0; i + wl <= len; i++)
        if (strncasecmp(s + i, word, wl) == 0 && (i == 0 || !isalnum((unsigned char)s[i - 1])) &&
            (i + wl == len || !isalnum((unsigned char)s[i + wl])))
            return true;
    return false;
}

const char *cfg_image_platform(const char *image, size_t len)
{
    if (!image)
        return NULL;
    for (size_t i = 0; i + 4 <= len; i++)
        if (!strncmp(image + i, "rocm", 4))
            return "rocm";
    return has_word(image, len, "cpu") ? "cpu" : NULL;
}

/* GPUs below sm80 as node labels name them (Tesla-T4, nvidia-tesla-v100, ...): no bfloat16. */
static const char *const pre_ampere_gpus[] = { "t4", "v100", "p100", "p40", "p4", "k80", "m60", NULL };
/* EC2 instance families with such GPUs (g4dn: T4, p3/p3dn: V100, p2: K80). */
static const char *const pre_ampere_instances[] = { "g4dn.", "p3.", "p3dn.", "p2.", NULL };

const char *cfg_node_platform(const char *key, const char *value)
{
    if (!key || !value)
        return NULL;
    if (!strcmp(key, "nvidia.com/gpu.product") || !strcmp(key, "cloud.google.com/gke-accelerator") ||
        !strcmp(key, "karpenter.k8s.aws/instance-gpu-name")) {
        for (size_t i = 0; pre_ampere_gpus[i]; i++)
            if (has_word(value, strlen(value), pre_ampere_gpus[i]))
                return "cuda-sm75";
    } else if (!strcmp(key, "node.kubernetes.io/instance-type") || !strcmp(key, "beta.kubernetes.io/instance-type")) {
        for (size_t i = 0; pre_ampere_instances[i]; i++)
            if (!strncmp(value, pre_ampere_instances[i], strlen(pre_ampere_instances[i])))
                return "cuda-sm75";
    }
    return NULL;
}

/* Ray's accelerator_type (ray.util.accelerators: "T4", "V100", "A10G", "L4", "H100",
 * "AMD-Instinct-MI300X-OAM", ...): the name as a whole, case ignored. GPUs Ray names that are sm80
 * or newer (A10G, L4, A100, H100, ...) are the default platform and need no hint. */
const char *cfg_ray_accelerator_platform(const char *value)
{
    if (!value)
        return NULL;
    for (size_t i = 0; pre_ampere_gpus[i]; i++)
        if (!strcasecmp(value, pre_ampere_gpus[i]))
            return "cuda-sm75";
    if (!strncasecmp(value, "AMD-Instinct-", 13))
        return "rocm";
    return NULL;
}

static cfg_word word_of(const sh_word *w)
{
    return (cfg_word){ w->text, w->off + (size_t)(w->shift > 0 ? w->shift : 0), w->shift >= 0, w->var };
}

int cfg_shell_text(cfg_ctx *c, const char *text, size_t len, size_t off, int flags, kv_carrier carrier,
                   kv_engine engine_hint, int bare_group)
{
    sh_cmds cmds = {0};
    sh_split(text, len, off, flags, c->a, &cmds);
    int first = -1;
    for (size_t k = 0; k < cmds.n; k++) {
        cfg_word *w = arena_alloc(c->a, (cmds.v[k].n + 1) * sizeof *w);
        for (size_t i = 0; i < cmds.v[k].n; i++)
            w[i] = word_of(&cmds.v[k].w[i]);
        kv_engine engine = engine_hint;
        long start = cfg_serving_start(w, cmds.v[k].n, &engine);
        int group;
        if (start >= 0) {
            group = c->next_group++;
        } else if (bare_group >= 0) {
            group = bare_group;
            start = 0;
        } else {
            continue;
        }
        cfg_argv_decls(c, w + start, cmds.v[k].n - (size_t)start, engine, carrier, group);
        size_t where = w[start > 0 ? start - 1 : 0].off;
        if (c->defer_finish && first < 0 && group != bare_group) {
            c->open_engine = engine;
            c->open_where = where;
        } else if (group != bare_group) {
            cfg_finish_group(c, group, engine, carrier, where);
        }
        if (first < 0)
            first = group;
    }
    return first;
}
