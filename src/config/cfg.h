/*
 * cfg.h: shared between the parts of the config front end (internal; not a public API).
 *
 * A cfg_ctx is one file's analysis: where facts go, the line table, the group counter. A
 * cfg_word is one argument as the engine will see it, with where its text sits in the file, so
 * a flag's value gets the line and column of the value itself whatever carried it (a shell line,
 * a YAML list item, a JSON array in a Dockerfile).
 */
#ifndef KV_CFG_H
#define KV_CFG_H
#include <stdbool.h>
#include <stddef.h>

#include "util/ytree.h"
#include "facts/facts.h"

typedef struct cfg_ctx {
    const char *path;
    file_facts *out;
    kv_arena *a;
    const ysrc *src;
    int next_group;
    int config_group;          /* the group whose command named `--config FILE` (-1: none) */
    const char *config_file;
    /* cfg_shell_text leaves its first serving group open (a compose `entrypoint:` string whose
     * `command:` adds the arguments); the caller finishes it with these. */
    bool named_config;         /* some scanned command names this file with --config: an engine config */
    bool defer_finish;
    kv_engine open_engine;
    size_t open_where;
} cfg_ctx;

typedef struct cfg_word {
    const char *text;
    size_t off;        /* byte offset of text[0] in the file (or of the carrier when !exact) */
    bool exact;        /* text[i] is at off + i */
    bool var;          /* unexpanded variable or template inside */
} cfg_word;

/* One option a serving engine reads, by its normalised name (dashes, no leading "--"). */
typedef struct cfg_option {
    const char *name;
    decl_key key;
    const char *range_name;  /* DECL_ID_RANGE */
    bool flag;               /* takes no value on a command line */
    double flag_value;       /* value of the bare flag */
} cfg_option;

/* ---- cfg_groups.c ---- */
/* Drop every group whose declarations equal an earlier group's, place by place (YAML merge keys
 * make such twins: util/ytree.c). */
void cfg_drop_twin_groups(file_facts *out);

/* ---- argv.c ---- */
const cfg_option *cfg_option_find(const char *name, kv_engine engine);
/* Index just after a serving command's start in w (vllm serve, python -m vllm.entrypoints...,
 * python -m sglang.launch_server, trtllm-serve, a vllm/vllm-openai image), or -1. */
long cfg_serving_start(const cfg_word *w, size_t n, kv_engine *engine);
/* Read flags from w[0..n): each known option becomes a deploy_decl in group. */
void cfg_argv_decls(cfg_ctx *c, const cfg_word *w, size_t n, kv_engine engine, kv_carrier carrier, int group);
/* Record opt = value (a config-file key or a flag's value). */
void cfg_emit(cfg_ctx *c, const cfg_option *opt, const cfg_word *value, kv_engine engine, kv_carrier carrier,
              int group);
deploy_decl *cfg_emit_dtype(cfg_ctx *c, decl_key key, const cfg_word *value, kv_engine engine, kv_carrier carrier,
                    int group);
void cfg_emit_number(cfg_ctx *c, decl_key key, const char *range_name, double number, const cfg_word *value,
                     kv_engine engine, kv_carrier carrier, int group);
/* If group declares no KV-cache dtype, record the engine's default (`auto`) at where. */
void cfg_finish_group(cfg_ctx *c, int group, kv_engine engine, kv_carrier carrier, size_t where);
kv_loc cfg_loc(const cfg_ctx *c, const cfg_word *w, size_t index);
/* Record that group runs on platform ("rocm", "cpu", "cuda-sm75": numerics kvn_platform names), as
 * the server image or the node it is scheduled on says at offset where. */
void cfg_platform(cfg_ctx *c, size_t where, kv_engine engine, kv_carrier carrier, int group,
                  const char *platform);
/* The platform a server image names: "rocm" (rocm/vllm, vllm/vllm-openai-rocm, ...-rocm...), "cpu"
 * (a `cpu` word: vllm-cpu-release-repo, vllm/vllm-openai-cpu, ...:cpu), else NULL. */
const char *cfg_image_platform(const char *image, size_t len);
/* The platform a Kubernetes node label names: "cuda-sm75" for a GPU below sm80 (a T4, V100, P100,
 * P4, P40, K80 by nvidia.com/gpu.product or cloud.google.com/gke-accelerator; g4dn, p3, p2
 * instance types), else NULL. */
const char *cfg_node_platform(const char *key, const char *value);
/* The platform a Ray Serve `accelerator_type` names ("T4" -> "cuda-sm75", "AMD-Instinct-MI300X-OAM"
 * -> "rocm"), or NULL (an sm80+ GPU, or a name kvlint does not know). */
const char *cfg_ray_accelerator_platform(const char *value);
/* Parse a number the way vLLM's human-readable ints do (1k = 1000, 1K = 1024). */
bool cfg_parse_number(const char *s, double *out);
/* An id range's value (max_model_len, vocab_size, ...): a whole number from 0 to 2^53. Text that is
 * no number at all (a name, a template) is false without a word; a number out of that range
 * (-5, 1e400, 2.5, 12abc) is false with a warning at the value naming the key. */
bool cfg_range_number(cfg_ctx *c, const cfg_word *w, const char *name, double *out);
/* Split shell text at file offset off and read every serving command in it; each gets a new
 * group. With bare_group >= 0, commands that start no server are read as bare arguments of
 * engine_hint into bare_group (KServe VLLM_ADDITIONAL_ARGS, Helm extraArgs). Returns the first
 * group used, or -1. */
int cfg_shell_text(cfg_ctx *c, const char *text, size_t len, size_t off, int flags, kv_carrier carrier,
                   kv_engine engine_hint, int bare_group);

/* ---- cfg_yaml.c / cfg_text.c ---- */
void cfg_analyze_yaml(cfg_ctx *c, const char *data, size_t len);
void cfg_analyze_shell(cfg_ctx *c, const char *data, size_t len);
void cfg_analyze_dockerfile(cfg_ctx *c, const char *data, size_t len);
void cfg_suppressions(cfg_ctx *c, const char *data, size_t len);
/* ---- cfg_env.c ---- */
void cfg_analyze_env(cfg_ctx *c, const char *data, size_t len);
/* The `[export] NAME=VALUE` assignments of env file text, decoded as cfg_analyze_env reads them
 * (no diagnostics): names[i] = values[i]; returns their number. */
size_t cfg_env_assignments(kv_arena *a, const char *data, size_t len, const char ***names, const char ***values);
/* ---- compose_vars.c ---- */
struct ynode;
/* Fill in compose's `${VAR}`, `${VAR:-default}`, ... in every scalar under root (a compose file of
 * c->path) from the project's `.env` next to it, as docker compose does; a variable `.env` does
 * not set and that has no default stays as written (an unresolved variable). */
void cfg_compose_interpolate(cfg_ctx *c, struct ynode *root);
/* The assignments of the env file rel (relative to the compose file's directory, or absolute):
 * names[i] = values[i]; 0 when it cannot be read (then the service's other settings still count). */
size_t cfg_compose_env_file(cfg_ctx *c, const char *rel, const char ***names, const char ***values);
void cfg_analyze_unit(cfg_ctx *c, const char *data, size_t len);

#endif
