/*
 * pystore.c: the facts the evaluator emits: a store where a value reaches a sink (a sink call
 * from the table in pysinks.c, or a direct write into a cache tensor), constructions of sentinels in a
 * known dtype, int-casts, arithmetic on sentinels, and dtype declarations at LLM(...)-like calls.
 * Outside summaries every fact is emitted; inside a summary only facts about values that came in
 * through the call's arguments are (deduplicated).
 * It does not decide whether a fact is a finding (src/check).
 */
#include <stdlib.h>
#include <string.h>

#include "python/pyeval.h"

static bool kw_spelled(pe_ctx *e, const args *g, const char *kw, const char *const *words);

/* ---- facts ----
 *
 * Outside summaries every fact is emitted. Inside a summary (a call of a function of this file),
 * only facts about values that came in through the call's arguments are: the helper
 * `make_mask(shape, -1e9, self.dtype)` materialises the caller's -1e9, which the helper's own
 * analysis (with unknown parameters) cannot see. Such facts are deduplicated (several callers may
 * pass the same constant). The evaluator's values live in its own arenas, freed after the file: a
 * fact is recorded as a copy in the file's facts arena (facts_copy.c). */

static size_t emit_construction(pe_ctx *e, construction_kind k, const char *api, TSNode at, const kv_value *v,
                                const dtype_ref *d)
{
    kv_loc here = pe_loc_of(e, at);
    if (e->quiet || e->again)
        for (size_t i = 0; i < e->out->constructions.n; i++) {
            const construction_fact *o = &e->out->constructions.v[i];
            if (kv_loc_same(&o->loc, &here) && kv_loc_same(&o->value.origin, &v->origin) && strcmp(o->api, api) == 0
                && o->dtype.kind == d->kind && o->value.lo == v->lo && o->value.sym_scale == v->sym_scale)
                return i + 1;
        }
    construction_fact c;
    memset(&c, 0, sizeof c);
    c.loc = pe_loc_of(e, at);
    c.kind = k;
    c.api = api;  /* may name a torch.tsv row: the fact's copy keeps its own */
    c.value = *v;
    c.dtype = *d;
    ARENA_PUSH(e->out->arena, e->out->constructions, construction_fact_copy(e->out, &c));
    return e->out->constructions.n;
}

/* Record a construction for each sentinel of x (materialised in dtype d); returns x with the
 * sentinels marked so that a later store can say the construction reaches the cache. */
aval pe_constructions_for(pe_ctx *e, construction_kind k, const char *api, TSNode at, aval x, const dtype_ref *d)
{
    bool fields = false; /* a value computed from checkpoint fields may be one (check/ resolves it) */
    for (size_t i = 0; x.tag == AV_VALUES && i < x.n; i++)
        fields |= x.vals[i].v.expr != NULL;
    if (x.tag != AV_VALUES || !(av_has_sentinel(&x) || fields) || pe_is_int_dtype(e, d))
        return x;
    pv *vals = arena_memdup(e->s, x.vals, x.n * sizeof *vals);
    for (size_t i = 0; i < x.n; i++)
        if ((vals[i].v.kind == VK_SENTINEL || vals[i].v.expr) && (!e->quiet || vals[i].arg))
            vals[i].cons = emit_construction(e, k, api, at, &vals[i].v, d);
    x.vals = vals;
    return x;
}

