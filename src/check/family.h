/*
 * family.h: what a condition family is, and what the families share with the driver (eval.c).
 *
 * A family is one file, fam_<name>.c, that defines one `family_def`: its name in rule files, the
 * settings a rule's `condition:` may give it (with their validation), the {placeholders} its
 * findings fill, its evaluation, and the worked example `kvlint explain` runs it on. The file's
 * family_def is registered by one line in check/families.def; the loader (rules.c) rejects any
 * setting or placeholder the family does not declare. docs/rules/README.md says how to add one.
 *
 * The rest of this header is the toolbox the families use: the evaluation context, the finding
 * draft a family fills, message placeholders, the walk over store x value x deployment, and the
 * helpers that turn facts and deployments into message text (emit.c). Internal to src/check/.
 */
#ifndef KV_FAMILY_H
#define KV_FAMILY_H
#include "check/eval.h"
#include "util/strbuf.h"

/* ---- what a family declares ---- */

typedef enum setting_kind {
    SETTING_NUMBER,    /* a number: a double at .offset in the family's settings */
    SETTING_NAMES,     /* names from .names (a list, or one): bit i for names[i], an unsigned at .offset */
    SETTING_CHOICE,    /* one name from .names: its index, an int at .offset */
    /* The shared selectors, kept in the rule itself for ev_wants_value / ev_wants_outcome /
     * ev_wants_store; a family that reads one declares it like any other setting. */
    SETTING_VALUES,    /* rule.values: value kinds (sentinel, integer, float) */
    SETTING_OUTCOMES,  /* rule.outcomes: outcome classes (outcome_class_name) */
    SETTING_OPERANDS   /* rule.operands: key, value, kv */
} setting_kind;

typedef struct family_setting {
    const char *key;               /* the key under `condition:`; NULL ends a family's list */
    setting_kind kind;
    size_t offset;                 /* NUMBER, NAMES, CHOICE: offsetof in the family's settings struct */
    const char *const *names;      /* NAMES, CHOICE: NULL-terminated */
    bool above_zero;               /* NUMBER: a magnitude, rejected unless > 0 */
} family_setting;

#define SETTING_SELECT_VALUES { "values", SETTING_VALUES, 0, NULL, false }
#define SETTING_SELECT_OUTCOMES { "outcomes", SETTING_OUTCOMES, 0, NULL, false }
#define SETTING_SELECT_OPERANDS { "operands", SETTING_OPERANDS, 0, NULL, false }
#define SETTINGS_END { NULL, SETTING_NUMBER, 0, NULL, false }

enum family_flags {
    FAMILY_JUDGES_VALUES = 1u << 0,      /* says what a value becomes in a dtype (a `kvlint matrix` cell) */
    FAMILY_AFTER_SUPPRESSIONS = 1u << 1  /* runs once ignore comments are matched (ectx.used), and only
                                            with --warn-unused-ignores */
};

typedef struct ectx ectx;

struct family_def {
    const char *name;                    /* in rule files: `family: store-value` */
    unsigned flags;                      /* FAMILY_* */
    const family_setting *settings;      /* what `condition:` may say besides family and unless */
    size_t settings_size;                /* the family's settings struct (0: none) */
    const void *defaults;                /* settings_size bytes: what a rule file does not say */
    const char *const *placeholders;     /* NULL-terminated; {fix} and {deployment} are everyone's */
    void (*evaluate)(ectx *c);           /* emit c->r's findings over c's facts and deployments */
    /* explain's worked example: facts and a deployment (all example.c's defaults set) on which r,
     * a rule of this family, reports what its `example:` block describes. */
    void (*example)(const rule *r, file_facts *f, deployment *d);
    /* explain's condition line after the family's name ("; values: sentinel; outcomes: ..."). */
    void (*describe)(strbuf *sb, const rule *r);
};

/* The registered family called name, or NULL (registry.c, from check/families.def). */
const family_def *family_find(const char *name);
/* "store-value, store-integer, ..." in registration order. */
void family_names(strbuf *sb);
/* Whether family f fills {name} (or it is one every rule has). */
bool family_has_placeholder(const family_def *f, const char *name);

/* ---- evaluation ---- */

enum { MAX_VARS = 24 };   /* more than any family fills (store-integer: 14) */

/* Placeholder values for a rule's message template ({value}, {dtype}, ...). */
typedef struct vars {
    const char *name[MAX_VARS];
    const char *value[MAX_VARS];
    int n;
} vars;

struct ectx {
    const rule *r;
    const eval_options *opt;
    file_facts *const *files;
    size_t nfiles;
    const deployment_set *deps;
    finding_list *out;
    /* FAMILY_AFTER_SUPPRESSIONS only: used[fi][k] is whether files[fi]'s suppression k matched. */
    bool *const *used;
    /* "RULE|subject" of every finding so far, for `unless`: open addressing, power-of-two size. */
    const char **seen;
    size_t nseen, capseen;
    /* The deployments that apply to file scope_fi (ev_scope), reused from file to file. */
    const deployment **scope;
    size_t nscope, scope_fi;
    bool scope_valid;
};

