/*
 * facts.h: the vocabulary between the front ends and the rules.
 *
 * Front ends (Python, configs, later C/C++) turn files into facts; resolution turns dtype
 * declarations into deployments; rules join facts with deployments and ask the numerics. No fact
 * mentions tree-sitter, libyaml or libclang: a fact is a location, an abstract value and a dtype
 * reference. Adding a front end means producing these records, nothing more.
 *
 * Ownership: every pointer in a fact points into the arena of the file_facts that holds it (or
 * into static storage). A file_facts lives until the run ends; merging only collects pointers.
 *
 * Locations are 1-based lines and 1-based byte columns; end_line/end_col (exclusive end column)
 * may be 0 when unknown. `path` is the path as the scanner names the file (relative to the
 * working directory when the user gave a relative path).
 */
#ifndef KV_FACTS_H
#define KV_FACTS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "numerics/numerics.h"
#include "util/arena.h"
#include "util/diag.h"

typedef struct kv_loc {
    const char *path;
    uint32_t line, col;
    uint32_t end_line, end_col;
} kv_loc;

/* ---- dtype references as code writes them ---- */

/* Each enum of the facts is written once, as a list X(member, "name in facts JSON"): the enum
 * and its *_name() function (facts.c) are generated from it, so a new member has its name. */
#define KV_ENUM_MEMBER(e, name) e,
#define KV_ENUM_NAME_CASE(e, name) case e: return name;

#define KV_DREF_KINDS(X)                                                                            \
    X(DREF_NONE, "none")         /* no dtype given (torch.full without dtype=: float32 default) */  \
    X(DREF_CONCRETE, "concrete") /* torch.float16, "bfloat16", torch.float8_e4m3fn: .dtype is set */ \
    X(DREF_MODEL, "model")       /* the model dtype, declared at deploy time: self.dtype, x.dtype,    \
                                    model_config.dtype, torch.get_default_dtype(), .half()/.to(dtype) \
                                    on a model-dtype variable */                                      \
    X(DREF_KV, "kv")             /* the KV-cache dtype: kv_cache.dtype, self.kv_cache_dtype */        \
    X(DREF_UNKNOWN, "unknown")   /* some other dtype expression */

typedef enum dref_kind { KV_DREF_KINDS(KV_ENUM_MEMBER) } dref_kind;

/* A set of storage dtypes: bit d for kvn_dtype d (the numerics' table has fewer than 64,
 * check_numerics verifies). What a branch on a dtype says about where its values are held. */
typedef uint64_t kv_dtype_set;
static inline kv_dtype_set dset_of(kvn_dtype d)
{
    return d >= 0 && d < 64 ? (kv_dtype_set)1 << d : 0;
}
static inline bool dset_has(kv_dtype_set s, kvn_dtype d)
{
    return d >= 0 && d < 64 && (s >> d & 1);
}
/* Every dtype the numerics know. */
kv_dtype_set dset_all(void);

/* How a deployment spells a dtype, for the held marks of tests of that string (held_spelled):
 * a name it declares (`--kv-cache-dtype fp8`, a what-if), `auto` (declared or the default: code
 * compares the string "auto"), or not known (a checkpoint's scheme chosen through auto, an
 * assumed dtype, TensorRT-LLM). */
typedef enum kv_spelling { SPELL_EXPLICIT, SPELL_AUTO, SPELL_UNKNOWN } kv_spelling;
typedef struct dtype_spelling { kv_spelling model, kv; } dtype_spelling;

typedef struct dtype_ref {
    dref_kind kind;
    kvn_dtype dtype;   /* DREF_CONCRETE only */
    const char *text;  /* as written: "self.dtype", "torch.float16" */
    kv_loc loc;
} dtype_ref;

/* ---- abstract values ---- */

/* A literal of at least this magnitude is a sentinel (VK_SENTINEL), below it an ordinary float. */
#define KV_SENTINEL_MAGNITUDE 1e4