void pe_emit_intcast(pe_ctx *e, const char *api, TSNode at, const aval *x, const dtype_ref *d)
{
    kv_value hull;
    if (x->binary || !av_integer_hull(x, &hull))
        return;
    kv_loc here = pe_loc_of(e, at);
    if (e->quiet) {   /* a summary casts only the caller's ids */
        bool from_arg = false;
        for (size_t i = 0; i < x->n; i++)
            from_arg |= x->vals[i].v.kind == VK_INTEGER && x->vals[i].arg;
        if (!from_arg)
            return;
    }
    for (size_t i = 0; (e->quiet || e->again) && i < e->out->casts.n; i++)   /* a cast made before */
        if (kv_loc_same(&e->out->casts.v[i].loc, &here) && kv_loc_same(&e->out->casts.v[i].value.origin, &hull.origin))
            return;
    /* The same cast of the same kind of ids (an id class and its bound) is one fact, whether the ids
     * came in as this function's own parameter or as a caller's (a method of another class
     * summarised with the caller's `positions`). */
    for (size_t i = 0; i < e->out->casts.n; i++) {
        const kv_value *o = &e->out->casts.v[i].value;
        if (kv_loc_same(&e->out->casts.v[i].loc, &here) && o->id_class && hull.id_class && strcmp(o->id_class, hull.id_class) == 0
            && o->lo == hull.lo && o->hi == hull.hi && o->hi_unknown == hull.hi_unknown && o->hi_sym_add == hull.hi_sym_add
            && (o->hi_sym == hull.hi_sym || (o->hi_sym && hull.hi_sym && strcmp(o->hi_sym, hull.hi_sym) == 0)))
            return;
    }
    intcast_fact c;
    memset(&c, 0, sizeof c);
    c.loc = here;
    c.api = api;
    c.value = hull;
    c.dtype = *d;
    ARENA_PUSH(e->out->arena, e->out->casts, intcast_fact_copy(e->out, &c));
}

void pe_emit_arith(pe_ctx *e, arith_kind k, TSNode at, const kv_value *a, const kv_value *b, const dtype_ref *d)
{
    pe_emit_arith_signed(e, k, at, a, false, b, false, d);
}

void pe_emit_arith_signed(pe_ctx *e, arith_kind k, TSNode at, const kv_value *a, bool a_negated, const kv_value *b,
                          bool b_negated, const dtype_ref *d)
{
    if (e->quiet)
        return;
    arith_fact f;
    memset(&f, 0, sizeof f);
    f.loc = pe_loc_of(e, at);
    for (size_t i = 0; e->again && i < e->out->ariths.n; i++) {
        const arith_fact *o = &e->out->ariths.v[i];
        if (kv_loc_same(&o->loc, &f.loc) && o->kind == k && (!a || kv_loc_same(&o->a.origin, &a->origin))
            && (!b || kv_loc_same(&o->b.origin, &b->origin)))
            return;
    }
    f.kind = k;
    if (a)
        f.a = *a;
    if (b)
        f.b = *b;
    f.a_negated = a_negated;
    f.b_negated = b_negated;
    f.dtype = *d;
    ARENA_PUSH(e->out->arena, e->out->ariths, arith_fact_copy(e->out, &f));
}

/* Is there a store at `at` of operand op with the values of x (by their origins) already? */
static bool recorded_store(pe_ctx *e, TSNode at, kv_operand op, const aval *x)
{
    kv_loc here = pe_loc_of(e, at);
    for (size_t i = 0; i < e->out->stores.n; i++) {
        const store_fact *o = &e->out->stores.v[i];
        bool same = kv_loc_same(&o->loc, &here) && o->operand == op && o->nvalues == x->n;
        for (size_t j = 0; same && j < x->n; j++)
            same = kv_loc_same(&o->values[j].origin, &x->vals[j].v.origin);
        if (same)
            return true;
    }
    return false;
}

