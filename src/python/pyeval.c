/*
 * pyeval.c: turn one Python file into facts (see pyfe.h and docs/facts.md).
 *
 * The evaluator walks tree-sitter-python's syntax tree statement by statement, in order, keeping
 * an environment from names to abstract values (pyvalue.h). It is intra-procedural and
 * flow-sensitive: both sides of a branch are evaluated and joined, a loop body once and joined
 * with the state before it. Around that core:
 *   - module constants, class constants and `self.x` set in __init__ are visible to the methods;
 *   - calls of functions and methods of the same file are evaluated as summaries (arguments bound
 *     to parameters, the joined return value comes back; no facts are emitted inside a summary,
 *     each function is analysed on its own once, with its default arguments);
 *   - `from .mod import NAME` reads the index of another scanned file (pylex.c);
 *   - torch calls are modelled by name (full, where, cat, pad, to, masked_fill, ...); anything not
 *     modelled yields an unknown value, which is how softmax/top-k/comparisons/torch.maximum stay
 *     silent: a sentinel that only feeds them never reaches a sink.
 * Facts are emitted where they happen: a store at the sink call or subscript store, a
 * construction at the call that materialises a sentinel in a known dtype, an int-cast at the
 * cast, an arithmetic fact at the operator, a dtype declaration at LLM(...)-like calls.
 *
 * Limits (so that bad input never hangs or overflows the stack): recursion depth, summary depth,
 * a budget of evaluated nodes per file and a cap on the arena; past a limit, values become unknown.
 * It deliberately does not: follow attributes of objects other than `self`, model loops beyond
 * one iteration, look inside f-strings, lambdas or decorators, or resolve imports of functions.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <tree_sitter/api.h>

#include "python/grammar.h"
#include "python/pyfe.h"
#include "python/pyvalue.h"

enum {
    MAX_DEPTH = 96,          /* nested expressions/statements evaluated */
    MAX_CALL_DEPTH = 3,      /* nested summaries */
    MAX_ARGS = 24,
    MAX_TEXT = 160,          /* longest spelling copied into a fact */
    ARENA_CAP = 256 << 20    /* per-file memory bound */
};

/* Field names of tree-sitter-python the evaluator reads; their ids are looked up once per file. */
typedef enum fid { F_alias, F_alternative, F_argument, F_arguments, F_attribute, F_body, F_condition, F_consequence, F_definition, F_function, F_left, F_module_name, F_name, F_object, F_operator, F_parameters, F_right, F_subscript, F_value, F_COUNT } fid;
static const char *const field_names[F_COUNT] = { "alias", "alternative", "argument", "arguments", "attribute", "body", "condition", "consequence", "definition", "function", "left", "module_name", "name", "object", "operator", "parameters", "right", "subscript", "value" };

/* ---- environments ---- */

/* Values are immutable once bound, so an environment copy (a branch) copies pointers only, and a
 * join touches only the bindings whose value pointer differs. */
typedef struct binding {
    const char *name;
    uint32_t hash;
    const aval *v;
} binding;

typedef struct env {
    binding *v;
    size_t n, cap;
} env;

typedef struct klass {
    const char *name;
    env attrs;     /* self.x as set in __init__ (joined over its assignments) */
    env consts;    /* class body: constants and methods */
    TSNode init;   /* __init__, or a null node */
    bool init_done;
} klass;

typedef struct qfn {
    TSNode node;
    klass *cls;
    bool done;
} qfn;

typedef struct summary {
    int state;   /* 0 not computed, 1 being computed, 2 done */
    aval v;
} summary;

typedef struct frame {
    env locals;
    aval ret;
    bool has_ret;
    bool is_init;
    const char *self_name;
    TSNode fn;
    struct frame *up;
} frame;

typedef struct ev {
    const char *path;
    const char *src;
    size_t len;
    kv_arena *a;               /* the file's facts arena: everything a fact can point to */
    kv_arena *s;               /* scratch, freed after the file: environments, children, summaries */
    file_facts *out;
    const fe_context *ctx;
    const py_state *st;
    env module;
    env *cur;
    klass *cls;
    frame *fr;
    ARENA_VEC(TSNode) nodes;   /* AV_FUNC / AV_CLASS targets */
    ARENA_VEC(klass *) node_cls;
    ARENA_VEC(qfn) queue;
    int depth, call_depth, quiet;
    size_t budget;
    int decl_group;
    klass *orphans;            /* methods found outside a class (syntax errors) */
    ARENA_VEC(summary) summaries; /* per node id: the summary of a call without known arguments */
    TSFieldId fields[F_COUNT];
} ev;

static TSNode fld(const ev *e, TSNode n, fid f)
{
    return ts_node_child_by_field_id(n, e->fields[f]);
}

/* The named children of n except comments, in order (ts_node_named_child(n, i) is linear in i,
 * so loops over long blocks go through a cursor once). *count receives their number. */
static TSNode *kids(ev *e, TSNode n, uint32_t *count)
{
    *count = 0;
    if (ts_node_is_null(n))
        return NULL;
    uint32_t cap = ts_node_child_count(n);
    if (cap == 0)
        return NULL;
    TSNode *out = arena_alloc(e->s, cap * sizeof *out);
    TSTreeCursor c = ts_tree_cursor_new(n);
    for (bool ok = ts_tree_cursor_goto_first_child(&c); ok; ok = ts_tree_cursor_goto_next_sibling(&c)) {
        TSNode k = ts_tree_cursor_current_node(&c);
        if (ts_node_is_named(k) && strcmp(ts_node_type(k), "comment") != 0 && *count < cap)
            out[(*count)++] = k;
    }
    ts_tree_cursor_delete(&c);
    return out;
}

static aval eval(ev *e, TSNode n);
static void exec_block(ev *e, TSNode n);