#define KV_VALUE_KINDS(X)                                                                       \
    X(VK_UNKNOWN, "unknown")   /* activations, buffers: never a finding on their own */          \
    X(VK_SENTINEL, "sentinel") /* a special value used as a tool: -1e9, -10000.0, +-inf,          \
                                  finfo(D).min/max */                                             \
    X(VK_INTEGER, "integer")   /* an integer carried in a tensor: ids, positions, counts (range   \
                                  below) */                                                       \
    X(VK_FLOAT, "float")       /* an ordinary known float constant or interval (codeword keys +-3.5) */

typedef enum value_kind { KV_VALUE_KINDS(KV_ENUM_MEMBER) } value_kind;

#define KV_VALUE_SYMS(X)                                                                   \
    X(SYM_NONE, NULL)                                                                      \
    X(SYM_FINFO_MIN, "finfo.min") /* torch.finfo(D).min, D symbolic or concrete */         \
    X(SYM_FINFO_MAX, "finfo.max")                                                          \
    X(SYM_FINFO_EPS, "finfo.eps")                                                          \
    X(SYM_FINFO_TINY, "finfo.tiny")

typedef enum value_sym { KV_VALUE_SYMS(KV_ENUM_MEMBER) } value_sym;

typedef struct kv_step {
    kv_loc loc;
    const char *what;  /* "assigned to k", "torch.cat into k", "passed to self.attn as key" */
} kv_step;

/*
 * A value computed from checkpoint config fields (`config.control_token_gain /
 * config.attention_multiplier`): a tree over field leaves and constants, evaluated per deployment
 * from its checkpoint's config.json (check/), in double arithmetic as Python computes it. A leaf of
 * `getattr(cfg, "x", default)` carries the default, which applies when the checkpoint has no field x.
 */
typedef enum kv_expr_op { KX_CONST, KX_FIELD, KX_ADD, KX_SUB, KX_MUL, KX_DIV, KX_POW, KX_NEG } kv_expr_op;

/* How deep evaluation, formatting and field listing read a tree; below it a value is unknown ("...").
 * A tree shares subtrees (`g = g * g`), but is read as a tree: a front end builds none of more than
 * KV_EXPR_MAX_NODES nodes counted that way (kv_expr_nodes), so reading one is linear, never
 * exponential; a longer computation is an unknown value. */
#define KV_EXPR_MAX_DEPTH 64
#define KV_EXPR_MAX_NODES 256

typedef struct kv_expr {
    kv_expr_op op;
    double num;                  /* KX_CONST; KX_FIELD: the default when has_default */
    const char *field;           /* KX_FIELD: the config.json key, "attention_multiplier" */
    bool has_default;
    const struct kv_expr *a, *b; /* operands (b NULL for KX_NEG) */
    uint32_t nodes;              /* nodes read as a tree, shared subtrees counted each time; 0 for a
                                    leaf made without it (kv_expr_nodes counts it 1) */
} kv_expr;

/* The nodes of e read as a tree (0 for NULL); e->nodes, or 1 for a leaf that does not say. */
static inline uint32_t kv_expr_nodes(const kv_expr *e)
{
    return !e ? 0 : e->nodes ? e->nodes : 1;
}

/* Look a field up: KV_FIELD_FOUND with its value; KV_FIELD_ABSENT when the checkpoint is known and has
 * no such numeric field (a getattr default then applies); KV_FIELD_UNKNOWN when no checkpoint is. */
typedef enum kv_field_lookup { KV_FIELD_UNKNOWN, KV_FIELD_ABSENT, KV_FIELD_FOUND } kv_field_lookup;
typedef kv_field_lookup (*kv_field_fn)(const void *ctx, const char *field, double *out);
/* The value of e, or false (some field unknown, a division by zero, a NaN). */
bool kv_expr_eval(const kv_expr *e, kv_field_fn lookup, const void *ctx, double *out);
/* Append "control_token_gain / attention_multiplier" to sb (fields by name, constants as the
 * shortest %g that reads back, subexpressions parenthesised). */
