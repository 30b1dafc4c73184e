/*
 * check_python.c: unit tests of the Python front end's lexical layer and evaluator, and the
 * soundness of its prefilter.
 *
 * Soundness: for every Python file of a corpus (the fixtures, and the CPython standard library
 * when it is installed, or $KVLINT_PY_CORPUS), the files are indexed as the scanner does, then
 * each file the prefilter drops is analysed anyway; it must produce no fact at all. The test
 * fails if the corpus is empty or the prefilter never drops anything (so it cannot pass vacuously).
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "python/grammar.h"
#include "python/pyeval.h"
#include "python/pyfe.h"
#include "resolve/deploy.h"
#include "python/pymodcache.h"
#include "facts/dtypestr.h"
#include "facts/facts_json.h"
#include "util/fsutil.h"

static const char *srcdir(void)
{
    const char *s = getenv("top_srcdir");
    return s && *s ? s : KVLINT_SOURCE_DIR;
}

START_TEST(numbers)
{
    double x;
    ck_assert(py_parse_number("1e9", 3, &x) && x == 1e9);
    ck_assert(py_parse_number("1_000_000", 9, &x) && x == 1e6);
    ck_assert(py_parse_number("0x7fff", 6, &x) && x == 32767);
    ck_assert(py_parse_number("0b101", 5, &x) && x == 5);
    ck_assert(py_parse_number(".5", 2, &x) && x == 0.5);
    ck_assert(py_parse_number("10000.", 6, &x) && x == 10000);
    ck_assert(!py_parse_number("3j", 2, &x));
    ck_assert(!py_parse_number("0x", 2, &x));
    ck_assert(py_float_string_special("-inf", 4, &x) && isinf(x) && x < 0);
    ck_assert(py_float_string_special(" Infinity ", 10, &x) && isinf(x) && x > 0);
    ck_assert(py_float_string_special("-1e9", 4, &x) && x == -1e9);
    ck_assert(!py_float_string_special("info", 4, &x));
    ck_assert(!py_float_string_special("1e3", 3, &x));
    ck_assert(!py_float_string_special("nan", 3, &x));
}
END_TEST

static py_state *load_state(void)
{
    kv_arena *a = arena_new();
    diag_list d;
    diag_init(&d, a);
    py_state *st = py_state_load(srcdir(), NULL, &d);
    ck_assert_uint_eq(d.items.n, 0);
    arena_free(a);
    return st;
}

START_TEST(id_classes)
{
    py_state *st = load_state();
    ck_assert_str_eq(py_name_id_class(st, "adapter_ids", 11), "adapter");
    ck_assert_str_eq(py_name_id_class(st, "expert_ids", 10), "expert");
    ck_assert_str_eq(py_name_id_class(st, "positions", 9), "position");
    ck_assert_str_eq(py_name_id_class(st, "position_ids", 12), "position");
    ck_assert_str_eq(py_name_id_class(st, "input_ids", 9), "token");
    ck_assert_str_eq(py_name_id_class(st, "slot_mapping", 12), "slot");
    ck_assert_str_eq(py_name_id_class(st, "lora_idx", 8), "adapter");
    ck_assert_str_eq(py_name_id_class(st, "LoRA_Index", 10), "adapter");  /* segments case-insensitively */
    ck_assert_ptr_null(py_name_id_class(st, "position", 8));               /* a coordinate as often */
    ck_assert_ptr_null(py_name_id_class(st, "pos_embed", 9));
    ck_assert_ptr_null(py_name_id_class(st, "token_embeddings", 16));
    ck_assert_ptr_null(py_name_id_class(st, "compose", 7));
    ck_assert_ptr_null(py_name_id_class(NULL, "adapter_ids", 11));         /* no vocabulary: no ids */
    /* integer tensors by name: ids, an id suffix without a family, an integer row as last segment */
    ck_assert(py_name_integer(st, "adapter_ids", 11));
    ck_assert(py_name_integer(st, "draft_ids", 9));
    ck_assert(py_name_integer(st, "hash_indices_table", 18));
    ck_assert(py_name_integer(st, "verify_expected_tokens", 22));
    ck_assert(!py_name_integer(st, "q", 1));
    ck_assert(!py_name_integer(st, "hidden_states", 13));
    ck_assert(!py_name_integer(st, "tokens_embeds", 13));                /* only as the last segment */
    ck_assert(!py_name_integer(st, "token_embeddings", 16));
    const id_class *f = id_vocab_class(st->ids, "adapter");
    ck_assert_str_eq(f->bounds.v[0].key, "num_adapters");
    ck_assert(!f->bounds.v[0].count);
    f = id_vocab_class(st->ids, "position");
    ck_assert_str_eq(f->bounds.v[0].key, "max_model_len");
    ck_assert(f->bounds.v[0].count);
    py_state_free(st);
}
END_TEST

/* The Python front end and the resolver read one id vocabulary, so they see the same id classes: an
 * identifier of every family is named by the front end, and the resolver gives that family each
 * range the front end may bind such a value to, counted the same way (a count n: ids up to n - 1;
 * a largest id n: up to n). Before the table was shared, the front end bounded adapters by
 * num_loras and slots by num_slots, which the resolver gave no family, and the resolver knew
 * n_routed_experts and max_seq_len, which the front end never chose. */
START_TEST(front_end_and_resolver_see_the_same_id_classes)
{
    py_state *st = load_state();
    const id_vocab *v = st->ids;
    ck_assert_uint_eq(v->classes.n, 5);
    for (size_t i = 0; i < v->classes.n; i++) {
        const id_class *f = &v->classes.v[i];
        ck_assert_uint_ge(f->words.n, 1);
        ck_assert_uint_ge(f->bounds.n, 1);
        ck_assert_uint_ge(f->id_names.n, 1);
        char name[64];
        snprintf(name, sizeof name, "%s_ids", f->words.v[f->words.n - 1]);
        ck_assert_str_eq(py_name_id_class(st, name, strlen(name)), f->name);
        for (size_t k = 0; k < f->bounds.n; k++) {
            id_range_kind rk = id_vocab_range_kind(v, f->bounds.v[k].key);
            ck_assert_ptr_nonnull(rk.id_class);
            ck_assert(!rk.id_name);
            ck_assert(rk.count == f->bounds.v[k].count);
            if (k == 0) /* a family's default bound is one of its own in the resolver */
                ck_assert_str_eq(rk.id_class, f->name);
        }
        for (size_t k = 0; k < f->id_names.n; k++) {
            id_range_kind rk = id_vocab_range_kind(v, f->id_names.v[k]);
            ck_assert_str_eq(rk.id_class, f->name);
            ck_assert(rk.id_name);
        }
    }
    ck_assert_ptr_null(id_vocab_range_kind(v, "num_heads").id_class);
    /* the resolver side through the resolver itself: a declared range of each family's default
     * bound is found by family, and its largest id is what the front end's bound reaches */
    for (size_t i = 0; i < v->classes.n; i++) {
        const id_class *f = &v->classes.v[i];
        kv_project *proj = project_default(".");
        range_setting r = { f->bounds.v[0].key, 100, kv_loc_make(".kvlint.yaml", 2, 3, 0, 0) };
        ARENA_PUSH(proj->arena, proj->ranges, r);
        resolve_options opt = { .whatif_kv = KVN_DTYPE_INVALID, .whatif_model = KVN_DTYPE_INVALID, .ids = v };
        deployment_set *s = deployments_resolve(NULL, 0, proj, &opt, NULL);
        const id_range *x = deployment_range(&s->v[0], NULL, f->name);
        ck_assert_msg(x != NULL, "no %s range", f->name);
        ck_assert(x->max == 100);
        ck_assert(x->max_id == (f->bounds.v[0].count ? 99 : 100));
        deployment_set_free(s);
        project_free(proj);
    }
    py_state_free(st);
}
END_TEST