static uint32_t name_hash_n(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

static uint32_t name_hash(const char *s)
{
    return name_hash_n(s, strlen(s));
}

/* Look a name up by its bytes (no copy: identifiers are looked up straight from the source). */
static const aval *env_find_n(const env *en, const char *s, size_t n, uint32_t h)
{
    for (size_t i = en->n; i-- > 0;)
        if (en->v[i].hash == h && strncmp(en->v[i].name, s, n) == 0 && en->v[i].name[n] == '\0')
            return en->v[i].v;
    return NULL;
}

static const aval *env_find(const env *en, const char *name, uint32_t h)
{
    return env_find_n(en, name, strlen(name), h);
}

static const aval *env_get(const env *en, const char *name)
{
    return env_find(en, name, name_hash(name));
}

static void env_bind(kv_arena *a, env *en, const char *name, uint32_t h, const aval *v)
{
    for (size_t i = en->n; i-- > 0;)
        if (en->v[i].hash == h && strcmp(en->v[i].name, name) == 0) {
            en->v[i].v = v;
            return;
        }
    en->v = arena_grow(a, en->v, &en->cap, en->n + 1, sizeof *en->v);
    en->v[en->n++] = (binding){ name, h, v };
}

static void env_set(kv_arena *a, env *en, const char *name, aval v)
{
    env_bind(a, en, name, name_hash(name), arena_memdup(a, &v, sizeof v));
}

static env env_copy(kv_arena *a, const env *en)
{
    env c = { NULL, en->n, en->n };
    if (en->n)
        c.v = arena_memdup(a, en->v, en->n * sizeof *en->v);
    return c;
}

static env env_join(kv_arena *a, const env *x, const env *y)
{
    env r = env_copy(a, x);
    for (size_t i = 0; i < y->n; i++) {
        const binding *b = &y->v[i];
        if (i < r.n && r.v[i].name == b->name) {  /* same binding before the branches split */
            if (r.v[i].v != b->v) {
                aval j = av_join(a, r.v[i].v, b->v);
                r.v[i].v = arena_memdup(a, &j, sizeof j);
            }
            continue;
        }
        const aval *old = env_find(&r, b->name, b->hash);
        if (!old) {
            env_bind(a, &r, b->name, b->hash, b->v);
        } else if (old != b->v) {
            aval j = av_join(a, old, b->v);
            env_bind(a, &r, b->name, b->hash, arena_memdup(a, &j, sizeof j));
        }
    }
    return r;
}

/* ---- nodes, text, locations ---- */

static bool is(TSNode n, const char *type)
{
    return strcmp(ts_node_type(n), type) == 0;
}


static kv_loc loc_of(const ev *e, TSNode n)
{
    TSPoint s = ts_node_start_point(n), t = ts_node_end_point(n);
    return kv_loc_make(e->out->path, s.row + 1, s.column + 1, t.row + 1, t.column + 1);
}

/* Length of a valid UTF-8 sequence at p (at most n bytes), or 0. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
    size_t l = p[0] < 0x80 ? 1 : (p[0] & 0xE0) == 0xC0 ? 2 : (p[0] & 0xF0) == 0xE0 ? 3 : (p[0] & 0xF8) == 0xF0 ? 4 : 0;
    if (l == 0 || l > n || (l == 2 && p[0] < 0xC2))
        return 0;
    for (size_t i = 1; i < l; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    return l;
}

/* The source text of a node: newlines and runs of blanks folded to one space, invalid UTF-8
 * replaced by '?', cut at MAX_TEXT bytes. */
static const char *text_of(ev *e, TSNode n)
{
    uint32_t b = ts_node_start_byte(n), t = ts_node_end_byte(n);
    if (t > e->len)
        t = (uint32_t)e->len;
    char buf[MAX_TEXT + 4];
    size_t k = 0;
    bool space = false;
    for (uint32_t i = b; i < t && k < MAX_TEXT;) {
        unsigned char c = (unsigned char)e->src[i];
        if (c == '\n' || c == '\r' || c == '\t' || c == ' ' || c == '\\') {
            space = k > 0;
            i++;
            continue;
        }
        if (space && buf[k - 1] != '(' && buf[k - 1] != '[' && c != ')' && c != ']')
            buf[k++] = ' ';
        space = false;
        size_t l = utf8_len((const unsigned char *)e->src + i, t - i);
        if (l == 0 || k + l > MAX_TEXT) {
            buf[k++] = '?';
            i++;
            continue;
        }
        memcpy(buf + k, e->src + i, l);
        k += l;
        i += (uint32_t)l;
    }
    if (k >= MAX_TEXT)
        memcpy(buf + k, "...", 3), k += 3;
    return arena_strndup(e->a, buf, k);
}

static const char *raw_text(ev *e, TSNode n)
{
    uint32_t b = ts_node_start_byte(n), t = ts_node_end_byte(n);
    return arena_strndup(e->a, e->src + b, t > b ? t - b : 0);
}

/* Dotted spelling of an identifier/attribute chain ("self.impl.do_kv_cache_update"), else NULL
 * (also for chains longer than MAX_DEPTH). */
static const char *dotted_at(ev *e, TSNode n, int depth)
{
    if (is(n, "identifier"))
        return raw_text(e, n);
    if (!is(n, "attribute") || depth > MAX_DEPTH)
        return NULL;
    const char *obj = dotted_at(e, fld(e, n, F_object), depth + 1);
    TSNode attr = fld(e, n, F_attribute);
    if (!obj || ts_node_is_null(attr))
        return NULL;
    return arena_printf(e->a, "%s.%s", obj, raw_text(e, attr));
}

static const char *dotted(ev *e, TSNode n)
{
    return dotted_at(e, n, 0);
}

/* Last identifier of a subscript/attribute chain: self.k_buffer[i][loc] -> k_buffer. */
static const char *base_name(ev *e, TSNode n)
{
    while (is(n, "subscript"))
        n = fld(e, n, F_value);
    if (is(n, "attribute"))
        n = fld(e, n, F_attribute);
    return (!ts_node_is_null(n) && is(n, "identifier")) ? raw_text(e, n) : NULL;
}

static bool budget_ok(ev *e)
{
    if (e->budget == 0 || arena_bytes(e->a) + arena_bytes(e->s) > ARENA_CAP)
        return false;
    e->budget--;
    return true;
}

/* av_step with a formatted description, formatted only when there is a value to carry it. */
static aval stepf(ev *e, const aval *x, TSNode at, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static aval stepf(ev *e, const aval *x, TSNode at, const char *fmt, ...)
{
    if (x->tag != AV_VALUES || x->n == 0)
        return *x;
    va_list ap;
    va_start(ap, fmt);
    const char *what = arena_vprintf(e->a, fmt, ap);
    va_end(ap);
    return av_step(e->s, e->a, x, loc_of(e, at), what);
}

/* ---- values made from syntax ---- */

static kv_value value_make(ev *e, value_kind k, double lo, double hi, TSNode at)
{
    kv_value v;
    memset(&v, 0, sizeof v);
    v.kind = k;
    v.lo = lo;
    v.hi = hi;
    v.sym_scale = 1;
    v.text = text_of(e, at);
    v.origin = loc_of(e, at);
    return v;
}

static aval number_value(ev *e, double x, TSNode at)
{
    value_kind k = fabs(x) >= PY_SENTINEL_MAGNITUDE ? VK_SENTINEL : VK_FLOAT;
    kv_value v = value_make(e, k, x, x, at);
    return av_const(e->s, &v);
}

static dtype_ref dref(ev *e, dref_kind k, TSNode at)
{
    dtype_ref r;
    memset(&r, 0, sizeof r);
    r.kind = k;
    r.dtype = KVN_DTYPE_INVALID;
    r.text = text_of(e, at);
    r.loc = loc_of(e, at);
    return r;
}

static aval dtype_value(dtype_ref r, bool intdtype)
{
    aval x = av_unknown();
    x.tag = AV_DTYPE;
    x.other = false;
    x.dtype = r;
    x.intdtype = intdtype;
    return x;
}

static const char *const int_dtypes[] = { "long", "int", "int64", "int32", "int16", "int8", "uint8",
                                          "short", "bool", "uint16", "uint32", "uint64", NULL };

/* torch.long, torch.bool, ...: a fill or cast into them is no float construction. */
static bool is_int_dtype(const dtype_ref *d)
{
    if (d->kind != DREF_UNKNOWN || !d->text)
        return false;
    const char *dot = strrchr(d->text, '.');
    const char *n = dot ? dot + 1 : d->text;
    for (size_t i = 0; int_dtypes[i]; i++)
        if (strcmp(n, int_dtypes[i]) == 0)
            return true;
    return false;
}

/* torch.<name> as a dtype: integer/bool dtypes are ours, float names go to the numerics. */
static bool torch_dtype_name(ev *e, const char *name, TSNode at, aval *out)
{
    const char *const *ints = int_dtypes;
    static const char *const floats[] = { "float16", "half", "bfloat16", "float32", "float", "float64",
                                          "double", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2",
                                          "float8_e5m2fnuz", "float8_e8m0fnu", "float4_e2m1fn_x2", NULL };
    for (size_t i = 0; ints[i]; i++)
        if (strcmp(name, ints[i]) == 0) {
            aval x = dtype_value(dref(e, DREF_UNKNOWN, at), true);
            x.binary = strcmp(name, "bool") == 0;
            *out = x;
            return true;
        }
    for (size_t i = 0; floats[i]; i++)
        if (strcmp(name, floats[i]) == 0) {
            dtype_ref r = dref(e, DREF_CONCRETE, at);
            r.dtype = kvn_dtype_parse(arena_printf(e->a, "torch.%s", name), false);
            if (r.dtype == KVN_DTYPE_INVALID)
                r.dtype = kvn_dtype_parse(name, false);
            if (r.dtype == KVN_DTYPE_INVALID)
                r.kind = DREF_UNKNOWN;
            *out = dtype_value(r, false);
            return true;
        }
    return false;
}

static bool is_wide_float(const dtype_ref *r)
{
    if (r->kind != DREF_CONCRETE || !r->text)
        return false;
    const char *t = r->text;
    size_t l = strlen(t);
    static const char *const wide[] = { "float32", "float", "float64", "double", NULL };
    for (size_t i = 0; wide[i]; i++) {
        size_t w = strlen(wide[i]);
        if (l >= w && strcmp(t + l - w, wide[i]) == 0 && (l == w || t[l - w - 1] == '.'))
            return true;
    }
    return false;
}

/* A dtype spelled by name: self.dtype / dtype / model_dtype are the model's, kv_cache_dtype the cache's. */
static bool dtype_by_name(const char *name)
{
    size_t l = strlen(name);
    return (l >= 5 && strcmp(name + l - 5, "dtype") == 0);
}

static dref_kind dtype_kind_by_name(const char *name)
{
    return strstr(name, "cache_dtype") || strstr(name, "kv_dtype") ? DREF_KV : DREF_MODEL;
}

static const char *choose_bound(ev *e, const char *family, double *add)
{
    const double *adds;
    const char *const *b = py_family_bounds(family, &adds);
    for (size_t i = 0; b[i]; i++) {
        bool seen = env_get(&e->module, b[i]) || (e->fr && env_get(&e->fr->locals, b[i]))
                    || (e->cls && (env_get(&e->cls->attrs, b[i]) || env_get(&e->cls->consts, b[i])))
                    || (e->fr && env_get(&e->fr->locals, arena_printf(e->a, "self.%s", b[i])));
        if (seen) {
            *add = adds[i];
            return b[i];
        }
    }
    *add = adds[0];
    return b[0];
}

/* An id named by its family (adapter_ids, positions, ...): [0, bound]. */
static aval family_value(ev *e, const char *family, TSNode at)
{
    kv_value v = value_make(e, VK_INTEGER, 0, 0, at);
    v.family = family;
    v.hi_sym = choose_bound(e, family, &v.hi_sym_add);
    v.hi_unknown = v.hi_sym == NULL;
    aval x = av_const(e->s, &v);
    x.tensor = true;
    x.intdtype = true;
    return x;
}

/* Name each unbounded integer of x after the family of the variable it is assigned to. */
static aval refine_family(ev *e, const char *name, aval x, TSNode at)
{
    const char *fam = py_name_family(name, strlen(name));
    if (!fam || x.tag != AV_VALUES)
        return x;
    if (x.n == 0)
        return family_value(e, fam, at);
    pv *vals = arena_memdup(e->s, x.vals, x.n * sizeof *vals);
    for (size_t i = 0; i < x.n; i++) {
        kv_value *v = &vals[i].v;
        if (v->kind != VK_INTEGER)
            continue;
        if (!v->family)
            v->family = fam;
        if (v->hi_unknown) {
            v->hi_sym = choose_bound(e, fam, &v->hi_sym_add);
            v->hi_unknown = v->hi_sym == NULL;
        }
    }
    x.vals = vals;
    return x;
}

/* What a name means when nothing in the file binds it. */
static aval default_for_name(ev *e, const char *name, TSNode at)
{
    static const struct { const char *n, *mod; } mods[] = {
        { "torch", "torch" }, { "F", "torch" }, { "nn", "torch" }, { "functional", "torch" },
        { "math", "math" }, { "np", "numpy" }, { "numpy", "numpy" },
    };
    for (size_t i = 0; i < sizeof mods / sizeof *mods; i++)
        if (strcmp(name, mods[i].n) == 0) {
            aval x = av_unknown();
            x.tag = AV_MODULE;
            x.str = mods[i].mod;
            return x;
        }
    if (dtype_by_name(name))
        return dtype_value(dref(e, dtype_kind_by_name(name), at), false);
    const char *fam = py_name_family(name, strlen(name));
    if (fam)
        return family_value(e, fam, at);
    if (strstr(name, "mask")) {
        aval x = av_unknown_tensor();
        x.binary = true;
        return x;
    }
    return av_unknown();
}

/* ---- facts ----
 *
 * Outside summaries every fact is emitted. Inside a summary (a call of a function of this file),
 * only facts about values that came in through the call's arguments are: the helper
 * `make_mask(shape, -1e9, self.dtype)` materialises the caller's -1e9, which the helper's own
 * analysis (with unknown parameters) cannot see. Such facts are deduplicated (several callers may
 * pass the same constant). */

static bool same_loc(const kv_loc *a, const kv_loc *b)
{
    return a->line == b->line && a->col == b->col
           && (a->path == b->path || (a->path && b->path && strcmp(a->path, b->path) == 0));
}

static size_t emit_construction(ev *e, construction_kind k, const char *api, TSNode at, const kv_value *v,
                                const dtype_ref *d)
{
    kv_loc here = loc_of(e, at);
    if (e->quiet)
        for (size_t i = 0; i < e->out->constructions.n; i++) {
            const construction_fact *o = &e->out->constructions.v[i];
            if (same_loc(&o->loc, &here) && same_loc(&o->value.origin, &v->origin) && o->api == api
                && o->dtype.kind == d->kind && o->value.lo == v->lo && o->value.sym_scale == v->sym_scale)
                return i + 1;
        }
    construction_fact c;
    memset(&c, 0, sizeof c);
    c.loc = loc_of(e, at);
    c.kind = k;
    c.api = api;
    c.value = *v;
    c.dtype = *d;
    ARENA_PUSH(e->a, e->out->constructions, c);
    return e->out->constructions.n;
}

/* Record a construction for each sentinel of x (materialised in dtype d); returns x with the
 * sentinels marked so that a later store can say the construction reaches the cache. */
static aval constructions_for(ev *e, construction_kind k, const char *api, TSNode at, aval x, const dtype_ref *d)
{
    if (x.tag != AV_VALUES || !av_has_sentinel(&x) || is_int_dtype(d))
        return x;
    pv *vals = arena_memdup(e->s, x.vals, x.n * sizeof *vals);
    for (size_t i = 0; i < x.n; i++)
        if (vals[i].v.kind == VK_SENTINEL && (!e->quiet || vals[i].arg))
            vals[i].cons = emit_construction(e, k, api, at, &vals[i].v, d);
    x.vals = vals;
    return x;
}

static void emit_intcast(ev *e, const char *api, TSNode at, const aval *x, const dtype_ref *d)
{
    kv_value hull;
    if (x->binary || !av_integer_hull(x, &hull))
        return;
    kv_loc here = loc_of(e, at);
    if (e->quiet) {
        bool from_arg = false;
        for (size_t i = 0; i < x->n; i++)
            from_arg |= x->vals[i].v.kind == VK_INTEGER && x->vals[i].arg;
        if (!from_arg)
            return;
        for (size_t i = 0; i < e->out->casts.n; i++)
            if (same_loc(&e->out->casts.v[i].loc, &here) && same_loc(&e->out->casts.v[i].value.origin, &hull.origin))
                return;
    }
    intcast_fact c;
    memset(&c, 0, sizeof c);
    c.loc = here;
    c.api = api;
    c.value = hull;
    c.dtype = *d;
    ARENA_PUSH(e->a, e->out->casts, c);
}

static void emit_arith(ev *e, arith_kind k, TSNode at, const kv_value *a, const kv_value *b, const dtype_ref *d)
{
    if (e->quiet)
        return;
    arith_fact f;
    memset(&f, 0, sizeof f);
    f.loc = loc_of(e, at);
    f.kind = k;
    if (a)
        f.a = *a;
    if (b)
        f.b = *b;
    f.dtype = *d;
    ARENA_PUSH(e->a, e->out->ariths, f);
}

static void emit_store(ev *e, TSNode at, sink_family fam, const char *sink, const char *engine,
                       kv_operand op, TSNode tensor, aval x)
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
        kv_loc here = loc_of(e, at);
        for (size_t i = 0; i < e->out->stores.n; i++) {
            const store_fact *o = &e->out->stores.v[i];
            if (same_loc(&o->loc, &here) && o->operand == op && o->nvalues
                && same_loc(&o->values[0].origin, &keep[0].v.origin))
                return;
        }
        x.other = x.other || k < x.n;
        x.vals = keep;
        x.n = (unsigned char)k;
    }
    const char *t = text_of(e, tensor);
    x = stepf(e, &x, at, "stored by %s as %s", sink, operand_name(op));
    store_fact s;
    memset(&s, 0, sizeof s);
    s.loc = loc_of(e, at);
    s.family = fam;
    s.sink = arena_strdup(e->a, sink);  /* the sink table does not outlive the scan */
    s.engine = engine ? arena_strdup(e->a, engine) : NULL;
    s.operand = op;
    s.tensor = t;
    kv_value *vals = arena_alloc(e->a, x.n * sizeof *vals);
    for (size_t i = 0; i < x.n; i++) {
        vals[i] = x.vals[i].v;
        size_t c = x.vals[i].cons;
        if (c && c <= e->out->constructions.n)
            e->out->constructions.v[c - 1].reaches_cache = true;
    }
    s.values = vals;
    s.nvalues = x.n;
    s.shares_block = x.other || x.n > 1;
    ARENA_PUSH(e->a, e->out->stores, s);
}

/* ---- calls ---- */

typedef struct args {
    TSNode pos[MAX_ARGS];
    aval posv[MAX_ARGS];
    size_t npos;
    const char *kwname[MAX_ARGS];
    TSNode kw[MAX_ARGS];
    aval kwv[MAX_ARGS];
    size_t nkw;
    bool star;  /* *args or **kwargs present: positions after it are unknown */
} args;

static void eval_args(ev *e, TSNode list, args *g)
{
    memset(g, 0, sizeof *g);
    if (ts_node_is_null(list))
        return;
    if (!is(list, "argument_list")) {  /* f(x for x in y) */
        eval(e, list);
        g->star = true;
        return;
    }
    uint32_t n;
    TSNode *ks = kids(e, list, &n);
    for (uint32_t i = 0; i < n; i++) {
        TSNode c = ks[i];
        if (is(c, "keyword_argument")) {
            aval v = eval(e, fld(e, c, F_value));
            if (g->nkw < MAX_ARGS) {
                g->kwname[g->nkw] = raw_text(e, fld(e, c, F_name));
                g->kw[g->nkw] = fld(e, c, F_value);
                g->kwv[g->nkw++] = v;
            }
        } else if (is(c, "list_splat") || is(c, "dictionary_splat")) {
            eval(e, ts_node_named_child(c, 0));
            g->star = true;
        } else {
            aval v = eval(e, c);
            if (g->npos < MAX_ARGS && !g->star) {
                g->pos[g->npos] = c;
                g->posv[g->npos++] = v;
            }
        }
    }
}

static const aval *kwarg(const args *g, const char *name, TSNode *node)
{
    for (size_t i = 0; name && i < g->nkw; i++)
        if (strcmp(g->kwname[i], name) == 0) {
            if (node)
                *node = g->kw[i];
            return &g->kwv[i];
        }
    return NULL;
}

