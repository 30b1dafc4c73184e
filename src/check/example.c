/*
 * example.c: the parts of `kvlint explain`'s worked example every family shares: the example
 * deployment (from the rule file's `example:` block), its value, a store of it, and the wording
 * of the shared selectors. Each family's own example and condition line are in its fam_*.c;
 * printing is cmd_explain.c's.
 */
#include <math.h>
#include <string.h>

#include "check/family.h"

static const char *const example_path = "example.py";

kv_loc ex_loc(void)
{
    return kv_loc_make(example_path, 2, 5, 0, 0);
}

dtype_ref ex_model_ref(void)
{
    return (dtype_ref){ .kind = DREF_MODEL, .text = "self.dtype", .loc = ex_loc() };
}

kv_value ex_value(const rule *r, kvn_dtype model)
{
    const char *text = r->example.value ? r->example.value : "-1e9";
    kv_value v = { .kind = VK_SENTINEL, .sym_scale = 1, .text = text, .origin = kv_loc_make(example_path, 1, 1, 0, 0) };
    bool b32;
    if (strncmp(text, "torch.finfo(", 12) == 0 || strncmp(text, "finfo(", 6) == 0) {
        v.sym = SYM_FINFO_MIN;
        v.sym_dtype = (dtype_ref){ .kind = DREF_CONCRETE, .text = "torch.float32", .dtype = kvn_dtype_by_fmt(KVN_F32) };
        if (strstr(text, "dtype") && !strstr(text, "float32"))
            v.sym_dtype = (dtype_ref){ .kind = DREF_MODEL, .text = "self.dtype" };
        v.lo = value_concrete(&v, model, model, (dtype_spelling){ SPELL_EXPLICIT, SPELL_EXPLICIT });
    } else if (!kvn_parse_number(text, &v.lo, &b32)) {
        v.lo = -1e9;
    } else if (fabs(v.lo) < 1e4) {
        v.kind = VK_FLOAT; /* the front ends call a constant a sentinel from 1e4 on (pyfe.h) */
    }
    v.hi = v.lo;
    return v;
}

kv_value *ex_add_store(const rule *r, file_facts *f, size_t nvalues)
{
    kvn_dtype model = r->example.model ? kvn_dtype_parse(r->example.model, false) : kvn_dtype_by_fmt(KVN_BF16);
    kv_value *v = arena_zalloc(f->arena, 2 * sizeof *v);
    v[0] = ex_value(r, model);
    v[1] = (kv_value){ .kind = VK_FLOAT, .lo = -3.5, .hi = 3.5, .text = "x", .sym_scale = 1 };
    bool key = !r->example.operand || strcmp(r->example.operand, "value") != 0;
    store_fact s = { .loc = ex_loc(), .via = SINK_ATTENTION_LAYER, .sink = "self.attn",
                     .engine = r->example.engine, .operand = key ? OPERAND_KEY : OPERAND_VALUE,
                     .tensor = key ? "k" : "v", .values = v, .nvalues = nvalues < 2 ? nvalues : 2,
                     .shares_block = true };
    ARENA_PUSH(f->arena, f->stores, s);
    return v;
}

void ex_stored_value(const rule *r, file_facts *f, deployment *d)
{
    (void)d;
    ex_add_store(r, f, 1);
}

void rule_example_facts(const rule *r, file_facts *f, deployment *d)
{
    const rule_example *x = &r->example;
    kvn_dtype model = x->model ? kvn_dtype_parse(x->model, false) : kvn_dtype_by_fmt(KVN_BF16);
    *d = (deployment){ .name = "example", .engine = x->engine,
                       .kv = { .dtype = x->kv ? kvn_dtype_parse(x->kv, false) : model, .how = "example deployment" },
                       .model = { .dtype = model, .how = "example deployment" } };
    r->family->example(r, f, d);
}

static void add_names(strbuf *sb, const char *label, unsigned bits, const char *(*name)(int), int n)
{
    bool first = true;
    for (int i = 0; i < n; i++)
        if ((bits >> i) & 1u) {
            sb_addf(sb, "%s%s", first ? label : ", ", name(i));
            first = false;
        }
}

static const char *value_kind_at(int i) { return value_kind_name((value_kind)i); }

void ex_describe_outcomes(strbuf *sb, const rule *r)
{
    if (r->outcomes)
        add_names(sb, "; outcomes: ", r->outcomes, outcome_class_name, OUTC_COUNT);
}

void ex_describe_selectors(strbuf *sb, const rule *r)
{
    add_names(sb, "; values: ", r->values, value_kind_at, VK_FLOAT + 1);
    ex_describe_outcomes(sb, r);
}

void rule_describe(strbuf *sb, const rule *r)
{
    if (r->family->describe)
        r->family->describe(sb, r);
    for (size_t i = 0; r->unless && r->unless[i]; i++)
        sb_addf(sb, "%s%s", i ? ", " : "; not reported where ", r->unless[i]);
    if (r->unless)
        sb_adds(sb, " already is");
}
