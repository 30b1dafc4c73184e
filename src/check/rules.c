/*
 * rules.c: loading rule files (libyaml document API) into rule records, with validation.
 *
 * Every error names file:line:col of the offending node. Strings are copied into the rule set's
 * arena, so the libyaml document is freed as soon as a file is read. This file knows the rule
 * file schema (docs/rules/README.md) and nothing about facts or numerics.
 */
#include "check/rules.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "facts/facts.h"
#include "util/fsutil.h"
#include "util/xalloc.h"

static const char *const family_names[] = {
    [FAM_STORE_VALUE] = "store-value",
    [FAM_STORE_INTEGER] = "store-integer",
    [FAM_SCALE_CRUSH] = "scale-crush",
    [FAM_CONSTRUCTION] = "construction",
    [FAM_ARITH] = "arithmetic",
    [FAM_DECL_INVALID] = "invalid-dtype-name",
    [FAM_UNRESOLVED] = "unresolved-dtype",
    [FAM_UNUSED_SUPPRESSION] = "unused-suppression",
};

static const char *const outcome_names[OUTC_COUNT] = {
    [KVN_EXACT] = "exact",
    [KVN_ROUNDED] = "rounded",
    [KVN_SATURATED] = "saturated",
    [KVN_OVERFLOW_INF] = "overflow-inf",
    [KVN_OVERFLOW_NAN] = "overflow-nan",
    [KVN_UNDERFLOW_ZERO] = "underflow-zero",
    [KVN_CRUSHED] = "crushed",
    [OUTC_RAISES] = "raises",
    [OUTC_REINTERPRETED] = "reinterpreted",
};

/* Placeholders a message template may use (the fam_*.c files fill them; unknown ones are load errors). */
static const char *const known_vars[] = {
    "value", "dtype", "declared", "fix", "deployment", "sink", "operand", "stored", "consequence",
    "model_dtype", "range", "limit", "first_inexact", "first_stored", "range_hint", "neighbour",
    "neighbour_stored", "scale_how", "api", "result", "expr", "raw", "valid", "reason", "ids",
    "readback", NULL,
};

const char *severity_name(kv_severity s)
{
    switch (s) {
    case SEV_NOTE: return "note";
    case SEV_WARNING: return "warning";
    case SEV_ERROR: return "error";
    }
    return "error";
}

const char *rule_family_name(rule_family f)
{
    return family_names[f];
}

const char *outcome_class_name(int c)
{
    return c >= 0 && c < OUTC_COUNT ? outcome_names[c] : NULL;
}

rule_set *rule_set_new(void)
{
    rule_set *s = xcalloc(1, sizeof *s);
    s->arena = arena_new();
    return s;
}

void rule_set_free(rule_set *s)
{
    if (!s)
        return;
    arena_free(s->arena);
    free(s);
}

/* ---- one file ---- */

typedef struct loader {
    rule_set *set;
    yaml_document_t *doc;
    const char *path;
    diag_list *diags;
    bool ok;
} loader;

static void load_error(loader *L, const yaml_node_t *n, const char *fmt, const char *arg)
{
    diag_add(L->diags, DIAG_ERROR, L->path, n ? (uint32_t)n->start_mark.line + 1 : 0,
             n ? (uint32_t)n->start_mark.column + 1 : 0, fmt, arg);
    L->ok = false;
}

static const char *scalar(loader *L, const yaml_node_t *n, const char *key)
{
    if (!n || n->type != YAML_SCALAR_NODE) {
        load_error(L, n, "'%s' must be a string", key);
        return NULL;
    }
    size_t len = n->data.scalar.length;
    while (len && (n->data.scalar.value[len - 1] == '\n' || n->data.scalar.value[len - 1] == ' '))
        len--; /* block scalars end in a newline */
    return arena_strndup(L->set->arena, (const char *)n->data.scalar.value, len);
}

static bool number(loader *L, const yaml_node_t *n, const char *key, double *out)
{
    const char *s = scalar(L, n, key);
    if (!s)
        return false;
    char *end;
    errno = 0;
    *out = strtod(s, &end);
    if (errno || end == s || *end) {
        load_error(L, n, "'%s' must be a number", key);
        return false;
    }
    return true;
}