struct strbuf;
void kv_expr_format(struct strbuf *sb, const kv_expr *e);
/* Append each distinct field name of e to names (up to cap); returns the new count. */
size_t kv_expr_fields(const kv_expr *e, const char **names, size_t n, size_t cap);

/*
 * A value as the front end knows it. The concrete part is the closed interval [lo, hi] (a constant
 * has lo == hi; -inf/+inf allowed). For integers, hi may instead be symbolic: hi = value of the range
 * name `hi_sym` (e.g. "num_adapters", resolved from configs or .kvlint.yaml) plus hi_sym_add
 * (arange(n) gives n - 1). A symbolic sentinel is sym_scale * finfo(sym_dtype).<sym> + sym_add,
 * evaluated once the dtype is known.
 */
typedef struct kv_value {
    value_kind kind;
    double lo, hi;
    bool hi_unknown;          /* integer whose upper bound is not known at all */
    const char *hi_sym;       /* symbolic bound name, or NULL */
    double hi_sym_add;
    const char *id_class;       /* integers: the id class (JSON "family"): "adapter", "position", "token", "expert", "slot" or NULL */
    value_sym sym;
    dtype_ref sym_dtype;
    double sym_scale, sym_add;  /* sym_scale is 1 for a plain finfo(D).min */
    bool binary32;            /* the constant is a C float (f-suffixed) literal */
    const char *text;         /* spelling at the origin: "-1e9", "torch.finfo(self.dtype).min" */
    kv_loc origin;            /* where the value is made: the line a developer edits */
    const kv_step *steps;     /* origin -> ... -> use, in order */
    size_t nsteps;
    const kv_expr *expr;      /* VK_UNKNOWN computed from checkpoint fields, or NULL: the value becomes
                                 known per deployment (check/ evaluates it; docs/facts.md) */
    dref_kind held_kind;      /* DREF_MODEL / DREF_KV: the value is held only where that dtype is
                               * in held_set (`x = -3e38; if dtype == torch.float16: x = -63000`:
                               * -3e38 where it is not float16, -63000 where it is; `if
                               * cache_dtype.startswith("fp8")`: the fp8 dtypes); any other kind:
                               * always */
    kv_dtype_set held_set;    /* where the deployment names its dtype (SPELL_EXPLICIT) */
    kv_dtype_set held_auto_set; /* where it spells it `auto` (the same as held_set unless a test
                                 * of the string decides on "auto": `if cache_dtype == "auto"`) */
    bool held_spelled;        /* the mark comes from a test of the dtype's string (`cache_dtype ==
                               * "fp8"`): it does not apply where that string is not known
                               * (SPELL_UNKNOWN) */
} kv_value;

/* ---- facts ---- */

/* The way a store reaches the cache: through which kind of sink. The facts' JSON and the sink
 * table's column call it "family", as they did before; in the code "family" is a rule family's
 * alone (check/family.h). */
#define KV_STORE_VIAS(X)                                                                         \
    X(SINK_ATTENTION_LAYER, "attention-layer") /* vLLM Attention/MLAAttention, SGLang RadixAttention */ \
    X(SINK_CACHE_OP, "cache-op")         /* reshape_and_cache(_flash), concat_and_cache_mla, set_kv_buffer */ \
    X(SINK_CACHE_UPDATE, "cache-update") /* transformers past_key_values.update / Cache.update */     \
    X(SINK_DIRECT, "direct")             /* kv_cache[...] = x, key_cache.copy_(x), ... */             \
    X(SINK_USER, "user")                 /* an extra sink from .kvlint.yaml */

typedef enum store_via { KV_STORE_VIAS(KV_ENUM_MEMBER) } store_via;
/* The way called name, if one is. */
bool store_via_parse(const char *name, store_via *out);

