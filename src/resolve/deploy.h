/*
 * deploy.h: deployments, resolved from deployment declarations (deploy_decl). A pure stage: facts in, deployments out.
 *
 * A deployment is one way the code is served: one command line, one YAML document, one engine
 * config file, joined with the checkpoint config (config.json / hf_quant_config.json) found in the
 * scanned tree or named by --model-config. Resolution follows the engines: KV `auto` is the model
 * dtype unless the checkpoint declares a KV scheme (then fp8 or nvfp4); model `auto` is the
 * checkpoint's torch_dtype (float32 checkpoints run as bfloat16); on ROCm `fp8` is e4m3fnuz.
 * What cannot be resolved stays unresolved with a reason: never a guess.
 */
#ifndef KV_DEPLOY_H
#define KV_DEPLOY_H
#include <stdbool.h>
#include <stddef.h>

#include "project/project.h"
#include "facts/facts.h"
#include "facts/idvocab.h"

typedef struct id_range {
    const char *name;           /* "num_adapters", "max_loras", "max_model_len", "vocab_size", ... */
    double max;                 /* the value of the bound `name` (num_adapters for adapter ids 0..n,
                                   max_model_len for positions 0..max_model_len-1): a value bounded by
                                   hi_sym + hi_sym_add reaches max + hi_sym_add */
    const deploy_decl *decl;     /* where it was declared, NULL if from .kvlint.yaml/option */
    kv_loc loc;
    double max_id;              /* the largest id the range allows: max - 1 for counts of positions, tokens
                                   and experts (ids 0..n-1), max for num_adapters / max_loras. A .kvlint.yaml
                                   id range (`position_id: {max: 4095}`) sets max_id; max is then 4096.
                                   See docs/deployments.md. */
    const char *id_class;         /* "adapter", "position", "token", "expert", or NULL */
} id_range;

typedef struct resolved_dtype {
    kvn_dtype dtype;            /* KVN_DTYPE_INVALID when unresolved */
    const deploy_decl *decl;     /* the declaration it came from, NULL for a what-if or default */
    const char *how;            /* "declared", "auto: model dtype", "auto: checkpoint kv_cache_scheme", "what-if --dtype", "default" */
    const char *unresolved;     /* reason when dtype is invalid */
    kv_spelling spelling;       /* how code spells it: declared or a what-if (explicit), `auto`, or
                                 * not known (a checkpoint's KV scheme chosen through auto: SGLang
                                 * keeps server_args.kv_cache_dtype "auto", vLLM replaces it with the
                                 * scheme's name; an assumed dtype) */
} resolved_dtype;

typedef struct deployment {
    const char *name;           /* short label: "deploy/k8s.yaml:12 (vllm serve)" */
    kv_loc loc;                 /* where the deployment is described (command or document start) */
    kv_engine engine;           /* ENGINE_NONE for the engine default */
    resolved_dtype kv;
    resolved_dtype model;
    bool dynamic_kv_scales;     /* --calculate-kv-scales */
    const deploy_decl *kv_scales_decl;
    kvn_platform platform;      /* --platform, .kvlint.yaml platform:, or an image / node hint */
    bool rocm;                  /* platform == KVN_PLAT_ROCM */
    const deploy_decl *platform_decl; /* the image or node label that named the platform, or NULL */
    const char *skip_layers;    /* raw --kv-cache-dtype-skip-layers, or NULL */
    const id_range *ranges;
    size_t nranges;
    const char *ckpt_dir;       /* the directory of the checkpoint config it runs, or NULL (ckpt_why says why) */
    const char *ckpt_why;
    const deploy_decl *const *ckpt_fields; /* that config.json's numeric fields (checkpoint_field decls and
                                   its id ranges): what `config.x` in code is under this deployment */
    size_t nckpt_fields;
    const char *const *read_fields; /* the checkpoint fields the scanned code reads (facts shows each) */
    size_t nread_fields;
    const char *scope;          /* NULL: the deployment applies to every scanned file. Else the directory
                                   of the test, example or benchmark file that declares it (with its
                                   '/'): it applies to the code under that directory and to library
                                   code, not to other scripts (deployment_applies) */
} deployment;

typedef struct resolve_options {
    kvn_dtype whatif_kv;        /* --kv-cache-dtype D: replaces declared ones; INVALID if unset */
    kvn_dtype whatif_model;     /* --dtype D */
    kvn_platform platform;      /* --platform (or .kvlint.yaml platform:) */
    const char *model_config;   /* --model-config FILE (already scanned into facts), or NULL */
    const id_vocab *ids;        /* what range names mean (grammars/ids.tsv); NULL: no name has an id class */
} resolve_options;

typedef struct deployment_set {
    kv_arena *arena;
    deployment *v;
    size_t n;
    const deployment *fallback; /* the engine default, for code no deployment of v applies to (NULL
                                   when v holds the engine defaults themselves) */
    size_t root_len;            /* length of the scanned files' common directory prefix: test, example
                                   and benchmark directories are recognised below it */
} deployment_set;

/* Group declarations into deployments and resolve them. files: every scanned file's facts.
 * When nothing declares a deployment, the set holds one "engine default" deployment (auto chains
 * from the checkpoint if one is found, else unresolved). */
deployment_set *deployments_resolve(file_facts *const *files, size_t nfiles, const kv_project *proj,
                                    const resolve_options *opt, diag_list *diags);
void deployment_set_free(deployment_set *s);
/* Whether the code in path is checked against d: d has no scope, path lies under d's scope, or path
 * is library code (not in a test, example or benchmark directory). See docs/deployments.md. */
bool deployment_applies(const deployment_set *s, const deployment *d, const char *path);
/* Whether path (below its first root_len bytes) lies in a test, example or benchmark directory, or is
 * a test file by name (test_*.py, *_test.py, conftest.py). */
bool path_is_script(const char *path, size_t root_len);
/* Range for a symbolic name ("num_adapters") or id class ("adapter") in d, or NULL. */
const id_range *deployment_range(const deployment *d, const char *name, const char *idc);

/* How d spells its dtypes for tests of their strings (value_concrete): its dtypes' spelling,
 * and not known for TensorRT-LLM's KV cache (its code tests QuantAlgo values) or without d. */
dtype_spelling deployment_spelling(const deployment *d);

/* ---- checkpoint fields (fields.c) ---- */
/* Field `name` of d's checkpoint config: found (with its value and declaration), absent (the
 * checkpoint is known and has no such numeric field) or unknown (d runs no known checkpoint). */
kv_field_lookup deployment_field(const deployment *d, const char *name, double *value, const deploy_decl **from);
/* The distinct checkpoint fields that the values of files read (store values, constructions), sorted;
 * NULL-free array in arena, count in *n. */
const char *const *read_checkpoint_fields(kv_arena *a, file_facts *const *files, size_t nfiles, size_t *n);
/* A kv_expr lookup over a deployment (ctx is the const deployment *). */
kv_field_lookup deployment_field_fn(const void *ctx, const char *name, double *value);


#endif
