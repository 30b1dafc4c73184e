/*
 * check_eval.c: unit tests for the rules area: rule-file loading (and its file:line errors) and
 * every condition family evaluated on hand-built facts and deployments, with the real numerics
 * and the real rules/ directory. The e2e tests cover the same through the front ends.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check/eval.h"
#include "check/rules.h"
#include "report/report.h"
#include "util/fsutil.h"
#include "util/numfmt.h"
#include "util/strbuf.h"

static rule_set *rules;

static const char *srcdir(void)
{
    const char *d = getenv("KVLINT_DATADIR");
    return d && *d ? d : ".";
}

static void load_rules(void)
{
    kv_arena *a = arena_new();
    diag_list dl;
    diag_init(&dl, a);
    rules = rule_set_new();
    bool ok = rules_load_all(rules, srcdir(), NULL, 0, &dl);
    for (size_t i = 0; i < dl.items.n; i++)
        diag_print(stderr, &dl.items.v[i]);
    arena_free(a);
    ck_assert(ok);
}

static void free_rules(void)
{
    rule_set_free(rules);
}

/* ---- builders ---- */

static kvn_dtype dt(const char *name)
{
    kvn_dtype d = kvn_dtype_parse(name, false);
    ck_assert_int_ne(d, KVN_DTYPE_INVALID);
    return d;
}

static deploy_decl kv_decl = { .key = DECL_KV_CACHE_DTYPE, .engine = ENGINE_VLLM, .raw = "x", .carrier = CARRIER_VLLM_CONFIG,
                              .loc = { "deploy/serve.yaml", 3, 17, 0, 0 } };

static deployment dep(kv_engine engine, const char *kv, const char *model)
{
    deployment d = { .name = "deploy/serve.yaml:1", .engine = engine, .loc = { "deploy/serve.yaml", 1, 1, 0, 0 } };
    d.kv = (resolved_dtype){ .dtype = kv ? dt(kv) : KVN_DTYPE_INVALID, .decl = &kv_decl, .how = "declared",
                             .unresolved = kv ? NULL : "auto without a checkpoint" };
    d.model = (resolved_dtype){ .dtype = dt(model), .how = "auto: checkpoint torch_dtype" };
    return d;
}

static kv_value sentinel(double x, const char *text, uint32_t line)
{
    return (kv_value){ .kind = VK_SENTINEL, .lo = x, .hi = x, .sym_scale = 1, .text = text,
                       .origin = { "m.py", line, 12, line, 12 + (uint32_t)strlen(text) } };
}

static store_fact store(file_facts *f, const kv_value *v, size_t n, kv_operand op, kv_engine engine)
{
    kv_value *copy = arena_memdup(f->arena, v, n * sizeof *v);
    store_fact s = { .loc = { "m.py", 30, 16, 0, 0 }, .via = SINK_ATTENTION_LAYER, .sink = "self.attn",
                     .engine = engine, .operand = op, .tensor = op == OPERAND_KEY ? "k" : "v",
                     .values = copy, .nvalues = n };
    ARENA_PUSH(f->arena, f->stores, s);
    return s;
}

static finding_list *run1(file_facts *f, const deployment *d, size_t nd, bool unused)
{
    deployment_set ds = { .v = (deployment *)d, .n = nd };
    eval_options eo = { .warn_unused_ignores = unused };
    return evaluate(rules, &f, 1, &ds, &eo);
}

static size_t count_rule(const finding_list *l, const char *id)
{
    size_t n = 0;
    for (size_t i = 0; i < l->v.n; i++)
        n += strcmp(l->v.v[i].rule->id, id) == 0;
    return n;
}

static const finding *first_of(const finding_list *l, const char *id)
{
    for (size_t i = 0; i < l->v.n; i++)
        if (strcmp(l->v.v[i].rule->id, id) == 0)
            return &l->v.v[i];
    ck_abort_msg("no %s finding", id);
    return NULL;
}

/* ---- rule files ---- */

START_TEST(builtin_rules_load)
{
    ck_assert_uint_ge(rules->rules.n, 11);
    const rule *r = rule_find(rules, "KV001");
    ck_assert_ptr_nonnull(r);
    ck_assert_str_eq(r->name, "sentinel-overflow");
    ck_assert_int_eq(r->severity, SEV_ERROR);
    ck_assert_ptr_eq(rule_find(rules, "sentinel-saturates"), rule_find(rules, "KV002"));
    ck_assert(rule_find(rules, "KV011")->default_off);
}
END_TEST

static bool load_text(const char *text, diag_list *dl)
{
    char path[] = "/tmp/kvlint-rule-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    rule_set *s = rule_set_new();
    bool ok = rules_load_file(s, path, dl);
    rule_set_free(s);
    unlink(path);
    return ok;
}

static void expect_load_error(const char *text, uint32_t line, const char *needle)
{
    kv_arena *a = arena_new();
    diag_list dl;
    diag_init(&dl, a);
    ck_assert(!load_text(text, &dl));
    ck_assert_uint_ge(dl.items.n, 1);
    ck_assert_uint_eq(dl.items.v[0].line, line);
    ck_assert_msg(strstr(dl.items.v[0].msg, needle), "'%s' lacks '%s'", dl.items.v[0].msg, needle);
    arena_free(a);
}

START_TEST(malformed_rule_files)
{
    expect_load_error("id: X1\nname: x\nsummary: s\nmessage: m\ncondition: {family: store-value}\nbogus: 1\n", 6, "unknown key");
    expect_load_error("id: X1\nname: x\nsummary: s\nmessage: m\ncondition:\n  family: nope\n", 6, "unknown condition family");
    expect_load_error("id: X1\nname: x\nsummary: s\nmessage: \"{nope}\"\ncondition: {family: arithmetic}\n", 4, "{nope}");
    expect_load_error("id: X1\nname: x\nsummary: s\nmessage: m\ncondition: {family: store-value, outcomes: [boom]}\n", 5, "outcomes");
    expect_load_error("id: X1\nname: [x\n", 3, "malformed");
    expect_load_error("id: X1\nname: x\nsummary: s\nmessage: m\n", 1, "condition");
    expect_load_error("id: X1\nname: x\nsummary: s\nseverity: fatal\nmessage: m\ncondition: {family: arithmetic}\n", 4, "severity");
}
END_TEST

/* A rule may only say what its family reads: a setting of another family (mask_floor is
 * store-value's) or a placeholder the family never fills ({limit} is store-integer's) is an error
 * at its line, not a setting silently ignored or a message that prints "{limit}". */