static void emit_store(pe_ctx *e, TSNode at, store_via via, const char *sink, const py_sink *from,
                       kv_operand op, latent_part part, TSNode tensor, aval x)
{
    if (x.tag != AV_VALUES || x.n == 0)
        return;
    if (e->quiet) {
        /* keep the values that came from the caller; skip a store made before */
        pv *keep = arena_alloc(e->s, x.n * sizeof *keep);
        size_t k = 0;
        for (size_t i = 0; i < x.n; i++)
            if (x.vals[i].arg)
                keep[k++] = x.vals[i];
        if (k == 0)
            return;
        kv_loc here = pe_loc_of(e, at);
        for (size_t i = 0; i < e->out->stores.n; i++) {
            const store_fact *o = &e->out->stores.v[i];
            if (kv_loc_same(&o->loc, &here) && o->operand == op && o->nvalues
                && kv_loc_same(&o->values[0].origin, &keep[0].v.origin))
                return;
        }
        x.other = x.other || k < x.n;
        x.vals = keep;
        x.n = (unsigned char)k;
    }
    if (e->again && recorded_store(e, at, op, &x))
        return;
    const char *t = pe_text_of(e, tensor);
    x = pe_stepf(e, &x, at, "stored by %s as %s", sink, operand_name(op));
    store_fact s;
    memset(&s, 0, sizeof s);
    s.loc = pe_loc_of(e, at);
    s.via = via;
    s.sink = sink;  /* the sink table does not outlive the scan: the fact's copy keeps its own */
    s.engine = from ? from->engine : ENGINE_NONE;
    s.user_engine = from ? from->user_engine : NULL;
    s.operand = op;
    s.part = part;
    s.tensor = t;
    kv_value *vals = arena_alloc(e->s, x.n * sizeof *vals);
    for (size_t i = 0; i < x.n; i++) {
        vals[i] = x.vals[i].v;
        size_t c = x.vals[i].cons;
        if (c && c <= e->out->constructions.n)
            e->out->constructions.v[c - 1].reaches_cache = true;
    }
    s.values = vals;
    s.nvalues = x.n;
    s.shares_block = x.other || x.n > 1;
    /* converted from float32: a float32 tensor, or one cast into the cache's dtype from float32 */
    s.wide_source = x.has_dtype && (pe_is_wide_float(e, &x.dtype) || (x.dtype.kind == DREF_KV && x.wide_source));
    ARENA_PUSH(e->out->arena, e->out->stores, store_fact_copy(e->out, &s));
}

/* A write into a tensor named like a cache: kv_cache[...] = x, key_cache.copy_(x), ... */
static kv_operand operand_for_cache(const char *name)
{
    if (strstr(name, "key") || strncmp(name, "k_", 2) == 0 || strstr(name, "_k_"))
        return OPERAND_KEY;
    if (strstr(name, "value") || strncmp(name, "v_", 2) == 0 || strstr(name, "_v_"))
        return OPERAND_VALUE;
    return OPERAND_KV;
}

void pe_store_direct(pe_ctx *e, TSNode at, const char *cache, TSNode tensor, aval x)
{
    emit_store(e, at, SINK_DIRECT, cache, NULL, operand_for_cache(cache), LATENT_UNKNOWN, tensor, x);
}

/* ---- sink calls ----
 *
 * Whether a call is a sink is the sink table's question (pysinks.c): this part describes the call
 * (how it is written, its receiver, which arguments it passes) and stores the arguments the
 * matcher bound to the key and value parameters. */

static py_call_shape shape_of(const char *callee, py_call_form form, const char *recv, const args *g)
{
    py_call_shape c = {
        .callee = callee, .form = form, .recv = recv, .npos = g->npos, .kw = g->kwname, .nkw = g->nkw,
        /* eval_args keeps MAX_ARGS of each: a longer call is one whose arity is not known */
        .star = g->star || g->npos == MAX_ARGS || g->nkw == MAX_ARGS,
    };
    return c;
}

static const aval *bound_arg(const args *g, py_arg_ref r, TSNode *node)
{
    if (r.kw >= 0 && (size_t)r.kw < g->nkw) {
        *node = g->kw[r.kw];
        return &g->kwv[r.kw];
    }
    if (r.pos >= 0 && (size_t)r.pos < g->npos) {
        *node = g->pos[r.pos];
        return &g->posv[r.pos];
    }
    return NULL;
}

