/*
 * rules.h: rules as data. A rule file (rules/KV001-sentinel-overflow.yaml) names one condition
 * family that is implemented in C (fam_*.c) and parameterises it: which fact values it looks at,
 * which outcome classes of the numerics count, severity, message template, documentation.
 *
 * A user adds a rule by writing a YAML file that reuses a family with other parameters and passing
 * `--rules DIR`; nothing else changes. The loader validates everything it reads (unknown keys,
 * unknown outcome names, unknown {placeholders} in the message) and reports file:line, because a
 * rule that silently matches nothing is worse than no rule.
 *
 * What this file does not do: evaluate anything (eval.h) or print anything (report/).
 */
#ifndef KV_RULES_H
#define KV_RULES_H
#include <stdbool.h>
#include <stddef.h>

#include "util/arena.h"
#include "util/diag.h"

typedef enum kv_severity { SEV_NOTE, SEV_WARNING, SEV_ERROR } kv_severity;

typedef enum rule_family {
    FAM_STORE_VALUE,       /* a stored value's outcome on the engine's conversion paths */
    FAM_STORE_INTEGER,     /* an integer range against the dtype's exact-integer limit */
    FAM_SCALE_CRUSH,       /* a sentinel sets a shared block/tensor scale and its neighbours go to 0 */
    FAM_CONSTRUCTION,      /* a value built in, or cast to, the model dtype */
    FAM_ARITH,             /* arithmetic on sentinels in a dtype */
    FAM_DECL_INVALID,      /* a dtype name no engine accepts */
    FAM_UNRESOLVED,        /* a deployment whose dtype stays unresolved */
    FAM_UNUSED_SUPPRESSION /* a `kvlint: ignore[...]` comment that suppressed nothing */
} rule_family;

/* Outcome classes a condition can ask for: the numerics' kvn_outcome values, plus two that only
 * exist at the rule level. Bit i of rule.outcomes is class i. */
enum {
    OUTC_RAISES = 16,        /* eager PyTorch scalar fill raises (float16 overflow) */
    OUTC_REINTERPRETED = 17, /* bfloat16 bits read as float16 (vLLM float16 cache on a bf16 model) */
    OUTC_COUNT = 18
};

typedef struct rule {
    const char *id, *name;
    kv_severity severity;
    const char *summary, *why, *message, *fix;
    const char *const *references;   /* NULL-terminated */
    rule_family family;
    unsigned values;         /* bit per value_kind */
    unsigned outcomes;       /* bit per outcome class */
    unsigned operands;       /* bit per kv_operand; all when the file does not say */
    unsigned facts;          /* store-integer: bit 0 stores, bit 1 int casts */
    bool range_known;        /* store-integer: true = known range exceeds the limit; false = unknown range */
    double limit_below;      /* store-integer unknown range: only when the exact limit is below this */
    double mask_floor;       /* store-value: a saturated key sentinel at least this large still masks */
    double operand_bound;    /* arithmetic: the largest magnitude an operand of unknown value is taken to
                                have (scores and logits; INFINITY when the rule file does not say) */
    const char *const *unless; /* rule ids: skip a finding that one of these already made */
    /* explain's worked example (all optional) */
    const char *ex_value, *ex_kv, *ex_model, *ex_engine, *ex_operand, *ex_api, *ex_other;
    double ex_range;
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
const char *rule_family_name(rule_family f);
const char *outcome_class_name(int c);

#endif