START_TEST(settings_and_placeholders_belong_to_the_family)
{
    expect_load_error("id: X1\nname: x\nsummary: s\nmessage: m\ncondition:\n  family: arithmetic\n"
                      "  outcomes: [overflow-inf]\n  mask_floor: 100\n", 8,
                      "unknown condition key 'mask_floor': family 'arithmetic' has the settings outcomes, operand_bound");
    expect_load_error("id: X1\nname: x\nsummary: s\nmessage: m\ncondition:\n  family: invalid-dtype-name\n"
                      "  values: [sentinel]\n", 7, "family 'invalid-dtype-name' has no settings");
    expect_load_error("id: X1\nname: x\nsummary: s\nmessage: \"{value} holds {limit}\"\n"
                      "condition: {family: store-value}\n", 4,
                      "unknown placeholder {limit} in message: family 'store-value' fills value dtype");
    /* the placeholder is checked against the family whatever the order of the keys */
    expect_load_error("id: X1\nname: x\nsummary: s\ncondition: {family: construction}\n"
                      "message: \"{value} {ids}\"\n", 5, "unknown placeholder {ids}");
    /* the family's own settings are validated as it declares them */
    expect_load_error("id: X1\nname: x\nsummary: s\nmessage: m\ncondition:\n  family: store-integer\n"
                      "  range: some\n", 7, "range is known or unknown, not 'some'");
    expect_load_error("id: X1\nname: x\nsummary: s\nmessage: m\ncondition:\n  family: store-integer\n"
                      "  facts: [store, call]\n", 7, "unknown name in 'facts'");
    expect_load_error("id: X1\nname: x\nsummary: s\nmessage: m\ncondition:\n  family: arithmetic\n"
                      "  operand_bound: 0\n", 7, "operand_bound is a magnitude above 0");
    expect_load_error("id: X1\nname: x\nsummary: s\nmessage: m\ncondition:\n  operand_bound: 1\n", 6,
                      "condition needs a family");
}
END_TEST

/* What the same settings and placeholders give when they belong to the family. */
START_TEST(family_settings_are_read)
{
    kv_arena *a = arena_new();
    diag_list dl;
    diag_init(&dl, a);
    ck_assert(load_text("id: X1\nname: x\nsummary: s\nmessage: \"{value} {limit} {range} {fix}\"\n"
                        "condition:\n  operands: [value]\n  family: store-integer\n  range: known\n"
                        "  facts: [intcast]\n  limit_below: 300\n", &dl));
    ck_assert_uint_eq(dl.items.n, 0);
    arena_free(a);
    const rule *kv4 = rule_find(rules, "KV004"), *kv7 = rule_find(rules, "KV007");
    ck_assert_str_eq(rule_family_name(kv4), "store-integer");
    ck_assert(rule_judges_values(kv4));
    ck_assert(!rule_judges_values(rule_find(rules, "KV009")));
    strbuf sb = STRBUF_INIT;
    rule_describe(&sb, kv7);
    ck_assert_str_eq(sb_str(&sb), "; outcomes: overflow-inf, overflow-nan; an operand of unknown value is at most 10000 in magnitude");
    sb_reset(&sb);
    rule_describe(&sb, rule_find(rules, "KV002"));
    ck_assert_str_eq(sb_str(&sb), "; values: sentinel; outcomes: saturated; a key sentinel that saturates to magnitude >= 100 "
                                  "still masks and is not reported; not reported where KV001 already is");
    sb_release(&sb);
}
END_TEST

START_TEST(unless_must_name_a_rule)
{
    kv_arena *a = arena_new();
    diag_list dl;
    diag_init(&dl, a);
    rule_set *s = rule_set_new();
    char path[] = "/tmp/kvlint-rule-XXXXXX";
    int fd = mkstemp(path);
    const char *text = "id: X1\nname: x\nsummary: s\nmessage: m\ncondition: {family: store-value, unless: [KV999]}\n";
    ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    ck_assert(rules_load_file(s, path, &dl));
    ck_assert(!rule_set_finish(s, &dl));
    ck_assert_msg(strstr(dl.items.v[0].msg, "'unless' names no rule called 'KV999'"), "%s", dl.items.v[0].msg);
    unlink(path);
    rule_set_free(s);
    arena_free(a);
}
END_TEST

START_TEST(duplicate_rule_ids)
{
    kv_arena *a = arena_new();
    diag_list dl;
    diag_init(&dl, a);
    rule_set *s = rule_set_new();
    char *dir = fs_join(srcdir(), "rules");
    ck_assert(rules_load_dir(s, dir, &dl));
    ck_assert(rules_load_dir(s, dir, &dl));
    ck_assert(!rule_set_finish(s, &dl));
    ck_assert(strstr(dl.items.v[0].msg, "already defined"));
    free(dir);
    rule_set_free(s);
    arena_free(a);
}
END_TEST

/* ---- store-value: KV001, KV002, KV008 ---- */

START_TEST(e5m2_mask_overflows_on_vllm)
{
    file_facts *f = file_facts_new("m.py");
    kv_value v = sentinel(-1e9, "-1e9", 12);
    store(f, &v, 1, OPERAND_KEY, ENGINE_VLLM);
    deployment d = dep(ENGINE_VLLM, "fp8_e5m2", "bfloat16");
    finding_list *l = run1(f, &d, 1, false);
    ck_assert_uint_eq(l->v.n, 1);
    const finding *x = first_of(l, "KV001");
    ck_assert_str_eq(x->loc.path, "m.py");
    ck_assert_uint_eq(x->loc.line, 12);
    ck_assert_msg(strstr(x->message, "-1e9 is stored as -57344 by vLLM's CUDA cache writer and as -inf by vLLM's Triton cache writer (fp8_e5m2, declared at deploy/serve.yaml:3:17); q.k then computes 0 * -inf = NaN. Store the mask"), "%s", x->message);
    ck_assert(x->has_dtype_origin);
    ck_assert_uint_eq(x->dtype_origin.line, 3);
    ck_assert_uint_eq(x->nrelated, 2);
    ck_assert_uint_eq(x->related[0].loc.line, 30);
    ck_assert_uint_eq(x->nstored, 2);
    ck_assert(isinf(x->stored[1].stored));
    finding_list_free(l);
    file_facts_free(f);
}
END_TEST

START_TEST(e4m3_key_mask_saturates_and_still_masks)
{
    file_facts *f = file_facts_new("m.py");
    kv_value v = sentinel(-1e9, "-1e9", 12);
    store(f, &v, 1, OPERAND_KEY, ENGINE_VLLM);
    deployment d = dep(ENGINE_VLLM, "fp8_e4m3", "bfloat16");
    finding_list *l = run1(f, &d, 1, false);
    ck_assert_uint_eq(l->v.n, 0);
    finding_list_free(l);
    file_facts_free(f);
}
END_TEST