/* A malformed row of the vocabulary is an error at its line and is skipped. */
START_TEST(id_vocabulary_rows)
{
    kv_arena *a = arena_new();
    diag_list d;
    diag_init(&d, a);
    const char *text = "# comment\nsuffix\t-\tids\nword\tadapter\tlora\nbound\tadapter\tn\tmany\n"
                       "word\tadapter\n\nbound\tadapter\tmax_loras\tlargest\nnoun\tx\ty\n"
                       "integer\t-\ttokens\ninteger\tadapter\tslots\n";
    id_vocab *v = id_vocab_read("ids.tsv", text, strlen(text), &d);
    ck_assert_uint_eq(d.items.n, 4);
    ck_assert_uint_eq(d.items.v[0].line, 4);
    ck_assert_uint_eq(d.items.v[1].line, 5);
    ck_assert_uint_eq(d.items.v[2].line, 8);
    ck_assert_uint_eq(d.items.v[3].line, 10);   /* an integer row names no family */
    ck_assert(id_vocab_name_integer(v, "out_tokens", 10));
    ck_assert(!id_vocab_name_integer(v, "out_slots", 9));
    ck_assert_str_eq(id_vocab_name_class(v, "lora_ids", 8), "adapter");
    ck_assert_uint_eq(id_vocab_class(v, "adapter")->bounds.n, 1);
    ck_assert_uint_eq(v->classes.n, 1);  /* the bad rows made no family */
    id_vocab_free(v);
    arena_free(a);
}
END_TEST

START_TEST(dtype_string_rows)
{
    kv_arena *a = arena_new();
    diag_list d;
    diag_init(&d, a);
    const char *text = "# kind\tspelling\tdtype\nkv\tauto\tbfloat16\nkv\tfp8\tfp8_e4m3\nkv\tfp8_e4m3\tfp8_e4m3\n"
                       "kv\tfp8_e5m2\tfp8_e5m2\nkv\tbf16\tbfloat16\nmodel\thalf\tfloat16\nkv\tx\tnot_a_dtype\n"
                       "gpu\tfp8\tfp8_e4m3\nkv\tonly_two\n";
    dtype_strings *t = dtype_strings_read("dtype_strings.tsv", text, strlen(text), &d);
    ck_assert_uint_eq(d.items.n, 5);
    ck_assert_uint_eq(d.items.v[0].line, 2);   /* auto is no row */
    ck_assert_uint_eq(d.items.v[1].line, 7);   /* no model rows: code sees a torch.dtype */
    ck_assert_uint_eq(d.items.v[2].line, 8);   /* unknown dtype, kind, too few columns */
    ck_assert_uint_eq(d.items.v[4].line, 10);
    kvn_dtype e4m3 = kvn_dtype_parse("fp8_e4m3", false), e5m2 = kvn_dtype_parse("fp8_e5m2", false);
    kvn_dtype bf16 = kvn_dtype_parse("bfloat16", false), f32 = kvn_dtype_parse("float32", false);
    kv_dtype_set yes, no;
    bool auto_passes;
    const char *fp8[] = { "fp8" };
    ck_assert(dtype_strings_split(t, DREF_KV, DSTR_PREFIX, fp8, 1, &yes, &no, &auto_passes));
    ck_assert(dset_has(yes, e4m3) && !dset_has(no, e4m3));   /* both its spellings start with fp8 */
    ck_assert(dset_has(yes, e5m2) && !dset_has(no, e5m2));
    ck_assert(!dset_has(yes, bf16) && dset_has(no, bf16));
    ck_assert(dset_has(yes, f32) && dset_has(no, f32));       /* no spelling: either way */
    ck_assert(!auto_passes);
    ck_assert(dtype_strings_split(t, DREF_KV, DSTR_EQUALS, fp8, 1, &yes, &no, &auto_passes));
    ck_assert(dset_has(yes, e4m3) && dset_has(no, e4m3));     /* "fp8_e4m3" is not == "fp8" */
    ck_assert(!dset_has(yes, e5m2) && dset_has(no, e5m2));
    const char *e5[] = { "e5m2", "bf16" };
    ck_assert(dtype_strings_split(t, DREF_KV, DSTR_SUFFIX, e5, 2, &yes, &no, &auto_passes));
    ck_assert(dset_has(yes, e5m2) && !dset_has(no, e5m2) && dset_has(yes, bf16) && !dset_has(no, bf16));
    const char *autow[] = { "auto" };
    ck_assert(dtype_strings_split(t, DREF_KV, DSTR_EQUALS, autow, 1, &yes, &no, &auto_passes));
    ck_assert(auto_passes && !dset_has(yes, e4m3) && dset_has(no, e4m3));   /* only "auto" passes */
    const char *unknown[] = { "fp8_new" };
    ck_assert(!dtype_strings_split(t, DREF_KV, DSTR_EQUALS, unknown, 1, &yes, &no, &auto_passes));
    const char *half[] = { "half" };
    ck_assert(!dtype_strings_split(t, DREF_KV, DSTR_CONTAINS, half, 1, &yes, &no, &auto_passes));   /* model's */
    ck_assert(!dtype_strings_split(t, DREF_MODEL, DSTR_CONTAINS, half, 1, &yes, &no, &auto_passes));
    ck_assert(!dtype_strings_split(NULL, DREF_KV, DSTR_PREFIX, fp8, 1, &yes, &no, &auto_passes));
    ck_assert_uint_le(kvn_dtype_count(), 64);   /* kv_dtype_set has a bit per dtype */
    dtype_strings_free(t);
    arena_free(a);
}
END_TEST

START_TEST(suppressions)
{
    /* The parser itself is tested in check_frontend; here: which '#' the Python lexer reads as a comment. */
    file_facts *f = file_facts_new("s.py");
    const char *src = "x = '# kvlint: ignore'\ny = 1  # kvlint: ignore[KV003] -- why\n";
    py_collect_suppressions(src, strlen(src), f->arena, f);
    ck_assert_uint_eq(f->suppressions.n, 1);
    ck_assert_uint_eq(f->suppressions.v[0].line, 2);
    ck_assert_uint_eq(f->suppressions.v[0].col, 8);
    ck_assert_str_eq(f->suppressions.v[0].ids[0], "KV003");
    ck_assert_str_eq(f->suppressions.v[0].reason, "why");
    file_facts_free(f);
}

START_TEST(module_index)
{
    kv_arena *a = arena_new();
    const char *src = "NEG = -1e9\nPOS: float = float('inf')\nSMALL = 0.125\nM = math.inf\n"
                      "def f():\n    LOCAL = -1e9\nX = (\n-1e9)\nY = -1e9 + 1\nZ == 3\n";
    const py_exports *ex = py_index_source(NULL, src, strlen(src), a);
    ck_assert_uint_eq(ex->n, 4);
    ck_assert_str_eq(ex->v[0].name, "NEG");
    ck_assert(ex->v[0].value == -1e9 && ex->v[0].sentinel);
    ck_assert_uint_eq(ex->v[0].line, 1);
    ck_assert_uint_eq(ex->v[0].col, 7);
    ck_assert_str_eq(ex->v[1].name, "POS");
    ck_assert(isinf(ex->v[1].value) && ex->v[1].sentinel);
    ck_assert_str_eq(ex->v[2].name, "SMALL");
    ck_assert(!ex->v[2].sentinel);
    ck_assert_str_eq(ex->v[3].name, "M");
    arena_free(a);
}
END_TEST

/* The torch API table: the shipped table loads cleanly and says what the evaluator relies on; a
 * malformed line is reported with its line number and skipped, the rest still loads. */