/* A sequence of scalars (or one scalar) as a NULL-terminated arena array. */
static const char *const *string_list(loader *L, const yaml_node_t *n, const char *key, size_t *count)
{
    size_t k = 0;
    const char **v;
    if (n->type == YAML_SCALAR_NODE) {
        v = arena_zalloc(L->set->arena, 2 * sizeof *v);
        v[k++] = scalar(L, n, key);
    } else if (n->type == YAML_SEQUENCE_NODE) {
        size_t len = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
        v = arena_zalloc(L->set->arena, (len + 1) * sizeof *v);
        for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
            const char *s = scalar(L, yaml_document_get_node(L->doc, *it), key);
            if (s)
                v[k++] = s;
        }
    } else {
        load_error(L, n, "'%s' must be a list of strings", key);
        return NULL;
    }
    if (count)
        *count = k;
    return v;
}

/* Look a name up in a table of n names; -1 if absent. */
static int name_index(const char *const *table, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (table[i] && strcmp(table[i], name) == 0)
            return (int)i;
    return -1;
}

static unsigned bits_from_names(loader *L, const yaml_node_t *n, const char *key,
                                const char *const *table, size_t ntable)
{
    unsigned bits = 0;
    const char *const *names = string_list(L, n, key, NULL);
    for (size_t i = 0; names && names[i]; i++) {
        int ix = name_index(table, ntable, names[i]);
        if (ix < 0)
            load_error(L, n, "unknown name in '%s'", key);
        else
            bits |= 1u << ix;
    }
    return bits;
}

static const char *const value_kind_names[] = { "unknown", "sentinel", "integer", "float" };
static const char *const operand_names[] = { "key", "value", "kv" };
static const char *const fact_names[] = { "store", "intcast" };

/* Message placeholders are {name}; every name must be one a family fills. */
static void check_template(loader *L, const yaml_node_t *n, const char *t)
{
    for (const char *p = strchr(t, '{'); p; p = strchr(p + 1, '{')) {
        const char *end = strchr(p, '}');
        if (!end) {
            load_error(L, n, "unclosed '{' in %s", "message");
            return;
        }
        char name[32];
        size_t len = (size_t)(end - p - 1);
        if (len == 0 || len >= sizeof name) {
            load_error(L, n, "bad placeholder in %s", "message");
            continue;
        }
        memcpy(name, p + 1, len);
        name[len] = '\0';
        if (name_index(known_vars, sizeof known_vars / sizeof *known_vars - 1, name) < 0)
            load_error(L, n, "unknown placeholder {%s} in message", name);
    }
}

typedef void (*field_fn)(loader *L, rule *r, const yaml_node_t *v, const char *key);

static void load_condition(loader *L, rule *r, const yaml_node_t *m);
static void load_example(loader *L, rule *r, const yaml_node_t *m);

static void top_field(loader *L, rule *r, const yaml_node_t *v, const char *key)
{
    if (strcmp(key, "id") == 0) r->id = scalar(L, v, key);
    else if (strcmp(key, "name") == 0) r->name = scalar(L, v, key);
    else if (strcmp(key, "summary") == 0) r->summary = scalar(L, v, key);
    else if (strcmp(key, "why") == 0) r->why = scalar(L, v, key);
    else if (strcmp(key, "fix") == 0) r->fix = scalar(L, v, key);
    else if (strcmp(key, "message") == 0) {
        r->message = scalar(L, v, key);
        if (r->message)
            check_template(L, v, r->message);
    } else if (strcmp(key, "severity") == 0) {
        const char *s = scalar(L, v, key);
        if (!s) return;
        if (strcmp(s, "error") == 0) r->severity = SEV_ERROR;
        else if (strcmp(s, "warning") == 0) r->severity = SEV_WARNING;
        else if (strcmp(s, "note") == 0) r->severity = SEV_NOTE;
        else load_error(L, v, "severity is error, warning or note, not '%s'", s);
    } else if (strcmp(key, "default") == 0) {
        const char *s = scalar(L, v, key);
        if (s && strcmp(s, "off") == 0) r->default_off = true;
        else if (s && strcmp(s, "on") != 0) load_error(L, v, "default is on or off, not '%s'", s);
    } else if (strcmp(key, "references") == 0) r->references = string_list(L, v, key, NULL);
    else if (strcmp(key, "condition") == 0) load_condition(L, r, v);
    else if (strcmp(key, "example") == 0) load_example(L, r, v);
    else load_error(L, v, "unknown key '%s'", key);
}

