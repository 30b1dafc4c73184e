/*
 * rules.c: loading rule files (libyaml document API) into rule records, with validation.
 *
 * Every error names file:line:col of the offending node. Strings are copied into the rule set's
 * arena, so the libyaml document is freed as soon as a file is read. This file knows the rule
 * file schema (docs/rules/README.md); what a `condition:` may say, and which {placeholders} a
 * message may use, it asks the rule's family (family.h). It evaluates nothing.
 */
#include "check/rules.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "check/family.h"
#include "facts/facts.h"
#include "util/strbuf.h"
#include "util/fsutil.h"
#include "util/xalloc.h"
#include "util/strlist.h"

const char *severity_name(kv_severity s)
{
    switch (s) {
#define KV_SEVERITY_NAME(e, name) case e: return name;
    KV_SEVERITIES(KV_SEVERITY_NAME)
#undef KV_SEVERITY_NAME
    }
    return "error";
}

bool severity_by_name(const char *name, kv_severity *out)
{
#define KV_SEVERITY_MATCH(e, n) if (name && strcmp(name, n) == 0) { *out = e; return true; }
    KV_SEVERITIES(KV_SEVERITY_MATCH)
#undef KV_SEVERITY_MATCH
    return false;
}

const char *outcome_class_name(int c)
{
    switch (c) {
#define KV_RULE_OUTCOME_NAME(e, value, name) case e: return name;
    KV_RULE_OUTCOMES(KV_RULE_OUTCOME_NAME)
#undef KV_RULE_OUTCOME_NAME
    }
    return c >= 0 && c < KVN_OUTCOME_COUNT ? kvn_outcome_name((kvn_outcome)c) : NULL;
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
    void *settings;                 /* the rule's family settings while they are read */
    const yaml_node_t *message;     /* the message node, checked once the family is known */
} loader;

static void load_errorf(loader *L, const yaml_node_t *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void load_errorf(loader *L, const yaml_node_t *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = arena_vprintf(L->set->arena, fmt, ap);
    va_end(ap);
    diag_add(L->diags, DIAG_ERROR, L->path, n ? (uint32_t)n->start_mark.line + 1 : 0,
             n ? (uint32_t)n->start_mark.column + 1 : 0, "%s", msg);
    L->ok = false;
}

static const char *scalar(loader *L, const yaml_node_t *n, const char *key)
{
    if (!n || n->type != YAML_SCALAR_NODE) {
        load_errorf(L, n, "'%s' must be a string", key);
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
        load_errorf(L, n, "'%s' must be a number", key);
        return false;
    }
    return true;
}

/* A sequence of scalars (or one scalar) as a NULL-terminated arena array. */
static const char *const *string_list(loader *L, const yaml_node_t *n, const char *key)
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
        load_errorf(L, n, "'%s' must be a list of strings", key);
        return NULL;
    }
    return v;
}

/* ---- the names a setting may take ---- */

static const char *value_kind_at(int i) { return i <= VK_FLOAT ? value_kind_name((value_kind)i) : NULL; }
static const char *operand_at(int i) { return i <= OPERAND_KV ? operand_name((kv_operand)i) : NULL; }

/* The i-th name setting st may take (NULL: none at i), and how many indices there are. */
static const char *setting_name(const family_setting *st, int i)
{
    switch (st->kind) {
    case SETTING_VALUES: return value_kind_at(i);
    case SETTING_OPERANDS: return operand_at(i);
    case SETTING_OUTCOMES: return outcome_class_name(i);
    case SETTING_NAMES:
    case SETTING_CHOICE: return st->names[i];
    case SETTING_NUMBER: break;
    }
    return NULL;
}

static int setting_count(const family_setting *st)
{
    switch (st->kind) {
    case SETTING_VALUES: return VK_FLOAT + 1;
    case SETTING_OPERANDS: return OPERAND_KV + 1;
    case SETTING_OUTCOMES: return OUTC_COUNT;
    case SETTING_NAMES:
    case SETTING_CHOICE: {
        int n = 0;
        while (st->names[n])
            n++;
        return n;
    }
    case SETTING_NUMBER: break;
    }
    return 0;
}

