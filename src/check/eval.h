/*
 * eval.h: joining facts with deployments and asking the numerics; the result is a list of findings.
 *
 * For every enabled rule, its condition family (a family_def in fam_*.c) walks the facts it cares
 * about, evaluates each one under every deployment that applies to its file (deployment_applies),
 * and emits a finding per unsafe (fact, value, deployment). Findings are then de-duplicated (one
 * value reaching several sinks with the same message is one finding with a note per sink; one site
 * reported under several deployments is one finding listing them), matched against the suppression
 * comments the front ends recorded, and sorted (path, line, column, rule, message), so output is the
 * same whatever the thread schedule or input order.
 *
 * Conversion paths (which writer turns the value into cache bytes) are chosen per engine in
 * paths.c. Findings know nothing about output formats; report/ prints them.
 */
#ifndef KV_EVAL_H
#define KV_EVAL_H
#include <stdbool.h>
#include <stddef.h>

#include "check/rules.h"
#include "facts/facts.h"
#include "resolve/deploy.h"
#include "util/strbuf.h"

typedef struct related_loc {
    kv_loc loc;
    const char *message;
} related_loc;

typedef struct path_result {
    const char *path;       /* "a PyTorch cast", "vLLM's CUDA cache writer" */
    double stored;
    int outcome;            /* outcome class (kvn_outcome or OUTC_*) */
} path_result;

/* One deployment a finding's site is reported under. */
typedef struct finding_deployment {
    const char *name;       /* the deployment's name ("deploy/k8s.yaml:12 (vllm, k8s-args)") */
    const char *dtype;      /* the dtype the finding is about under it, or NULL */
    kv_loc loc;             /* where the deployment is described (path NULL when nowhere) */
    size_t order;           /* its index in the deployment set (the fallback engine default: n) */
} finding_deployment;

typedef struct finding {
    const rule *rule;
    kv_severity severity;
    kv_loc loc;             /* primary: where the value is made */
    const char *message;
    const char *value;      /* spelling of the value, or NULL */
    const char *dtype;      /* canonical dtype the value is stored/built in, or NULL */
    const path_result *stored;
    size_t nstored;
    bool has_dtype_origin;  /* false when the dtype came from the command line or a default */
    kv_loc dtype_origin;
    const related_loc *related;
    size_t nrelated;
    const kv_step *steps;   /* the value's flow (SARIF codeFlows) */
    size_t nsteps;
    const char *deployment; /* the first deployment's name (of deployments[]), or NULL */
    const finding_deployment *deployments; /* every deployment the site is reported under, in the
                                              order of the deployment set: a site (rule and primary
                                              location) is one finding, whatever the number of
                                              deployments; the message is the first one's */
    size_t ndeployments;
    bool suppressed;
} finding;

typedef struct finding_list {
    kv_arena *arena;
    ARENA_VEC(finding) v;
    size_t suppressed;      /* how many were removed by ignore comments */
} finding_list;

typedef struct eval_options {
    const char *const *select;   /* NULL-terminated ids/names to run (NULL: all default-on rules) */
    const char *const *ignore;   /* ids/names to skip */
    bool warn_unused_ignores;
    bool keep_suppressed;        /* keep suppressed findings in the list (marked) */
    /* Optional: keep only the findings this accepts, judged per deployment before a site's
     * findings are merged (a run on named files keeps what involves them: the merged finding then
     * lists only the deployments that do). */
    bool (*keep)(const void *arg, const finding *f);
    const void *keep_arg;
} eval_options;

/* Evaluate rules over files x deployments. files: every scanned file (sorted by path, as the
 * scanner returns them). The result owns its arena; facts and deployments must outlive it. */
finding_list *evaluate(const rule_set *rules, file_facts *const *files, size_t nfiles,
                       const deployment_set *deps, const eval_options *opt);
void finding_list_free(finding_list *l);
bool rule_enabled(const rule *r, const eval_options *opt);
int finding_cmp(const void *a, const void *b);

/* ---- explain's worked example (example.c; the family builds it) ---- */

/* Facts in f (a file called example.py) and the deployment d on which r reports what its rule
 * file's `example:` block describes. */
void rule_example_facts(const rule *r, file_facts *f, deployment *d);
/* r's condition as explain words it after the family's name: "; values: sentinel; outcomes:
 * overflow-inf, overflow-nan; not reported where KV001 already is" (empty for a rule with no
 * settings). */
void rule_describe(strbuf *sb, const rule *r);

/* ---- conversion paths (paths.c) ---- */

enum { MAX_PATHS = 3 };

/* What x (already a value of the model dtype) becomes in the cache under kv on each path the
 * engine uses. Returns the number of paths filled (0 when kv is not modelled). */
size_t store_paths(kv_engine engine, kvn_dtype kv, kvn_dtype model, kvn_platform platform, double x,
                   path_result out[MAX_PATHS]);
/* Does a store's coded conversion (store_fact.conv, not CONV_ENGINE) saturate into kv? */
bool store_conv_saturates(store_conv conv, kvn_dtype kv);
/* The one path of a store that converts in the code (a C++/CUDA store: store_fact.conv), labelled
 * with the conversion as written; the value is a float register, not a model-dtype tensor. */
size_t store_path_coded(const char *api, bool saturating, kvn_dtype kv, double x, kv_arena *a,
                        path_result out[MAX_PATHS]);
/* x as a value of dtype d by a PyTorch tensor cast (NaN if d is not an element/scaled dtype). */
kvn_result cast_to_dtype(kvn_dtype d, double x);

#endif