/* Argument by position or keyword. */
static const aval *arg(const args *g, int pos, const char *kw, TSNode *node)
{
    const aval *k = kwarg(g, kw, node);
    if (k)
        return k;
    if (pos >= 0 && (size_t)pos < g->npos) {
        if (node)
            *node = g->pos[pos];
        return &g->posv[pos];
    }
    return NULL;
}

static dtype_ref dtype_of_aval(ev *e, const aval *x, TSNode at, bool *found)
{
    *found = true;
    if (x->tag == AV_DTYPE)
        return x->dtype;
    if (x->tag == AV_STR && x->str) {
        dtype_ref r = dref(e, DREF_CONCRETE, at);
        r.dtype = kvn_dtype_parse(x->str, false);
        if (r.dtype == KVN_DTYPE_INVALID)
            r.kind = DREF_UNKNOWN;
        return r;
    }
    if (x->tag == AV_VALUES && x->has_dtype && !x->other && x->n == 0)
        return x->dtype;
    *found = false;
    return dref(e, DREF_UNKNOWN, at);
}

/* The dtype= keyword of a factory call, if given. */
static bool dtype_kwarg(ev *e, const args *g, dtype_ref *out, bool *intdtype)
{
    TSNode at;
    const aval *d = kwarg(g, "dtype", &at);
    if (!d)
        return false;
    bool found;
    *out = dtype_of_aval(e, d, at, &found);
    if (!found)
        *out = dref(e, DREF_UNKNOWN, at);
    *intdtype = d->tag == AV_DTYPE && d->intdtype;
    return true;
}

static aval with_dtype(aval x, const dtype_ref *d, bool intdtype)
{
    x.has_dtype = true;
    x.dtype = *d;
    x.intdtype = intdtype;
    x.tensor = true;
    return x;
}

static aval as_tensor(aval x)
{
    if (x.tag != AV_VALUES)
        return av_unknown_tensor();
    x.tensor = true;
    return x;
}

/* torch.full(size, v, dtype=D) and its relatives. */
static aval model_fill(ev *e, const char *api, TSNode call, const aval *like, const aval *v, const args *g)
{
    dtype_ref d;
    bool intd = false, has = dtype_kwarg(e, g, &d, &intd);
    if (!has && like && like->tag == AV_VALUES && like->has_dtype) {
        d = like->dtype;
        intd = like->intdtype;
        has = true;
    }
    aval x = v && v->tag == AV_VALUES ? *v : av_unknown();
    x.binary = false;
    x = stepf(e, &x, call, "%s(...)", api);
    if (has) {
        x = constructions_for(e, CONS_SCALAR_FILL, api, call, x, &d);
        return with_dtype(x, &d, intd);
    }
    return as_tensor(x);
}

static aval const_fill(ev *e, double c, TSNode call, const aval *like, const args *g)
{
    kv_value v = value_make(e, VK_FLOAT, c, c, call);
    dtype_ref d;
    bool intd = false;
    bool has = dtype_kwarg(e, g, &d, &intd);
    aval x = av_const(e->s, &v);
    if (has)
        return with_dtype(x, &d, intd);
    if (like && like->tag == AV_VALUES && like->has_dtype)
        return with_dtype(x, &like->dtype, like->intdtype);
    return as_tensor(x);
}

static aval int_source(ev *e, TSNode call, double lo, double hi, const char *hi_sym, double add, bool unknown)
{
    kv_value v = value_make(e, VK_INTEGER, lo, hi, call);
    v.hi_sym = hi_sym;
    v.hi_sym_add = add;
    v.hi_unknown = unknown;
    aval x = av_const(e->s, &v);
    x.tensor = true;
    x.intdtype = true;
    return x;
}

/* arange(end) / arange(start, end): the upper bound known, symbolic (a range name) or unknown. */
static aval arange_value(ev *e, TSNode call, const args *g)
{
    TSNode endn;
    const aval *end = arg(g, g->npos >= 2 ? 1 : 0, "end", &endn);
    const aval *start = g->npos >= 2 ? &g->posv[0] : NULL;
    double lo = 0, s, hi;
    if (start && av_single(start, &s))
        lo = s;
    if (end && av_single(end, &hi))
        return int_source(e, call, lo, hi - 1, NULL, 0, false);
    if (end && (is(endn, "identifier") || is(endn, "attribute"))) {
        const char *nm = base_name(e, endn);
        if (nm)
            return int_source(e, call, lo, 0, nm, -1, false);
    }
    return int_source(e, call, lo, 0, NULL, 0, true);
}

static aval finfo_value(ev *e, const args *g, TSNode call, bool iinfo)
{
    aval x = av_unknown();
    x.tag = AV_FINFO;
    x.other = false;
    x.iinfo = iinfo;
    TSNode at = call;
    const aval *d = arg(g, 0, "type", &at);
    bool found = false;
    if (d)
        x.dtype = dtype_of_aval(e, d, at, &found);
    if (!d) {  /* torch.finfo() is float32's */
        x.dtype = dref(e, DREF_CONCRETE, call);
        x.dtype.dtype = kvn_dtype_parse("float32", false);
        x.dtype.text = "torch.float32";
    } else if (!found && d->tag == AV_VALUES) {
        /* finfo(x) on a tensor-like value: its dtype, i.e. the model's */
        x.dtype = d->has_dtype ? d->dtype : dref(e, DREF_MODEL, at);
    }
    x.str = text_of(e, call);
    return x;
}

/* torch.iinfo(D).min/max for the integer dtypes, by their spelling. */
static bool iinfo_bound(const char *dtext, bool max, double *out)
{
    static const struct { const char *n; double lo, hi; } t[] = {
        { "int64", -9223372036854775808.0, 9223372036854775807.0 }, { "long", -9223372036854775808.0, 9223372036854775807.0 },
        { "int32", -2147483648.0, 2147483647.0 }, { "int", -2147483648.0, 2147483647.0 },
        { "int16", -32768, 32767 }, { "short", -32768, 32767 }, { "int8", -128, 127 }, { "uint8", 0, 255 },
    };
    if (!dtext)
        return false;
    const char *dot = strrchr(dtext, '.');
    const char *n = dot ? dot + 1 : dtext;
    for (size_t i = 0; i < sizeof t / sizeof *t; i++)
        if (strcmp(n, t[i].n) == 0) {
            *out = max ? t[i].hi : t[i].lo;
            return true;
        }
    return false;
}