static int setting_index(const family_setting *st, const char *name)
{
    for (int i = 0, n = setting_count(st); i < n; i++)
        if (setting_name(st, i) && strcmp(setting_name(st, i), name) == 0)
            return i;
    return -1;
}

static unsigned bits_from_names(loader *L, const yaml_node_t *n, const family_setting *st)
{
    unsigned bits = 0;
    const char *const *names = string_list(L, n, st->key);
    for (size_t i = 0; names && names[i]; i++) {
        int ix = setting_index(st, names[i]);
        if (ix < 0)
            load_errorf(L, n, "unknown name in '%s'", st->key);
        else
            bits |= 1u << ix;
    }
    return bits;
}

/* "range is known or unknown, not 'x'" */
static void choice_error(loader *L, const yaml_node_t *n, const family_setting *st, const char *s)
{
    strbuf sb = STRBUF_INIT;
    for (int i = 0, k = setting_count(st); i < k; i++)
        sb_addf(&sb, "%s%s", i == 0 ? "" : i == k - 1 ? " or " : ", ", st->names[i]);
    load_errorf(L, n, "%s is %s, not '%s'", st->key, sb_str(&sb), s);
    sb_release(&sb);
}

/* One `condition:` setting the rule's family declares, into the rule or the family's settings. */
static void read_setting(loader *L, rule *r, const yaml_node_t *v, const family_setting *st)
{
    /* where a family setting is stored; the kinds read into the rule itself need no block, and
     * their families may have none (no pointer arithmetic on NULL: a clang UBSan report) */
    char *at = L->settings ? (char *)L->settings + st->offset : NULL;
    switch (st->kind) {
    case SETTING_VALUES: r->values = bits_from_names(L, v, st); break;
    case SETTING_OUTCOMES: r->outcomes = bits_from_names(L, v, st); break;
    case SETTING_OPERANDS: r->operands = bits_from_names(L, v, st); break;
    case SETTING_NAMES: {
        unsigned bits = bits_from_names(L, v, st);
        if (at)
            memcpy(at, &bits, sizeof bits);
        break;
    }
    case SETTING_CHOICE: {
        const char *s = scalar(L, v, st->key);
        int ix = s ? setting_index(st, s) : -1;
        if (s && ix < 0)
            choice_error(L, v, st, s);
        else if (s && at)
            memcpy(at, &ix, sizeof ix);
        break;
    }
    case SETTING_NUMBER: {
        double x;
        if (!number(L, v, st->key, &x))
            break;
        if (st->above_zero && !(x > 0))
            load_errorf(L, v, "%s is a magnitude above 0", st->key);
        if (at)
            memcpy(at, &x, sizeof x);
        break;
    }
    }
}

/* Message placeholders are {name}; every name must be one the rule's family fills. */
static void check_template(loader *L, const yaml_node_t *n, const char *t, const family_def *fam)
{
    for (const char *p = strchr(t, '{'); p; p = strchr(p + 1, '{')) {
        const char *end = strchr(p, '}');
        if (!end) {
            load_errorf(L, n, "unclosed '{' in %s", "message");
            return;
        }
        char name[32];
        size_t len = (size_t)(end - p - 1);
        if (len == 0 || len >= sizeof name) {
            load_errorf(L, n, "bad placeholder in %s", "message");
            continue;
        }
        memcpy(name, p + 1, len);
        name[len] = '\0';
        if (fam && !family_has_placeholder(fam, name)) {
            strbuf sb = STRBUF_INIT;
            for (size_t i = 0; fam->placeholders && fam->placeholders[i]; i++)
                sb_addf(&sb, "%s ", fam->placeholders[i]);
            load_errorf(L, n, "unknown placeholder {%s} in message: family '%s' fills %sfix deployment", name,
                        fam->name, sb_str(&sb));
            sb_release(&sb);
        }
    }
}