START_TEST(calibrated_scale_key_mask_saturates)
{
    file_facts *f = file_facts_new("m.py");
    kv_value v = sentinel(-1e9, "-1e9", 12);
    store(f, &v, 1, OPERAND_KEY, ENGINE_VLLM);
    deploy_decl scheme = { .key = DECL_KV_SCHEME, .engine = ENGINE_HF, .raw = "float8", .carrier = CARRIER_HF_CONFIG,
                          .loc = { "config.json", 7, 5, 0, 0 } };
    deployment d = dep(ENGINE_VLLM, "fp8_e4m3", "bfloat16");
    d.kv.decl = &scheme;
    d.kv.how = "auto: checkpoint kv_cache_scheme";
    finding_list *l = run1(f, &d, 1, false);
    ck_assert_uint_eq(count_rule(l, "KV002"), 1);
    ck_assert_msg(strstr(first_of(l, "KV002")->message, "after a scale below 1 it no longer masks"), "%s",
                  first_of(l, "KV002")->message);
    finding_list_free(l);
    file_facts_free(f);
}
END_TEST

START_TEST(e4m3_value_sentinel_saturates)
{
    file_facts *f = file_facts_new("m.py");
    kv_value v = sentinel(-1e9, "-1e9", 12);
    store(f, &v, 1, OPERAND_VALUE, ENGINE_VLLM);
    deployment d = dep(ENGINE_VLLM, "fp8_e4m3", "bfloat16");
    finding_list *l = run1(f, &d, 1, false);
    ck_assert_uint_eq(l->v.n, 1);
    const finding *x = first_of(l, "KV002");
    ck_assert_int_eq(x->severity, SEV_WARNING);
    ck_assert_msg(strstr(x->message, "as -448 by vLLM's CUDA cache writer and vLLM's Triton cache writer"), "%s", x->message);
    finding_list_free(l);
    file_facts_free(f);
}
END_TEST

START_TEST(sglang_e4m3_cast_gives_nan)
{
    file_facts *f = file_facts_new("m.py");
    kv_value v = sentinel(-1e9, "-1e9", 12);
    store(f, &v, 1, OPERAND_KEY, ENGINE_SGLANG);
    deployment d = dep(ENGINE_SGLANG, "fp8_e4m3", "bfloat16");
    finding_list *l = run1(f, &d, 1, false);
    ck_assert_uint_eq(count_rule(l, "KV001"), 1);
    ck_assert_uint_eq(count_rule(l, "KV002"), 0);
    ck_assert(isnan(first_of(l, "KV001")->stored[0].stored));
    ck_assert(strstr(first_of(l, "KV001")->message, "as NaN by a PyTorch cast (SGLang set_kv_buffer)"));
    finding_list_free(l);
    file_facts_free(f);
}
END_TEST

START_TEST(safe_dtypes_are_silent)
{
    file_facts *f = file_facts_new("m.py");
    kv_value v[2] = { sentinel(-1e9, "-1e9", 12), { .kind = VK_FLOAT, .lo = -3.5, .hi = 3.5, .text = "keys" } };
    store(f, v, 2, OPERAND_KEY, ENGINE_VLLM);
    deployment d[2] = { dep(ENGINE_VLLM, "bfloat16", "bfloat16"), dep(ENGINE_VLLM, "float32", "bfloat16") };
    finding_list *l = run1(f, d, 2, false);
    ck_assert_uint_eq(l->v.n, 0);
    finding_list_free(l);
    file_facts_free(f);
}
END_TEST

START_TEST(float16_cache_on_bf16_model_reinterprets)
{
    file_facts *f = file_facts_new("m.py");
    kv_value v = sentinel(-1e9, "-1e9", 12);
    store(f, &v, 1, OPERAND_KEY, ENGINE_VLLM);
    deployment d = dep(ENGINE_VLLM, "float16", "bfloat16");
    finding_list *l = run1(f, &d, 1, false);
    ck_assert_uint_eq(l->v.n, 1);
    const finding *x = first_of(l, "KV008");
    ck_assert_double_eq_tol(x->stored[0].stored, -25.7, 0.1);
    finding_list_free(l);
    file_facts_free(f);
}
END_TEST

START_TEST(symbolic_finfo_min_follows_model_dtype)
{
    file_facts *f = file_facts_new("m.py");
    kv_value v = sentinel(0, "torch.finfo(self.dtype).min", 12);
    v.sym = SYM_FINFO_MIN;
    v.sym_dtype = (dtype_ref){ .kind = DREF_MODEL, .text = "self.dtype" };
    store(f, &v, 1, OPERAND_KEY, ENGINE_TRANSFORMERS);
    deployment ok = dep(ENGINE_TRANSFORMERS, "bfloat16", "bfloat16");
    deployment bad = dep(ENGINE_TRANSFORMERS, "fp8_e5m2", "bfloat16");
    finding_list *l = run1(f, &ok, 1, false);
    ck_assert_uint_eq(l->v.n, 0);
    finding_list_free(l);
    l = run1(f, &bad, 1, false);
    ck_assert_uint_eq(count_rule(l, "KV001"), 1);
    finding_list_free(l);
    file_facts_free(f);
}
END_TEST

/* ---- store-integer: KV003, KV004 ---- */

static kv_value adapter_ids(void)
{
    return (kv_value){ .kind = VK_INTEGER, .lo = 0, .hi_sym = "num_adapters", .id_class = "adapter",
                       .text = "expert_ids.to(dtype)", .origin = { "m.py", 40, 18, 0, 0 } };
}

START_TEST(adapter_ids_beyond_e4m3_limit)
{
    file_facts *f = file_facts_new("m.py");
    kv_value v = adapter_ids();
    store(f, &v, 1, OPERAND_VALUE, ENGINE_VLLM);
    id_range r20 = { .name = "num_adapters", .max = 20, .max_id = 20, .loc = { "config.json", 5, 19, 0, 0 } };
    id_range r8 = { .name = "num_adapters", .max = 8, .max_id = 8, .loc = { "config.json", 5, 19, 0, 0 } };
    deployment d = dep(ENGINE_VLLM, "fp8_e4m3", "bfloat16");
    d.ranges = &r20;
    d.nranges = 1;
    finding_list *l = run1(f, &d, 1, false);
    ck_assert_uint_eq(l->v.n, 1);
    const finding *x = first_of(l, "KV003");
    ck_assert_msg(strstr(x->message, "up to 20 (num_adapters = 20, config.json:5:19)"), "%s", x->message);
    ck_assert_msg(strstr(x->message, "only up to 16: 17 is stored as 16 by"), "%s", x->message);
    ck_assert_uint_eq(x->nrelated, 3);
    finding_list_free(l);
    d.ranges = &r8;
    l = run1(f, &d, 1, false);
    ck_assert_uint_eq(l->v.n, 0);
    finding_list_free(l);
    file_facts_free(f);
}
END_TEST