#define KV_OPERANDS(X) X(OPERAND_KEY, "key") X(OPERAND_VALUE, "value") X(OPERAND_KV, "kv")

typedef enum kv_operand { KV_OPERANDS(KV_ENUM_MEMBER) } kv_operand;

/* Which part of an MLA latent row an OPERAND_KV store writes, where the sink says (sinks.tsv: the
 * key column is the first part): the NoPE latents (kv_c, 512 values in DeepSeek) or the RoPE key
 * (k_pe, 64). fp8_ds_mla stores the two differently (numerics: kvn_dtype_nope_only). */
#define KV_LATENT_PARTS(X)                                                                 \
    X(LATENT_UNKNOWN, "unknown") /* not an MLA sink's argument (a direct write, C/C++) */ \
    X(LATENT_NOPE, "nope")       /* the sink's first latent part: kv_c */                  \
    X(LATENT_ROPE, "rope")       /* its second: k_pe */

typedef enum latent_part { KV_LATENT_PARTS(KV_ENUM_MEMBER) } latent_part;

/* The serving engine a fact belongs to. ENGINE_NONE: nothing names one (a sink table row "-", the
 * engine-default deployment; null in JSON). ENGINE_UNKNOWN: a serving command or config whose engine
 * kvlint cannot tell. Rules treat the two alike: no engine's conversion paths are assumed. */
#define KV_ENGINES(X)                                                                 \
    X(ENGINE_NONE, NULL)                                                              \
    X(ENGINE_UNKNOWN, "unknown")                                                      \
    X(ENGINE_VLLM, "vllm")                                                            \
    X(ENGINE_SGLANG, "sglang")                                                        \
    X(ENGINE_TRTLLM, "trtllm")                                                        \
    X(ENGINE_TRANSFORMERS, "transformers")                                            \
    X(ENGINE_HF, "hf")             /* a Hugging Face checkpoint config.json */        \
    X(ENGINE_MODELOPT, "modelopt") /* a ModelOpt checkpoint (hf_quant_config.json) */ \
    X(ENGINE_TORCH, "torch")       /* torch.set_default_dtype: no engine is configured */

typedef enum kv_engine { KV_ENGINES(KV_ENUM_MEMBER) } kv_engine;
/* The engine called name ("vllm"), if one is; "unknown" and NULL are none. */
bool engine_parse(const char *name, kv_engine *out);
/* Whether e names an engine (neither ENGINE_NONE nor ENGINE_UNKNOWN). */
bool engine_known(kv_engine e);

/* How the stored value becomes cache bytes. Python stores leave it to the engine's writers
 * (check/paths.c); a C++/CUDA store converts in the code itself and says how. */
#define KV_STORE_CONVS(X)                                                                            \
    X(CONV_ENGINE, "engine")                 /* the engine's conversion paths */                     \
    X(CONV_NONSATURATING, "non-saturating")  /* IEEE-style: out of range -> +-inf, NaN in formats     \
                                                without inf (assignment, static_cast<cache_t>,        \
                                                __float2half, __float2bfloat16) */                    \
    X(CONV_SATURATING, "saturating")         /* clamps to +-max (__NV_SATFINITE, fp8::scaled_convert, \
                                                __nv_fp8_e4m3(float)) */      \
    X(CONV_SATURATING_FP8, "saturating-fp8") /* saturating into fp8 and int8 formats, non-saturating  \
                                                into the others (vLLM's CopyWithScaleOp: static_cast  \
                                                under kAuto, fp8::scaled_convert otherwise) */

typedef enum store_conv { KV_STORE_CONVS(KV_ENUM_MEMBER) } store_conv;