static void store_bound(pe_ctx *e, const py_sink *s, const char *callee, TSNode call, const args *g, py_arg_ref kr,
                        py_arg_ref vr)
{
    /* SGLang's attention backends write K/V only when save_kv_cache is true (the caller then
     * stores them itself, e.g. with set_mla_kv_buffer, which is a sink of its own) */
    static const char *const no[] = { "False", NULL };
    if (kw_spelled(e, g, "save_kv_cache", no))
        return;
    TSNode kn, vn;
    const aval *k = bound_arg(g, kr, &kn);
    const aval *v = bound_arg(g, vr, &vn);
    kv_operand ko = s->kv ? OPERAND_KV : OPERAND_KEY, vo = s->kv ? OPERAND_KV : OPERAND_VALUE;
    if (k)
        emit_store(e, call, s->via, callee, s, ko, s->kv ? LATENT_NOPE : LATENT_UNKNOWN, kn, *k);
    if (v)
        emit_store(e, call, s->via, callee, s, vo, s->kv ? LATENT_ROPE : LATENT_UNKNOWN, vn, *v);
}

void pe_store_sink_call(pe_ctx *e, const py_sink *s, const char *callee, TSNode call, const args *g)
{
    py_call_shape c = shape_of(callee, PCF_VALUE, NULL, g);
    py_arg_ref kr, vr;
    if (py_sink_bind(s, &c, &kr, &vr))
        store_bound(e, s, callee, call, g, kr, vr);
}

bool pe_sink_call(pe_ctx *e, TSNode call, TSNode fn, const aval *recv, const char *callee, const char *origin,
                  const args *g)
{
    py_call_form form = PCF_NAME;
    const char *rname = NULL;
    if (pe_is(fn, "attribute")) {
        TSNode r = pe_fld(e, fn, F_object);
        form = recv->tag == AV_MODULE || recv->tag == AV_IMPORT || recv->tag == AV_CLASS ? PCF_MODULE : PCF_VALUE;
        TSNode last = pe_is(r, "attribute") ? pe_fld(e, r, F_attribute) : r;
        rname = !ts_node_is_null(last) && pe_is(last, "identifier") ? pe_raw_text(e, last) : NULL;
    }
    py_call_shape c = shape_of(origin, form, rname, g);
    py_arg_ref kr, vr;
    const py_sink *s = py_sink_match(e->st, &c, &kr, &vr);
    if (!s)
        return false;
    store_bound(e, s, callee ? callee : origin, call, g, kr, vr);
    return true;
}

/* Each engine call is one group, numbered here by where its first declaration stands (1, 2, ... in
 * the order of the file), not in the order the calls were evaluated: so a file parsed in parts
 * (pyslice.c leaves out a call that declares nothing) numbers its groups as when parsed whole. */
typedef struct group_at { int group, number; uint32_t line, col; } group_at;

static int cmp_group(const void *a, const void *b)
{
    const group_at *x = a, *y = b;
    return x->group != y->group ? (x->group > y->group) - (x->group < y->group)
           : x->line != y->line ? (x->line > y->line) - (x->line < y->line)
                                : (x->col > y->col) - (x->col < y->col);
}

static int cmp_place(const void *a, const void *b)
{
    const group_at *x = a, *y = b;
    return x->line != y->line ? (x->line > y->line) - (x->line < y->line)
           : x->col != y->col ? (x->col > y->col) - (x->col < y->col)
                              : (x->group > y->group) - (x->group < y->group);
}

void pe_number_decl_groups(pe_ctx *e)
{
    deploy_decl *d = e->out->decls.v;
    size_t n = e->out->decls.n, m = 0;
    if (n == 0)
        return;
    group_at *g = arena_alloc(e->s, n * sizeof *g);
    for (size_t i = 0; i < n; i++)
        if (d[i].carrier == CARRIER_PYTHON_CALL && d[i].group > 0)
            g[m++] = (group_at){ d[i].group, 0, d[i].loc.line, d[i].loc.col };
    qsort(g, m, sizeof *g, cmp_group);
    size_t k = 0;   /* each group once, at its first declaration */
    for (size_t i = 0; i < m; i++)
        if (k == 0 || g[k - 1].group != g[i].group)
            g[k++] = g[i];
    qsort(g, k, sizeof *g, cmp_place);
    for (size_t r = 0; r < k; r++)
        g[r].number = (int)r + 1;
    qsort(g, k, sizeof *g, cmp_group);
    for (size_t i = 0; i < n; i++) {
        if (d[i].carrier != CARRIER_PYTHON_CALL || d[i].group <= 0)
            continue;
        size_t lo = 0, hi = k;   /* g is sorted by old group, each once */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (g[mid].group < d[i].group)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < k && g[lo].group == d[i].group)
            d[i].group = g[lo].number;
    }
}