START_TEST(torch_api_table)
{
    kv_arena *a = arena_new();
    diag_list d;
    diag_init(&d, a);
    pt_api *api = pt_api_load(srcdir(), &d);
    ck_assert_uint_eq(d.items.n, 0);
    const pt_entry *full = pt_function(api, "full", 4);
    ck_assert(full && full->values == PTV_FILL && full->nfill == 1 && full->fill[0].pos == 1);
    ck_assert_str_eq(full->fill[0].kw, "fill_value");
    ck_assert_ptr_null(pt_method(api, "full", 4));
    const pt_entry *to = pt_method(api, "to", 2);
    ck_assert(to && to->returns == PTR_CAST && to->dtype == PTD_TARGET && to->bits == PTB_BITCAST_KW);
    const pt_entry *view = pt_method(api, "view", 4);
    ck_assert(view && view->values == PTV_SAME && view->bits == PTB_DTYPE_ARG);
    const pt_entry *wf = pt_function(api, "where", 5), *wm = pt_method(api, "where", 5);
    ck_assert(wf && wm && wf != wm && wf->values == PTV_WHERE && wm->values == PTV_JOIN);
    const pt_entry *pad = pt_function(api, "pad", 3);
    ck_assert(pad && pad->values == PTV_JOIN && pad->fill[0].pos == 3 && pad->fill[0].has_default && pad->fill[0].def == 0);
    const pt_entry *randint = pt_function(api, "randint", 7);
    ck_assert(randint && randint->values == PTV_UNKNOWN && randint->dtype == PTD_KW_OR_INT && !randint->int_source);
    const pt_entry *inplace = pt_method(api, "masked_fill_", 12);
    ck_assert(inplace && inplace->returns == PTR_INPLACE && inplace->values == PTV_JOIN);
    const pt_entry *clamp = pt_lookup(api, PT_FN | PT_METHOD, "clamp", 5);
    ck_assert(clamp && (clamp->on & PT_FN) && (clamp->on & PT_METHOD) && pt_fill_kw(clamp, "max")->pos == 1);
    const pt_entry *i32 = pt_lookup(api, PT_DTYPE, "int32", 5), *f32 = pt_lookup(api, PT_DTYPE, "float32", 7);
    bool u = true;
    ck_assert(i32 && i32->cls == PTC_INT && pt_int_bits(i32, &u) == 32 && !u && f32 && f32->cls == PTC_WIDE);
    ck_assert(pt_int_bits(pt_lookup(api, PT_DTYPE, "uint8", 5), &u) == 8 && u);
    ck_assert(pt_int_bits(pt_lookup(api, PT_DTYPE, "long", 4), &u) == 64);
    ck_assert(!pt_int_bits(pt_lookup(api, PT_DTYPE, "bool", 4), &u) && !pt_int_bits(f32, &u));
    ck_assert_str_eq(pt_lookup(api, PT_MODULE, "F", 1)->module, "torch");
    /* the prefilter's view of the same rows */
    ck_assert(pt_word_of(api, "arange", 6).int_source && pt_word_of(api, "arange", 6).tensor_ctx);
    ck_assert(pt_word_of(api, "half", 4).cast && !pt_word_of(api, "half", 4).tensor_ctx);
    ck_assert(!pt_word_of(api, "long", 4).cast);     /* an integer cast makes no fact */
    ck_assert(!pt_word_of(api, "randint", 7).int_source);
    ck_assert(pt_word_of(api, "torch", 5).tensor_ctx && !pt_word_of(api, "math", 4).tensor_ctx);
    ck_assert(!pt_word_of(api, "split", 5).tensor_ctx && !pt_word_of(api, "spli", 4).tensor_ctx);
    ck_assert(!pt_word_of(NULL, "torch", 5).tensor_ctx);
    pt_api_free(api);

    const char *bad = "# header\n"
                      "fn\tfull\tnew\tkw\tfill\t1:fill_value\t-\t-\ttorch.full\n"
                      "fn\tzeros\tnew\tkw\tzeros\t-\t-\n"                              /* 7 columns */
                      "fn\tempty\tnowhere\tkw\tunknown\t-\t-\t-\ttorch.empty\n"         /* bad returns */
                      "fn\tpad\tnew\tinput\tjoin\tvalue\t-\t-\tF.pad\n"                /* fill without POS: */
                      "dtype\tint7\tint\tint7\t-\t-\t-\t-\t-\n"                       /* no such width */
                      "method\tto\tcast\ttarget\tcast\t-\tcast\tbitcast-kw\t.to\n"
                      "both\tfull\tnew\tkw\tunknown\t-\t-\t-\ttorch.full\n";       /* a second fn row */
    diag_init(&d, a);
    api = pt_api_parse(bad, strlen(bad), "t.tsv", &d);
    ck_assert_uint_eq(d.items.n, 5);
    ck_assert_uint_eq(d.items.v[0].line, 3);
    ck_assert_uint_eq(d.items.v[3].line, 6);
    ck_assert_uint_eq(d.items.v[4].line, 8);
    ck_assert(pt_function(api, "full", 4) && pt_function(api, "full", 4)->values == PTV_FILL);
    ck_assert(pt_method(api, "to", 2));
    ck_assert_ptr_null(pt_function(api, "zeros", 5));
    ck_assert_ptr_null(pt_function(api, "pad", 3));
    pt_api_free(api);
    arena_free(a);
}
END_TEST

START_TEST(function_index)
{
    kv_arena *a = arena_new();
    const char *src = "from .consts import NEG as MASK, GAIN\n"
                      "import torch\n"
                      "LIMIT = 3\n"
                      "def plain(x):\n    return x.contiguous()\n"
                      "def last(k):\n    return GAIN\n"
                      "def after(k):\n    return k\n"
                      "def fill(k, dtype):\n    return torch.full_like(k, MASK, dtype=dtype)\n"
                      "def outer(k):\n    return fill(k, k.dtype)\n"
                      "def ids(adapter_ids, d):\n    return adapter_ids.to(d)\n"
                      "@triton.jit\ndef kern(x):\n    y = -1e30\n"
                      "async def neg(x):\n    return x - 1e9\n"
                      "class C:\n    def method(self):\n        return -1e9\n";
    const py_exports *ex = py_index_source(NULL, src, strlen(src), a);
    ck_assert_uint_eq(ex->nfn, 9);  /* sorted: C after fill ids kern last neg outer plain; no method */
    const py_func_export *f = py_exported_function(ex, "fill");
    ck_assert(f && !f->sentinel && f->nuses == 1);
    ck_assert_str_eq(f->uses[0], "NEG");  /* the imported spelling of the alias */
    ck_assert_uint_eq(f->line, 10);
    ck_assert(strncmp(src + f->start, "def fill", 8) == 0 && strncmp(src + f->end, "def outer", 9) == 0);
    f = py_exported_function(ex, "outer");
    ck_assert(f && f->ncalls == 1 && strcmp(f->calls[0], "fill") == 0);
    ck_assert(f->nuses == 1 && strcmp(f->uses[0], "fill") == 0);  /* fill may reach a sentinel */
    f = py_exported_function(ex, "ids");
    ck_assert(f && !f->sentinel);
    f = py_exported_function(ex, "kern");
    ck_assert(f && f->kernel && f->sentinel);
    f = py_exported_function(ex, "neg");
    ck_assert(f && f->sentinel && !f->kernel);
    f = py_exported_function(ex, "plain");
    ck_assert(f && !f->sentinel && f->nuses == 0);
    f = py_exported_function(ex, "last");   /* a block's last token is its use, not the next's */
    ck_assert(f && f->nuses == 1 && strcmp(f->uses[0], "GAIN") == 0);
    f = py_exported_function(ex, "after");
    ck_assert(f && f->nuses == 0);
    ck_assert(!py_exported_function(ex, "method"));
    f = py_exported_function(ex, "C");  /* a class: its extent, never the sentinel flag */
    ck_assert(f && f->is_class && !f->sentinel && !f->kernel && f->nuses == 0);
    ck_assert(strncmp(src + f->start, "class C", 7) == 0 && f->end == strlen(src));
    ck_assert_uint_ge(ex->nprologue, 1);
    ck_assert_uint_eq(ex->prologue[0].start, 0);
    arena_free(a);
}
END_TEST

/* A class's members: which spell a mask-like sentinel (a method's own, through another member,
 * a constant of the file), which make the whole class followed (class level, initialiser), and
 * which numbers are sizes (a positive integer literal, a hex mask). */
START_TEST(index_class_members)
{
    kv_arena *a = arena_new();
    const char *src = "NEG = -1e9\n"
                      "class Methods(Base):\n"
                      "    \"\"\"Doc.\"\"\"\n"
                      "    @staticmethod\n"
                      "    def pad(k):\n"
                      "        return F.pad(k, (0, 1), value=-10000)\n"
                      "    def forward(self, k):\n"
                      "        return self._fill(k)\n"
                      "    def _fill(self, k):\n"
                      "        def inner():\n"
                      "            return float('-inf')\n"
                      "        return inner()\n"
                      "    async def neg(self, k):\n"
                      "        return k + NEG\n"
                      "    def sizes(self):\n"
                      "        return {'a': 16384, 'b': 0xFFFF, 'c': 1e-6}\n"
                      "class Init:\n"
                      "    def __init__(self, dtype):\n"
                      "        self.neg = torch.finfo(dtype).min\n"
                      "    def get(self):\n"
                      "        return self.neg\n"
                      "class Level:\n"
                      "    FILL = 1e30\n"
                      "class Plain:\n"
                      "    def size(self):\n"
                      "        return 65536\n";
    const py_exports *ex = py_index_source(NULL, src, strlen(src), a);
    const py_func_export *m = py_exported_function(ex, "Methods");
    ck_assert(m && m->is_class && !m->own_sentinel && !m->sentinel);
    ck_assert_uint_eq(m->nsentinel_members, 4);   /* pad, forward, _fill, neg */
    ck_assert(py_class_member_spells(ex, m, "pad") && py_class_member_spells(ex, m, "forward"));
    ck_assert(py_class_member_spells(ex, m, "_fill") && py_class_member_spells(ex, m, "neg"));
    ck_assert(!py_class_member_spells(ex, m, "sizes") && !py_class_member_spells(ex, m, "inner"));
    ck_assert(!py_class_member_spells(ex, m, NULL));
    const py_func_export *c = py_exported_function(ex, "Init");
    ck_assert(c && c->own_sentinel && py_class_member_spells(ex, c, "anything"));
    c = py_exported_function(ex, "Level");
    ck_assert(c && c->own_sentinel);
    c = py_exported_function(ex, "Plain");
    ck_assert(c && !c->own_sentinel && c->nsentinel_members == 0 && !py_class_member_spells(ex, c, "size"));
    arena_free(a);
}
END_TEST