typedef struct store_fact {
    kv_loc loc;               /* the sink call or subscript store */
    store_via via;
    const char *sink;         /* as written: "self.attn", "reshape_and_cache_flash" */
    kv_engine engine;         /* ENGINE_VLLM, _SGLANG, _TRANSFORMERS, or ENGINE_NONE */
    const char *user_engine;  /* a .kvlint.yaml sink's engine that is none of kv_engine's (engine is
                                 ENGINE_NONE), as written, for facts output only; else NULL */
    kv_operand operand;
    latent_part part;         /* OPERAND_KV from an MLA sink: which part; else LATENT_UNKNOWN */
    const char *tensor;       /* the stored expression as written: "k" */
    const kv_value *values;   /* every known value the tensor may hold */
    size_t nvalues;
    bool shares_block;        /* the tensor also holds other values (so a block or tensor scale is shared) */
    bool wide_source;         /* the stored tensor is float32 or wider, or a cast of one
                                 (`key.float().masked_fill(m, -1e9).to(cache.dtype)`): its values
                                 are converted from float32, not from the model dtype */
    store_conv conv;          /* CONV_ENGINE for every Python store */
    const char *conv_api;     /* the conversion as written ("__float2half", "static_cast<cache_t>"), or NULL */
    dtype_ref cache_dtype;    /* DREF_CONCRETE: the code fixes the cache's element type (a __half* cache);
                                 anything else: the deployment's KV-cache dtype */
} store_fact;

#define KV_CONSTRUCTION_KINDS(X)                                                                     \
    X(CONS_SCALAR_FILL, "scalar-fill") /* torch.full/full_like/new_full/fill_/masked_fill(_): eager   \
                                          fp16 raises */                                              \
    X(CONS_TENSOR_CAST, "tensor-cast") /* .to(D)/.half()/.bfloat16()/type_as of a tensor holding the   \
                                          value: inf */                                               \
    X(CONS_TENSOR_NEW, "tensor-new")   /* torch.tensor(v, dtype=D), torch.where(c, v, x) in dtype D */

typedef enum construction_kind { KV_CONSTRUCTION_KINDS(KV_ENUM_MEMBER) } construction_kind;

typedef struct construction_fact {
    kv_loc loc;               /* the call */
    construction_kind kind;
    const char *api;          /* "torch.full", ".to", "masked_fill_" */
    kv_value value;
    dtype_ref dtype;          /* the dtype it is built in or cast to */
    bool reaches_cache;       /* the result also flows into a store fact */
} construction_fact;

typedef struct intcast_fact {
    kv_loc loc;               /* the conversion */
    const char *api;          /* ".to", ".float", ".half" */
    kv_value value;           /* VK_INTEGER with its range */
    dtype_ref dtype;          /* target float dtype */
} intcast_fact;

#define KV_ARITH_KINDS(X)                                                                  \
    X(ARITH_SENTINEL_PLUS, "sentinel-plus")   /* finfo(D).min + x (or -1e9 + x) computed in D */ \
    X(ARITH_SENTINEL_SUM, "sentinel-sum")     /* two sentinel planes added */                    \
    X(ARITH_ZERO_TIMES_INF, "zero-times-inf") /* (1 - mask) * float("-inf"), 0 * inf shapes */

typedef enum arith_kind { KV_ARITH_KINDS(KV_ENUM_MEMBER) } arith_kind;

typedef struct arith_fact {
    kv_loc loc;
    arith_kind kind;
    kv_value a, b;         /* the operands as known (a is the sentinel of a sentinel-plus) */
    bool a_negated;        /* the operand enters the sum with a minus sign: `x - s` negates a (the */
    bool b_negated;        /* sentinel), `s - x` and `m1 - m2` negate b; the result is (+-a) + (+-b) */
    dtype_ref dtype;       /* dtype the arithmetic runs in */
} arith_fact;

/* What a deployment declaration sets: the KV-cache and model dtypes, and what else a deployment is
 * made of (dynamic KV scales, id ranges, skipped layers, the checkpoint's KV scheme and fields, the
 * platform). */