typedef void (*field_fn)(loader *L, rule *r, const yaml_node_t *v, const char *key);

static void each_pair(loader *L, rule *r, const yaml_node_t *m, const char *what, field_fn fn);
static void load_condition(loader *L, rule *r, const yaml_node_t *m);

static void example_engine(loader *L, const yaml_node_t *v, kv_engine *out)
{
    const char *name = scalar(L, v, "engine");
    if (name && !engine_parse(name, out))
        load_errorf(L, v, "example engine '%s' is none kvlint models (vllm, sglang, trtllm, transformers, ...)", name);
}

static void example_field(loader *L, rule *r, const yaml_node_t *v, const char *key)
{
    rule_example *x = &r->example;
    if (strcmp(key, "value") == 0) x->value = scalar(L, v, key);
    else if (strcmp(key, "kv_cache_dtype") == 0) x->kv = scalar(L, v, key);
    else if (strcmp(key, "dtype") == 0) x->model = scalar(L, v, key);
    else if (strcmp(key, "engine") == 0) example_engine(L, v, &x->engine);
    else if (strcmp(key, "operand") == 0) x->operand = scalar(L, v, key);
    else if (strcmp(key, "api") == 0) x->api = scalar(L, v, key);
    else if (strcmp(key, "other") == 0) x->other = scalar(L, v, key);
    else if (strcmp(key, "range") == 0) number(L, v, key, &x->range);
    else load_errorf(L, v, "unknown example key '%s'", key);
}

static void top_field(loader *L, rule *r, const yaml_node_t *v, const char *key)
{
    if (strcmp(key, "id") == 0) r->id = scalar(L, v, key);
    else if (strcmp(key, "name") == 0) r->name = scalar(L, v, key);
    else if (strcmp(key, "summary") == 0) r->summary = scalar(L, v, key);
    else if (strcmp(key, "why") == 0) r->why = scalar(L, v, key);
    else if (strcmp(key, "fix") == 0) r->fix = scalar(L, v, key);
    else if (strcmp(key, "message") == 0) {
        r->message = scalar(L, v, key);
        L->message = v;
    } else if (strcmp(key, "severity") == 0) {
        const char *s = scalar(L, v, key);
        if (!s) return;
        if (strcmp(s, "error") == 0) r->severity = SEV_ERROR;
        else if (strcmp(s, "warning") == 0) r->severity = SEV_WARNING;
        else if (strcmp(s, "note") == 0) r->severity = SEV_NOTE;
        else load_errorf(L, v, "severity is error, warning or note, not '%s'", s);
    } else if (strcmp(key, "default") == 0) {
        const char *s = scalar(L, v, key);
        if (s && strcmp(s, "off") == 0) r->default_off = true;
        else if (s && strcmp(s, "on") != 0) load_errorf(L, v, "default is on or off, not '%s'", s);
    } else if (strcmp(key, "references") == 0) r->references = string_list(L, v, key);
    else if (strcmp(key, "condition") == 0) load_condition(L, r, v);
    else if (strcmp(key, "example") == 0) each_pair(L, r, v, "example", example_field);
    else load_errorf(L, v, "unknown key '%s'", key);
}

/* A condition key other than `family`: `unless`, or a setting the family declares. */
static void condition_field(loader *L, rule *r, const yaml_node_t *v, const char *key)
{
    if (strcmp(key, "family") == 0)
        return; /* read first, by load_condition */
    if (strcmp(key, "unless") == 0) {
        r->unless = string_list(L, v, key);
        return;
    }
    for (const family_setting *st = r->family->settings; st && st->key; st++)
        if (strcmp(st->key, key) == 0) {
            read_setting(L, r, v, st);
            return;
        }
    strbuf sb = STRBUF_INIT;
    for (const family_setting *st = r->family->settings; st && st->key; st++)
        sb_addf(&sb, "%s%s", sb.len ? ", " : "", st->key);
    load_errorf(L, v, "unknown condition key '%s': family '%s' has %s%s", key, r->family->name,
                sb.len ? "the settings " : "no settings", sb_str(&sb));
    sb_release(&sb);
}