START_TEST(link_class_constants)
{
    kv_arena *a = arena_new();
    static const char *const paths[] = { "a/pkg/consts.py", "a/pkg/types.py", "a/pkg/maskers.py" };
    static const char *const srcs[] = {
        "NEG = -1e9\nBLOCK = 16384\nINF = float('-inf')\n",
        "class Cfg:\n    pass\nclass Base:\n    pass\ndef deco(f):\n    return f\n",
        "from .consts import NEG, BLOCK, INF\n"
        "from .types import Cfg, Base, deco\n"
        "from . import consts\n"
        "class Fill(Base):\n"
        "    @deco\n"
        "    def fill(self, k, m: Cfg) -> Cfg:\n"
        "        return k.masked_fill(m, NEG)\n"
        "class Sized:\n"
        "    def pad(self, k):\n"
        "        return F.pad(k, (0, BLOCK))\n"
        "class Typed(Base):\n"
        "    def run(self, k: Cfg):\n"
        "        return Cfg(k)\n"
        "class InitInf:\n"
        "    def __init__(self):\n"
        "        self.v = INF\n"
        "class Qualified:\n"
        "    def get(self, k, m):\n"
        "        return k.masked_fill(m, consts.NEG)\n" };
    enum { N = 3 };
    fe_file_index ix[N];
    for (size_t i = 0; i < N; i++)
        ix[i] = (fe_file_index){ paths[i], py_index_source(NULL, srcs[i], strlen(srcs[i]), a) };
    const py_link *l = py_link_indexes(ix, N, a);
    const py_exports *ex = ix[2].exports;
    /* a class's uses are the imported names its text uses as values: no base, decorator,
     * annotation or called name */
    const py_func_export *c = py_exported_function(ex, "Fill");
    ck_assert(c && c->is_class && c->nuses == 1 && strcmp(c->uses[0], "NEG") == 0);
    ck_assert(py_link_class_follows(l, &ix[2], c, "fill") && py_link_class_follows(l, &ix[2], c, NULL));
    c = py_exported_function(ex, "Sized");   /* 16384 is a size: not followed for it */
    ck_assert(c && c->nuses == 1 && !py_link_class_follows(l, &ix[2], c, "pad"));
    c = py_exported_function(ex, "Typed");
    ck_assert(c && c->nuses == 0 && !py_link_class_follows(l, &ix[2], c, "run"));
    c = py_exported_function(ex, "InitInf");
    ck_assert(c && c->nuses == 1 && py_link_class_follows(l, &ix[2], c, NULL));
    c = py_exported_function(ex, "Qualified");   /* consts.NEG: NEG of the module consts */
    ck_assert(c && py_link_class_follows(l, &ix[2], c, "get"));
    ck_assert(!py_link_class_follows(NULL, &ix[2], py_exported_function(ex, "Fill"), "fill"));
    arena_free(a);
}
END_TEST

/* The files a file imports, as paths to try (a run on named files indexes those that exist). */
START_TEST(import_candidates)
{
    kv_arena *a = arena_new();
    const char *src = "from .masks import a, b as c\n"
                      "from . import consts\n"
                      "from ..pkg.sub import (x,\n    y)\n"
                      "import torch.nn as nn, vllm.config\n"
                      "def f():\n    from .lazy import z\n    x = g(1,\n        from .bad import q)\n"   /* inside brackets */
                      "def h():\n    # C:\\\n    from .e import w\n"   /* a comment's backslash continues nothing */
                      "s = 'from .fake import q'\n"
                      "from plugin.layers import *\n";
    const fe_import *v;
    size_t n = py_imports(src, strlen(src), a, &v);
    char got[2048] = "";
    for (size_t i = 0; i < n; i++) {
        strcat(got, v[i].path);
        strcat(got, v[i].rooted ? "@ " : " ");
    }
    ck_assert_str_eq(got, "masks/a.py masks/a/__init__.py masks/b.py masks/b/__init__.py masks.py masks/__init__.py "
                          "consts.py consts/__init__.py __init__.py "
                          "../pkg/sub/x.py ../pkg/sub/x/__init__.py ../pkg/sub/y.py ../pkg/sub/y/__init__.py "
                          "../pkg/sub.py ../pkg/sub/__init__.py "
                          "torch/nn.py@ torch/nn/__init__.py@ vllm/config.py@ vllm/config/__init__.py@ "
                          "lazy/z.py lazy/z/__init__.py lazy.py lazy/__init__.py "   /* inside a function */
                          "e/w.py e/w/__init__.py e.py e/__init__.py "
                          "plugin/layers.py@ plugin/layers/__init__.py@ ");
    arena_free(a);
}
END_TEST

