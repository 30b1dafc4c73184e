/*
 * rules.h: rules as data. A rule file (rules/KV001-sentinel-overflow.yaml) names one condition
 * family that is implemented in C (fam_*.c) and parameterises it: which fact values it looks at,
 * which outcome classes of the numerics count, severity, message template, documentation.
 *
 * A user adds a rule by writing a YAML file that reuses a family with other parameters and passing
 * `--rules DIR`; nothing else changes. The loader validates everything it reads (unknown keys, a
 * setting the family does not declare, unknown outcome names, a {placeholder} the family does not
 * fill) and reports file:line, because a rule that silently matches nothing is worse than no rule.
 *
 * What this file does not do: evaluate anything (eval.h) or print anything (report/).
 */
#ifndef KV_RULES_H
#define KV_RULES_H
#include <stdbool.h>
#include <stddef.h>

#include "facts/facts.h"
#include "util/arena.h"
#include "util/diag.h"

/* Severities, with their names in rule files and reports: the list is written once. */
#define KV_SEVERITIES(X) X(SEV_NOTE, "note") X(SEV_WARNING, "warning") X(SEV_ERROR, "error")

typedef enum kv_severity {
#define KV_SEVERITY_ENUM(e, name) e,
    KV_SEVERITIES(KV_SEVERITY_ENUM)
#undef KV_SEVERITY_ENUM
} kv_severity;

/* Outcome classes a condition can ask for: the numerics' kvn_outcome values (named by
 * kvn_outcome_name), plus two that only exist at the rule level. Bit i of rule.outcomes is class i. */
#define KV_RULE_OUTCOMES(X) \
    X(OUTC_RAISES, 16, "raises")              /* eager PyTorch scalar fill raises (float16 overflow) */ \
    X(OUTC_REINTERPRETED, 17, "reinterpreted") /* bfloat16 bits read as float16 (vLLM float16 cache, bf16 model) */

enum {
#define KV_RULE_OUTCOME_ENUM(e, value, name) e = value,
    KV_RULE_OUTCOMES(KV_RULE_OUTCOME_ENUM)
#undef KV_RULE_OUTCOME_ENUM
    OUTC_COUNT = 18
};

/* A condition family: the C half of a rule (check/family.h; one fam_*.c each, listed in
 * check/families.def). A rule file names one and gives it the settings it declares. */
typedef struct family_def family_def;

/* explain's worked example (rule file `example:`; every key optional). */
typedef struct rule_example {
    const char *value;       /* the value as code spells it ("-1e9", "torch.finfo(self.dtype).min", "expert_ids") */
    const char *kv, *model;  /* kv_cache_dtype, dtype */
    kv_engine engine;        /* ENGINE_NONE unless it says */
    const char *operand, *api, *other;
    double range;            /* the largest id (store-integer; 0: unknown) */
} rule_example;

typedef struct rule {
    const char *id, *name;
    kv_severity severity;
    const char *summary, *why, *message, *fix;
    const char *const *references;   /* NULL-terminated */
    const family_def *family;
    const void *settings;    /* the family's own settings struct (its defaults where the file says nothing) */
    /* The shared selectors, for the families that declare them as settings: */
    unsigned values;         /* bit per value_kind (all but unknown when the file does not say) */
    unsigned outcomes;       /* bit per outcome class */
    unsigned operands;       /* bit per kv_operand; all when the file does not say */
    const char *const *unless; /* rule ids: skip a finding that one of these already made */
    rule_example example;
    bool default_off;        /* only with an option (unused-suppression: --warn-unused-ignores) */
    const char *path;        /* rule file */
    unsigned line;
} rule;

typedef struct rule_set {
    kv_arena *arena;
    ARENA_VEC(rule) rules;   /* sorted by id */
} rule_set;

/* Load every *.yaml under dir into set (files in name order). Problems go to diags as errors with
 * file:line:col; returns false if any file was malformed. A missing dir is an error. */
bool rules_load_dir(rule_set *set, const char *dir, diag_list *diags);
/* The built-in rules (datadir/rules) then every extra directory (--rules DIR), finished. */
bool rules_load_all(rule_set *set, const char *datadir, const char *const *dirs, size_t ndirs, diag_list *diags);
/* Load one rule file. */
bool rules_load_file(rule_set *set, const char *path, diag_list *diags);
rule_set *rule_set_new(void);
void rule_set_free(rule_set *s);
/* Sort by id and reject duplicate ids (error naming both files). */
bool rule_set_finish(rule_set *s, diag_list *diags);
const rule *rule_find(const rule_set *s, const char *id_or_name);

const char *severity_name(kv_severity s);
/* The severity called name ("error", "warning", "note"); false if there is none. */
bool severity_by_name(const char *name, kv_severity *out);
const char *outcome_class_name(int c);
/* The name of r's condition family ("store-value"). */
const char *rule_family_name(const rule *r);
/* Whether r judges what a value becomes in a dtype (a cell of `kvlint matrix`), not a config or a
 * comment. */
bool rule_judges_values(const rule *r);

#endif
