/*
 * pyconfig.c: numbers read from the model's checkpoint config in code: `config.attention_multiplier`,
 * `self.config.x`, `hf_config.control_token_gain`, `vllm_config.model_config.hf_config.x`,
 * `getattr(cfg, "x", default)`, and the dict forms `config.get("x", default)`, `config["x"]` (a
 * checkpoint config loaded as a dict, or a PretrainedConfig's to_dict()). Each becomes a symbolic field value (a kv_expr leaf, facts.h): unknown
 * here, resolved per deployment from its checkpoint's config.json (resolve/ binds the fields, check/
 * evaluates the expression); arithmetic on such values stays symbolic (pyvalue.c).
 * A config object is recognised by the name it is reached through (its last component):
 * config, hf_config, text_config, hf_text_config, pretrained_config, cfg. It does not follow a config
 * copied into another name (`c = self.config` keeps `c.x` unknown).
 */
#include <math.h>
#include <string.h>

#include "python/pyeval.h"

bool py_is_config_name(const char *s, size_t n)
{
    static const char *const names[] = {
        "config", "hf_config", "text_config", "hf_text_config", "pretrained_config", "cfg", NULL,
    };
    if (n < 3 || s[n - 1] != 'g')   /* every name ends in "config" or is "cfg": the prefilter asks per word */
        return false;
    for (size_t i = 0; names[i]; i++)
        if (strlen(names[i]) == n && !memcmp(s, names[i], n))
            return true;
    return false;
}

static bool config_name(const char *s)
{
    return py_is_config_name(s, strlen(s));
}

/* Is the expression objn (the object of `objn.attr`, or getattr's first argument) the config? */
static bool is_config_object(pe_ctx *e, TSNode objn)
{
    if (pe_is(objn, "identifier"))
        return config_name(pe_raw_text(e, objn));
    if (pe_is(objn, "attribute"))
        return config_name(pe_raw_text(e, pe_fld(e, objn, F_attribute)));
    return false;
}

/* A field name a config.json can hold as a number: a plain identifier, not a dunder, not a dtype. */
bool py_is_config_field(const char *f, size_t n)
{
    if (n == 0 || (n >= 2 && f[0] == '_' && f[1] == '_'))
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = f[i];
        if (!(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
            return false;
        if (i + 5 <= n && !memcmp(f + i, "dtype", 5))
            return false;
    }
    return true;
}

static bool numeric_field_name(const char *f)
{
    return f && py_is_config_field(f, strlen(f));
}

static aval field_value(pe_ctx *e, TSNode at, const char *field, bool has_default, double dflt)
{
    kv_expr *x = arena_zalloc(e->a, sizeof *x);   /* a leaf: nodes 0 counts 1 (kv_expr_nodes) */
    x->op = KX_FIELD;
    x->field = arena_strdup(e->a, field);
    x->has_default = has_default;
    x->num = has_default ? dflt : 0;
    kv_value v = pe_value_make(e, VK_UNKNOWN, -INFINITY, INFINITY, at);
    v.expr = x;
    return av_const(e->s, &v);
}

bool pe_config_attr(pe_ctx *e, TSNode attr_node, TSNode objn, const aval *obj, const char *attr, aval *out)
{
    if (obj->tag != AV_VALUES || obj->n != 0 || obj->tensor || !numeric_field_name(attr) || !is_config_object(e, objn))
        return false;
    TSNode parent = ts_node_parent(attr_node);
    if (!ts_node_is_null(parent) && pe_is(parent, "call") && ts_node_eq(pe_fld(e, parent, F_function), attr_node))
        return false; /* config.get_text_config(): a method */
    *out = field_value(e, attr_node, attr, false, 0);
    return true;
}

bool pe_config_getattr(pe_ctx *e, TSNode call, const args *g, aval *out)
{
    if ((g->npos != 2 && g->npos != 3) || g->nkw || g->posv[1].tag != AV_STR || !g->posv[1].str)
        return false;
    if (!is_config_object(e, g->pos[0]) || !numeric_field_name(g->posv[1].str))
        return false;
    double d = 0;
    bool has_default = g->npos == 3;
    if (has_default && !av_single(&g->posv[2], &d))
        return false; /* a default that is not a constant: the value is not one expression */
    *out = field_value(e, call, g->posv[1].str, has_default, d);
    return true;
}

/* config.get("x") / config.get("x", d): a missing key gives None (no number: unknown) or d. */
bool pe_config_get(pe_ctx *e, TSNode call, TSNode recv_node, const aval *recv, const args *g, aval *out)
{
    if (recv->tag != AV_VALUES || recv->n != 0 || recv->tensor || (g->npos != 1 && g->npos != 2) || g->nkw)
        return false;
    if (g->posv[0].tag != AV_STR || !numeric_field_name(g->posv[0].str) || !is_config_object(e, recv_node))
        return false;
    double d = 0;
    bool has_default = g->npos == 2;
    if (has_default && !av_single(&g->posv[1], &d))
        return false;
    *out = field_value(e, call, g->posv[0].str, has_default, d);
    return true;
}

/* config["x"] with a string literal: a missing key raises, so there is no default. The key is
 * evaluated only then (a subscript holding a call is evaluated once, by its own walk). */
bool pe_config_item(pe_ctx *e, TSNode sub, TSNode objn, const aval *obj, TSNode keyn, aval *out)
{
    if (obj->tag != AV_VALUES || obj->n != 0 || obj->tensor || ts_node_is_null(keyn) || !pe_is(keyn, "string") ||
        !is_config_object(e, objn))
        return false;
    aval key = pe_eval(e, keyn);
    if (key.tag != AV_STR || !numeric_field_name(key.str))
        return false;
    *out = field_value(e, sub, key.str, false, 0);
    return true;
}