/* Record kw = v (its value node at) as a declaration of group, if v is a literal the engine reads. */
static void emit_decl(pe_ctx *e, kv_engine engine, const char *kw, decl_key key, const aval *v, TSNode at, int group)
{
    deploy_decl d;
    memset(&d, 0, sizeof d);
    d.key = key;
    d.engine = engine;
    d.carrier = CARRIER_PYTHON_CALL;
    d.loc = pe_loc_of(e, at);
    d.group = group;
    d.dtype = KVN_DTYPE_INVALID;
    double num;
    if (key == DECL_KV_CACHE_DTYPE || key == DECL_MODEL_DTYPE) {
        if (v->tag == AV_STR && v->str)
            d.raw = v->str;
        else if (v->tag == AV_DTYPE && v->dtype.kind == DREF_CONCRETE)
            d.raw = v->dtype.text;
        else
            return;
        d.dtype = kvn_dtype_parse(d.raw, false);
    } else if (key == DECL_KV_SCALES) {
        d.raw = pe_text_of(e, at);
        if (strcmp(d.raw, "True") == 0)
            d.number = 1;
        else if (strcmp(d.raw, "False") == 0)
            d.number = 0;
        else
            return;
    } else {
        if (!av_single(v, &num))
            return;
        d.number = num;
        d.raw = pe_text_of(e, at);
        d.range_name = kw;
    }
    ARENA_PUSH(e->out->arena, e->out->decls, deploy_decl_copy(e->out, &d));
}

static void emit_kwarg(pe_ctx *e, kv_engine engine, const char *kw, TSNode value, int group)
{
    size_t nk;
    const py_decl_keyword *k = py_decl_keywords(&nk);   /* engine keywords (pylex.c) */
    for (size_t i = 0; i < nk; i++)
        if (strcmp(kw, k[i].kw) == 0) {
            aval v = pe_eval(e, value);
            emit_decl(e, engine, kw, k[i].key, &v, value, group);
        }
}

/* Ray's engine_kwargs=dict(kv_cache_dtype="fp8", ...) or {"kv_cache_dtype": "fp8", ...}: written
 * out at the call (a dict built elsewhere is not followed). */
static void engine_kwargs(pe_ctx *e, kv_engine engine, TSNode kw, int group)
{
    bool dict_call = pe_is(kw, "call") && strcmp(pe_raw_text(e, pe_fld(e, kw, F_function)), "dict") == 0;
    TSNode items = dict_call ? pe_fld(e, kw, F_arguments) : kw;
    if (ts_node_is_null(items) || !(dict_call || pe_is(kw, "dictionary")))
        return;
    for (uint32_t i = 0; i < ts_node_named_child_count(items); i++) {
        TSNode it = ts_node_named_child(items, i);
        if (dict_call && pe_is(it, "keyword_argument")) {
            emit_kwarg(e, engine, pe_raw_text(e, pe_fld(e, it, F_name)), pe_fld(e, it, F_value), group);
        } else if (!dict_call && pe_is(it, "pair")) {
            TSNode k = ts_node_child_by_field_name(it, "key", 3);
            aval kv = pe_eval(e, k);
            if (kv.tag == AV_STR && kv.str)
                emit_kwarg(e, engine, kv.str, pe_fld(e, it, F_value), group);
        }
    }
}

/* Ray Serve LLM / Ray Data: LLMConfig(engine_kwargs=...) (SGLang when server_cls names SGLangServer),
 * vLLMEngineProcessorConfig(engine_kwargs=...), SGLangEngineProcessorConfig(engine_kwargs=...). */