START_TEST(unknown_range_warns_with_hint)
{
    file_facts *f = file_facts_new("m.py");
    kv_value v = adapter_ids();
    store(f, &v, 1, OPERAND_VALUE, ENGINE_VLLM);
    deployment d[2] = { dep(ENGINE_VLLM, "fp8_e4m3", "bfloat16"), dep(ENGINE_VLLM, "float32", "bfloat16") };
    finding_list *l = run1(f, d, 2, false);
    ck_assert_uint_eq(l->v.n, 1);
    const finding *x = first_of(l, "KV004");
    ck_assert_int_eq(x->severity, SEV_WARNING);
    ck_assert_msg(strstr(x->message, "ranges: {num_adapters: {max: N}}"), "%s", x->message);
    finding_list_free(l);
    file_facts_free(f);
}
END_TEST

START_TEST(position_cast_to_bf16)
{
    file_facts *f = file_facts_new("m.py");
    intcast_fact c = { .loc = { "m.py", 50, 9, 0, 0 }, .api = ".to",
                       .value = { .kind = VK_INTEGER, .lo = 0, .hi = 15962, .text = "positions",
                                  .origin = { "m.py", 49, 5, 0, 0 } },
                       .dtype = { .kind = DREF_MODEL, .text = "self.dtype", .loc = { "m.py", 50, 14, 0, 0 } } };
    ARENA_PUSH(f->arena, f->casts, c);
    deployment d = dep(ENGINE_VLLM, "bfloat16", "bfloat16");
    finding_list *l = run1(f, &d, 1, false);
    ck_assert_uint_eq(count_rule(l, "KV003"), 1);
    ck_assert_msg(strstr(first_of(l, "KV003")->message, "257 is stored as 256"), "%s", first_of(l, "KV003")->message);
    finding_list_free(l);
    file_facts_free(f);
}
END_TEST

START_TEST(position_family_takes_max_id)
{
    file_facts *f = file_facts_new("m.py");
    kv_value v = { .kind = VK_INTEGER, .lo = 0, .hi_unknown = true, .id_class = "position", .text = "positions",
                   .origin = { "m.py", 40, 18, 0, 0 } };
    store(f, &v, 1, OPERAND_VALUE, ENGINE_VLLM);
    id_range len = { .name = "max_model_len", .max = 4096, .max_id = 4095, .id_class = "position",
                     .loc = { "serve.yaml", 4, 16, 0, 0 } };
    deployment d = dep(ENGINE_VLLM, "bfloat16", "bfloat16");
    d.ranges = &len;
    d.nranges = 1;
    finding_list *l = run1(f, &d, 1, false);
    ck_assert_uint_eq(count_rule(l, "KV003"), 1);
    ck_assert_msg(strstr(first_of(l, "KV003")->message, "up to 4095 (max_model_len = 4096"), "%s", first_of(l, "KV003")->message);
    finding_list_free(l);
    len.max = 256;
    len.max_id = 255;
    l = run1(f, &d, 1, false);
    ck_assert_uint_eq(l->v.n, 0);
    finding_list_free(l);
    file_facts_free(f);
}
END_TEST

/* ---- scale-crush: KV005 ---- */

START_TEST(mxfp4_block_crushes_neighbours)
{
    file_facts *f = file_facts_new("m.py");
    kv_value v[2] = { sentinel(-1e9, "-1e9", 12), { .kind = VK_FLOAT, .lo = -3.5, .hi = 3.5, .text = "keys" } };
    store_fact *s;
    store(f, v, 2, OPERAND_KEY, ENGINE_VLLM);
    s = &f->stores.v[0];
    s->shares_block = true;
    deployment d[2] = { dep(ENGINE_VLLM, "mxfp4", "bfloat16"), dep(ENGINE_VLLM, "fp8_e4m3", "bfloat16") };
    d[1].dynamic_kv_scales = true;
    finding_list *l = run1(f, d, 2, false);
    ck_assert_uint_eq(count_rule(l, "KV005"), 1);   /* one site, crushed under both deployments */
    ck_assert_uint_eq(first_of(l, "KV005")->ndeployments, 2);
    ck_assert_double_eq(first_of(l, "KV005")->stored[0].stored, 0);
    finding_list_free(l);
    s->shares_block = false;
    l = run1(f, d, 2, false);
    ck_assert_uint_eq(count_rule(l, "KV005"), 0);
    finding_list_free(l);
    file_facts_free(f);
}
END_TEST

/* ---- construction: KV006 ---- */

START_TEST(full_in_float16_raises)
{
    file_facts *f = file_facts_new("m.py");
    construction_fact c = { .loc = { "m.py", 28, 13, 0, 0 }, .kind = CONS_SCALAR_FILL, .api = "torch.full",
                            .value = sentinel(-1e9, "-1e9", 12),
                            .dtype = { .kind = DREF_MODEL, .text = "model_dtype", .loc = { "m.py", 28, 50, 0, 0 } } };
    ARENA_PUSH(f->arena, f->constructions, c);
    deployment d[2] = { dep(ENGINE_VLLM, "float16", "float16"), dep(ENGINE_VLLM, "bfloat16", "bfloat16") };
    finding_list *l = run1(f, d, 2, false);
    ck_assert_uint_eq(l->v.n, 1);
    ck_assert_msg(strstr(first_of(l, "KV006")->message, "at::Half without overflow"), "%s", l->v.v[0].message);
    finding_list_free(l);
    file_facts_free(f);
}
END_TEST

START_TEST(finfo_float32_min_cast_down)
{
    file_facts *f = file_facts_new("m.py");
    kv_value v = sentinel(0, "torch.finfo(torch.float32).min", 7);
    v.sym = SYM_FINFO_MIN;
    v.sym_dtype = (dtype_ref){ .kind = DREF_CONCRETE, .dtype = dt("float32"), .text = "torch.float32" };
    construction_fact c = { .loc = { "m.py", 9, 13, 0, 0 }, .kind = CONS_TENSOR_CAST, .api = ".to", .value = v,
                            .dtype = { .kind = DREF_CONCRETE, .dtype = dt("bfloat16"), .text = "torch.bfloat16",
                                       .loc = { "m.py", 9, 20, 0, 0 } } };
    ARENA_PUSH(f->arena, f->constructions, c);
    finding_list *l = run1(f, NULL, 0, false);
    ck_assert_uint_eq(count_rule(l, "KV006"), 1);
    const finding *x = first_of(l, "KV006");
    ck_assert_msg(strstr(x->message, "becomes -inf"), "%s", x->message);
    ck_assert(x->has_dtype_origin);
    ck_assert_uint_eq(x->dtype_origin.col, 20);
    finding_list_free(l);
    file_facts_free(f);
}
END_TEST