/* A finding under construction: a family fills it, ev_emit() turns it into a finding. */
typedef struct draft {
    kv_loc loc;
    const char *value, *dtype;
    const path_result *stored;
    size_t nstored;
    const resolved_dtype *dtype_from;   /* for dtype_origin; NULL: code/none */
    const kv_loc *code_dtype_loc;       /* dtype written in code */
    related_loc related[4];
    size_t nrelated;
    const kv_value *flow;
    const deployment *dep;
    const char *key;
} draft;

/* The deployments the code of file fi is checked against (deployment_applies), or the engine
 * default when none applies; valid until the next call. Returns their number. */
size_t ev_scope(ectx *c, size_t fi, const deployment *const **out);

/* The walk most families share: every stored value the rule selects under every deployment that
 * applies to its file. Stores in file order whose operand the rule selects, each of their values
 * whose kind it selects, then each deployment. */
enum store_walk_flags {
    WALK_SHARED_BLOCK = 1u << 0,      /* only stores whose tensor shares a block or tensor scale */
    WALK_FIXED_DTYPE_ONCE = 1u << 1   /* a store whose code fixes the cache dtype: the same under every
                                         deployment, so judged under the first only */
};
/* Whether store s is written by d's KV-cache recipe: fp8_ds_mla quantizes only the NoPE part of an
 * MLA row (its RoPE part stays bfloat16), so a store of another part, or of a part not known, is
 * not judged under it; a store whose code fixes the cache dtype always is. */
bool ev_store_in_recipe(const store_fact *s, const deployment *d);
typedef void (*stored_value_fn)(ectx *c, const store_fact *s, const kv_value *v, const deployment *d);
void ev_each_stored_value(ectx *c, unsigned flags, stored_value_fn fn);

void ev_var(vars *vs, const char *name, const char *value);
/* Add f as a finding of c->r (unless a rule it defers to already reported f->key). */
void ev_emit(ectx *c, draft *f, vars *vs);
void ev_related(draft *f, const kv_loc *loc, const char *msg);
char *ev_num(kv_arena *a, double x);
char *ev_loc_text(kv_arena *a, const kv_loc *l);
const char *ev_dtype_name(kvn_dtype d);
/* The deployment's engine, else the one the fact names. */
kv_engine ev_engine(const deployment *d, kv_engine fact_engine);
/* The engine whose conversion path a store takes: a direct write into the cache tensor
 * (`key_cache[slots] = k`, copy_) is a PyTorch tensor cast whatever the deployment's engine
 * (the paths of ENGINE_TRANSFORMERS), else ev_engine. */
kv_engine ev_store_engine(const deployment *d, const store_fact *s);
/* "declared at deploy/k8s.yaml:20:15" / "what-if --kv-cache-dtype" / "engine default". */
const char *ev_declared(kv_arena *a, const resolved_dtype *rd);
/* What a finding is about (value origin, fact location, deployment), for `unless`. */
const char *ev_subject(kv_arena *a, const kv_loc *origin, const kv_loc *fact, const deployment *d);
kv_loc ev_origin(const kv_value *v, const kv_loc *fallback);
bool ev_wants_value(const rule *r, const kv_value *v);
bool ev_wants_outcome(const rule *r, int outcome);
bool ev_wants_store(const rule *r, const store_fact *s);
/* The points of a value worth checking under a deployment (extremes of its interval). */
size_t ev_value_points(const kv_value *v, const deployment *d, double pts[2]);
const char *ev_value_text(kv_arena *a, const kv_value *v, double x);
/* "as -inf by a PyTorch cast and as -57344 by vLLM's CUDA cache writer" (equal results joined). */
const char *ev_stored_text(kv_arena *a, const path_result *p, size_t n);
/* The note at a store's sink: "stored into the KV cache as the key by self.attn" (a direct write
 * names the cache tensor). */
const char *ev_sink_note(kv_arena *a, const store_fact *s);
/* Whether a value built or computed in dtype r (with operands a and b, either may be NULL) depends
 * on the deployment's model or KV dtype; a dtype written in code is evaluated once. */
bool ev_deployment_dependent(const dtype_ref *r, const kv_value *a, const kv_value *b);
/* A value computed from checkpoint fields (v->expr) as the number it is under d; false while a field
 * is unknown there (then there is no value to judge). */
bool ev_resolve_fields(const kv_value *v, const deployment *d, kv_value *out);

/* ---- explain's worked example (example.c) ---- */

/* The example's value: r's `example: value:` as a sentinel (a finfo expression symbolic, a number
 * parsed), made at example.py:1:1. */
kv_value ex_value(const rule *r, kvn_dtype model);
/* Add to f a store of nvalues (1 or 2) values, the example's value then an ordinary +-3.5, at
 * example.py:2:5 by self.attn as the example's operand; returns the values (f's). */
kv_value *ex_add_store(const rule *r, file_facts *f, size_t nvalues);
/* A family_def.example of its own: one store of the example's value. */
void ex_stored_value(const rule *r, file_facts *f, deployment *d);
/* The model dtype a dtype reference to it names (self.dtype at the store's line). */
dtype_ref ex_model_ref(void);
kv_loc ex_loc(void);
/* explain's condition line for the shared selectors: "; values: sentinel; outcomes: overflow-inf"
 * (a family_def.describe of its own), or the outcome classes only. */
void ex_describe_selectors(strbuf *sb, const rule *r);
void ex_describe_outcomes(strbuf *sb, const rule *r);

#endif