static bool ray_config_decls(pe_ctx *e, const char *callee_last, const args *g)
{
    bool llm = strcmp(callee_last, "LLMConfig") == 0;
    bool sgl = strcmp(callee_last, "SGLangEngineProcessorConfig") == 0;
    if (!llm && !sgl && strcmp(callee_last, "vLLMEngineProcessorConfig") != 0)
        return false;
    TSNode at;
    if (llm && pe_kwarg(g, "server_cls", &at) && strstr(pe_raw_text(e, at), "SGLang"))
        sgl = true;
    if (pe_kwarg(g, "engine_kwargs", &at) && !ts_node_is_null(at))
        engine_kwargs(e, sgl ? ENGINE_SGLANG : ENGINE_VLLM, at, ++e->decl_group);
    return true;
}

/* LLM(..., kv_cache_dtype="fp8", dtype="half") and friends. */
void pe_dtype_decls(pe_ctx *e, const char *callee_last, const char *origin, const args *g)
{
    if (e->quiet || ray_config_decls(e, callee_last, g))
        return;
    kv_engine engine = strcmp(callee_last, "set_default_dtype") == 0 ? ENGINE_TORCH
                       : strcmp(callee_last, "Engine") == 0 ? ENGINE_SGLANG : ENGINE_VLLM;
    if (strcmp(callee_last, "Engine") == 0 && !(origin && strstr(origin, "sgl")))
        return;  /* only sglang.Engine / sgl.Engine */
    int group = ++e->decl_group;
    TSNode at;
    const aval *v;
    if (engine == ENGINE_TORCH) {
        if ((v = pe_arg(g, 0, "d", &at)))
            emit_decl(e, engine, NULL, DECL_MODEL_DTYPE, v, at, group);
        return;
    }
    size_t nk;
    const py_decl_keyword *k = py_decl_keywords(&nk);
    for (size_t i = 0; i < nk; i++)
        if ((v = pe_kwarg(g, k[i].kw, &at)))
            emit_decl(e, engine, k[i].kw, k[i].key, v, at, group);
}

/* Whether a keyword argument is spelled, after its last dot, exactly as one of words
 * (`attn_type=AttentionType.ENCODER_ONLY`, `save_kv_cache=False`). Only literal spellings count:
 * a variable keeps the call what it is by default. */
static bool kw_spelled(pe_ctx *e, const args *g, const char *kw, const char *const *words)
{
    TSNode at;
    if (!pe_kwarg(g, kw, &at) || ts_node_is_null(at))
        return false;
    const char *t = pe_raw_text(e, at), *dot = strrchr(t, '.');
    const char *w = dot ? dot + 1 : t;
    size_t n = strlen(w);
    if (n >= 2 && (w[0] == '"' || w[0] == '\'') && w[n - 1] == w[0])
        w++, n -= 2;
    for (size_t i = 0; words[i]; i++)
        if (strlen(words[i]) == n && strncmp(w, words[i], n) == 0)
            return true;
    return false;
}

/* vLLM keeps no KV cache for encoder attention: its model runner gives ENCODER and ENCODER_ONLY
 * layers no cache spec (vllm/v1/worker/gpu_model_runner.py, get_kv_cache_spec). */
static bool cacheless_layer(pe_ctx *e, const args *g)
{
    static const char *const encoder[] = { "ENCODER", "ENCODER_ONLY", "encoder", "encoder_only", NULL };
    return kw_spelled(e, g, "attn_type", encoder);
}

aval pe_class_instance(pe_ctx *e, const char *class_name, TSNode call, const args *g)
{
    (void)call;
    const py_sink *s = py_sink_class(e->st, class_name);
    if (!s || (g && cacheless_layer(e, g)))
        return av_unknown();
    aval x = av_unknown();
    x.tag = AV_SINKOBJ;
    x.other = false;
    x.sink = s;
    return x;
}