/* ---- arithmetic: KV007 ---- */

START_TEST(sentinel_arithmetic)
{
    file_facts *f = file_facts_new("m.py");
    kv_value mn = sentinel(0, "torch.finfo(torch.float16).min", 3);
    mn.sym = SYM_FINFO_MIN;
    mn.sym_dtype = (dtype_ref){ .kind = DREF_CONCRETE, .dtype = dt("float16"), .text = "torch.float16" };
    dtype_ref f16 = { .kind = DREF_CONCRETE, .dtype = dt("float16"), .text = "torch.float16", .loc = { "m.py", 3, 40, 0, 0 } };
    arith_fact plus = { .loc = { "m.py", 4, 5, 0, 0 }, .kind = ARITH_SENTINEL_PLUS, .a = mn,
                        .b = { .kind = VK_UNKNOWN, .text = "scores" }, .dtype = f16 };
    arith_fact small = plus;
    small.loc.line = 5;
    small.b = (kv_value){ .kind = VK_FLOAT, .lo = -8, .hi = 0, .text = "bias" };
    arith_fact times = { .loc = { "m.py", 6, 5, 0, 0 }, .kind = ARITH_ZERO_TIMES_INF,
                         .a = { .kind = VK_FLOAT, .lo = 0, .hi = 1, .text = "(1 - mask)" },
                         .b = sentinel(-INFINITY, "float(\"-inf\")", 6), .dtype = f16 };
    /* headroom far above the 1e4 operand bound: -10000 + scores in bfloat16 */
    dtype_ref b16 = { .kind = DREF_CONCRETE, .dtype = dt("bfloat16"), .text = "torch.bfloat16", .loc = { "m.py", 7, 40, 0, 0 } };
    arith_fact bert = { .loc = { "m.py", 7, 5, 0, 0 }, .kind = ARITH_SENTINEL_PLUS, .a = sentinel(-10000, "-10000.0", 7),
                        .b = { .kind = VK_UNKNOWN, .text = "scores" }, .dtype = b16 };
    /* two finfo(D).min planes: subtracted they are 0 or +-max, added they overflow in every dtype */
    kv_value pm = sentinel(0, "torch.finfo(dtype).min", 8);
    pm.sym = SYM_FINFO_MIN;
    pm.sym_dtype = (dtype_ref){ .kind = DREF_MODEL, .text = "dtype" };
    arith_fact diff = { .loc = { "m.py", 8, 5, 0, 0 }, .kind = ARITH_SENTINEL_SUM, .a = pm, .b = pm, .b_negated = true,
                        .dtype = pm.sym_dtype };
    arith_fact planes = diff;
    planes.loc.line = 9;
    planes.b_negated = false;
    ARENA_PUSH(f->arena, f->ariths, plus);
    ARENA_PUSH(f->arena, f->ariths, small);
    ARENA_PUSH(f->arena, f->ariths, times);
    ARENA_PUSH(f->arena, f->ariths, bert);
    ARENA_PUSH(f->arena, f->ariths, diff);
    ARENA_PUSH(f->arena, f->ariths, planes);
    finding_list *l = run1(f, NULL, 0, false);
    ck_assert_uint_eq(count_rule(l, "KV007"), 3);
    ck_assert_msg(strstr(l->v.v[0].message, "-inf for any scores <= -16"), "%s", l->v.v[0].message);
    ck_assert_msg(strstr(l->v.v[1].message, "NaN wherever (1 - mask) is 0"), "%s", l->v.v[1].message);
    ck_assert_uint_eq(l->v.v[2].loc.line, 9);
    ck_assert_msg(strstr(l->v.v[2].message, "computed in any float dtype"), "%s", l->v.v[2].message);
    finding_list_free(l);
    file_facts_free(f);
}
END_TEST

/* ---- config-level: KV009, KV010 ---- */

START_TEST(invalid_and_unresolved)
{
    file_facts *f = file_facts_new("deploy/k8s.yaml");
    deploy_decl bad = { .key = DECL_KV_CACHE_DTYPE, .engine = ENGINE_VLLM, .dtype = KVN_DTYPE_INVALID, .raw = "fp9",
                       .carrier = CARRIER_K8S_ARGS, .loc = { "deploy/k8s.yaml", 20, 15, 0, 0 } };
    ARENA_PUSH(f->arena, f->decls, bad);
    kv_value v = sentinel(-1e9, "-1e9", 12);
    store(f, &v, 1, OPERAND_KEY, ENGINE_VLLM);
    deployment d = dep(ENGINE_VLLM, NULL, "bfloat16");
    finding_list *l = run1(f, &d, 1, false);
    ck_assert_uint_eq(count_rule(l, "KV009"), 1);
    ck_assert_uint_eq(count_rule(l, "KV010"), 1);
    ck_assert(strstr(first_of(l, "KV009")->message, "'fp9' is not a KV-cache dtype"));
    ck_assert_int_eq(first_of(l, "KV010")->severity, SEV_NOTE);
    finding_list_free(l);
    file_facts_free(f);
}
END_TEST

START_TEST(unmodelled_dtype_is_a_note)
{
    file_facts *f = file_facts_new("m.py");
    kv_value v = sentinel(-1e9, "-1e9", 12);
    store(f, &v, 1, OPERAND_KEY, ENGINE_VLLM);
    deployment d = dep(ENGINE_VLLM, "fp8_inc", "bfloat16");
    finding_list *l = run1(f, &d, 1, false);
    ck_assert_uint_eq(l->v.n, 1);
    ck_assert_msg(strstr(first_of(l, "KV010")->message, "kvlint does not model fp8_inc"), "%s", l->v.v[0].message);
    finding_list_free(l);
    file_facts_free(f);
}
END_TEST

/* ---- joining, suppressions, order ---- */