static aval finfo_attr(ev *e, const aval *f, const char *attr, TSNode at)
{
    value_sym sym = strcmp(attr, "min") == 0 ? SYM_FINFO_MIN : strcmp(attr, "max") == 0 ? SYM_FINFO_MAX
                    : strcmp(attr, "eps") == 0 ? SYM_FINFO_EPS : strcmp(attr, "tiny") == 0 ? SYM_FINFO_TINY
                    : SYM_NONE;
    if (sym == SYM_NONE)
        return av_unknown();
    if (f->iinfo) {
        double x;
        if (sym == SYM_FINFO_EPS || sym == SYM_FINFO_TINY || !iinfo_bound(f->dtype.text, sym == SYM_FINFO_MAX, &x))
            return av_unknown();
        kv_value v = value_make(e, fabs(x) >= PY_SENTINEL_MAGNITUDE ? VK_SENTINEL : VK_FLOAT, x, x, at);
        return av_const(e->s, &v);
    }
    bool big = sym == SYM_FINFO_MIN || sym == SYM_FINFO_MAX;
    kv_value v = value_make(e, big ? VK_SENTINEL : VK_FLOAT, 0, 0, at);
    v.sym = sym;
    v.sym_dtype = f->dtype;
    v.lo = v.hi = NAN;
    if (f->dtype.kind == DREF_CONCRETE) {
        const kvn_dtype_info *di = kvn_dtype_get(f->dtype.dtype);
        const kvn_fmt_info *fi = di ? kvn_fmt_get(di->elem) : NULL;
        if (fi) {
            double x = sym == SYM_FINFO_MIN ? -fi->max : sym == SYM_FINFO_MAX ? fi->max
                       : sym == SYM_FINFO_EPS ? ldexp(1.0, -fi->man_bits) : fi->min_normal;
            v.lo = v.hi = x;
        }
    }
    if (isnan(v.lo))
        v.lo = v.hi = sym == SYM_FINFO_MIN ? -INFINITY : sym == SYM_FINFO_MAX ? INFINITY : 0;
    return av_const(e->s, &v);
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

static void store_direct(ev *e, TSNode at, const char *cache, TSNode tensor, aval x)
{
    emit_store(e, at, SINK_DIRECT, cache, NULL, operand_for_cache(cache), tensor, x);
}

static bool kw_spelled(ev *e, const args *g, const char *kw, const char *const *words);

static void store_sink_call(ev *e, const py_sink *s, const char *callee, TSNode call, const args *g)
{
    /* SGLang's attention backends write K/V only when save_kv_cache is true (the caller then
     * stores them itself, e.g. with set_mla_kv_buffer, which is a sink of its own) */
    static const char *const no[] = { "False", NULL };
    if (kw_spelled(e, g, "save_kv_cache", no))
        return;
    TSNode kn, vn;
    const aval *k = arg(g, s->key_pos, s->key_kw, &kn);
    const aval *v = arg(g, s->value_pos, s->value_kw, &vn);
    kv_operand ko = s->kv ? OPERAND_KV : OPERAND_KEY, vo = s->kv ? OPERAND_KV : OPERAND_VALUE;
    if (k)
        emit_store(e, call, s->family, callee, s->engine, ko, kn, *k);
    if (v)
        emit_store(e, call, s->family, callee, s->engine, vo, vn, *v);
}

/* LLM(..., kv_cache_dtype="fp8", dtype="half") and friends. */
static void dtype_decls(ev *e, const char *callee_last, const char *origin, const args *g)
{
    if (e->quiet)
        return;
    const char *engine = strcmp(callee_last, "set_default_dtype") == 0 ? "torch"
                         : strcmp(callee_last, "Engine") == 0 ? "sglang" : "vllm";
    if (strcmp(callee_last, "Engine") == 0 && !(origin && strstr(origin, "sgl")))
        return;  /* only sglang.Engine / sgl.Engine */
    int group = ++e->decl_group;
    static const struct { const char *kw; decl_key key; } t[] = {
        { "kv_cache_dtype", DECL_KV_CACHE_DTYPE }, { "dtype", DECL_MODEL_DTYPE },
        { "calculate_kv_scales", DECL_KV_SCALES }, { "max_loras", DECL_ID_RANGE },
        { "max_model_len", DECL_ID_RANGE }, { "context_length", DECL_ID_RANGE },
    };
    for (size_t i = 0; i < sizeof t / sizeof *t + 1; i++) {
        TSNode at;
        const aval *v;
        decl_key key;
        const char *kw;
        if (i == sizeof t / sizeof *t) {
            if (strcmp(engine, "torch") != 0 || !(v = arg(g, 0, "d", &at)))
                continue;
            key = DECL_MODEL_DTYPE;
            kw = NULL;
        } else {
            if (strcmp(engine, "torch") == 0 || !(v = kwarg(g, t[i].kw, &at)))
                continue;
            key = t[i].key;
            kw = t[i].kw;
        }
        dtype_decl d;
        memset(&d, 0, sizeof d);
        d.key = key;
        d.engine = engine;
        d.carrier = "python-call";
        d.loc = loc_of(e, at);
        d.group = group;
        d.dtype = KVN_DTYPE_INVALID;
        double num;
        if (key == DECL_KV_CACHE_DTYPE || key == DECL_MODEL_DTYPE) {
            if (v->tag == AV_STR && v->str)
                d.raw = v->str;
            else if (v->tag == AV_DTYPE && v->dtype.kind == DREF_CONCRETE)
                d.raw = v->dtype.text;
            else
                continue;
            d.dtype = kvn_dtype_parse(d.raw, false);
        } else if (key == DECL_KV_SCALES) {
            d.raw = text_of(e, at);
            if (strcmp(d.raw, "True") == 0)
                d.number = 1;
            else if (strcmp(d.raw, "False") == 0)
                d.number = 0;
            else
                continue;
        } else {
            if (!av_single(v, &num))
                continue;
            d.number = num;
            d.raw = text_of(e, at);
            d.range_name = kw;
        }
        ARENA_PUSH(e->a, e->out->decls, d);
    }
}

/* ---- summaries of functions of this file ---- */

static void bind_params(ev *e, TSNode fn, const args *g);

/* Do the arguments carry nothing the callee could use? Then every such call has the same summary. */
static bool plain_args(const args *g)
{
    if (g->star)
        return false;
    for (size_t i = 0; i < g->npos; i++)
        if (g->posv[i].tag != AV_VALUES || g->posv[i].n || g->posv[i].binary || g->posv[i].has_dtype
            || g->posv[i].tensor)
            return false;
    for (size_t i = 0; i < g->nkw; i++)
        if (g->kwv[i].tag != AV_VALUES || g->kwv[i].n || g->kwv[i].binary || g->kwv[i].has_dtype
            || g->kwv[i].tensor)
            return false;
    return true;
}

static aval call_summary_uncached(ev *e, size_t id, const args *g);

static aval call_summary(ev *e, size_t id, const args *g)
{
    enum { SLOTS = 5 };
    if (!plain_args(g) || g->nkw > 0 || g->npos >= SLOTS)
        return call_summary_uncached(e, id, g);
    /* only unknown positional arguments: one summary per function and argument count */
    size_t k = id * SLOTS + g->npos;
    while (e->summaries.n <= k)
        ARENA_PUSH(e->s, e->summaries, ((summary){ 0 }));
    if (e->summaries.v[k].state == 1)
        return av_unknown();  /* being computed: recursion */
    if (e->summaries.v[k].state == 0) {
        e->summaries.v[k].state = 1;
        aval r = call_summary_uncached(e, id, g);
        e->summaries.v[k].v = r;
        e->summaries.v[k].state = 2;
    }
    return e->summaries.v[k].v;
}

static aval call_summary_uncached(ev *e, size_t id, const args *g)
{
    TSNode fn = e->nodes.v[id];
    for (frame *f = e->fr; f; f = f->up)
        if (ts_node_eq(f->fn, fn))
            return av_unknown();  /* recursion */
    if (e->call_depth >= MAX_CALL_DEPTH || e->budget < 1000)
        return av_unknown();
    frame fr;
    memset(&fr, 0, sizeof fr);
    fr.fn = fn;
    fr.up = e->fr;
    frame *saved_fr = e->fr;
    env *saved_cur = e->cur;
    klass *saved_cls = e->cls;
    e->cls = e->node_cls.v[id];
    e->fr = &fr;
    e->cur = &fr.locals;
    e->call_depth++;
    e->quiet++;
    bind_params(e, fn, g);
    exec_block(e, fld(e, fn, F_body));
    e->quiet--;
    e->call_depth--;
    e->fr = saved_fr;
    e->cur = saved_cur;
    e->cls = saved_cls;
    aval r = fr.has_ret ? fr.ret : av_unknown();
    TSNode name = fld(e, fn, F_name);
    return stepf(e, &r, name, "returned from %s()", raw_text(e, name));
}

static size_t node_id(ev *e, TSNode n, klass *cls)
{
    ARENA_PUSH(e->s, e->nodes, n);
    ARENA_PUSH(e->s, e->node_cls, cls);
    return e->nodes.n - 1;
}

/* ---- casts ---- */

static aval cast_to(ev *e, TSNode call, const char *api, aval x, dtype_ref d, bool intd, bool binary)
{
    aval r = x.tag == AV_VALUES ? x : av_unknown();
    r.tensor = true;
    if (intd) {
        r.intdtype = true;
        r.binary = r.binary || binary;
        r.has_dtype = true;
        r.dtype = d;
        return r;
    }
    if (!is_wide_float(&d))
        r = constructions_for(e, CONS_TENSOR_CAST, api, call, r, &d);
    emit_intcast(e, api, call, &r, &d);
    r = stepf(e, &r, call, "%s(%s)", api, d.text ? d.text : "");
    r.has_dtype = true;
    r.dtype = d;
    r.intdtype = false;
    return r;
}

static aval concrete_cast(ev *e, TSNode call, const char *api, aval x, const char *dtype_name)
{
    dtype_ref d = dref(e, DREF_CONCRETE, call);
    d.text = arena_printf(e->a, "torch.%s", dtype_name);
    d.dtype = kvn_dtype_parse(d.text, false);
    if (d.dtype == KVN_DTYPE_INVALID)
        d.kind = DREF_UNKNOWN;
    return cast_to(e, call, api, x, d, false, false);
}

/* .to(...) / .type(...): the first argument that is a dtype (or a tensor of known dtype). */
static aval method_to(ev *e, TSNode call, const char *api, aval x, const args *g)
{
    TSNode at;
    const aval *d = kwarg(g, "dtype", &at);
    for (size_t i = 0; !d && i < g->npos; i++)
        if (g->posv[i].tag == AV_DTYPE || (g->posv[i].tag == AV_VALUES && g->posv[i].has_dtype && g->posv[i].tensor)) {
            d = &g->posv[i];
            at = g->pos[i];
        }
    if (!d)
        return x;  /* .to(device) */
    if (d->tag == AV_DTYPE)
        return cast_to(e, call, api, x, d->dtype, d->intdtype, d->binary);
    if (d->tag == AV_VALUES)
        return cast_to(e, call, api, x, d->dtype, d->intdtype, false);
    bool found;
    dtype_ref r = dtype_of_aval(e, d, at, &found);
    return found ? cast_to(e, call, api, x, r, false, false) : x;
}

static aval method_type_as(ev *e, TSNode call, aval x, const args *g)
{
    if (g->npos < 1)
        return x;
    const aval *y = &g->posv[0];
    if (y->tag == AV_VALUES && y->has_dtype)
        return cast_to(e, call, "type_as", x, y->dtype, y->intdtype, false);
    dtype_ref d = dref(e, DREF_MODEL, g->pos[0]);
    d.text = arena_printf(e->a, "%s.dtype", text_of(e, g->pos[0]));
    return cast_to(e, call, "type_as", x, d, false, false);
}

/* ---- assignment targets ---- */

static void assign(ev *e, TSNode target, aval v, TSNode at);

static const char *self_key(ev *e, TSNode attr_node)
{
    if (!e->fr || !e->fr->self_name)
        return NULL;
    TSNode obj = fld(e, attr_node, F_object);
    if (!is(obj, "identifier") || strcmp(raw_text(e, obj), e->fr->self_name) != 0)
        return NULL;
    return arena_printf(e->a, "self.%s", raw_text(e, fld(e, attr_node, F_attribute)));
}

static aval lookup_self(ev *e, const char *key, TSNode at)
{
    const aval *v = e->fr ? env_get(&e->fr->locals, key) : NULL;
    if (v)
        return *v;
    const char *attr = key + 5;
    if (e->cls && (v = env_get(&e->cls->attrs, attr)))
        return *v;
    if (e->cls && (v = env_get(&e->cls->consts, attr)))
        return *v;
    return default_for_name(e, attr, at);
}

static void set_name(ev *e, const char *name, aval v)
{
    env_set(e->s, e->cur, name, v);
}

/* The variable a tensor expression names (k, self.k), for in-place updates; NULL otherwise. */
static const char *var_key(ev *e, TSNode n)
{
    while (is(n, "subscript"))
        n = fld(e, n, F_value);
    if (is(n, "identifier"))
        return raw_text(e, n);
    if (is(n, "attribute"))
        return self_key(e, n);
    return NULL;
}

static aval lookup_key(ev *e, const char *key, TSNode at)
{
    if (strncmp(key, "self.", 5) == 0)
        return lookup_self(e, key, at);
    const aval *v = env_get(e->cur, key);
    if (!v && e->cur != &e->module)
        v = env_get(&e->module, key);
    return v ? *v : default_for_name(e, key, at);
}

static void update_key(ev *e, const char *key, aval v)
{
    if (!key)
        return;
    if (strncmp(key, "self.", 5) == 0 && e->fr) {
        env_set(e->s, &e->fr->locals, key, v);
        if (e->fr->is_init && e->cls) {
            const aval *old = env_get(&e->cls->attrs, key + 5);
            env_set(e->s, &e->cls->attrs, key + 5, old ? av_join(e->s, old, &v) : v);
        }
        return;
    }
    set_name(e, key, v);
}

/* x written into part of target (k[..., 0] = x, k.masked_fill_(m, x)): join into the variable. */
static void write_into(ev *e, TSNode target, aval x, TSNode at, const char *what)
{
    const char *cache = base_name(e, target);
    if (cache && py_is_cache_name(e->st, cache, strlen(cache))) {
        store_direct(e, at, cache, ts_node_is_null(target) ? at : target, x);
        return;
    }
    const char *key = var_key(e, target);
    if (!key)
        return;
    aval old = lookup_key(e, key, target);
    if (old.tag != AV_VALUES)
        return;
    if (old.has_dtype && !x.tensor)
        x = constructions_for(e, CONS_SCALAR_FILL, what, at, x, &old.dtype);
    else if (old.has_dtype && !(x.has_dtype && x.dtype.kind == old.dtype.kind))
        x = constructions_for(e, CONS_TENSOR_CAST, what, at, x, &old.dtype);
    x = stepf(e, &x, at, "written into %s", text_of(e, target));
    aval nv = av_join(e->s, &old, &x);
    nv.has_dtype = old.has_dtype;
    nv.dtype = old.dtype;
    nv.intdtype = old.intdtype;
    nv.binary = old.binary && x.binary;
    nv.tensor = old.tensor || x.tensor;
    update_key(e, key, nv);
}

static void assign_inner(ev *e, TSNode target, aval v, TSNode at);

static void assign(ev *e, TSNode target, aval v, TSNode at)
{
    if (ts_node_is_null(target) || e->depth >= MAX_DEPTH)
        return;
    e->depth++;
    assign_inner(e, target, v, at);
    e->depth--;
}

static void assign_inner(ev *e, TSNode target, aval v, TSNode at)
{
    if (is(target, "identifier")) {
        const char *name = raw_text(e, target);
        v = refine_family(e, name, v, target);
        set_name(e, name, stepf(e, &v, target, "assigned to %s", name));
        return;
    }
    if (is(target, "attribute")) {
        const char *key = self_key(e, target);
        if (key) {
            v = refine_family(e, key + 5, v, target);
            update_key(e, key, stepf(e, &v, target, "assigned to %s", text_of(e, target)));
        }
        return;
    }
    if (is(target, "subscript")) {
        write_into(e, target, v, at, "[]=");
        return;
    }
    if (is(target, "pattern_list") || is(target, "tuple_pattern") || is(target, "list_pattern")
        || is(target, "tuple") || is(target, "list") || is(target, "parenthesized_expression")) {
        uint32_t n = ts_node_named_child_count(target);
        if (is(target, "parenthesized_expression")) {
            assign(e, ts_node_named_child(target, 0), v, at);
            return;
        }
        for (uint32_t i = 0; i < n; i++) {
            TSNode t = ts_node_named_child(target, i);
            if (v.tag == AV_SEQ && v.nelems == n)
                assign(e, t, v.elems[i], at);
            else
                assign(e, t, v.tag == AV_VALUES && v.tensor ? v : av_unknown(), at);
        }
    }
}

/* ---- calls: torch functions by name ---- */

static bool name_in(const char *s, const char *const *list)
{
    for (size_t i = 0; list[i]; i++)
        if (strcmp(s, list[i]) == 0)
            return true;
    return false;
}

static const char *const view_like[] = {
    "clone", "contiguous", "view", "reshape", "transpose", "permute", "unsqueeze", "squeeze", "expand",
    "expand_as", "repeat", "flatten", "detach", "view_as", "reshape_as", "t", "narrow", "flip", "roll",
    "unflatten", "movedim", "swapaxes", "index_select", "gather", "cpu", "cuda", "repeat_interleave",
    "unbind", "split", "chunk", "tile", "broadcast_to", "select", "squeeze_", "unsqueeze_", "round", "triu",
    "tril", NULL
};
static const char *const bool_results[] = {
    "any", "all", "eq", "ne", "lt", "gt", "le", "ge", "isin", "logical_and", "logical_or", "logical_not",
    "logical_xor", "isnan", "isinf", "isfinite", "bool", NULL
};

static aval cat_values(ev *e, const args *g)
{
    if (g->npos < 1)
        return av_unknown_tensor();
    const aval *l = &g->posv[0];
    if (l->tag != AV_SEQ || l->nelems == 0)
        return av_unknown_tensor();
    aval r = as_tensor(l->elems[0]);
    for (size_t i = 1; i < l->nelems; i++) {
        aval x = as_tensor(l->elems[i]);
        r = av_join(e->s, &r, &x);
    }
    return r;
}

static aval where_values(ev *e, TSNode call, const args *g)
{
    if (g->npos < 3)
        return av_unknown_tensor();
    const aval *a = &g->posv[1], *b = &g->posv[2];
    aval r = av_join(e->s, a, b);
    if (r.tag != AV_VALUES)
        return av_unknown_tensor();
    r.binary = a->tag == AV_VALUES && b->tag == AV_VALUES && a->binary && b->binary;
    r.tensor = true;
    /* A scalar special value picked into a tensor of known dtype is materialised in that dtype. */
    const aval *t = a->tensor && a->has_dtype ? a : b->tensor && b->has_dtype ? b : NULL;
    if (t) {
        const aval *scalars[2] = { a, b };
        aval parts[2];
        for (int i = 0; i < 2; i++) {
            parts[i] = *scalars[i];
            if (!scalars[i]->tensor)
                parts[i] = constructions_for(e, CONS_TENSOR_NEW, "torch.where", call, parts[i], &t->dtype);
        }
        r = av_join(e->s, &parts[0], &parts[1]);
        r.tensor = true;
        r.has_dtype = true;
        r.dtype = t->dtype;
    }
    return av_step(e->s, e->a, &r, loc_of(e, call), "torch.where(...)");
}

static aval pad_values(ev *e, TSNode call, const args *g)
{
    if (g->npos < 1)
        return av_unknown_tensor();
    TSNode at;
    const aval *v = arg(g, 3, "value", &at);
    aval x = as_tensor(g->posv[0]);
    if (!v) {
        kv_value z = value_make(e, VK_FLOAT, 0, 0, call);
        aval zero = av_const(e->s, &z);
        return av_join(e->s, &x, &zero);
    }
    aval pv_ = av_step(e->s, e->a, v, loc_of(e, call), "F.pad(..., value=...)");
    aval r = av_join(e->s, &x, &pv_);
    r.tensor = true;
    return r;
}

static aval clamp_values(ev *e, aval x, const args *g, int hi_pos)
{
    /* clamp(ids, 0, self.num_adapters): the upper bound names the range */
    TSNode mx;
    const aval *hi = arg(g, hi_pos, "max", &mx);
    if (hi && av_has_integer(&x) && (is(mx, "identifier") || is(mx, "attribute"))) {
        const char *nm = base_name(e, mx);
        pv *vals = arena_memdup(e->s, x.vals, x.n * sizeof *vals);
        for (size_t i = 0; nm && i < x.n; i++)
            if (vals[i].v.kind == VK_INTEGER) {
                vals[i].v.hi_sym = nm;
                vals[i].v.hi_sym_add = 0;
                vals[i].v.hi_unknown = false;
            }
        x.vals = vals;
        return x;
    }
    return av_without_sentinels(e->s, &x);
}

static aval torch_function(ev *e, const char *f, TSNode call, const args *g)
{
    const aval *a0 = g->npos > 0 ? &g->posv[0] : NULL;
    TSNode vn;
    if (strcmp(f, "full") == 0)
        return model_fill(e, "torch.full", call, NULL, arg(g, 1, "fill_value", &vn), g);
    if (strcmp(f, "full_like") == 0)
        return model_fill(e, "torch.full_like", call, a0, arg(g, 1, "fill_value", &vn), g);
    if (strcmp(f, "zeros") == 0 || strcmp(f, "zeros_like") == 0)
        return const_fill(e, 0, call, f[5] ? a0 : NULL, g);
    if (strcmp(f, "ones") == 0 || strcmp(f, "ones_like") == 0)
        return const_fill(e, 1, call, f[4] ? a0 : NULL, g);
    if (strcmp(f, "tensor") == 0 || strcmp(f, "as_tensor") == 0) {
        dtype_ref d;
        bool intd = false;
        aval x = a0 ? *a0 : av_unknown();
        if (x.tag == AV_SEQ)
            x = cat_values(e, g);
        if (x.tag != AV_VALUES)
            x = av_unknown();
        x = stepf(e, &x, call, "torch.%s(...)", f);
        if (dtype_kwarg(e, g, &d, &intd)) {
            x = constructions_for(e, CONS_TENSOR_NEW, "torch.tensor", call, x, &d);
            return with_dtype(x, &d, intd);
        }
        return as_tensor(x);
    }
    if (strcmp(f, "empty") == 0 || strcmp(f, "empty_like") == 0 || strcmp(f, "randn") == 0 || strcmp(f, "rand") == 0) {
        dtype_ref d;
        bool intd = false;
        if (dtype_kwarg(e, g, &d, &intd))
            return with_dtype(av_unknown_tensor(), &d, intd);
        return av_unknown_tensor();
    }
    if (strcmp(f, "where") == 0)
        return where_values(e, call, g);
    if (strcmp(f, "cat") == 0 || strcmp(f, "concat") == 0 || strcmp(f, "concatenate") == 0 || strcmp(f, "stack") == 0
        || strcmp(f, "hstack") == 0 || strcmp(f, "vstack") == 0) {
        aval r = cat_values(e, g);
        return stepf(e, &r, call, "torch.%s(...)", f);
    }
    if (strcmp(f, "pad") == 0)
        return pad_values(e, call, g);
    if (strcmp(f, "arange") == 0)
        return arange_value(e, call, g);
    if (strcmp(f, "argmax") == 0 || strcmp(f, "argmin") == 0 || strcmp(f, "argsort") == 0 || strcmp(f, "nonzero") == 0
        || strcmp(f, "searchsorted") == 0 || strcmp(f, "bucketize") == 0 || strcmp(f, "bincount") == 0
        || strcmp(f, "randperm") == 0)
        return int_source(e, call, 0, 0, NULL, 0, true);
    if (strcmp(f, "randint") == 0) {
        double lo = 0, hi;
        const aval *h = g->npos >= 3 ? &g->posv[1] : a0;
        if (g->npos >= 3)
            av_single(a0, &lo);
        if (h && av_single(h, &hi))
            return int_source(e, call, lo, hi - 1, NULL, 0, false);
        return int_source(e, call, lo, 0, NULL, 0, true);
    }
    if (strcmp(f, "finfo") == 0 || strcmp(f, "iinfo") == 0)
        return finfo_value(e, g, call, f[0] == 'i');
    if (strcmp(f, "get_default_dtype") == 0)
        return dtype_value(dref(e, DREF_MODEL, call), false);
    if (strcmp(f, "maximum") == 0 || strcmp(f, "minimum") == 0 || strcmp(f, "clamp") == 0 || strcmp(f, "clip") == 0
        || strcmp(f, "clamp_min") == 0 || strcmp(f, "clamp_max") == 0 || strcmp(f, "fmax") == 0)
        return a0 && a0->tag == AV_VALUES ? clamp_values(e, as_tensor(*a0), g, 2) : av_unknown_tensor();
    if (strcmp(f, "masked_fill") == 0 && g->npos >= 3) {
        aval x = as_tensor(g->posv[0]);
        aval v = g->posv[2];
        if (x.has_dtype)
            v = constructions_for(e, CONS_SCALAR_FILL, "masked_fill", call, v, &x.dtype);
        aval r = av_join(e->s, &x, &v);
        return av_step(e->s, e->a, &r, loc_of(e, call), "masked_fill(...)");
    }
    if (name_in(f, view_like) && a0)
        return as_tensor(*a0);
    if (name_in(f, bool_results)) {
        aval r = av_unknown_tensor();
        r.binary = true;
        return r;
    }
    return av_unknown_tensor();
}

/* ---- calls: tensor methods ---- */

static aval tensor_method(ev *e, TSNode call, TSNode recv, aval x, const char *m, const args *g)
{
    /* facts of a method call point at the method name: k.to(d).half() has two sites */
    TSNode whole = call, site = fld(e, fld(e, call, F_function), F_attribute);
    if (!ts_node_is_null(site))
        call = site;
    const char *cache = base_name(e, recv);
    bool is_cache = cache && py_is_cache_name(e->st, cache, strlen(cache));
    TSNode vn;
    static const struct { const char *m; int pos; const char *kw; } writes[] = {
        { "copy_", 0, "src" }, { "fill_", 0, "value" }, { "index_copy_", 2, "source" },
        { "index_put_", 1, "values" }, { "masked_fill_", 1, "value" }, { "index_fill_", 2, "value" },
        { "scatter_", 2, "src" }, { "masked_scatter_", 1, "source" }, { "put_", 1, "source" },
    };
    for (size_t i = 0; i < sizeof writes / sizeof *writes; i++) {
        if (strcmp(m, writes[i].m) != 0)
            continue;
        const aval *v = arg(g, writes[i].pos, writes[i].kw, &vn);
        if (!v)
            return x;
        if (is_cache) {
            store_direct(e, call, cache, vn, *v);
            return x;
        }
        const char *key = var_key(e, recv);
        if (key && (strcmp(m, "copy_") == 0 || strcmp(m, "fill_") == 0)) {
            aval nv = *v;
            if (x.has_dtype && strcmp(m, "fill_") == 0)
                nv = constructions_for(e, CONS_SCALAR_FILL, "fill_", call, nv, &x.dtype);
            bool tensor = x.tensor || (nv.tag == AV_VALUES && nv.tensor);
            nv = with_dtype(nv.tag == AV_VALUES ? nv : av_unknown(), &x.dtype, x.intdtype);
            nv.has_dtype = x.has_dtype;
            nv.tensor = tensor;
            update_key(e, key, stepf(e, &nv, call, "%s into %s", m, text_of(e, recv)));
        } else if (key) {
            write_into(e, recv, *v, call, m);
        }
        return key ? lookup_key(e, key, recv) : x;
    }
    if (x.tag != AV_VALUES)
        x = av_unknown();
    /* Methods keep the receiver's tensor-ness: a str.split() is no tensor. Only the words the
     * prefilter counts as tensor context (py_is_tensor_word) may make a tensor out of nothing. */
    if (name_in(m, view_like))
        return x;
    if (strcmp(m, "to") == 0 || strcmp(m, "type") == 0)
        return method_to(e, call, m[0] == 't' && m[1] == 'o' ? ".to" : ".type", x, g);
    if (strcmp(m, "half") == 0)
        return concrete_cast(e, call, ".half", x, "float16");
    if (strcmp(m, "bfloat16") == 0)
        return concrete_cast(e, call, ".bfloat16", x, "bfloat16");
    if (strcmp(m, "float") == 0)
        return concrete_cast(e, call, ".float", x, "float32");
    if (strcmp(m, "double") == 0)
        return concrete_cast(e, call, ".double", x, "float64");
    if (strcmp(m, "type_as") == 0)
        return method_type_as(e, call, x, g);
    if (strcmp(m, "long") == 0 || strcmp(m, "int") == 0 || strcmp(m, "short") == 0) {
        aval r = x;
        r.intdtype = true;
        return r;
    }
    /* out-of-place fills: x.masked_fill(mask, v), x.index_fill(dim, index, v) */
    bool index_fill = strcmp(m, "index_fill") == 0;
    if (strcmp(m, "masked_fill") == 0 || index_fill) {
        const aval *v = arg(g, index_fill ? 2 : 1, "value", &vn);
        if (!v)
            return as_tensor(x);
        aval nv = *v;
        if (x.has_dtype)
            nv = constructions_for(e, CONS_SCALAR_FILL, m, call, nv, &x.dtype);
        aval r = av_join(e->s, &x, &nv);
        r.tensor = true;
        return av_step(e->s, e->a, &r, loc_of(e, call), index_fill ? "index_fill(...)" : "masked_fill(...)");
    }
    if (strcmp(m, "new_full") == 0) {
        aval like = x.has_dtype ? x : av_unknown();
        return model_fill(e, "new_full", call, &like, arg(g, 1, "fill_value", &vn), g);
    }
    if (strcmp(m, "new_zeros") == 0 || strcmp(m, "new_ones") == 0)
        return const_fill(e, m[4] == 'z' ? 0 : 1, whole, x.has_dtype ? &x : NULL, g);
    if (strcmp(m, "new_tensor") == 0 || strcmp(m, "new_empty") == 0)
        return av_unknown_tensor();
    if (strcmp(m, "where") == 0 && g->npos >= 2) {
        aval y = g->posv[1];
        aval r = av_join(e->s, &x, &y);
        r.tensor = true;
        return r;
    }
    if (strcmp(m, "argmax") == 0 || strcmp(m, "argmin") == 0 || strcmp(m, "argsort") == 0 || strcmp(m, "nonzero") == 0)
        return int_source(e, whole, 0, 0, NULL, 0, true);
    if (strcmp(m, "clamp") == 0 || strcmp(m, "clip") == 0 || strcmp(m, "clamp_min") == 0 || strcmp(m, "clamp_max") == 0) {
        return clamp_values(e, x, g, 1);
    }
    if (name_in(m, bool_results)) {
        aval r = x.tensor ? av_unknown_tensor() : av_unknown();
        r.binary = true;
        return r;
    }
    return x.tensor ? av_unknown_tensor() : av_unknown();
}

/* ---- calls: dispatch ---- */

/* Whether a keyword argument is spelled, after its last dot, exactly as one of words
 * (`attn_type=AttentionType.ENCODER_ONLY`, `save_kv_cache=False`). Only literal spellings count:
 * a variable keeps the call what it is by default. */
static bool kw_spelled(ev *e, const args *g, const char *kw, const char *const *words)
{
    TSNode at;
    if (!kwarg(g, kw, &at) || ts_node_is_null(at))
        return false;
    const char *t = raw_text(e, at), *dot = strrchr(t, '.');
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
static bool cacheless_layer(ev *e, const args *g)
{
    static const char *const encoder[] = { "ENCODER", "ENCODER_ONLY", "encoder", "encoder_only", NULL };
    return kw_spelled(e, g, "attn_type", encoder);
}

static aval class_instance(ev *e, const char *class_name, TSNode call, const args *g)
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

static const char *last_dotted(const char *s)
{
    const char *d = strrchr(s, '.');
    return d ? d + 1 : s;
}

static aval eval_call(ev *e, TSNode call)
{
    TSNode fn = fld(e, call, F_function);
    TSNode an = fld(e, call, F_arguments);
    if (ts_node_is_null(fn))
        return av_unknown();
    const char *callee = dotted(e, fn);
    aval recv = av_unknown(), fv = av_unknown();
    TSNode recv_node = fn;
    const char *method = NULL;
    if (is(fn, "attribute")) {
        recv_node = fld(e, fn, F_object);
        method = raw_text(e, fld(e, fn, F_attribute));
        const char *key = self_key(e, fn);
        if (key && e->cls) {
            const aval *m = env_get(&e->cls->consts, key + 5);
            const aval *attr = env_get(&e->cls->attrs, key + 5);
            if (!attr && e->fr)
                attr = env_get(&e->fr->locals, key);
            if (attr)
                fv = *attr;
            else if (m)
                fv = *m;
            recv = default_for_name(e, "self", recv_node);
        } else {
            recv = eval(e, recv_node);
        }
    } else {
        fv = eval(e, fn);
    }
    args g;
    eval_args(e, an, &g);

    /* what the callee names: its spelling, or the origin of an imported name */
    const char *origin = callee;
    if (fv.tag == AV_IMPORT && fv.str)
        origin = fv.str;
    if (origin) {
        const py_sink *s = py_sink_for_call(e->st, origin);
        if (s && fv.tag != AV_SINKOBJ) {
            store_sink_call(e, s, callee ? callee : origin, call, &g);
            return av_unknown();
        }
        const char *last = last_dotted(origin);
        if (py_is_decl_callee(last, strlen(last))) {
            const char *mod = fv.tag == AV_IMPORT ? fv.str : callee;
            dtype_decls(e, last, mod, &g);
        }
    }
    if (fv.tag == AV_SINKOBJ) {
        store_sink_call(e, fv.sink, callee ? callee : text_of(e, fn), call, &g);
        return av_unknown_tensor();
    }
    if (method && recv.tag == AV_SINKOBJ && strcmp(method, "forward") == 0) {
        store_sink_call(e, recv.sink, callee ? callee : text_of(e, fn), call, &g);
        return av_unknown_tensor();
    }
    if (fv.tag == AV_FUNC)
        return call_summary(e, fv.node_id, &g);
    if (fv.tag == AV_CLASS || fv.tag == AV_IMPORT) {
        const char *cn = fv.tag == AV_IMPORT ? last_dotted(fv.str) : fv.str;
        aval inst = class_instance(e, cn, call, &g);
        if (inst.tag == AV_SINKOBJ)
            return inst;
        if (fv.tag == AV_IMPORT && strncmp(fv.str, "torch", 5) == 0)
            return torch_function(e, cn, call, &g);
        return av_unknown();
    }
    if (method) {
        if (recv.tag == AV_MODULE)
            return strcmp(recv.str, "math") == 0 ? av_unknown() : torch_function(e, method, call, &g);
        if (recv.tag == AV_FINFO)
            return av_unknown();
        return tensor_method(e, call, recv_node, recv, method, &g);
    }
    if (is(fn, "identifier")) {
        const char *name = raw_text(e, fn);
        if (strcmp(name, "float") == 0 && g.npos == 1) {
            if (g.posv[0].tag == AV_STR && g.posv[0].str) {
                double x;
                if (py_float_string_special(g.posv[0].str, strlen(g.posv[0].str), &x))
                    return number_value(e, x, call);
            }
            return g.posv[0].tag == AV_VALUES && !g.posv[0].tensor ? g.posv[0] : av_unknown();
        }
        aval inst = class_instance(e, name, call, &g);
        if (inst.tag == AV_SINKOBJ)
            return inst;
    }
    return av_unknown();
}

/* ---- expressions ---- */

static aval eval_string(ev *e, TSNode n)
{
    /* string_start string_content? string_end: a plain literal; anything else is unknown */
    uint32_t k = ts_node_named_child_count(n);
    aval x = av_unknown();
    x.tag = AV_STR;
    x.other = false;
    if (k == 2) {
        x.str = "";
        return x;
    }
    if (k != 3 || !is(ts_node_named_child(n, 1), "string_content")
        || ts_node_named_child_count(ts_node_named_child(n, 1)) != 0) {
        x.str = NULL;
        return x;
    }
    x.str = raw_text(e, ts_node_named_child(n, 1));
    return x;
}

static aval eval_attribute(ev *e, TSNode n)
{
    const char *key = self_key(e, n);
    if (key)
        return lookup_self(e, key, n);
    TSNode objn = fld(e, n, F_object);
    const char *attr = raw_text(e, fld(e, n, F_attribute));
    aval obj = eval(e, objn);
    if (obj.tag == AV_MODULE) {
        aval d;
        if (py_is_infinity_word(attr, strlen(attr)))
            return number_value(e, attr[0] == 'N' ? -INFINITY : INFINITY, n);
        if (strcmp(obj.str, "torch") == 0 && torch_dtype_name(e, attr, n, &d))
            return d;
        if (strcmp(attr, "functional") == 0 || strcmp(attr, "nn") == 0)
            return obj;
        aval imp = av_unknown();
        imp.tag = AV_IMPORT;
        imp.str = arena_printf(e->a, "%s.%s", obj.str, attr);
        return imp;
    }
    if (obj.tag == AV_FINFO)
        return finfo_attr(e, &obj, attr, n);
    if (obj.tag == AV_CLASS && obj.node_id < e->node_cls.n && e->node_cls.v[obj.node_id]) {
        const aval *c = env_get(&e->node_cls.v[obj.node_id]->consts, attr);  /* Klass.CONST */
        if (c)
            return *c;
    }
    if (obj.tag == AV_IMPORT) {
        aval imp = obj;
        imp.str = arena_printf(e->a, "%s.%s", obj.str, attr);
        return imp;
    }
    if (strcmp(attr, "dtype") == 0) {
        if (obj.tag == AV_VALUES && obj.has_dtype)
            return dtype_value(obj.dtype, obj.intdtype);
        const char *b = base_name(e, objn);
        bool kv = b && py_is_cache_name(e->st, b, strlen(b));
        return dtype_value(dref(e, kv ? DREF_KV : DREF_MODEL, n), false);
    }
    if (dtype_by_name(attr))
        return dtype_value(dref(e, dtype_kind_by_name(attr), n), false);
    if (obj.tag == AV_VALUES && obj.tensor && (strcmp(attr, "T") == 0 || strcmp(attr, "mT") == 0 || strcmp(attr, "data") == 0))
        return obj;
    const char *fam = py_name_family(attr, strlen(attr));
    if (fam)
        return family_value(e, fam, n);
    return av_unknown();
}

static aval eval_identifier(ev *e, TSNode n)
{
    uint32_t b = ts_node_start_byte(n), t = ts_node_end_byte(n);
    const char *s = e->src + b;
    size_t len = t > b ? t - b : 0;
    uint32_t h = name_hash_n(s, len);
    const aval *v = env_find_n(e->cur, s, len, h);
    if (!v && e->cur != &e->module)
        v = env_find_n(&e->module, s, len, h);
    if (v)
        return *v;
    return default_for_name(e, raw_text(e, n), n);
}

/* Whether two nodes spell the same bytes. */
static bool same_bytes(const ev *e, TSNode a, TSNode b)
{
    uint32_t ab = ts_node_start_byte(a), al = ts_node_end_byte(a) - ab;
    uint32_t bb = ts_node_start_byte(b), bl = ts_node_end_byte(b) - bb;
    return al == bl && memcmp(e->src + ab, e->src + bb, al) == 0;
}

/* Whether the value of the sum n is only ever compared: `a + b == 0`, or `x = a + b` directly
 * followed by `x = x == 0` (transformers' _update_causal_mask builds its padding test so). A sum
 * that overflows to -inf orders and compares exactly as the finite sum would, so it is no hazard. */
static bool sum_only_compared(ev *e, TSNode n)
{
    TSNode p = ts_node_parent(n);
    while (!ts_node_is_null(p) && is(p, "parenthesized_expression"))
        n = p, p = ts_node_parent(p);
    if (ts_node_is_null(p))
        return false;
    if (is(p, "comparison_operator"))
        return true;
    if (!is(p, "assignment"))
        return false;
    TSNode lhs = fld(e, p, F_left), stmt = ts_node_parent(p);
    if (ts_node_is_null(lhs) || !is(lhs, "identifier") || ts_node_is_null(stmt) || !is(stmt, "expression_statement"))
        return false;
    TSNode next = ts_node_next_named_sibling(stmt);
    while (!ts_node_is_null(next) && is(next, "comment"))
        next = ts_node_next_named_sibling(next);
    if (ts_node_is_null(next) || !is(next, "expression_statement") || ts_node_named_child_count(next) != 1)
        return false;
    TSNode as = ts_node_named_child(next, 0);
    if (!is(as, "assignment"))
        return false;
    TSNode l2 = fld(e, as, F_left), r2 = fld(e, as, F_right);
    if (ts_node_is_null(l2) || ts_node_is_null(r2) || !same_bytes(e, l2, lhs) || !is(r2, "comparison_operator"))
        return false;
    for (uint32_t i = 0; i < ts_node_named_child_count(r2); i++) {
        TSNode k = ts_node_named_child(r2, i);
        if (is(k, "identifier") && same_bytes(e, k, lhs))
            return true;
    }
    return false;
}

static aval eval_binary(ev *e, TSNode n)
{
    TSNode ln = fld(e, n, F_left), rn = fld(e, n, F_right), on = fld(e, n, F_operator);
    aval l = eval(e, ln), r = eval(e, rn);
    const char *op = ts_node_is_null(on) ? "?" : ts_node_type(on);
    if (strcmp(op, "@") == 0)
        return av_unknown_tensor();
    if (strcmp(op, "&") == 0 || strcmp(op, "|") == 0 || strcmp(op, "^") == 0) {
        aval x = (l.tensor || r.tensor) ? av_unknown_tensor() : av_unknown();
        x.binary = l.binary && r.binary;
        return x;
    }
    if (strcmp(op, "+") != 0 && strcmp(op, "-") != 0 && strcmp(op, "*") != 0 && strcmp(op, "/") != 0
        && strcmp(op, "**") != 0)
        return (l.tensor || r.tensor) ? av_unknown_tensor() : av_unknown();
    if (l.tag != AV_VALUES || r.tag != AV_VALUES)
        return av_unknown();
    double c;
    bool tensor_ctx = l.tensor || r.tensor;
    dtype_ref d = l.has_dtype ? l.dtype : r.has_dtype ? r.dtype : dref(e, DREF_UNKNOWN, n);
    if (!l.has_dtype && !r.has_dtype) {
        /* the sentinel's own finfo dtype is the best guess of what the arithmetic runs in */
        const aval *sv = av_has_sentinel(&l) ? &l : &r;
        d.text = NULL;
        for (size_t i = 0; i < sv->n; i++)
            if (sv->vals[i].v.sym != SYM_NONE) {
                d = sv->vals[i].v.sym_dtype;
                break;
            }
    }
    /* 1 - mask is a mask */
    if (strcmp(op, "-") == 0 && av_single(&l, &c) && c == 1 && r.binary) {
        aval x = r.tensor ? av_unknown_tensor() : av_unknown();
        x.binary = true;
        return x;
    }
    /* (1 - mask) * float("-inf"): 0 * inf is NaN wherever the mask is 1 */
    if (strcmp(op, "*") == 0 && tensor_ctx && (l.binary || r.binary)) {
        const aval *other = l.binary ? &r : &l;
        for (size_t i = 0; i < other->n; i++)
            if (isinf(other->vals[i].v.lo) && other->vals[i].v.sym == SYM_NONE) {
                kv_value mask = value_make(e, VK_INTEGER, 0, 1, l.binary ? ln : rn);
                emit_arith(e, ARITH_ZERO_TIMES_INF, n, &mask, &other->vals[i].v, &d);
                break;
            }
    }
    if ((strcmp(op, "+") == 0 || strcmp(op, "-") == 0) && tensor_ctx) {
        bool ls = av_has_sentinel(&l), rs = av_has_sentinel(&r);
        const aval *s = ls ? &l : &r;
        const aval *o = ls ? &r : &l;
        bool compared = (ls || rs) && sum_only_compared(e, n);
        if (ls && rs && !compared)
            emit_arith(e, ARITH_SENTINEL_SUM, n, &l.vals[0].v, &r.vals[0].v, &d);
        else if (!ls != !rs && o->other && !compared) {
            for (size_t i = 0; i < s->n; i++)
                if (s->vals[i].v.kind == VK_SENTINEL) {
                    kv_value ov = value_make(e, VK_UNKNOWN, 0, 0, ls ? rn : ln);
                    emit_arith(e, ARITH_SENTINEL_PLUS, n, &s->vals[i].v, &ov, &d);
                    break;
                }
        }
    }
    return av_arith(e->s, op, &l, &r, loc_of(e, n), text_of(e, n));
}

static aval eval_seq(ev *e, TSNode n)
{
    uint32_t k;
    TSNode *ks = kids(e, n, &k);
    aval x = av_unknown();
    x.tag = AV_SEQ;
    x.other = false;
    size_t m = k < PV_MAX_ELEMS ? k : PV_MAX_ELEMS;
    aval *el = arena_alloc(e->s, (m ? m : 1) * sizeof *el);
    size_t j = 0;
    for (uint32_t i = 0; i < k; i++) {
        TSNode c = ks[i];
        aval v = eval(e, c);
        if (is(c, "list_splat") || j >= m)
            continue;
        el[j++] = v;
    }
    x.elems = el;
    x.nelems = j;
    return x;
}

/* Comprehensions: bind the loop targets to unknowns and evaluate the element once, for facts. */
static aval eval_comprehension(ev *e, TSNode n)
{
    env saved = env_copy(e->s, e->cur);
    uint32_t k = ts_node_named_child_count(n);
    for (uint32_t i = 1; i < k; i++) {
        TSNode c = ts_node_named_child(n, i);
        if (is(c, "for_in_clause")) {
            eval(e, fld(e, c, F_right));
            assign(e, fld(e, c, F_left), av_unknown(), c);
        }
    }
    if (k > 0)
        eval(e, ts_node_named_child(n, 0));
    *e->cur = saved;
    return av_unknown();
}

static aval eval_inner(ev *e, TSNode n)
{
    const char *t = ts_node_type(n);
    switch (t[0]) {
    case 'i':
        if (strcmp(t, "identifier") == 0)
            return eval_identifier(e, n);
        if (strcmp(t, "integer") == 0) {
            double x;
            uint32_t b = ts_node_start_byte(n), z = ts_node_end_byte(n);
            return py_parse_number(e->src + b, z - b, &x) ? number_value(e, x, n) : av_unknown();
        }
        break;
    case 'f':
        if (strcmp(t, "float") == 0) {
            double x;
            uint32_t b = ts_node_start_byte(n), z = ts_node_end_byte(n);
            return py_parse_number(e->src + b, z - b, &x) ? number_value(e, x, n) : av_unknown();
        }
        break;
    case 'c':
        if (strcmp(t, "call") == 0)
            return eval_call(e, n);
        if (strcmp(t, "conditional_expression") == 0 && ts_node_named_child_count(n) >= 3) {
            aval a = eval(e, ts_node_named_child(n, 0));
            eval(e, ts_node_named_child(n, 1));
            aval b = eval(e, ts_node_named_child(n, 2));
            return av_join(e->s, &a, &b);
        }
        if (strcmp(t, "comparison_operator") == 0) {
            bool tensor = false;
            uint32_t k;
            TSNode *ks = kids(e, n, &k);
            for (uint32_t i = 0; i < k; i++)
                tensor |= eval(e, ks[i]).tensor;
            aval x = tensor ? av_unknown_tensor() : av_unknown();
            x.binary = true;
            return x;
        }
        if (strcmp(t, "concatenated_string") == 0)
            return av_unknown();
        break;
    case 'a':
        if (strcmp(t, "attribute") == 0)
            return eval_attribute(e, n);
        if (strcmp(t, "await") == 0 && ts_node_named_child_count(n))
            return eval(e, ts_node_named_child(n, 0));
        break;
    case 's':
        if (strcmp(t, "string") == 0)
            return eval_string(e, n);
        if (strcmp(t, "subscript") == 0) {
            aval v = eval(e, fld(e, n, F_value));
            if (v.tag == AV_SEQ) {
                double ix;
                TSNode sn = fld(e, n, F_subscript);
                aval s = ts_node_is_null(sn) ? av_unknown() : eval(e, sn);
                if (av_single(&s, &ix) && ix >= 0 && ix < (double)v.nelems)
                    return v.elems[(size_t)ix];
                return av_unknown();
            }
            return v.tag == AV_VALUES && v.tensor ? v : av_unknown();
        }
        break;
    case 'u':
        if (strcmp(t, "unary_operator") == 0) {
            TSNode op = ts_node_child(n, 0);
            aval x = eval(e, fld(e, n, F_argument));
            const char *o = ts_node_type(op);
            if (strcmp(o, "-") == 0)
                return av_negate(e->s, &x, loc_of(e, n), text_of(e, n));
            if (strcmp(o, "~") == 0) {
                aval r = x.tensor ? av_unknown_tensor() : av_unknown();
                r.binary = x.binary;
                return r;
            }
            return x;
        }
        break;
    case 'b':
        if (strcmp(t, "binary_operator") == 0)
            return eval_binary(e, n);
        if (strcmp(t, "boolean_operator") == 0) {
            aval a = eval(e, fld(e, n, F_left)), b = eval(e, fld(e, n, F_right));
            return av_join(e->s, &a, &b);
        }
        break;
    case 'p':
        if (strcmp(t, "parenthesized_expression") == 0 && ts_node_named_child_count(n))
            return eval(e, ts_node_named_child(n, 0));
        break;
    case 't':
        if (strcmp(t, "tuple") == 0)
            return eval_seq(e, n);
        break;
    case 'l':
        if (strcmp(t, "list") == 0)
            return eval_seq(e, n);
        if (strcmp(t, "list_comprehension") == 0)
            return eval_comprehension(e, n);
        if (strcmp(t, "lambda") == 0)
            return av_unknown();
        break;
    case 'e':
        if (strcmp(t, "expression_list") == 0)
            return eval_seq(e, n);
        break;
    case 'n':
        if (strcmp(t, "named_expression") == 0) {
            aval v = eval(e, fld(e, n, F_value));
            assign(e, fld(e, n, F_name), v, n);
            return v;
        }
        if (strcmp(t, "not_operator") == 0) {
            eval(e, fld(e, n, F_argument));
            return av_unknown();
        }
        break;
    case 'g':
        if (strcmp(t, "generator_expression") == 0)
            return eval_comprehension(e, n);
        break;
    case 'd':
        if (strcmp(t, "dictionary") == 0) {
            uint32_t k;
            TSNode *ks = kids(e, n, &k);
            for (uint32_t i = 0; i < k; i++) {
                TSNode p = ks[i];
                if (is(p, "pair"))
                    eval(e, fld(e, p, F_value));
            }
            return av_unknown();
        }
        break;
    default:
        break;
    }
    return av_unknown();
}

static aval eval(ev *e, TSNode n)
{
    if (ts_node_is_null(n) || e->depth >= MAX_DEPTH || !budget_ok(e))
        return av_unknown();
    e->depth++;
    aval r = eval_inner(e, n);
    e->depth--;
    return r;
}

/* ---- statements ---- */

static void bind_imports(ev *e, TSNode n)
{
    if (is(n, "import_statement")) {
        uint32_t k;
        TSNode *ks = kids(e, n, &k);
        for (uint32_t i = 0; i < k; i++) {
            TSNode c = ks[i];
            const char *full = NULL, *alias = NULL;
            if (is(c, "aliased_import")) {
                full = raw_text(e, fld(e, c, F_name));
                alias = raw_text(e, fld(e, c, F_alias));
            } else if (is(c, "dotted_name")) {
                full = raw_text(e, c);
                alias = arena_strndup(e->a, full, strcspn(full, "."));
                full = alias;
            }
            if (!full)
                continue;
            aval m = av_unknown();
            m.tag = AV_MODULE;
            m.str = strncmp(full, "torch", 5) == 0 ? "torch" : strncmp(full, "numpy", 5) == 0 ? "numpy"
                    : strcmp(full, "math") == 0 ? "math" : NULL;
            if (!m.str) {
                m.tag = AV_IMPORT;
                m.str = full;
            }
            set_name(e, alias, m);
        }
        return;
    }
    /* from M import a, b as c */
    TSNode mod = fld(e, n, F_module_name);
    const char *mtext = ts_node_is_null(mod) ? "" : raw_text(e, mod);
    uint32_t nk;
    TSNode *ks = kids(e, n, &nk);
    for (uint32_t i = 0; i < nk; i++) {
        TSNode c = ks[i];
        if (ts_node_eq(c, mod))
            continue;
        const char *name = NULL, *alias = NULL;
        if (is(c, "aliased_import")) {
            name = raw_text(e, fld(e, c, F_name));
            alias = raw_text(e, fld(e, c, F_alias));
        } else if (is(c, "dotted_name")) {
            name = alias = raw_text(e, c);
        }
        if (!name)
            continue;
        /* a constant exported by another scanned file? */
        const py_export *x = NULL;
        const char *xpath = NULL;
        const char *tail = strrchr(mtext, '.');
        tail = tail ? tail + 1 : mtext;
        for (size_t k = 0; e->ctx && !x && k < e->ctx->nindexes; k++) {
            const char *p = e->ctx->indexes[k].path;
            const py_exports *ex = e->ctx->indexes[k].exports;
            const char *slash = strrchr(p, '/');
            const char *file = slash ? slash + 1 : p;
            size_t tl = strlen(tail);
            bool mod_match = *tail && strncmp(file, tail, tl) == 0 && strcmp(file + tl, ".py") == 0;
            for (size_t j = 0; mod_match && ex && j < ex->n; j++)
                if (strcmp(ex->v[j].name, name) == 0) {
                    x = &ex->v[j];
                    xpath = p;
                }
        }
        if (x) {
            kv_value v;
            memset(&v, 0, sizeof v);
            v.kind = x->sentinel ? VK_SENTINEL : VK_FLOAT;
            v.lo = v.hi = x->value;
            v.sym_scale = 1;
            v.text = arena_strdup(e->a, x->text);
            v.origin = kv_loc_make(arena_strdup(e->a, xpath), x->line, x->col, 0, 0);
            aval a = av_const(e->s, &v);
            set_name(e, alias, stepf(e, &a, c, "imported as %s", alias));
            continue;
        }
        aval m = av_unknown();
        m.tag = strncmp(mtext, "torch", 5) == 0 && strchr(name, '.') == NULL
                && (strcmp(name, "nn") == 0 || strcmp(name, "functional") == 0) ? AV_MODULE : AV_IMPORT;
        m.str = m.tag == AV_MODULE ? "torch" : arena_printf(e->a, "%s.%s", mtext, name);
        set_name(e, alias, m);
    }
}

/* Bind a function's parameters in the current frame: from the call's arguments (a summary), else
 * the default value, else what the name says (an id family, a dtype, a mask). The first parameter
 * of a method (self/cls) is the frame's self. */
static void bind_params(ev *e, TSNode fn, const args *g)
{
    TSNode ps = fld(e, fn, F_parameters);
    uint32_t k;
    TSNode *ks = kids(e, ps, &k);
    size_t pos = 0;
    bool first = true;
    for (uint32_t i = 0; i < k; i++) {
        TSNode p = ks[i];
        TSNode name = p, dflt = { 0 };
        bool has_default = false;
        if (is(p, "default_parameter") || is(p, "typed_default_parameter")) {
            name = fld(e, p, F_name);
            dflt = fld(e, p, F_value);
            has_default = true;
        } else if (is(p, "typed_parameter")) {
            name = ts_node_named_child(p, 0);
        } else if (!is(p, "identifier")) {
            first = false;
            continue;  /* *args, **kw, / and * markers */
        }
        if (ts_node_is_null(name) || !is(name, "identifier"))
            continue;
        const char *nm = raw_text(e, name);
        if (first && e->cls && (strcmp(nm, "self") == 0 || strcmp(nm, "cls") == 0)) {
            e->fr->self_name = nm;
            first = false;
            continue;
        }
        first = false;
        aval v;
        bool have = false;
        if (g) {
            const aval *a = kwarg(g, nm, NULL);
            if (!a && pos < g->npos && !g->star)
                a = &g->posv[pos];
            pos++;
            if (a) {
                v = stepf(e, a, name, "passed as %s", nm);
                if (v.tag == AV_VALUES && v.n) {
                    pv *vals = arena_memdup(e->s, v.vals, v.n * sizeof *vals);
                    for (size_t j = 0; j < v.n; j++)
                        vals[j].arg = true;
                    v.vals = vals;
                }
                have = true;
            }
        }
        if (!have && has_default) {
            env *saved = e->cur;
            e->cur = &e->module;
            v = eval(e, dflt);
            e->cur = saved;
            have = !av_is_unknown(&v);
        }
        if (!have) {
            const char *fam = py_name_family(nm, strlen(nm));
            v = fam ? family_value(e, fam, name) : default_for_name(e, nm, name);
            /* q: torch.Tensor, mask: Optional[Tensor]: a tensor ("Tensor" is a tensor word) */
            if (v.tag == AV_VALUES && (is(p, "typed_parameter") || is(p, "typed_default_parameter"))
                && strstr(raw_text(e, p), "Tensor"))
                v.tensor = true;
        }
        env_set(e->s, &e->fr->locals, nm, v);
    }
}

static void exec_stmt(ev *e, TSNode s);

static void exec_block(ev *e, TSNode n)
{
    if (ts_node_is_null(n))
        return;
    uint32_t k;
    TSNode *ks = kids(e, n, &k);
    for (uint32_t i = 0; i < k; i++)
        exec_stmt(e, ks[i]);
}

static void exec_branches(ev *e, TSNode s)
{
    eval(e, fld(e, s, F_condition));
    env before = env_copy(e->s, e->cur);
    exec_block(e, fld(e, s, F_consequence));
    env acc = *e->cur;
    bool has_else = false;
    uint32_t k;
    TSNode *ks = kids(e, s, &k);
    for (uint32_t i = 0; i < k; i++) {
        TSNode c = ks[i];
        if (!is(c, "elif_clause") && !is(c, "else_clause"))
            continue;
        *e->cur = env_copy(e->s, &before);
        if (is(c, "elif_clause")) {
            eval(e, fld(e, c, F_condition));
            exec_block(e, fld(e, c, F_consequence));
        } else {
            has_else = true;
            exec_block(e, fld(e, c, F_body));
        }
        acc = env_join(e->s, &acc, e->cur);
    }
    if (!has_else)
        acc = env_join(e->s, &acc, &before);
    *e->cur = acc;
}

/* A loop body runs zero or one time (as far as this analysis is concerned). */
static void exec_loop(ev *e, TSNode s)
{
    if (is(s, "for_statement")) {
        aval it = eval(e, fld(e, s, F_right));
        aval el = av_unknown();
        if (it.tag == AV_SEQ && it.nelems > 0) {
            el = it.elems[0];
            for (size_t i = 1; i < it.nelems; i++)
                el = av_join(e->s, &el, &it.elems[i]);
        }
        env before = env_copy(e->s, e->cur);
        assign(e, fld(e, s, F_left), el, s);
        exec_block(e, fld(e, s, F_body));
        *e->cur = env_join(e->s, e->cur, &before);
    } else {
        eval(e, fld(e, s, F_condition));
        env before = env_copy(e->s, e->cur);
        exec_block(e, fld(e, s, F_body));
        *e->cur = env_join(e->s, e->cur, &before);
    }
    TSNode alt = fld(e, s, F_alternative);
    if (!ts_node_is_null(alt))
        exec_block(e, fld(e, alt, F_body));
}

static void exec_try(ev *e, TSNode s)
{
    env before = env_copy(e->s, e->cur);
    exec_block(e, fld(e, s, F_body));
    env acc = *e->cur;
    uint32_t k;
    TSNode *ks = kids(e, s, &k);
    for (uint32_t i = 0; i < k; i++) {
        TSNode c = ks[i];
        if (is(c, "except_clause") || is(c, "except_group_clause")) {
            *e->cur = env_copy(e->s, &before);
            for (uint32_t j = 0; j < ts_node_named_child_count(c); j++)
                if (is(ts_node_named_child(c, j), "block"))
                    exec_block(e, ts_node_named_child(c, j));
            acc = env_join(e->s, &acc, e->cur);
        } else if (is(c, "else_clause") || is(c, "finally_clause")) {
            *e->cur = acc;
            for (uint32_t j = 0; j < ts_node_named_child_count(c); j++)
                if (is(ts_node_named_child(c, j), "block"))
                    exec_block(e, ts_node_named_child(c, j));
            acc = *e->cur;
        }
    }
    *e->cur = acc;
}

/* match s: case ...: each case runs from the state before the match, and no case may match: the
 * state after is the join of all of them. Patterns bind nothing we track. */
static void exec_match(ev *e, TSNode s)
{
    env before = env_copy(e->s, e->cur), acc = before;
    uint32_t k;
    TSNode *ks = kids(e, s, &k);
    for (uint32_t i = 0; i < k; i++) {
        if (!is(ks[i], "block")) {
            eval(e, ks[i]);  /* the subject */
            continue;
        }
        uint32_t nc;
        TSNode *cases = kids(e, ks[i], &nc);
        for (uint32_t c = 0; c < nc; c++) {
            if (!is(cases[c], "case_clause"))
                continue;
            *e->cur = env_copy(e->s, &before);
            uint32_t nb;
            TSNode *parts = kids(e, cases[c], &nb);
            for (uint32_t j = 0; j < nb; j++)
                if (is(parts[j], "block"))
                    exec_block(e, parts[j]);
            acc = env_join(e->s, &acc, e->cur);
        }
    }
    *e->cur = acc;
}

static void exec_class(ev *e, TSNode s)
{
    klass *k = arena_zalloc(e->s, sizeof *k);
    k->name = raw_text(e, fld(e, s, F_name));
    klass *saved_cls = e->cls;
    env *saved_cur = e->cur;
    frame *saved_fr = e->fr;
    aval c = av_unknown();
    c.tag = AV_CLASS;
    c.str = k->name;
    c.node_id = node_id(e, s, k);
    set_name(e, k->name, c);
    e->cls = k;
    e->cur = &k->consts;
    e->fr = NULL;
    exec_block(e, fld(e, s, F_body));
    e->cls = saved_cls;
    e->cur = saved_cur;
    e->fr = saved_fr;
}

/* Is the first parameter of a function named self? */
static bool takes_self(ev *e, TSNode fn)
{
    TSNode ps = fld(e, fn, F_parameters);
    if (ts_node_is_null(ps) || ts_node_named_child_count(ps) == 0)
        return false;
    TSNode p = ts_node_named_child(ps, 0);
    if (is(p, "typed_parameter"))
        p = ts_node_named_child(p, 0);
    return is(p, "identifier") && strcmp(raw_text(e, p), "self") == 0;
}

static void exec_def(ev *e, TSNode s)
{
    const char *name = raw_text(e, fld(e, s, F_name));
    klass *cls = (e->cur == (e->cls ? &e->cls->consts : NULL)) ? e->cls : NULL;
    if (!cls && !e->fr && takes_self(e, s)) {
        /* a method whose class header did not parse: its siblings share one recovered class */
        if (!e->orphans) {
            e->orphans = arena_zalloc(e->s, sizeof *e->orphans);
            e->orphans->name = "<recovered>";
        }
        cls = e->orphans;
        env_set(e->s, &cls->consts, name, (aval){ .tag = AV_FUNC, .node_id = node_id(e, s, cls) });
    }
    aval f = av_unknown();
    f.tag = AV_FUNC;
    f.other = false;
    f.node_id = node_id(e, s, cls);
    set_name(e, name, f);
    if (cls && strcmp(name, "__init__") == 0)
        cls->init = s;
    if (!e->quiet)
        ARENA_PUSH(e->s, e->queue, ((qfn){ s, cls, false }));
}

static void exec_stmt(ev *e, TSNode s)
{
    if (e->depth >= MAX_DEPTH || !budget_ok(e))
        return;
    e->depth++;
    const char *t = ts_node_type(s);
    if (strcmp(t, "expression_statement") == 0) {
        uint32_t k;
        TSNode *ks = kids(e, s, &k);
        for (uint32_t i = 0; i < k; i++)
            exec_stmt(e, ks[i]);
    } else if (strcmp(t, "assignment") == 0) {
        TSNode right = fld(e, s, F_right);
        aval v;
        if (!ts_node_is_null(right) && is(right, "assignment")) {  /* a = b = c */
            exec_stmt(e, right);
            v = eval(e, fld(e, right, F_left));
        } else {
            v = eval(e, right);
        }
        if (!ts_node_is_null(right))
            assign(e, fld(e, s, F_left), v, s);
    } else if (strcmp(t, "augmented_assignment") == 0) {
        TSNode left = fld(e, s, F_left);
        aval r = eval(e, fld(e, s, F_right));
        TSNode on = fld(e, s, F_operator);
        char op[4] = { 0 };
        const char *ot = ts_node_is_null(on) ? "" : ts_node_type(on);
        size_t ol = strlen(ot) > 1 ? strlen(ot) - 1 : 0;
        if (ol < sizeof op)
            memcpy(op, ot, ol);
        bool arith = (ol == 1 && strchr("+-*/", op[0])) || strcmp(op, "**") == 0;
        if (is(left, "subscript")) {
            write_into(e, left, r, s, "[]=");
        } else {
            aval l = eval(e, left);
            assign(e, left, arith ? av_arith(e->s, op, &l, &r, loc_of(e, s), text_of(e, s))
                                                              : av_unknown(), s);
        }
    } else if (strcmp(t, "return_statement") == 0) {
        aval v = ts_node_named_child_count(s) ? eval(e, ts_node_named_child(s, 0)) : av_unknown();
        if (e->fr) {
            e->fr->ret = e->fr->has_ret ? av_join(e->s, &e->fr->ret, &v) : v;
            e->fr->has_ret = true;
        }
    } else if (strcmp(t, "if_statement") == 0) {
        exec_branches(e, s);
    } else if (strcmp(t, "for_statement") == 0 || strcmp(t, "while_statement") == 0) {
        exec_loop(e, s);
    } else if (strcmp(t, "try_statement") == 0) {
        exec_try(e, s);
    } else if (strcmp(t, "match_statement") == 0) {
        exec_match(e, s);
    } else if (strcmp(t, "with_statement") == 0) {
        TSNode wc = ts_node_named_child(s, 0);
        for (uint32_t i = 0; !ts_node_is_null(wc) && i < ts_node_named_child_count(wc); i++) {
            TSNode item = ts_node_named_child(wc, i);
            TSNode v = fld(e, item, F_value);
            if (!ts_node_is_null(v) && is(v, "as_pattern")) {
                eval(e, ts_node_named_child(v, 0));
                TSNode al = fld(e, v, F_alias);
                if (!ts_node_is_null(al) && ts_node_named_child_count(al))
                    assign(e, ts_node_named_child(al, 0), av_unknown(), item);
            } else if (!ts_node_is_null(v)) {
                eval(e, v);
            }
        }
        exec_block(e, fld(e, s, F_body));
    } else if (strcmp(t, "function_definition") == 0) {
        exec_def(e, s);
    } else if (strcmp(t, "class_definition") == 0) {
        exec_class(e, s);
    } else if (strcmp(t, "decorated_definition") == 0) {
        exec_stmt(e, fld(e, s, F_definition));
    } else if (strcmp(t, "import_statement") == 0 || strcmp(t, "import_from_statement") == 0) {
        bind_imports(e, s);
    } else if (strcmp(t, "block") == 0) {
        exec_block(e, s);
    } else if (strcmp(t, "ERROR") != 0 && strcmp(t, "comment") != 0 && strcmp(t, "pass_statement") != 0
               && strcmp(t, "raise_statement") != 0 && strcmp(t, "global_statement") != 0
               && strcmp(t, "nonlocal_statement") != 0
               && strcmp(t, "delete_statement") != 0 && strcmp(t, "assert_statement") != 0
               && strcmp(t, "type_alias_statement") != 0) {
        eval(e, s);  /* a bare expression: a call, usually */
    }
    e->depth--;
}

/* ---- functions on their own ---- */

static void analyse_function(ev *e, qfn *q)
{
    if (q->done)
        return;
    q->done = true;
    frame fr;
    memset(&fr, 0, sizeof fr);
    fr.fn = q->node;
    fr.is_init = q->cls && ts_node_eq(q->cls->init, q->node);
    e->fr = &fr;
    e->cls = q->cls;
    e->cur = &fr.locals;
    bind_params(e, q->node, NULL);
    exec_block(e, fld(e, q->node, F_body));
    e->fr = NULL;
    e->cls = NULL;
    e->cur = &e->module;
}

static void analyse_queue(ev *e)
{
    for (size_t i = 0; i < e->queue.n; i++) {
        qfn q = e->queue.v[i];
        if (q.done)
            continue;
        /* __init__ first, so that the other methods see self.x */
        if (q.cls && !q.cls->init_done && !ts_node_is_null(q.cls->init)) {
            q.cls->init_done = true;
            for (size_t j = i; j < e->queue.n; j++)
                if (ts_node_eq(e->queue.v[j].node, q.cls->init)) {
                    qfn init = e->queue.v[j];
                    analyse_function(e, &init);
                    e->queue.v[j].done = true;
                }
        }
        q = e->queue.v[i];
        analyse_function(e, &q);
        e->queue.v[i].done = true;
    }
}

/* ---- the file ---- */

/* Where to point a syntax-error note: the first ERROR or MISSING node in document order; inside an
 * ERROR whose children are all intact (tree-sitter wrapped whole statements), the first child
 * that is not a complete statement. */
static TSNode first_error(TSNode n, int depth)
{
    if (depth > MAX_DEPTH)
        return n;
    if (ts_node_is_missing(n))
        return n;
    uint32_t k = ts_node_child_count(n);
    for (uint32_t i = 0; i < k; i++) {
        TSNode c = ts_node_child(n, i);
        if (ts_node_has_error(c))
            return first_error(c, depth + 1);
    }
    if (is(n, "ERROR"))
        for (uint32_t i = 0; i < k; i++) {
            TSNode c = ts_node_child(n, i);
            const char *t = ts_node_type(c);
            size_t l = strlen(t);
            if (!(l > 10 && strcmp(t + l - 10, "_statement") == 0) && !(l > 11 && strcmp(t + l - 11, "_definition") == 0)
                && strcmp(t, "comment") != 0)
                return c;
        }
    return n;
}

static void note_syntax_error(ev *e, TSNode root)
{
    TSPoint p = ts_node_start_point(first_error(root, 0));
    diag_add(&e->out->diags, DIAG_NOTE, e->out->path, p.row + 1, p.column + 1,
             "syntax error: facts come from the parts of the file that parse");
}

void py_analyze_file(const char *path, const char *data, size_t len, const fe_context *ctx, file_facts *out)
{
    (void)path;
    if (len > UINT32_MAX)
        return;
    TSParser *parser = ts_parser_new();
    if (!parser || !ts_parser_set_language(parser, tree_sitter_python())) {
        diag_add(&out->diags, DIAG_ERROR, out->path, 0, 0, "cannot load the tree-sitter-python grammar");
        if (parser)
            ts_parser_delete(parser);
        return;
    }
    TSTree *tree = ts_parser_parse_string(parser, NULL, data, (uint32_t)len);
    if (!tree) {
        diag_add(&out->diags, DIAG_NOTE, out->path, 0, 0, "not parsed");
        ts_parser_delete(parser);
        return;
    }
    TSNode root = ts_tree_root_node(tree);
    ev e;
    memset(&e, 0, sizeof e);
    e.path = out->path;
    e.src = data;
    e.len = len;
    e.a = out->arena;
    e.out = out;
    e.s = arena_new();
    e.ctx = ctx;
    e.st = ctx ? ctx->state : NULL;
    e.cur = &e.module;
    e.budget = 100000 + 10 * (size_t)len;  /* about 40 evaluations per syntax node, summaries included */
    for (int f = 0; f < F_COUNT; f++)
        e.fields[f] = ts_language_field_id_for_name(tree_sitter_python(), field_names[f], (uint32_t)strlen(field_names[f]));
    if (ts_node_has_error(root))
        note_syntax_error(&e, root);
    exec_block(&e, root);
    analyse_queue(&e);
    bool stopped = e.budget == 0 || arena_bytes(e.a) + arena_bytes(e.s) > ARENA_CAP;
    arena_free(e.s);
    if (stopped)
        diag_add(&out->diags, DIAG_NOTE, out->path, 0, 0, "analysis stopped early: file too complex (facts may be missing)");
    ts_tree_delete(tree);
    ts_parser_delete(parser);
}