static void each_pair(loader *L, rule *r, const yaml_node_t *m, const char *what, field_fn fn)
{
    if (!m || m->type != YAML_MAPPING_NODE) {
        load_errorf(L, m, "%s must be a mapping", what);
        return;
    }
    for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(L->doc, p->key);
        yaml_node_t *v = yaml_document_get_node(L->doc, p->value);
        if (!k || k->type != YAML_SCALAR_NODE || !v) {
            load_errorf(L, k, "%s keys must be strings", what);
            continue;
        }
        char key[64];
        snprintf(key, sizeof key, "%.*s", (int)k->data.scalar.length, (const char *)k->data.scalar.value);
        fn(L, r, v, key);
    }
}

/* The family first (its settings say what the other keys may be), then the other keys. */
static void load_condition(loader *L, rule *r, const yaml_node_t *m)
{
    if (!m || m->type != YAML_MAPPING_NODE) {
        load_errorf(L, m, "%s must be a mapping", "condition");
        return;
    }
    const yaml_node_t *fam = NULL;
    for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(L->doc, p->key);
        if (k && k->type == YAML_SCALAR_NODE && k->data.scalar.length == 6 &&
            memcmp(k->data.scalar.value, "family", 6) == 0)
            fam = yaml_document_get_node(L->doc, p->value);
    }
    if (!fam) {
        load_errorf(L, m, "condition needs a %s", "family");
        return;
    }
    const char *name = scalar(L, fam, "family");
    if (!name)
        return;
    r->family = family_find(name);
    if (!r->family) {
        strbuf sb = STRBUF_INIT;
        family_names(&sb);
        load_errorf(L, fam, "unknown condition family '%s' (the families: %s)", name, sb_str(&sb));
        sb_release(&sb);
        return;
    }
    L->settings = r->family->settings_size
                      ? arena_memdup(L->set->arena, r->family->defaults, r->family->settings_size) : NULL;
    r->settings = L->settings;
    each_pair(L, r, m, "condition", condition_field);
}

static void require(loader *L, const yaml_node_t *root, const char *what, const void *field)
{
    if (!field)
        load_errorf(L, root, "missing required key '%s'", what);
}

static void load_rule(loader *L, const yaml_node_t *root)
{
    rule r = { .operands = 1u << OPERAND_KEY | 1u << OPERAND_VALUE | 1u << OPERAND_KV, .severity = SEV_ERROR };
    r.path = arena_strdup(L->set->arena, L->path);
    r.line = (unsigned)root->start_mark.line + 1;
    each_pair(L, &r, root, "a rule file", top_field);
    if (r.message)
        check_template(L, L->message, r.message, r.family);
    require(L, root, "id", r.id);
    require(L, root, "name", r.name);
    require(L, root, "summary", r.summary);
    require(L, root, "message", r.message);
    require(L, root, "condition", r.family);
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
    loader L = { .set = set, .doc = &doc, .path = path, .diags = diags, .ok = true };
    if (!yaml_parser_load(&parser, &doc)) {
        diag_add(diags, DIAG_ERROR, path, (uint32_t)parser.problem_mark.line + 1,
                 (uint32_t)parser.problem_mark.column + 1, "malformed rule file: %s",
                 parser.problem ? parser.problem : "YAML error");
        L.ok = false;
    } else {
        yaml_node_t *root = yaml_document_get_root_node(&doc);
        if (!root)
            load_errorf(&L, NULL, "empty rule file");
        else
            load_rule(&L, root);
        yaml_document_delete(&doc);
    }
    yaml_parser_delete(&parser);
    free(data);
    return L.ok;
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
        if (str_ends_with(files.paths[i], ".yaml") || str_ends_with(files.paths[i], ".yml"))
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