START_TEST(once_per_site_deployments_listed)
{
    file_facts *f = file_facts_new("m.py");
    kv_value v[2] = { sentinel(-1e9, "-1e9", 12), sentinel(-10000.0, "-10000.0", 5) };
    store(f, v, 2, OPERAND_KEY, ENGINE_VLLM);
    store(f, v, 1, OPERAND_KEY, ENGINE_VLLM);   /* the same value through the same sink twice */
    f->stores.v[1].loc = f->stores.v[0].loc;
    deployment d[2] = { dep(ENGINE_VLLM, "fp8_e5m2", "bfloat16"), dep(ENGINE_VLLM, "fp8_e5m2", "bfloat16") };
    d[1].name = "deploy/other.yaml:1";
    d[1].kv.how = "what-if --kv-cache-dtype";
    d[1].kv.decl = NULL;
    finding_list *l = run1(f, d, 2, false);
    /* -1e9: e5m2 overflow under both deployments, one finding listing both (the message is the
     * first deployment's); -10000: fits e5m2 (max 57344), silent. */
    ck_assert_uint_eq(l->v.n, 1);
    ck_assert_uint_eq(l->v.v[0].loc.line, 12);
    ck_assert_uint_eq(l->v.v[0].ndeployments, 2);
    ck_assert_str_eq(l->v.v[0].deployments[0].name, d[0].name);
    ck_assert_str_eq(l->v.v[0].deployments[1].name, "deploy/other.yaml:1");
    ck_assert_str_eq(l->v.v[0].deployment, d[0].name);
    ck_assert(l->v.v[0].has_dtype_origin);
    finding_list_free(l);
    /* the same when the second deployment comes first in the set: the set's order decides */
    deployment swapped[2] = { d[1], d[0] };
    l = run1(f, swapped, 2, false);
    ck_assert_uint_eq(l->v.n, 1);
    ck_assert_str_eq(l->v.v[0].deployment, "deploy/other.yaml:1");
    ck_assert(!l->v.v[0].has_dtype_origin);
    finding_list_free(l);
    file_facts_free(f);
}
END_TEST

START_TEST(suppressions)
{
    file_facts *f = file_facts_new("m.py");
    kv_value v = sentinel(-1e9, "-1e9", 12);
    store(f, &v, 1, OPERAND_KEY, ENGINE_VLLM);
    static const char *const ids[] = { "KV001", NULL };
    static const char *const other[] = { "KV003", NULL };
    ARENA_PUSH(f->arena, f->suppressions, ((suppression){ .line = 12, .col = 30, .ids = ids, .reason = "r" }));
    ARENA_PUSH(f->arena, f->suppressions, ((suppression){ .line = 20, .col = 3, .ids = other }));
    deployment d = dep(ENGINE_VLLM, "fp8_e5m2", "bfloat16");
    finding_list *l = run1(f, &d, 1, false);
    ck_assert_uint_eq(l->v.n, 0);
    ck_assert_uint_eq(l->suppressed, 1);
    finding_list_free(l);
    l = run1(f, &d, 1, true);
    ck_assert_uint_eq(l->v.n, 1);
    ck_assert_str_eq(l->v.v[0].rule->id, "KV011");
    ck_assert_uint_eq(l->v.v[0].loc.line, 20);
    finding_list_free(l);
    file_facts_free(f);
}
END_TEST

START_TEST(select_and_ignore)
{
    file_facts *f = file_facts_new("m.py");
    kv_value v = sentinel(-1e9, "-1e9", 12);
    store(f, &v, 1, OPERAND_KEY, ENGINE_VLLM);
    deployment d = dep(ENGINE_VLLM, "fp8_e5m2", "bfloat16");
    deployment_set ds = { .v = &d, .n = 1 };
    const char *ign[] = { "sentinel-overflow", NULL };
    eval_options eo = { .ignore = ign };
    finding_list *l = evaluate(rules, &f, 1, &ds, &eo);
    /* With KV001 off, KV002 (which defers to it) reports the saturating CUDA path. */
    ck_assert_uint_eq(count_rule(l, "KV001"), 0);
    finding_list_free(l);
    const char *sel[] = { "KV003", NULL };
    eo = (eval_options){ .select = sel };
    l = evaluate(rules, &f, 1, &ds, &eo);
    ck_assert_uint_eq(l->v.n, 0);
    finding_list_free(l);
    file_facts_free(f);
}
END_TEST

/* ---- reporters on hand-built findings ---- */

static char *render(void (*fn)(FILE *, const report_input *), const report_input *in)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(f);
    fn(f, in);
    fclose(f);
    return buf;
}

START_TEST(reporters_escape_and_shape)
{
    const char *path = "odd,dir:x/deploy 1.yaml";
    file_facts *f = file_facts_new(path);
    deploy_decl bad = { .key = DECL_KV_CACHE_DTYPE, .engine = ENGINE_VLLM, .dtype = KVN_DTYPE_INVALID, .raw = "fp9%",
                       .carrier = CARRIER_K8S_ARGS, .loc = { path, 20, 15, 20, 19 } };
    ARENA_PUSH(f->arena, f->decls, bad);
    finding_list *l = run1(f, NULL, 0, false);
    ck_assert_uint_eq(l->v.n, 1);
    eval_options eo = {0};
    report_input in = { .findings = l, .rules = rules, .eval = &eo, .files = 1, .deployments = 0 };
    char *gh = render(report_github, &in);
    ck_assert_msg(strstr(gh, "::error file=odd%2Cdir%3Ax/deploy 1.yaml,line=20,col=15,endLine=20,endColumn=19,title=KV009 unknown-dtype-name::'fp9%25' is not"), "%s", gh);
    char *js = render(report_json, &in);
    ck_assert(strstr(js, "\"dtype_origin\": null"));
    ck_assert(strstr(js, "\"path\": \"odd,dir:x/deploy 1.yaml\""));
    ck_assert(strstr(js, "\"errors\": 1"));
    char *sarif = render(report_sarif, &in);
    ck_assert_msg(strstr(sarif, "\"uri\": \"odd%2Cdir%3Ax/deploy%201.yaml\""), "%s", sarif);
    ck_assert(strstr(sarif, "\"ruleIndex\": 8"));
    char *txt = render(report_text, &in);
    ck_assert(strstr(txt, "odd,dir:x/deploy 1.yaml:20:15: error: 'fp9%' is not"));
    ck_assert(strstr(txt, "kvlint: 1 error in 1 file, 0 deployments"));
    ck_assert(!strchr(txt, '\033'));
    free(gh);
    free(js);
    free(sarif);
    free(txt);
    finding_list_free(l);
    file_facts_free(f);
}
END_TEST