static void condition_field(loader *L, rule *r, const yaml_node_t *v, const char *key)
{
    if (strcmp(key, "family") == 0) {
        const char *s = scalar(L, v, key);
        int ix = s ? name_index(family_names, sizeof family_names / sizeof *family_names, s) : -1;
        if (s && ix < 0)
            load_error(L, v, "unknown condition family '%s'", s);
        else if (s)
            r->family = (rule_family)ix;
    } else if (strcmp(key, "values") == 0) {
        r->values = bits_from_names(L, v, key, value_kind_names, 4);
    } else if (strcmp(key, "outcomes") == 0) {
        r->outcomes = bits_from_names(L, v, key, outcome_names, OUTC_COUNT);
    } else if (strcmp(key, "operands") == 0) {
        r->operands = bits_from_names(L, v, key, operand_names, 3);
    } else if (strcmp(key, "facts") == 0) {
        r->facts = bits_from_names(L, v, key, fact_names, 2);
    } else if (strcmp(key, "unless") == 0) {
        r->unless = string_list(L, v, key, NULL);
    } else if (strcmp(key, "mask_floor") == 0) {
        number(L, v, key, &r->mask_floor);
    } else if (strcmp(key, "limit_below") == 0) {
        number(L, v, key, &r->limit_below);
    } else if (strcmp(key, "operand_bound") == 0) {
        if (number(L, v, key, &r->operand_bound) && !(r->operand_bound > 0))
            load_error(L, v, "%s is a magnitude above 0", key);
    } else if (strcmp(key, "range") == 0) {
        const char *s = scalar(L, v, key);
        if (s && strcmp(s, "known") == 0) r->range_known = true;
        else if (s && strcmp(s, "unknown") == 0) r->range_known = false;
        else if (s) load_error(L, v, "range is known or unknown, not '%s'", s);
    } else {
        load_error(L, v, "unknown condition key '%s'", key);
    }
}

static void example_field(loader *L, rule *r, const yaml_node_t *v, const char *key)
{
    if (strcmp(key, "value") == 0) r->ex_value = scalar(L, v, key);
    else if (strcmp(key, "kv_cache_dtype") == 0) r->ex_kv = scalar(L, v, key);
    else if (strcmp(key, "dtype") == 0) r->ex_model = scalar(L, v, key);
    else if (strcmp(key, "engine") == 0) r->ex_engine = scalar(L, v, key);
    else if (strcmp(key, "operand") == 0) r->ex_operand = scalar(L, v, key);
    else if (strcmp(key, "api") == 0) r->ex_api = scalar(L, v, key);
    else if (strcmp(key, "other") == 0) r->ex_other = scalar(L, v, key);
    else if (strcmp(key, "range") == 0) number(L, v, key, &r->ex_range);
    else load_error(L, v, "unknown example key '%s'", key);
}

static void each_pair(loader *L, rule *r, const yaml_node_t *m, const char *what, field_fn fn)
{
    if (!m || m->type != YAML_MAPPING_NODE) {
        load_error(L, m, "%s must be a mapping", what);
        return;
    }
    for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(L->doc, p->key);
        yaml_node_t *v = yaml_document_get_node(L->doc, p->value);
        if (!k || k->type != YAML_SCALAR_NODE || !v) {
            load_error(L, k, "%s keys must be strings", what);
            continue;
        }
        char key[64];
        snprintf(key, sizeof key, "%.*s", (int)k->data.scalar.length, (const char *)k->data.scalar.value);
        fn(L, r, v, key);
    }
}

static void load_condition(loader *L, rule *r, const yaml_node_t *m)
{
    r->family = (rule_family)-1;
    each_pair(L, r, m, "condition", condition_field);
    if ((int)r->family < 0)
        load_error(L, m, "condition needs a %s", "family");
}

static void load_example(loader *L, rule *r, const yaml_node_t *m)
{
    each_pair(L, r, m, "example", example_field);
}

static void require(loader *L, const yaml_node_t *root, const char *what, const void *field)
{
    if (!field)
        load_error(L, root, "missing required key '%s'", what);
}

static void load_rule(loader *L, const yaml_node_t *root)
{
    rule r = { .operands = 7, .facts = 1, .limit_below = 2048, .mask_floor = INFINITY, .operand_bound = INFINITY,
               .family = (rule_family)-1, .severity = SEV_ERROR };
    r.path = arena_strdup(L->set->arena, L->path);
    r.line = (unsigned)root->start_mark.line + 1;
    each_pair(L, &r, root, "a rule file", top_field);
    require(L, root, "id", r.id);
    require(L, root, "name", r.name);
    require(L, root, "summary", r.summary);
    require(L, root, "message", r.message);
    require(L, root, "condition", (int)r.family >= 0 ? "" : NULL);
    if (!L->ok)
        return;
    if (!r.values)
        r.values = 1u << VK_SENTINEL | 1u << VK_INTEGER | 1u << VK_FLOAT;
    if (!r.fix)
        r.fix = "";
    if (!r.why)
        r.why = "";
    ARENA_PUSH(L->set->arena, L->set->rules, r);
}

