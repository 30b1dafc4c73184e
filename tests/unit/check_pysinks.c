/*
 * check_pysinks.c: unit tests of the Python sink table (src/python/pysinks.c): the shipped
 * grammars/python/sinks.tsv loads without a diagnostic, every malformed line is reported at its
 * path:line while the good lines around it still load, and calls bind to the sinks' exact
 * signatures the way Python binds arguments (arity, keywords, receivers, overloads).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "project/project.h"
#include "python/pyfe.h"

static const char *srcdir(void)
{
    const char *s = getenv("top_srcdir");
    return s && *s ? s : KVLINT_SOURCE_DIR;
}

static py_state *shipped(kv_arena *a, diag_list *d)
{
    diag_init(d, a);
    return py_state_load(srcdir(), NULL, d);
}

/* A call shape: callee, form, receiver, positional count, keywords (NULL-terminated). */
static py_call_shape call(const char *callee, py_call_form form, const char *recv, size_t npos,
                          const char *const *kw)
{
    size_t nkw = 0;
    while (kw && kw[nkw])
        nkw++;
    return (py_call_shape){ .callee = callee, .form = form, .recv = recv, .npos = npos, .kw = kw, .nkw = nkw };
}

START_TEST(shipped_table_is_clean)
{
    kv_arena *a = arena_new();
    diag_list d;
    py_state *st = shipped(a, &d);
    for (size_t i = 0; i < d.items.n; i++)
        ck_abort_msg("%s:%u: %s", d.items.v[i].path, d.items.v[i].line, d.items.v[i].msg);
    ck_assert_uint_ge(st->sinks.n, 20);
    ck_assert(py_is_cache_name(st, "kv_cache", 8));
    ck_assert(py_is_kernel_decorator(st, "triton.jit"));
    ck_assert(py_is_kernel_decorator(st, "vllm.triton_utils.triton.autotune"));
    ck_assert(!py_is_kernel_decorator(st, "torch.jit.script"));
    ck_assert(!py_is_kernel_decorator(st, "jit"));  /* only through an import from triton */
    for (size_t i = 0; i < st->sinks.n; i++) {
        const py_sink *s = &st->sinks.v[i];
        ck_assert_msg(s->params && (s->key_param >= 0 || s->value_param >= 0), "line %u", s->line);
    }
    py_state_free(st);
    arena_free(a);
}
END_TEST