START_TEST(fingerprints_unique_and_line_free)
{
    file_facts *f = file_facts_new("m.py");
    /* two sites whose hashed text is the same (no source on disk: every line reads empty) */
    kv_value v[2] = { sentinel(-1e9, "-1e9", 12), sentinel(-1e9, "-1e9", 19) };
    store(f, v, 2, OPERAND_KEY, ENGINE_VLLM);
    deployment d = dep(ENGINE_VLLM, "fp8_e5m2", "bfloat16");
    finding_list *l = run1(f, &d, 1, false);
    ck_assert_uint_eq(l->v.n, 2);
    source_cache *sc = source_cache_new();
    report_fingerprint *a = report_fingerprints(sc, l);
    ck_assert_str_ne(a[0].text, a[1].text);
    ck_assert_msg(strstr(a[0].text, ":2") || strstr(a[1].text, ":2"), "%s %s", a[0].text, a[1].text);
    /* Moving every line (no source on disk here) does not change them. */
    l->v.v[0].loc.line += 7;
    l->v.v[1].loc.line += 7;
    report_fingerprint *b = report_fingerprints(sc, l);
    ck_assert_str_eq(a[0].text, b[0].text);
    ck_assert_str_eq(a[1].text, b[1].text);
    free(a);
    free(b);
    source_cache_free(sc);
    finding_list_free(l);
    file_facts_free(f);
}
END_TEST

/* Checkpoint-field expressions (facts/expr.c) over a deployment's config.json fields (resolve/fields.c). */
static kv_field_lookup no_checkpoint(const void *ctx, const char *name, double *out)
{
    (void)ctx, (void)name, (void)out;
    return KV_FIELD_UNKNOWN;
}

START_TEST(checkpoint_field_expressions)
{
    deploy_decl gain = { .key = DECL_CKPT_FIELD, .range_name = "control_token_gain", .number = 15 };
    deploy_decl mult = { .key = DECL_CKPT_FIELD, .range_name = "attention_multiplier", .number = 0.0078125 };
    deploy_decl zero = { .key = DECL_CKPT_FIELD, .range_name = "zero", .number = 0 };
    const deploy_decl *fields[] = { &gain, &mult, &zero };
    deployment d = { .ckpt_dir = "model", .ckpt_fields = fields, .nckpt_fields = 3 };
    kv_expr g = { .op = KX_FIELD, .field = "control_token_gain" };
    kv_expr m = { .op = KX_FIELD, .field = "attention_multiplier" };
    kv_expr q = { .op = KX_DIV, .a = &g, .b = &m };
    double x = 0;
    ck_assert(kv_expr_eval(&q, deployment_field_fn, &d, &x));
    ck_assert(x == 1920);
    strbuf sb = STRBUF_INIT;
    kv_expr_format(&sb, &q);
    ck_assert_str_eq(sb_str(&sb), "control_token_gain / attention_multiplier");
    sb_release(&sb);
    /* no checkpoint: unknown, whatever the default */
    kv_expr dflt = { .op = KX_FIELD, .field = "mask_value", .has_default = true, .num = -1e9 };
    ck_assert(!kv_expr_eval(&q, no_checkpoint, NULL, &x));
    ck_assert(!kv_expr_eval(&dflt, no_checkpoint, NULL, &x));
    deployment none = { .ckpt_why = "no checkpoint" };
    ck_assert(!kv_expr_eval(&dflt, deployment_field_fn, &none, &x));
    /* a checkpoint without the field: the getattr default, and nothing without one */
    ck_assert(kv_expr_eval(&dflt, deployment_field_fn, &d, &x));
    ck_assert(x == -1e9);
    kv_expr bare = { .op = KX_FIELD, .field = "mask_value" };
    ck_assert(!kv_expr_eval(&bare, deployment_field_fn, &d, &x));
    /* ZeroDivisionError, complex powers and overflow are no values */
    kv_expr z = { .op = KX_FIELD, .field = "zero" };
    kv_expr byzero = { .op = KX_DIV, .a = &g, .b = &z };
    ck_assert(!kv_expr_eval(&byzero, deployment_field_fn, &d, &x));
    kv_expr neg = { .op = KX_NEG, .a = &g }, half = { .op = KX_CONST, .num = 0.5 };
    kv_expr root = { .op = KX_POW, .a = &neg, .b = &half };
    ck_assert(!kv_expr_eval(&root, deployment_field_fn, &d, &x));
    kv_expr big = { .op = KX_CONST, .num = 1e300 };
    kv_expr huge = { .op = KX_MUL, .a = &big, .b = &big };
    ck_assert(!kv_expr_eval(&huge, deployment_field_fn, &d, &x));
    kv_expr two = { .op = KX_CONST, .num = 2 };
    kv_expr sq = { .op = KX_POW, .a = &neg, .b = &two };
    ck_assert(kv_expr_eval(&sq, deployment_field_fn, &d, &x));
    ck_assert(x == 225);
    const char *names[4];
    ck_assert_uint_eq(kv_expr_fields(&byzero, names, 0, 4), 2);
    ck_assert_str_eq(names[1], "zero");
}
END_TEST

/* A front end computes in memory it frees after the file and records copies (facts_copy.c): the
 * copy must point into the file's arena only (ASan sees any use of the freed one), keep the file's
 * own path as the facts' path, and keep what an expression reads, shared subtrees included. */