#define KV_DECL_KEYS(X)                                                                               \
    X(DECL_KV_CACHE_DTYPE, "kv_cache_dtype")                                                          \
    X(DECL_MODEL_DTYPE, "model_dtype")                                                                \
    X(DECL_KV_SCALES, "kv_scales")           /* --calculate-kv-scales: number 1/0 */                  \
    X(DECL_ID_RANGE, "id_range")             /* range_name = number (max id / length) */              \
    X(DECL_SKIP_LAYERS, "skip_layers")       /* --kv-cache-dtype-skip-layers: raw list */             \
    X(DECL_KV_SCHEME, "kv_scheme")           /* checkpoint KV quantisation scheme (quantization_config \
                                                / hf_quant_config) */                                 \
    X(DECL_PLATFORM, "platform")             /* "rocm" / "cuda" */                                    \
    X(DECL_CKPT_FIELD, "checkpoint_field")   /* a numeric checkpoint config.json field: range_name =  \
                                                number */

typedef enum decl_key { KV_DECL_KEYS(KV_ENUM_MEMBER) } decl_key;

/* What carries a deployment declaration: the kind of file or text it is written in. */
#define KV_CARRIERS(X)                                                                                 \
    X(CARRIER_CLI, "cli")                             /* a shell script (.sh, .bash) */                  \
    X(CARRIER_VLLM_CONFIG, "vllm-config")             /* a vllm serve / SGLang --config file */           \
    X(CARRIER_K8S_ARGS, "k8s-args")                   /* a Kubernetes manifest's command and args */     \
    X(CARRIER_HELM_VALUES, "helm-values")             /* Helm values (servingEngineSpec, vllm keys) */    \
    X(CARRIER_RAY_SERVE, "ray-serve")                 /* a Ray Serve LLM config */                        \
    X(CARRIER_COMPOSE, "compose")                     /* a compose service's entrypoint and command */   \
    X(CARRIER_ENV, "env")                             /* a container's env: (VLLM_ARGS, ...) */           \
    X(CARRIER_ENV_FILE, "env-file")                   /* a .env file or compose env_file: */              \
    X(CARRIER_SYSTEMD, "systemd")                     /* a systemd unit */                                \
    X(CARRIER_DOCKERFILE, "dockerfile")               /* a Dockerfile's ENTRYPOINT and CMD */             \
    X(CARRIER_CI, "ci")                               /* a CI workflow (jobs:, steps:, stages:) */        \
    X(CARRIER_YAML, "yaml")                           /* any other YAML or JSON document */               \
    X(CARRIER_HF_CONFIG, "hf-config")                 /* a checkpoint's config.json */                    \
    X(CARRIER_MODELOPT, "modelopt")                   /* a ModelOpt hf_quant_config.json */               \
    X(CARRIER_TRTLLM_CHECKPOINT, "trtllm-checkpoint") /* a TensorRT-LLM checkpoint or engine config */    \
    X(CARRIER_TRTLLM_OPTIONS, "trtllm-options")       /* trtllm-serve --extra_llm_api_options YAML */     \
    X(CARRIER_PYTHON_CALL, "python-call")             /* LLM(...), sgl.Engine(...), set_default_dtype */

typedef enum kv_carrier { KV_CARRIERS(KV_ENUM_MEMBER) } kv_carrier;

/* One setting of a deployment as a config, command or checkpoint writes it (`--kv-cache-dtype fp8`,
 * `max_model_len: 4096`, `"torch_dtype": "bfloat16"`); resolve/ groups them into deployments. */