bool rules_load_file(rule_set *set, const char *path, diag_list *diags)
{
    char *data;
    size_t len;
    const char *err;
    if (fs_read_file(path, 1 << 20, &data, &len, &err) != FS_OK) {
        diag_add(diags, DIAG_ERROR, path, 0, 0, "cannot read rule file: %s", err ? err : "too large");
        return false;
    }
    yaml_parser_t parser;
    yaml_document_t doc;
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_string(&parser, (const unsigned char *)data, len);
    loader L = { set, &doc, path, diags, true };
    if (!yaml_parser_load(&parser, &doc)) {
        diag_add(diags, DIAG_ERROR, path, (uint32_t)parser.problem_mark.line + 1,
                 (uint32_t)parser.problem_mark.column + 1, "malformed rule file: %s",
                 parser.problem ? parser.problem : "YAML error");
        L.ok = false;
    } else {
        yaml_node_t *root = yaml_document_get_root_node(&doc);
        if (!root)
            load_error(&L, NULL, "empty rule file%s", "");
        else
            load_rule(&L, root);
        yaml_document_delete(&doc);
    }
    yaml_parser_delete(&parser);
    free(data);
    return L.ok;
}

static bool is_yaml(const char *p)
{
    size_t n = strlen(p);
    return (n > 5 && strcmp(p + n - 5, ".yaml") == 0) || (n > 4 && strcmp(p + n - 4, ".yml") == 0);
}

bool rules_load_dir(rule_set *set, const char *dir, diag_list *diags)
{
    if (!fs_is_dir(dir)) {
        diag_add(diags, DIAG_ERROR, dir, 0, 0, "rules directory not found");
        return false;
    }
    fs_list files = {0};
    bool ok = fs_walk(dir, &files, diags);
    fs_list_sort_unique(&files);
    for (size_t i = 0; i < files.n; i++)
        if (is_yaml(files.paths[i]))
            ok = rules_load_file(set, files.paths[i], diags) && ok;
    fs_list_free(&files);
    return ok;
}

bool rules_load_all(rule_set *set, const char *datadir, const char *const *dirs, size_t ndirs, diag_list *diags)
{
    char *builtin = fs_join(datadir, "rules");
    bool ok = rules_load_dir(set, builtin, diags);
    free(builtin);
    for (size_t i = 0; i < ndirs; i++)
        ok = rules_load_dir(set, dirs[i], diags) && ok;
    return rule_set_finish(set, diags) && ok;
}

static int rule_cmp(const void *a, const void *b)
{
    return strcmp(((const rule *)a)->id, ((const rule *)b)->id);
}

bool rule_set_finish(rule_set *s, diag_list *diags)
{
    if (s->rules.n)
        qsort(s->rules.v, s->rules.n, sizeof *s->rules.v, rule_cmp);
    bool ok = true;
    for (size_t i = 0; i < s->rules.n; i++) {
        const rule *r = &s->rules.v[i];
        for (size_t u = 0; r->unless && r->unless[u]; u++)
            if (!rule_find(s, r->unless[u])) {
                diag_add(diags, DIAG_ERROR, r->path, r->line, 1, "rule %s: 'unless' names no rule called '%s'",
                         r->id, r->unless[u]);
                ok = false;
            }
    }
    for (size_t i = 1; i < s->rules.n; i++) {
        const rule *a = &s->rules.v[i - 1], *b = &s->rules.v[i];
        if (strcmp(a->id, b->id) == 0) {
            diag_add(diags, DIAG_ERROR, b->path, b->line, 1, "rule id %s is already defined in %s", b->id, a->path);
            ok = false;
        }
    }
    return ok;
}

const rule *rule_find(const rule_set *s, const char *id_or_name)
{
    for (size_t i = 0; i < s->rules.n; i++)
        if (strcasecmp(s->rules.v[i].id, id_or_name) == 0 || strcmp(s->rules.v[i].name, id_or_name) == 0)
            return &s->rules.v[i];
    return NULL;
}