START_TEST(facts_copies_are_deep)
{
    file_facts *f = file_facts_new("pkg/m.py");
    kv_arena *tmp = arena_new();
    kv_expr *leaf = arena_zalloc(tmp, sizeof *leaf);
    leaf->op = KX_FIELD;
    leaf->field = arena_strdup(tmp, "gain");
    kv_expr *x = leaf;
    for (int i = 0; i < 80; i++) {   /* x = x * gain, deeper than expressions are read */
        kv_expr *y = arena_zalloc(tmp, sizeof *y);
        y->op = i % 2 ? KX_MUL : KX_ADD;
        y->a = x;
        y->b = leaf;
        x = y;
    }
    kv_expr *top = arena_zalloc(tmp, sizeof *top);   /* the shared chain met again near the root */
    top->op = KX_SUB;
    top->a = x->a->a->a;
    top->b = x;
    kv_step *steps = arena_alloc(tmp, 2 * sizeof *steps);
    steps[0] = (kv_step){ { arena_strdup(tmp, "pkg/m.py"), 3, 1, 0, 0 }, arena_strdup(tmp, "assigned to k") };
    steps[1] = (kv_step){ { arena_strdup(tmp, "pkg/helpers.py"), 9, 5, 0, 0 }, arena_strdup(tmp, "returned") };
    kv_value *v = arena_zalloc(tmp, sizeof *v);
    v->kind = VK_UNKNOWN;
    v->text = arena_strdup(tmp, "cfg.gain");
    v->id_class = arena_strdup(tmp, "position");
    v->hi_sym = arena_strdup(tmp, "max_model_len");
    v->origin = (kv_loc){ arena_strdup(tmp, "pkg/helpers.py"), 9, 5, 0, 0 };
    v->sym_dtype = (dtype_ref){ .kind = DREF_MODEL, .text = arena_strdup(tmp, "self.dtype") };
    v->steps = steps;
    v->nsteps = 2;
    v->expr = top;
    store_fact s = { .loc = { arena_strdup(tmp, "pkg/m.py"), 4, 9, 0, 0 }, .sink = arena_strdup(tmp, "self.attn"),
                     .tensor = arena_strdup(tmp, "k"), .values = v, .nvalues = 1,
                     .cache_dtype = { .kind = DREF_KV, .text = arena_strdup(tmp, "kv_cache.dtype") } };
    kv_expr *top2 = arena_zalloc(tmp, sizeof *top2);   /* met deep first, then nearer the root */
    top2->op = KX_ADD;
    top2->a = x;
    top2->b = x->a->a->a;
    kv_value v2 = { .kind = VK_UNKNOWN, .expr = top2 };
    strbuf want = STRBUF_INIT, got = STRBUF_INIT, want2 = STRBUF_INIT, got2 = STRBUF_INIT;
    kv_expr_format(&want, top);
    kv_expr_format(&want2, top2);
    kv_value c2 = kv_value_copy(f, &v2);
    const char *names[2];
    size_t nwant = kv_expr_fields(top, names, 0, 2);
    store_fact c = store_fact_copy(f, &s);
    deploy_decl d = { .range_name = arena_strdup(tmp, "max_model_len"), .raw = arena_strdup(tmp, "4096"),
                      .loc = { arena_strdup(tmp, "pkg/m.py"), 7, 1, 0, 0 } };
    deploy_decl dc = deploy_decl_copy(f, &d);
    arena_free(tmp);
    ck_assert_ptr_eq(c.loc.path, f->path);
    ck_assert_ptr_eq(c.values[0].steps[0].loc.path, f->path);
    ck_assert_str_eq(c.values[0].steps[1].loc.path, "pkg/helpers.py");
    ck_assert_str_eq(c.values[0].origin.path, "pkg/helpers.py");
    ck_assert_str_eq(c.values[0].steps[0].what, "assigned to k");
    ck_assert_str_eq(c.sink, "self.attn");
    ck_assert_str_eq(c.tensor, "k");
    ck_assert_str_eq(c.values[0].text, "cfg.gain");
    ck_assert_str_eq(c.values[0].id_class, "position");
    ck_assert_str_eq(c.values[0].hi_sym, "max_model_len");
    ck_assert_str_eq(c.values[0].sym_dtype.text, "self.dtype");
    ck_assert_str_eq(c.cache_dtype.text, "kv_cache.dtype");
    const kv_expr *ce = c.values[0].expr;   /* sharing kept: one leaf, one copy of the chain's node */
    ck_assert_ptr_eq(ce->b->b, ce->b->a->b);
    ck_assert_ptr_eq(ce->a, ce->b->a->a->a);
    kv_expr_format(&got, c.values[0].expr);
    ck_assert_str_eq(sb_str(&got), sb_str(&want));
    ck_assert_uint_eq(kv_expr_fields(c.values[0].expr, names, 0, 2), nwant);
    kv_expr_format(&got2, c2.expr);
    ck_assert_str_eq(sb_str(&got2), sb_str(&want2));
    ck_assert_ptr_ne(c2.expr->b, c2.expr->a->a->a);   /* copied again from the shallower place */
    ck_assert_str_eq(dc.range_name, "max_model_len");
    ck_assert_str_eq(dc.raw, "4096");
    ck_assert_ptr_eq(dc.loc.path, f->path);
    sb_release(&want);
    sb_release(&got);
    sb_release(&want2);
    sb_release(&got2);
    file_facts_free(f);
}
END_TEST

START_TEST(number_format)
{
    char b[64];
    fmt_number(b, sizeof b, -1e9, NUMFMT_PROSE);
    ck_assert_str_eq(b, "-1000000000");
    fmt_number(b, sizeof b, -1e12, NUMFMT_PROSE);
    ck_assert_str_eq(b, "-1e12");
    fmt_number(b, sizeof b, -25.71875, NUMFMT_PROSE);
    ck_assert_str_eq(b, "-25.71875");
    fmt_number(b, sizeof b, -INFINITY, NUMFMT_PROSE);
    ck_assert_str_eq(b, "-inf");
    fmt_number(b, sizeof b, NAN, NUMFMT_PROSE);
    ck_assert_str_eq(b, "NaN");
    fmt_number(b, sizeof b, 1e-7, NUMFMT_PROSE);
    ck_assert_str_eq(b, "1e-7");
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("check");
    TCase *t = tcase_create("rules");
    tcase_add_unchecked_fixture(t, load_rules, free_rules);
    tcase_add_test(t, builtin_rules_load);
    tcase_add_test(t, malformed_rule_files);
    tcase_add_test(t, settings_and_placeholders_belong_to_the_family);
    tcase_add_test(t, family_settings_are_read);
    tcase_add_test(t, duplicate_rule_ids);
    tcase_add_test(t, unless_must_name_a_rule);
    tcase_add_test(t, e5m2_mask_overflows_on_vllm);
    tcase_add_test(t, e4m3_key_mask_saturates_and_still_masks);
    tcase_add_test(t, e4m3_value_sentinel_saturates);
    tcase_add_test(t, calibrated_scale_key_mask_saturates);
    tcase_add_test(t, sglang_e4m3_cast_gives_nan);
    tcase_add_test(t, safe_dtypes_are_silent);
    tcase_add_test(t, float16_cache_on_bf16_model_reinterprets);
    tcase_add_test(t, symbolic_finfo_min_follows_model_dtype);
    tcase_add_test(t, adapter_ids_beyond_e4m3_limit);
    tcase_add_test(t, unknown_range_warns_with_hint);
    tcase_add_test(t, position_cast_to_bf16);
    tcase_add_test(t, position_family_takes_max_id);
    tcase_add_test(t, mxfp4_block_crushes_neighbours);
    tcase_add_test(t, full_in_float16_raises);
    tcase_add_test(t, finfo_float32_min_cast_down);
    tcase_add_test(t, sentinel_arithmetic);
    tcase_add_test(t, invalid_and_unresolved);
    tcase_add_test(t, unmodelled_dtype_is_a_note);
    tcase_add_test(t, once_per_site_deployments_listed);
    tcase_add_test(t, suppressions);
    tcase_add_test(t, select_and_ignore);
    tcase_add_test(t, reporters_escape_and_shape);
    tcase_add_test(t, fingerprints_unique_and_line_free);
    tcase_add_test(t, number_format);
    tcase_add_test(t, checkpoint_field_expressions);
    tcase_add_test(t, facts_copies_are_deep);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    SRunner *r = srunner_create(suite());
    srunner_set_fork_status(r, CK_NOFORK);
    srunner_run_all(r, CK_ENV);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
