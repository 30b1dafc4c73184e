/*
 * family.h: what the condition families (fam_*.c) share with the driver (eval.c): the evaluation
 * context, the finding draft a family fills, message placeholders, and the helpers that turn
 * facts and deployments into message text (emit.c). Internal to src/check/.
 */
#ifndef KV_FAMILY_H
#define KV_FAMILY_H
#include "check/eval.h"

enum { MAX_VARS = 24 };   /* more than any family fills (store-integer: 14) */

/* Placeholder values for a rule's message template ({value}, {dtype}, ...). */
typedef struct vars {
    const char *name[MAX_VARS];
    const char *value[MAX_VARS];
    int n;
} vars;

typedef struct ectx {
    const rule *r;
    const eval_options *opt;
    file_facts *const *files;
    size_t nfiles;
    const deployment_set *deps;
    finding_list *out;
    /* "RULE|subject" of every finding so far, for `unless`: open addressing, power-of-two size. */
    const char **seen;
    size_t nseen, capseen;
    /* The deployments that apply to file scope_fi (ev_scope), reused from file to file. */
    const deployment **scope;
    size_t nscope, scope_fi;
    bool scope_valid;
} ectx;

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
void ev_var(vars *vs, const char *name, const char *value);
/* Add f as a finding of c->r (unless a rule it defers to already reported f->key). */
void ev_emit(ectx *c, draft *f, vars *vs);
void ev_related(draft *f, const kv_loc *loc, const char *msg);
char *ev_num(kv_arena *a, double x);
char *ev_loc_text(kv_arena *a, const kv_loc *l);
const char *ev_dtype_name(kvn_dtype d);
/* The deployment's engine, else the one the fact names. */
const char *ev_engine(const deployment *d, const char *fact_engine);
/* "declared at deploy/k8s.yaml:20:15" / "what-if --kv-cache-dtype" / "engine default". */
const char *ev_declared(kv_arena *a, const resolved_dtype *rd);
/* What a finding is about (value origin, fact location, deployment), for `unless`. */
const char *ev_subject(kv_arena *a, const kv_loc *origin, const kv_loc *fact, const deployment *d);
kv_loc ev_origin(const kv_value *v, const kv_loc *fallback);
bool ev_wants_value(const rule *r, const kv_value *v);
bool ev_wants_outcome(const rule *r, int outcome);
/* The points of a value worth checking under a deployment (extremes of its interval). */
size_t ev_value_points(const kv_value *v, const deployment *d, double pts[2]);
const char *ev_value_text(kv_arena *a, const kv_value *v, double x);
/* "as -inf by a PyTorch cast and as -57344 by vLLM's CUDA cache writer" (equal results joined). */
const char *ev_stored_text(kv_arena *a, const path_result *p, size_t n);

/* The families (fam_store.c, fam_code.c, fam_config.c). */
void fam_store_value(ectx *c);
void fam_store_integer(ectx *c);
void fam_scale_crush(ectx *c);
void fam_construction(ectx *c);
void fam_arith(ectx *c);
void fam_decl_invalid(ectx *c);
void fam_unresolved(ectx *c);

#endif