START_TEST(malformed_lines)
{
    static const char text[] =
        "# comment\n"
        "call\tok_first\tany\tk,v\tk\tv\tcache-op\tvllm\tkv-split\n"              /* 2 */
        "call\ttoo_few\tany\tk,v\tk\tv\tcache-op\tvllm\n"                        /* 3 */
        "prefix\ttorch.ops._C_cache_ops.\n"                                      /* 4 */
        "call\tbad_recv\tsomewhere\tk,v\tk\tv\tcache-op\tvllm\tkv-split\n"       /* 5 */
        "call\tbad_key\tany\tk,v\tkey\tv\tcache-op\tvllm\tkv-split\n"            /* 6 */
        "call\tdup\tany\tk,k\tk\t-\tcache-op\tvllm\tkv-split\n"                  /* 7 */
        "call\torder\tany\tk=,v\tk\tv\tcache-op\tvllm\tkv-split\n"               /* 8 */
        "call\tfam\tany\tk,v\tk\tv\tsomething\tvllm\tkv-split\n"                 /* 9 */
        "call\tops\tany\tk,v\tk\tv\tcache-op\tvllm\tkvsplit\n"                   /* 10 */
        "call\tnot a name\tany\tk,v\tk\tv\tcache-op\tvllm\tkv-split\n"           /* 11 */
        "call\tnone\tany\tk,v\t-\t-\tcache-op\tvllm\tkv-split\n"                 /* 12 */
        "class\tKlass\tvllm.x\tq,k,v\tk\tv\tattention-layer\tvllm\tkv-split\n"   /* 13 */
        "call\tempty_param\tany\tk,,v\tk\tv\tcache-op\tvllm\tkv-split\n"         /* 14 */
        "cache\tkv_cache\textra\n"                                               /* 15 */
        "kernel\t@triton.jit\n"                                                  /* 16 */
        "\n"
        "call\tok_last\tobject\tk,*,v=,**\tk\tv\tcache-op\t-\tkv\r\n"            /* 18 */
        "cache\tk_cache";                                                        /* 19, no newline */
    static const uint32_t bad[] = { 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
    kv_arena *a = arena_new();
    diag_list d;
    diag_init(&d, a);
    py_state *st = py_state_new();
    py_sinks_read(st, "t/sinks.tsv", text, strlen(text), &d);
    ck_assert_uint_eq(d.items.n, sizeof bad / sizeof *bad);
    for (size_t i = 0; i < d.items.n; i++) {
        ck_assert_str_eq(d.items.v[i].path, "t/sinks.tsv");
        ck_assert_uint_eq(d.items.v[i].line, bad[i]);
        ck_assert_int_eq(d.items.v[i].level, DIAG_WARNING);
        ck_assert_ptr_nonnull(strstr(d.items.v[i].msg, "sink line ignored"));
    }
    ck_assert_ptr_nonnull(strstr(d.items.v[0].msg, "9 tab-separated fields"));
    ck_assert_ptr_nonnull(strstr(d.items.v[3].msg, "'key'"));
    /* the good lines around them are loaded */
    ck_assert_uint_eq(st->sinks.n, 2);
    ck_assert_str_eq(st->sinks.v[0].name, "ok_first");
    const py_sink *last = &st->sinks.v[1];
    ck_assert_str_eq(last->name, "ok_last");
    ck_assert(last->varargs && last->varkw && last->kv && last->engine == ENGINE_NONE);
    ck_assert_int_eq(last->value_pos, -1);  /* keyword-only */
    ck_assert_str_eq(last->value_kw, "v");
    ck_assert(py_is_cache_name(st, "k_cache", 7));
    ck_assert(!py_is_cache_name(st, "kv_cache", 8));
    py_state_free(st);
    arena_free(a);
}
END_TEST

START_TEST(cache_ops_bind_by_schema)
{
    kv_arena *a = arena_new();
    diag_list d;
    py_state *st = shipped(a, &d);
    py_arg_ref k, v;
    /* reshape_and_cache_flash(key, value, key_cache, value_cache, slot_mapping, kv_cache_dtype, k_scale, v_scale) */
    py_call_shape c = call("torch.ops._C_cache_ops.reshape_and_cache_flash", PCF_VALUE, "_C_cache_ops", 8, NULL);
    const py_sink *s = py_sink_match(st, &c, &k, &v);
    ck_assert_ptr_nonnull(s);
    ck_assert(k.pos == 0 && k.kw == -1 && v.pos == 1 && v.kw == -1);
    c.npos = 6;  /* k_scale, v_scale missing */
    ck_assert_ptr_null(py_sink_match(st, &c, &k, &v));
    c.npos = 9;  /* one too many */
    ck_assert_ptr_null(py_sink_match(st, &c, &k, &v));
    c.star = true;  /* f(key, value, *rest): the rest may fill them */
    c.npos = 2;
    ck_assert_ptr_nonnull(py_sink_match(st, &c, &k, &v));
    /* keywords, in any order */
    static const char *const kws[] = { "value", "key", "key_cache", "value_cache", "slot_mapping",
                                       "kv_cache_dtype", "k_scale", "v_scale", NULL };
    c = call("ops.reshape_and_cache_flash", PCF_MODULE, "ops", 0, kws);
    ck_assert_ptr_nonnull(py_sink_match(st, &c, &k, &v));
    ck_assert(k.pos == -1 && k.kw == 1 && v.kw == 0);
    static const char *const twice[] = { "key", NULL };
    c = call("reshape_and_cache", PCF_NAME, NULL, 8, twice);
    ck_assert_ptr_null(py_sink_match(st, &c, &k, &v));  /* key given twice */
    /* concat_and_cache_mla_rope_fused(positions, q_pe, k_pe, kv_c, ...): positions are no operand */
    c = call("torch.ops._C_cache_ops.concat_and_cache_mla_rope_fused", PCF_VALUE, "_C_cache_ops", 10, NULL);
    s = py_sink_match(st, &c, &k, &v);
    ck_assert_ptr_nonnull(s);
    ck_assert(s->kv && k.pos == 3 && v.pos == 2);
    /* no prefix rule: other ops of the library are no sinks */
    c = call("torch.ops._C_cache_ops.swap_blocks", PCF_VALUE, "_C_cache_ops", 4, NULL);
    ck_assert_ptr_null(py_sink_match(st, &c, &k, &v));
    c = call("torch.ops._C_cache_ops.indexer_k_quant_and_cache", PCF_VALUE, "_C_cache_ops", 5, NULL);
    ck_assert_ptr_null(py_sink_match(st, &c, &k, &v));
    py_state_free(st);
    arena_free(a);
}
END_TEST

START_TEST(overloads_and_receivers)
{
    kv_arena *a = arena_new();
    diag_list d;
    py_state *st = shipped(a, &d);
    py_arg_ref k, v;
    /* do_kv_cache_update: AttentionImpl (layer, key, value, kv_cache, slot_mapping), MLAAttentionImpl
     * (kv_c_normed, k_pe, kv_cache, slot_mapping, kv_cache_dtype, k_scale), and extract_hidden_states'
     * (layer, to_cache, kv_cache, slot_mapping), which is none */
    py_call_shape c = call("impl.do_kv_cache_update", PCF_VALUE, "impl", 5, NULL);
    const py_sink *s = py_sink_match(st, &c, &k, &v);
    ck_assert(s && !s->kv && k.pos == 1 && v.pos == 2);
    c.npos = 6;
    s = py_sink_match(st, &c, &k, &v);
    ck_assert(s && s->kv && k.pos == 0 && v.pos == 1);
    c.npos = 4;
    ck_assert_ptr_null(py_sink_match(st, &c, &k, &v));
    c = call("do_kv_cache_update", PCF_NAME, NULL, 5, NULL);
    ck_assert_ptr_null(py_sink_match(st, &c, &k, &v));  /* a method, never a bare name */
    /* SGLang's pool method versus the JIT kernel of the same name */
    c = call("self.token_to_kv_pool.set_mla_kv_buffer", PCF_VALUE, "token_to_kv_pool", 4, NULL);
    s = py_sink_match(st, &c, &k, &v);
    ck_assert(s && s->kv && k.pos == 2 && v.pos == 3);
    c = call("sglang.jit_kernel.set_mla_kv_buffer.set_mla_kv_buffer", PCF_NAME, NULL, 4, NULL);
    ck_assert_ptr_null(py_sink_match(st, &c, &k, &v));
    c = call("module.set_mla_kv_buffer", PCF_VALUE, "module", 5, NULL);
    ck_assert_ptr_null(py_sink_match(st, &c, &k, &v));
    static const char *const kv[] = { "cache_k", "cache_v", "k_scale", NULL };
    c = call("forward_batch.token_to_kv_pool.set_kv_buffer", PCF_VALUE, "token_to_kv_pool", 2, kv);
    s = py_sink_match(st, &c, &k, &v);
    ck_assert(s && k.kw == 0 && v.kw == 1);
    c = call("memory_pool.set_kv_buffer", PCF_MODULE, "memory_pool", 4, NULL);
    ck_assert_ptr_null(py_sink_match(st, &c, &k, &v));
    /* transformers Cache.update on a cache-named receiver only */
    c = call("past_key_values.update", PCF_VALUE, "past_key_values", 3, NULL);
    s = py_sink_match(st, &c, &k, &v);
    ck_assert(s && s->via == SINK_CACHE_UPDATE && k.pos == 0 && v.pos == 1);
    c.npos = 1;
    ck_assert_ptr_null(py_sink_match(st, &c, &k, &v));  /* dict-like update(other) */
    c = call("config.update", PCF_VALUE, "config", 3, NULL);
    ck_assert_ptr_null(py_sink_match(st, &c, &k, &v));
    /* class sinks come from their engine's package */
    ck_assert_ptr_nonnull(py_sink_class(st, "vllm.model_executor.layers.attention.Attention"));
    ck_assert_ptr_nonnull(py_sink_class(st, ".attention.Attention"));  /* relative, inside vllm */
    ck_assert_ptr_nonnull(py_sink_class(st, "Attention"));             /* import not seen */
    ck_assert_ptr_null(py_sink_class(st, "diffusers.models.attention_processor.Attention"));
    ck_assert_ptr_null(py_sink_class(st, "vllm_plugin.layers.Attention"));
    ck_assert_ptr_nonnull(py_sink_class(st, "sglang.srt.layers.radix_attention.RadixAttention"));
    ck_assert_ptr_null(py_sink_class(st, "vllm.attention.RadixAttention"));
    /* class sinks bind their forward signature */
    s = py_sink_class(st, "RadixAttention");
    ck_assert_ptr_nonnull(s);
    static const char *const extra[] = { "save_kv_cache", "k_rope", NULL };
    c = call("self.attn", PCF_VALUE, NULL, 4, extra);
    ck_assert(py_sink_bind(s, &c, &k, &v) && k.pos == 1 && v.pos == 2);  /* **kwargs takes k_rope */
    s = py_sink_class(st, "Attention");
    c = call("self.attn", PCF_VALUE, NULL, 2, NULL);
    ck_assert(!py_sink_bind(s, &c, &k, &v));  /* value missing */
    c = call("self.attn", PCF_VALUE, NULL, 3, extra);
    ck_assert(!py_sink_bind(s, &c, &k, &v));  /* vLLM's forward has no save_kv_cache */
    py_state_free(st);
    arena_free(a);
}
END_TEST

START_TEST(user_sinks_keep_their_map)
{
    kv_arena *a = arena_new();
    diag_list d;
    diag_init(&d, a);
    kv_project *proj = project_default(".");
    user_sink u = { .name = "self.store_kv", .key_arg = 1, .value_arg = -1, .value_kw = "value" };
    ARENA_PUSH(proj->arena, proj->sinks, u);
    py_state *st = py_state_load(srcdir(), proj, &d);
    py_arg_ref k, v;
    static const char *const kw[] = { "value", NULL };
    py_call_shape c = call("self.store_kv", PCF_VALUE, "self", 2, kw);
    const py_sink *s = py_sink_match(st, &c, &k, &v);
    ck_assert(s && s->via == SINK_USER && k.pos == 1 && v.kw == 0);
    c.npos = 1;  /* a user sink has no signature: what is passed is stored */
    s = py_sink_match(st, &c, &k, &v);
    ck_assert(s && k.pos == -1 && v.kw == 0);
    py_state_free(st);
    project_free(proj);
    arena_free(a);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pysinks");
    TCase *t = tcase_create("table");
    tcase_add_test(t, shipped_table_is_clean);
    tcase_add_test(t, malformed_lines);
    tcase_add_test(t, cache_ops_bind_by_schema);
    tcase_add_test(t, overloads_and_receivers);
    tcase_add_test(t, user_sinks_keep_their_map);
    suite_add_tcase(s, t);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