START_TEST(declares_literal_deployment)
{
    static const struct { const char *src; bool yes; } cases[] = {
        { "llm = LLM(model='m', dtype=\"float16\")\n", true },
        { "e = sgl.Engine(model_path=p,\n    kv_cache_dtype='fp8_e5m2')\n", true },
        { "args = EngineArgs(model=m, max_model_len=8192)\n", true },
        { "llm = LLM(model=name, dtype=dtype)\n", false },            /* no literal */
        { "llm = LLM(**kwargs)\n", false },
        { "x = f(dtype='float16')\nLLM(model)\n", false },             /* the keyword is not the engine's */
        { "LLM(model=g(dtype='float16'))\n", false },                 /* a nested call's keyword */
        { "# LLM(dtype='float16')\ns = \"LLM(dtype='half')\"\n", false }, /* a comment, a string */
        { "torch.set_default_dtype(torch.float16)\n", false },
        { "LLM(model='m', dtype=", false },                           /* cut short */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        ck_assert_msg(py_declares_literal_deployment(cases[i].src, strlen(cases[i].src)) == cases[i].yes,
                      "case %zu: %s", i, cases[i].src);
}
END_TEST

START_TEST(link_modules)
{
    kv_arena *a = arena_new();
    static const char *const paths[] = { "a/pkg/__init__.py", "a/pkg/consts.py", "a/pkg/masks.py", "a/pkg/model.py",
                                         "b/pkg/masks.py", "c/util.py" };
    static const char *const srcs[] = { "", "NEG = -1e9\n", "from .consts import NEG\ndef full(k):\n    return NEG\n",
                                        "x = 1\n", "def full(k):\n    return k\n", "def helper(x):\n    return x\n" };
    enum { N = 6 };
    fe_file_index ix[N];
    for (size_t i = 0; i < N; i++)
        ix[i] = (fe_file_index){ paths[i], py_index_source(NULL, srcs[i], strlen(srcs[i]), a) };
    const py_link *l = py_link_indexes(ix, N, a);
    const char *imp = "a/pkg/model.py";
    ck_assert_ptr_eq(py_link_module(l, imp, ".masks", 6), &ix[2]);
    ck_assert_ptr_eq(py_link_module(l, imp, "pkg.masks", 9), &ix[2]);  /* the nearer of two */
    ck_assert_ptr_eq(py_link_module(l, "b/x.py", "pkg.masks", 9), &ix[4]);
    ck_assert_ptr_eq(py_link_module(l, imp, "..pkg", 5), &ix[0]);       /* a package */
    ck_assert_ptr_eq(py_link_module(l, imp, "util", 4), &ix[5]);
    ck_assert_ptr_null(py_link_module(l, imp, ".util", 5));
    ck_assert_ptr_null(py_link_module(l, imp, ".", 1));
    /* full() of a/pkg/masks.py uses NEG, a sentinel constant of another file */
    const py_func_export *f = py_exported_function(ix[2].exports, "full");
    ck_assert(f && !f->sentinel && py_link_function_sentinel(l, &ix[2], f));
    ck_assert(py_link_is_sentinel_function(l, "full", 4));
    ck_assert(py_link_is_sentinel(l, "NEG", 3));
    ck_assert(!py_link_is_sentinel_function(l, "helper", 6));
    arena_free(a);
}
END_TEST

/* Sentinels from other files count where the file's imports bring them, not by spelling: a
 * `.split(...)` of a string is not the `split` another file defines with a sentinel in it. */
START_TEST(prefilter_imports)
{
    kv_arena *a = arena_new();
    kv_project *proj = project_default(".");
    diag_list d;
    diag_init(&d, a);
    py_state *st = py_state_load(srcdir(), proj, &d);
    static const char *const paths[] = { "p/pkg/masks.py", "p/pkg/text.py", "p/pkg/consts.py", "p/pkg/wrap.py",
                                         "p/pkg/user.py" };
    static const char *const srcs[] = {
        "def make_mask(m):\n    return m * -1e9\ndef plain(x):\n    return x\n",
        "def split(s):\n    return s[:100000]\n",
        "NEG = -1e9\n",
        "from . import masks\ndef wrapped(m):\n    return masks.make_mask(m)\ndef other(m):\n    return masks.plain(m)\n",
        "",
    };
    enum { N = 5 };
    fe_file_index ix[N];
    for (size_t i = 0; i < N; i++)
        ix[i] = (fe_file_index){ paths[i], py_index_source(NULL, srcs[i], strlen(srcs[i]), a) };
    fe_context ctx = { .project = proj, .state = st, .indexes = ix, .nindexes = N,
                       .link = py_link_indexes(ix, N, a) };
    /* wrapped() reaches a sentinel through the module it imports; other() does not */
    const py_func_export *w = py_exported_function(ix[3].exports, "wrapped");
    const py_func_export *o = py_exported_function(ix[3].exports, "other");
    ck_assert(w && py_link_function_sentinel(ctx.link, &ix[3], w));
    ck_assert(o && !py_link_function_sentinel(ctx.link, &ix[3], o));
    static const struct { const char *src; bool keep; } t[] = {
        { "import torch\nparts = s.split(',')\n", false },               /* str.split, not text.split */
        { "import torch\nfrom .text import split\nx = split(s)\n", true },
        { "import torch\nfrom .masks import make_mask\nm = make_mask(x)\n", true },
        { "import torch\nfrom .masks import plain\nm = plain(x)\n", false },
        { "import torch\nfrom .consts import NEG\nm = x + NEG\n", true },
        { "import torch\nfrom .masks import NEG\nm = x + NEG\n", false },  /* masks.py has no NEG */
        { "import torch\nfrom . import masks\nm = masks.make_mask(x)\n", true },
        { "import torch\nfrom . import masks\nm = masks.plain(x)\n", false },
        { "import torch\nimport pkg.masks as M\nm = M.make_mask(x)\n", true },
        { "import torch\nimport pkg.masks\nm = pkg.masks.make_mask(x)\n", true },
        { "import torch\nfrom . import masks\nf = masks\n", true },      /* the module handed on */
        { "import torch\nfrom .wrap import wrapped\nm = wrapped(x)\n", true },
        { "import torch\nfrom .wrap import other\nm = other(x)\n", false },
    };
    for (size_t i = 0; i < sizeof t / sizeof *t; i++)
        ck_assert_msg(py_prefilter(st, &ctx, paths[4], t[i].src, strlen(t[i].src)) == t[i].keep, "case %zu: %s", i,
                      t[i].src);
    py_state_free(st);
    project_free(proj);
    arena_free(a);
}
END_TEST

static py_modpart parsed(const char *src)
{
    py_modpart p = { strdup(src), strlen(src), NULL, strlen(src) };
    TSParser *ps = ts_parser_new();
    ck_assert(ps && ts_parser_set_language(ps, tree_sitter_python()));
    p.tree = ts_parser_parse_string(ps, NULL, p.data, (uint32_t)p.len);
    ts_parser_delete(ps);
    ck_assert_ptr_nonnull(p.tree);
    return p;
}

/* The run's cache of module parts: one parse per (file, function), the file's bytes shared. */
START_TEST(module_cache)
{
    py_modcache *c = py_modcache_new();
    ck_assert_ptr_nonnull(c);
    const char *src = "def f(x):\n    return x\ndef g(y):\n    return y\n";
    py_modkey kf = { "m/masks.py", "f", 0, 24 }, kg = { "m/masks.py", "g", 24, 48 };
    py_modpart out;
    ck_assert(!py_modcache_get(c, &kf, &out));
    py_modpart p = parsed(src);
    ck_assert(py_modcache_put(c, &kf, &p, &out));
    ck_assert_ptr_null(p.data);                      /* the cache took it */
    ck_assert(out.tree && out.data && out.len == strlen(src));
    const char *shared = out.data;
    ts_tree_delete(out.tree);
    ck_assert(py_modcache_get(c, &kf, &out));
    ck_assert_ptr_eq(out.data, shared);
    ck_assert_str_eq(ts_node_type(ts_tree_root_node(out.tree)), "module");
    ts_tree_delete(out.tree);
    /* another function of the same file: its own tree, the same bytes */
    p = parsed(src);
    ck_assert(py_modcache_put(c, &kg, &p, &out));
    ck_assert_ptr_eq(out.data, shared);
    ts_tree_delete(out.tree);
    /* a second put of a key already held (two threads parsed it): the cached one wins */
    p = parsed(src);
    ck_assert(py_modcache_put(c, &kf, &p, &out));
    ck_assert_ptr_eq(out.data, shared);
    ts_tree_delete(out.tree);
    /* a failed load is remembered */
    py_modkey kx = { "m/missing.py", "h", 0, 1 };
    py_modpart none = { 0 };
    ck_assert(py_modcache_put(c, &kx, &none, &out));
    ck_assert(py_modcache_get(c, &kx, &out) && out.tree == NULL);
    /* many files, two parts each: every part reads back its own file's bytes (a file's entry and
     * its first part must not land in one slot), and nothing leaks (ASan in CI) */
    char paths[300][32], srcs[300][64];
    for (int i = 0; i < 300; i++) {
        snprintf(paths[i], sizeof paths[i], "m/mod%d.py", i);
        snprintf(srcs[i], sizeof srcs[i], "def f(x):\n    return x + %d\ndef g(y):\n    return y\n", i);
        for (int w = 0; w < 2; w++) {
            py_modkey k = { paths[i], w ? "g" : "f", (uint32_t)w, (uint32_t)w + 1 };
            p = parsed(srcs[i]);
            ck_assert(py_modcache_put(c, &k, &p, &out));
            ck_assert_str_eq(out.data, srcs[i]);
            ts_tree_delete(out.tree);
        }
    }
    for (int i = 0; i < 300; i++) {
        py_modkey k = { paths[i], "g", 1, 2 };
        ck_assert(py_modcache_get(c, &k, &out));
        ck_assert_str_eq(out.data, srcs[i]);
        ts_tree_delete(out.tree);
    }
    py_modcache_free(c);
    ck_assert(!py_modcache_get(NULL, &kf, &out));  /* no cache: nothing cached, nothing taken */
    p = parsed(src);
    ck_assert(!py_modcache_put(NULL, &kf, &p, &out) && p.data);
    ts_tree_delete(p.tree);
    free(p.data);
}
END_TEST

START_TEST(prefilter_words)
{
    kv_project *proj = project_default(".");
    diag_list d;
    kv_arena *a = arena_new();
    diag_init(&d, a);
    py_state *st = py_state_load(srcdir(), proj, &d);
    ck_assert_uint_eq(d.items.n, 0);
    static const struct { const char *src; bool keep; } t[] = {
        { "x = 1\n", false },
        { "x = 1e3  # -1e9 in a comment\n", false },
        { "s = 'the word inf in a string'\n", false },
        { "x = -1e9\n", false },                           /* a sentinel, but no tensor and no dtype */
        { "x = torch.full((2,), -1e9)\n", true },
        { "x = 10_000\n", false },
        { "m = np.full(2, 10_000)\n", true },
        { "x = float('-inf')\ny = a @ b\n", true },
        { "x = float('-inf')\n@dec\ndef f(): pass\n", false }, /* a decorator is no matmul */
        { "x = math.inf\n", false },
        { "x = math.inf\nattention_mask = None\n", true },
        { "m = torch.finfo(t).min\n", true },
        { "from .c import NEG\ny = x.to(d)\n", false },    /* NEG is no sentinel without an index */
        { "self.attn(q, k, v)\nfrom vllm import Attention\n", true },
        { "kv_cache[0] = k\n", true },
        /* a cache-tensor name stores only where a write can name it: a subscript or a method */
        { "self.k_cache[:, 0] += k\n", true },
        { "kv_cache.copy_(k)\n", true },
        { "past_key_values.update(k, v, 0)\n", true },
        { "kv_caches[i].index_copy_(0, slots, k)\n", true },
        { "d = kv_cache_dtype\nq = is_quantized_kv_cache(d)\n", false },
        { "from vllm.utils import is_quantized_kv_cache\nn = self.kv_cache_config.num_blocks\n", false },
        { "n = kv_cache.data\n", false },
        /* a method that writes nothing into the cache: pe_base_name does not look through a call,
         * and only in-place methods (apply_inplace) and cache sinks store into their receiver */
        { "self.kv_cache_manager.free(request)\n", false },
        { "x = kv_cache.view(-1, 16)\n", false },
        { "kv_cache.squeeze_(0)\n", false },               /* in place, but its values are its own */
        { "self.kv_cache.fill_(0)\n", true },
        /* a subscript stores only as a target, or as the receiver of a writing method */
        { "conv_state = self.kv_cache[0]\nssm_state = self.kv_cache[1]\n", false },
        { "f(kv_cache[0], x)\nif kv_cache[1] is None:\n    pass\n", false },
        { "ok = kv_cache[0] == x\nlo = kv_cache[1] <= y\n", false },
        { "kv_cache[0]\nx = 1\n", false },
        { "k_cache[i], v_cache[i] = k, v\n", true },
        { "(k_cache[i], n) = k, 1\n", true },
        { "kv_cache[0][i] = k\n", true },
        { "kv_cache[0] >>= 1\n", true },
        { "kv_cache[0].copy_(k)\n", true },
        { "kv_cache[0]: T = k\n", true },
        { "for kv_cache[i] in rows:\n    pass\n", true },
        { "with f() as self.kv_cache[0]:\n    pass\n", true },
        { "kv_cache[idx[0]] = k\n", true },
        { "k_cache[kv_cache_idx] = k\n", true },
        { "k_cache[i\n", true },                              /* unclosed: may hide a store */
        /* an engine call declares only with a keyword pystore.c reads, as a word or a dict key */
        { "llm = LLM(model='m')\n", false },
        { "from vllm import LLM\nllm = LLM(model='m', **kw)\n", false },
        { "llm = LLM(model='m', kv_cache_dtype='fp8')\n", true },
        { "from vllm import LLM as L\nd = 'half'\nllm = L('m', dtype=d)\n", true },
        { "a = EngineArgs(model='m', max_model_len=4096)\n", true },
        { "c = vLLMEngineProcessorConfig(engine_kwargs={'max_model_len': 16384})\n", true },
        { "from vllm.engine.arg_utils import EngineArgs\nx = 'max_model_len'\n", true },
        { "torch.set_default_dtype(torch.float16)\n", true },   /* by position */
        { "from vllm.LLM import dtype\n", false },             /* a module path declares nothing */
        { "y = ids.to(d)\n", false },                       /* a cast, but no integer source */
        { "y = input_ids.to(d)\n", true },
        { "y = torch.arange(n).float()\n", true },
        { "w = torch.randint(0, 9, (2,)).half()\n", false },  /* random data is no integer source */
        { "p = positions.view(torch.uint8).float()\n", true }, /* an id name still is */
        { "y = torch.arange(n)\nz = float(y)\n", false },   /* float() is not a tensor cast */
        { "y = torch.arange(n)\nz = y . \\\n  half()\n", true },
        { "# kvlint: ignore\n", true },
        { "y = 10000if c else 0\nz = torch.zeros(1)\n", true },  /* Python reads 10000if as 10000 if */
        { "def f(s: TensorType):\n    return s + float('-inf')\n", true },
        { "x = 1\n", false },
        /* 0 * inf is NaN with or without tensors; *args is no product */
        { "def keep_bias(keep):\n    return (1 - keep) * float('-inf')\n", true },
        { "best = float('inf')\nf(*args)\ng = {**kw}\n", false },
        /* a checkpoint field is a number of any magnitude (pyconfig.c reads it so), a fact once
         * built into a tensor of known dtype */
        { "def f(self, h):\n    return (self.config.gain * h).to(torch.float16)\n", true },
        { "g = getattr(cfg, 'gain', 1.0)\nh = torch.full((1,), g, dtype=torch.float16)\n", true },
        { "g = getattr(cfg, 'gain', 1.0)\nh = torch.zeros(1) * g\n", false },  /* no dtype: no fact */
        { "c = config.get_text_config()\nh = torch.zeros(1)\n", false },
        { "c = config\nh = torch.zeros(1)\n", false },
        { "g = config['gain']\nh = torch.full((1,), g, dtype=torch.float16)\n", true },
        { "g = hf_config.get('gain', 1.0)\nh = torch.full((1,), g, dtype=torch.float16)\n", true },
        { "g = config[i]\nh = config.items()\nk = torch.full((1,), g, dtype=torch.float16)\n", false },
        /* a module path reads no field: `vllm.config.cache` names a module */
        { "from vllm.config.cache import CacheConfig\nh = torch.zeros(1, dtype=d)\n", false },
        { "import vllm.config.cache as c\nh = torch.zeros(1, dtype=d)\n", false },
        { "import m; g = config.gain\nh = torch.zeros(1, dtype=d)\n", true },
    };
    for (size_t i = 0; i < sizeof t / sizeof *t; i++)
        ck_assert_msg(py_prefilter(st, NULL, NULL, t[i].src, strlen(t[i].src)) == t[i].keep, "case %zu: %s", i, t[i].src);
    py_state_free(st);

    /* a project's own sink is a sink word too */
    const char *src = "write_pages(torch.zeros(2), k)\n";
    st = py_state_load(srcdir(), proj, &d);
    ck_assert(!py_prefilter(st, NULL, NULL, src, strlen(src)));
    py_state_free(st);
    user_sink u = { .name = "ops.write_pages", .key_arg = 0, .value_arg = 1 };
    ARENA_PUSH(proj->arena, proj->sinks, u);
    st = py_state_load(srcdir(), proj, &d);
    ck_assert(py_prefilter(st, NULL, NULL, src, strlen(src)));
    py_state_free(st);
    arena_free(a);
    project_free(proj);
}
END_TEST

static size_t nfacts(const file_facts *f)
{
    return f->stores.n + f->constructions.n + f->casts.n + f->ariths.n + f->decls.n + f->suppressions.n;
}

typedef struct corpus_file {
    char *path;
    char *data;
    size_t len;
    file_facts *facts;
    const void *exports;
} corpus_file;

/* The facts of a file as `kvlint facts --format json` prints them (diagnostics apart). */
static char *facts_text(const file_facts *f)
{
    strbuf sb = STRBUF_INIT;
    json_writer w;
    json_init(&w, &sb, false);
    json_fact_list(&w, f);
    char *t = sb_detach(&sb);
    return t ? t : strdup("");
}

/* A file the prefilter keeps gets the same facts whether only the parts pyslice.c keeps are parsed
 * or all of it. Returns whether the slicing left anything out. */
static bool check_slicing(const py_state *st, const fe_context *ctx, const corpus_file *c)
{
    bool sliced = py_slice_bytes(st, ctx, c->path, c->data, c->len) < c->len;
    file_facts *part = file_facts_new(c->path), *whole = file_facts_new(c->path);
    py_analyze_file(c->path, c->data, c->len, ctx, part);
    py_analyze_file_whole(c->path, c->data, c->len, ctx, whole);
    char *a = facts_text(part), *b = facts_text(whole);
    ck_assert_msg(strcmp(a, b) == 0, "%s: the parts parsed give other facts than the whole file:\n%s\n%s", c->path, a, b);
    ck_assert_msg(part->diags.items.n == whole->diags.items.n, "%s: %zu notes parsed in parts, %zu parsed whole", c->path,
                  part->diags.items.n, whole->diags.items.n);
    free(a);
    free(b);
    file_facts_free(part);
    file_facts_free(whole);
    return sliced;
}

/* Index every file of root, then analyse each file the prefilter drops, and each one it keeps
 * both sliced and whole (check_slicing). Returns the numbers. */
static void check_soundness(const char *root, size_t *files, size_t *dropped, size_t *sliced)
{
    kv_project *proj = project_default(".");
    kv_arena *a = arena_new();
    diag_list d;
    diag_init(&d, a);
    py_state *st = py_state_load(srcdir(), proj, &d);
    fs_list list = {0};
    fs_walk(root, &list, &d);
    corpus_file *cf = calloc(list.n ? list.n : 1, sizeof *cf);
    fe_file_index *idx = calloc(list.n ? list.n : 1, sizeof *idx);
    size_t n = 0;
    for (size_t i = 0; i < list.n; i++) {
        size_t l = strlen(list.paths[i]);
        if (l < 3 || strcmp(list.paths[i] + l - 3, ".py") != 0)
            continue;
        corpus_file *c = &cf[n];
        const char *err;
        if (fs_read_file(list.paths[i], 8 << 20, &c->data, &c->len, &err) != FS_OK || fs_looks_binary(c->data, c->len)) {
            free(c->data);
            c->data = NULL;
            continue;
        }
        c->path = list.paths[i];
        c->facts = file_facts_new(c->path);
        c->exports = py_index_source(NULL, c->data, c->len, c->facts->arena);
        idx[n] = (fe_file_index){ c->path, c->exports };
        n++;
    }
    /* the run-wide lookups, as the scanner builds them between its passes */
    fe_context ctx = { .project = proj, .state = st, .indexes = idx, .nindexes = n,
                       .link = python_frontend.link(idx, n, a) };
    *files = n;
    *dropped = *sliced = 0;
    for (size_t i = 0; i < n; i++) {
        corpus_file *c = &cf[i];
        if (!py_prefilter(st, &ctx, c->path, c->data, c->len)) {
            (*dropped)++;
            py_collect_suppressions(c->data, c->len, c->facts->arena, c->facts);
            py_analyze_file(c->path, c->data, c->len, &ctx, c->facts);
            ck_assert_msg(nfacts(c->facts) == 0, "prefilter dropped %s, which has %zu facts", c->path, nfacts(c->facts));
        } else if (check_slicing(st, &ctx, c)) {
            (*sliced)++;
        }
    }
    for (size_t i = 0; i < n; i++) {
        free(cf[i].data);
        file_facts_free(cf[i].facts);
    }
    free(cf);
    free(idx);
    fs_list_free(&list);
    py_state_free(st);
    arena_free(a);
    project_free(proj);
}

/* src parsed in parts is parsed in `bytes` bytes, gives the facts of the whole file, and makes
 * `constructions` construction facts. */
static void expect_slice(const py_state *st, const fe_context *ctx, char *src, size_t bytes, size_t constructions)
{
    size_t len = strlen(src);
    ck_assert_uint_eq(py_slice_bytes(st, ctx, "t.py", src, len), bytes);
    char path[] = "t.py";
    corpus_file c = { .path = path, .data = src, .len = len };
    ck_assert(check_slicing(st, ctx, &c));
    file_facts *f = file_facts_new("t.py");
    py_analyze_file("t.py", src, len, ctx, f);
    ck_assert_uint_eq(f->constructions.n, constructions);
    file_facts_free(f);
}

/* Which parts of a file are parsed: a function nothing needed names is left out; what a needed
 * function reaches through a call or a module-level binding stays; and the facts are those of the
 * whole file. */
START_TEST(slicing_parts)
{
    py_state *st = load_state();
    fe_context ctx = { .state = st };
    const char *unrelated = "def unrelated(a):\n    b = a + 1\n    c = b * 2\n    return [c, b, a, 'padding to make it count']\n\n";
    char src[2048];
    snprintf(src, sizeof src,
             "import torch\n"
             "def helper():\n    return -1e9\n"
             "X = helper()\n"
             "%s"
             "def fill(t, v):\n    return t.masked_fill(t > 0, v)\n"
             "def g(m):\n    k = fill(torch.zeros(2, dtype=torch.float16), X)\n    return k\n", unrelated);
    expect_slice(st, &ctx, src, strlen(src) - strlen(unrelated), 1);   /* -1e9 through X, helper() and fill() */

    /* a decorated function is one unit with its decorators; a class with one needed method is
     * parsed with its header (slicing_members: its other members) */
    const char *two = "import torch\n@torch.no_grad()\ndef deco(x):\n    return x + 1\n"
                      "class K:\n    def m(self):\n        return torch.full((2,), -1e9, dtype=torch.float16)\n"
                      "def pad():\n    return [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]\n";
    size_t tl = strlen(two);
    const char *k = strstr(two, "class K"), *p = strstr(two, "def pad");
    ck_assert_uint_eq(py_slice_bytes(st, &ctx, "t.py", two, tl), strlen("import torch\n") + (size_t)(p - k));
    py_state_free(st);
}
END_TEST

/* Members of a class are parts of their own: a method that no needed part reaches is left out; a
 * method reading `self.mask_value` reaches the initialiser's statement setting it, and the
 * initialiser is parsed whole; calling an instance reaches its forward. */
START_TEST(slicing_members)
{
    py_state *st = load_state();
    fe_context ctx = { .state = st };
    const char *unrelated = "    def unrelated(self, x):\n        return [x, self.name, 'padding padding padding padding']\n";
    char src[2048];
    snprintf(src, sizeof src,
             "import torch\n"
             "class Runner:\n"
             "    LIMIT = 4\n"
             "    def __init__(self, cfg):\n"
             "        self.mask_value = -1e9\n"
             "        self.name = 'runner'\n"
             "%s"
             "    def build(self):\n"
             "        return torch.full((2,), self.mask_value, dtype=torch.float16)\n", unrelated);
    expect_slice(st, &ctx, src, strlen(src) - strlen(unrelated), 1);   /* -1e9 through self.mask_value */

    /* Net(...)(x) runs Net.forward, which writes -1e4 into a float16 tensor; Other is not reached */
    const char *other = "class Other:\n    def run(self):\n        return [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]\n";
    char two[2048];
    snprintf(two, sizeof two,
             "import torch\n"
             "class Net:\n"
             "    def forward(self, x):\n"
             "        return torch.zeros(2, dtype=torch.float16).masked_fill(x > 0, -1e4)\n"
             "%s"
             "y = Net()(torch.ones(2))\n", other);
    expect_slice(st, &ctx, two, strlen(two) - strlen(other), 1);

    /* an attribute read as a whole condition (`if not self.quantized:`) reaches the initialiser's
     * statement setting it: the ':' ends the if, it is no annotation `self.x: T` */
    char three[2048];
    snprintf(three, sizeof three,
             "import torch\n"
             "class W:\n"
             "    def __init__(self, kv_cache_dtype):\n"
             "        self.quantized = kv_cache_dtype != 'auto'\n"
             "%s"
             "    def write(self, key, kv_cache, slots, dead):\n"
             "        if not self.quantized:\n"
             "            neg = -1e9\n"
             "        else:\n"
             "            neg = -448.0\n"
             "        kv_cache[0][slots] = key.masked_fill(dead, neg)\n", unrelated);
    ck_assert_uint_eq(py_slice_bytes(st, &ctx, "t.py", three, strlen(three)), strlen(three) - strlen(unrelated));
    py_state_free(st);
}
END_TEST

START_TEST(prefilter_sound_fixtures)
{
    char root[4096];
    snprintf(root, sizeof root, "%s/tests/fixtures/python", srcdir());
    size_t files, dropped, sliced;
    check_soundness(root, &files, &dropped, &sliced);
    ck_assert_uint_gt(files, 10);
    ck_assert_uint_gt(dropped, 0);
    ck_assert_uint_gt(sliced, 0);
}
END_TEST

START_TEST(prefilter_sound_corpus)
{
    const char *root = getenv("KVLINT_PY_CORPUS");
    if (!root || !*root)
        root = "/usr/lib/python3.11";
    FILE *probe = fopen(root, "r");
    if (!probe) {
        printf("check_python: no corpus at %s; soundness checked on the fixtures only\n", root);
        return;
    }
    fclose(probe);
    size_t files, dropped, sliced;
    check_soundness(root, &files, &dropped, &sliced);
    printf("check_python: %s: %zu files, %zu prefiltered, none of them has a fact; %zu parsed in parts, with the "
           "facts of the whole file\n", root, files, dropped, sliced);
    ck_assert_uint_gt(files, 0);
    ck_assert_uint_gt(dropped, files / 4);
    ck_assert_uint_gt(sliced, 0);
}
END_TEST

/* Analyse one source string. */
static file_facts *analyse(const char *src)
{
    kv_project *proj = project_default(".");
    kv_arena *a = arena_new();
    diag_list d;
    diag_init(&d, a);
    py_state *st = py_state_load(srcdir(), proj, &d);
    fe_context ctx = { .project = proj, .state = st };
    file_facts *f = file_facts_new("t.py");
    py_analyze_file("t.py", src, strlen(src), &ctx, f);
    py_state_free(st);
    arena_free(a);
    project_free(proj);
    return f;
}

START_TEST(store_details)
{
    file_facts *f = analyse(
        "import torch\nfrom vllm.attention import Attention\n"
        "class H(torch.nn.Module):\n"
        "    def __init__(self):\n        self.attn = Attention(1, 8, 1.0)\n"
        "    def forward(self, q, k, v, dtype):\n"
        "        k = torch.full((2, 8), -1e9, dtype=dtype)\n"
        "        k[:, 0] = 0.0\n"
        "        return self.attn(q, k, v)\n");
    ck_assert_uint_eq(f->stores.n, 1);
    const store_fact *s = &f->stores.v[0];
    ck_assert_int_eq(s->operand, OPERAND_KEY);
    ck_assert_uint_eq(s->nvalues, 2);
    ck_assert(s->shares_block);
    ck_assert_int_eq(s->values[0].kind, VK_SENTINEL);
    ck_assert(s->values[0].lo == -1e9);
    ck_assert_uint_eq(s->values[0].origin.line, 7);
    ck_assert_uint_gt(s->values[0].nsteps, 1);
    ck_assert_uint_eq(f->constructions.n, 1);
    ck_assert(f->constructions.v[0].reaches_cache);
    ck_assert_int_eq(f->constructions.v[0].dtype.kind, DREF_MODEL);
    file_facts_free(f);
}
END_TEST

START_TEST(symbolic_and_arith)
{
    file_facts *f = analyse(
        "import torch\n"
        "def f(x, dtype):\n"
        "    m = torch.finfo(dtype).min\n"
        "    t = torch.full((2,), m / 2 - 1, dtype=torch.float16)\n"
        "    return x + t\n");
    ck_assert_uint_eq(f->constructions.n, 1);
    const kv_value *v = &f->constructions.v[0].value;
    ck_assert_int_eq(v->sym, SYM_FINFO_MIN);
    ck_assert(v->sym_scale == 0.5 && v->sym_add == -1);
    ck_assert_int_eq(f->constructions.v[0].dtype.kind, DREF_CONCRETE);
    ck_assert_uint_eq(f->ariths.n, 1);
    ck_assert_int_eq(f->ariths.v[0].kind, ARITH_SENTINEL_PLUS);
    file_facts_free(f);
}
END_TEST

START_TEST(recursion_and_summaries)
{
    file_facts *f = analyse(
        "import torch\n"
        "def a(n):\n    return b(n)\n"
        "def b(n):\n    return a(n) if n else -1e9\n"
        "def c(k, dtype):\n    return torch.full_like(k, a(1), dtype=dtype)\n");
    ck_assert_uint_eq(f->constructions.n, 1);
    ck_assert(f->constructions.v[0].value.lo == -1e9);
    file_facts_free(f);
}
END_TEST

/* The evaluator's environments (pyscope.c): the hash index finds every binding, a rebinding
 * replaces, copies are independent, and two environments sharing arrays after a struct copy
 * (`acc = *e->cur` in pystmt.c) still see only their own bindings. */
static aval env_marker(size_t i)
{
    aval v = av_unknown();
    v.tag = AV_FUNC;
    v.node_id = i;
    return v;
}

static bool env_has(const env *en, const char *name, size_t marker)
{
    const aval *v = pe_env_get(en, name);
    return v && v->tag == AV_FUNC && v->node_id == marker;
}

START_TEST(environment_index)
{
    kv_arena *a = arena_new();
    enum { N = 5000 };
    char name[32];
    env en = {0};
    for (size_t i = 0; i < N; i++) {
        snprintf(name, sizeof name, "name_%zu", i);
        pe_env_set(a, &en, arena_strdup(a, name), env_marker(i));
    }
    ck_assert_uint_eq(en.n, N);
    ck_assert_ptr_nonnull(en.slot);
    ck_assert_uint_ge(en.nslot, 2 * en.n);
    for (size_t i = 0; i < N; i++) {
        snprintf(name, sizeof name, "name_%zu", i);
        ck_assert(env_has(&en, name, i));
    }
    ck_assert_ptr_null(pe_env_get(&en, "name_"));
    ck_assert_ptr_null(pe_env_get(&en, "name_50000"));
    pe_env_set(a, &en, "name_7", env_marker(70));        /* rebinding: same position */
    ck_assert_uint_eq(en.n, N);
    ck_assert(env_has(&en, "name_7", 70));
    ck_assert_str_eq(en.v[7].name, "name_7");             /* the order is the binding order */

    env copy = pe_env_copy(a, &en);
    pe_env_set(a, &copy, "only_in_copy", env_marker(1));
    pe_env_set(a, &copy, "name_8", env_marker(80));
    ck_assert(env_has(&copy, "only_in_copy", 1) && env_has(&copy, "name_8", 80));
    ck_assert(!pe_env_get(&en, "only_in_copy") && env_has(&en, "name_8", 8));

    env shared = en;                                      /* shares v and slot */
    for (size_t i = 0; i < 3 * N; i++) {
        snprintf(name, sizeof name, "late_%zu", i);
        pe_env_set(a, &en, arena_strdup(a, name), env_marker(i));
    }
    ck_assert(env_has(&en, "late_14999", 14999) && env_has(&en, "name_4999", 4999));
    ck_assert_ptr_null(pe_env_get(&shared, "late_0"));
    ck_assert(env_has(&shared, "name_4999", 4999));

    env joined = pe_env_join(a, &copy, &en);
    ck_assert(env_has(&joined, "only_in_copy", 1) && env_has(&joined, "late_3", 3));
    ck_assert_uint_eq(joined.n, N + 1 + 3 * N);

    env small = {0};                                      /* a few names: no index */
    pe_env_set(a, &small, "x", env_marker(2));
    ck_assert_ptr_null(small.slot);
    ck_assert(env_has(&small, "x", 2));
    arena_free(a);
}
END_TEST

static Suite *python_suite(void)
{
    Suite *s = suite_create("python");
    TCase *t = tcase_create("lexical");
    tcase_add_test(t, numbers);
    tcase_add_test(t, id_classes);
    tcase_add_test(t, front_end_and_resolver_see_the_same_id_classes);
    tcase_add_test(t, id_vocabulary_rows);
    tcase_add_test(t, dtype_string_rows);
    tcase_add_test(t, suppressions);
    tcase_add_test(t, module_index);
    tcase_add_test(t, function_index);
    tcase_add_test(t, index_class_members);
    tcase_add_test(t, link_modules);
    tcase_add_test(t, import_candidates);
    tcase_add_test(t, declares_literal_deployment);
    tcase_add_test(t, link_class_constants);
    tcase_add_test(t, prefilter_words);
    tcase_add_test(t, prefilter_imports);
    tcase_add_test(t, module_cache);
    tcase_add_test(t, torch_api_table);
    suite_add_tcase(s, t);
    t = tcase_create("soundness");
    tcase_set_timeout(t, 600);
    tcase_add_test(t, slicing_parts);
    tcase_add_test(t, slicing_members);
    tcase_add_test(t, prefilter_sound_fixtures);
    tcase_add_test(t, prefilter_sound_corpus);
    suite_add_tcase(s, t);
    t = tcase_create("evaluator");
    tcase_add_test(t, store_details);
    tcase_add_test(t, symbolic_and_arith);
    tcase_add_test(t, recursion_and_summaries);
    tcase_add_test(t, environment_index);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    SRunner *r = srunner_create(python_suite());
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