typedef struct deploy_decl {
    decl_key key;
    kv_engine engine;      /* never ENGINE_NONE */
    kvn_dtype dtype;       /* for dtype keys: parsed name, KVN_DTYPE_INVALID if no engine accepts it */
    double number;         /* for KV_SCALES / ID_RANGE */
    const char *range_name;/* for ID_RANGE: "num_adapters", "max_model_len", "vocab_size", ... */
    const char *raw;       /* the spelling */
    kv_carrier carrier;
    kv_loc loc;            /* of the value itself */
    int group;             /* declarations with the same (path, group) belong to one deployment */
    const char *unresolved;/* why the value is not a literal the engine reads ("shell variable"), or NULL;
                              then dtype is KVN_DTYPE_INVALID but no engine has rejected a name */
    bool implicit;         /* not written: the default of a serving command that omits the key (raw NULL) */
    const char *config_file;/* the command's `--config FILE` (vllm serve, SGLang), as written, or NULL: that
                              file's settings apply under the command's own flags */
} deploy_decl;

/* A suppression comment: `# kvlint: ignore[ID,...] -- reason` (or `// kvlint: ...` in C/C++). */
typedef struct suppression {
    uint32_t line, col;
    const char *const *ids; /* NULL-terminated rule ids; NULL means every rule */
    const char *reason;     /* text after "--", or NULL */
} suppression;

/* Everything one file produced. Owned by its arena. */
typedef struct file_facts {
    const char *path;
    kv_arena *arena;
    ARENA_VEC(store_fact) stores;
    ARENA_VEC(construction_fact) constructions;
    ARENA_VEC(intcast_fact) casts;
    ARENA_VEC(arith_fact) ariths;
    ARENA_VEC(deploy_decl) decls;
    diag_list diags;
    ARENA_VEC(suppression) suppressions;
    bool skipped;          /* prefiltered or not analysed (reason in diags) */
} file_facts;

file_facts *file_facts_new(const char *path);
/* Deep copies into f's arena (facts_copy.c): every string, step, expression and location the fact
 * points to; a location in f's own file shares f->path. For a front end that computes in memory it
 * frees after the file and records only copies. */
kv_value kv_value_copy(file_facts *f, const kv_value *v);
store_fact store_fact_copy(file_facts *f, const store_fact *s);
construction_fact construction_fact_copy(file_facts *f, const construction_fact *c);
intcast_fact intcast_fact_copy(file_facts *f, const intcast_fact *c);
arith_fact arith_fact_copy(file_facts *f, const arith_fact *x);
deploy_decl deploy_decl_copy(file_facts *f, const deploy_decl *d);
void file_facts_free(file_facts *f);

/* Convenience constructors for front ends. */
kv_loc kv_loc_make(const char *path, uint32_t line, uint32_t col, uint32_t end_line, uint32_t end_col);
/* Same line, column and path (two locations with no path are the same "nowhere"). */
bool kv_loc_same(const kv_loc *a, const kv_loc *b);
const char *value_kind_name(value_kind k);
const char *store_via_name(store_via f);
const char *operand_name(kv_operand o);
const char *latent_part_name(latent_part p);
const char *store_conv_name(store_conv c);
const char *construction_kind_name(construction_kind k);
const char *arith_kind_name(arith_kind k);
const char *decl_key_name(decl_key k);
const char *dref_kind_name(dref_kind k);
const char *value_sym_name(value_sym s);
const char *engine_name(kv_engine e); /* NULL for ENGINE_NONE */
const char *engine_label(kv_engine e);
const char *carrier_name(kv_carrier c); /* for messages: engine_name, "unknown" for ENGINE_NONE */

/* A dtype_ref's concrete dtype under a deployment's model and KV dtypes (KVN_DTYPE_INVALID if
 * DREF_UNKNOWN, or DREF_NONE which is float32). */
kvn_dtype dtype_ref_resolve(const dtype_ref *r, kvn_dtype model, kvn_dtype kv);
/* The concrete value of a symbolic sentinel once its dtype is known (finfo of that dtype's element
 * format), else v->lo; NaN where a held mark says the value is not held under the deployment's
 * dtypes spelled so (deployment_spelling). */
double value_concrete(const kv_value *v, kvn_dtype model, kvn_dtype kv, dtype_spelling sp);

#endif
