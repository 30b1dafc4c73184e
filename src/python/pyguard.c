/*
 * pyguard.c: conditions read as dtype guards, which say where a branch's values are held: a
 * comparison of the model's or the cache's dtype with a written dtype (`dtype == torch.float16`,
 * `is`, `!=`, `is not`, `in (...)`, `not in`), a test of its spelling (`cache_dtype == "fp8"`,
 * `cache_dtype.startswith("fp8")`, `endswith`, `"fp8" in cache_dtype`, `in ("fp8", ...)`: the
 * spellings are grammars/dtype_strings.tsv's, facts/dtypestr.h), `not` of one, and a name bound
 * to one's result. Which statements run under a guard is pystmt.c's; what a value held under one
 * carries is facts.h's held_set. It does not decide which branch runs, except inside a call's
 * summary (known_truth).
 */
#include <string.h>

#include "facts/dtypestr.h"
#include "python/pyeval.h"
#include "util/strlist.h"

/* 1 or 0 when a condition is one known constant, -1 otherwise. Only inside a call's summary
 * (a parameter the call binds to False, `if n:` with n = 0 passed): there the branch not taken
 * cannot run, so its values do not come back to the caller. A function analysed on its own, and
 * the module, run every branch. Tensors are never decided (a one-element tensor's truth is its
 * data). */
static int known_truth(pe_ctx *e, const aval *c)
{
    double x;
    if (e->call_depth == 0 || c->tag != AV_VALUES || c->tensor || !av_single(c, &x))
        return -1;
    return x != 0;
}

enum { MAX_WORDS = 8 };

/* Whether v is the model's or the cache's dtype (a dtype object, or a string named like one:
 * cache_dtype, self.kv_cache_dtype). */
static bool is_deployed_dtype(const aval *v)
{
    return v->tag == AV_DTYPE && (v->dtype.kind == DREF_MODEL || v->dtype.kind == DREF_KV);
}

/* n without calls that keep a lowercase spelling as it is (`kv_cache_dtype.lower()`, `.strip()`). */
static TSNode spelling_of(pe_ctx *e, TSNode n)
{
    static const char *const same[] = { "lower", "casefold", "strip", "lstrip", "rstrip", NULL };
    for (int hops = 0; hops < 4 && !ts_node_is_null(n) && pe_kind(e, n) == NK_call; hops++) {
        TSNode fn = pe_fld(e, n, F_function), argl = pe_fld(e, n, F_arguments);
        if (ts_node_is_null(fn) || pe_kind(e, fn) != NK_attribute || ts_node_is_null(argl)
            || ts_node_named_child_count(argl) != 0)
            break;
        const char *m = pe_raw_text(e, pe_fld(e, fn, F_attribute));
        if (!m || !str_in_list(same, m))
            break;
        n = pe_fld(e, fn, F_object);
    }
    return n;
}

/* Whether n is a name or an attribute chain (its evaluation records nothing). */
static bool plain_reference(pe_ctx *e, TSNode n)
{
    for (TSNode o = n; !ts_node_is_null(o); o = pe_fld(e, o, F_object)) {
        if (pe_kind(e, o) == NK_identifier)
            return true;
        if (pe_kind(e, o) != NK_attribute)
            return false;
    }
    return false;
}

/* n without parentheses. */
static TSNode unparenthesized(pe_ctx *e, TSNode n)
{
    for (int hops = 0; hops < 8 && !ts_node_is_null(n) && pe_kind(e, n) == NK_parenthesized_expression
                       && ts_node_named_child_count(n) == 1; hops++)
        n = ts_node_named_child(n, 0);
    return n;
}

/* Whether n is a tuple, list or set written out (not a name: a list may have been appended to). */
static bool literal_collection(pe_ctx *e, TSNode n)
{
    n = unparenthesized(e, n);
    return !ts_node_is_null(n) && (pe_kind(e, n) == NK_tuple || pe_kind(e, n) == NK_list || pe_is(n, "set"));
}

/* The words of a written string (seq false) or a written tuple, list or set of strings (seq
 * true), from w, its value; 0 when n is anything else (at most MAX_WORDS). */
static size_t written_words(pe_ctx *e, TSNode n, const aval *w, bool seq, const char **out)
{
    n = unparenthesized(e, n);
    if (ts_node_is_null(n))
        return 0;
    if (!seq) {
        if (pe_kind(e, n) != NK_string || w->tag != AV_STR || !w->str)
            return 0;
        out[0] = w->str;
        return 1;
    }
    if (!literal_collection(e, n) || w->tag != AV_SEQ || w->other || !w->nelems || w->nelems > MAX_WORDS)
        return 0;
    for (size_t i = 0; i < w->nelems; i++) {
        if (w->elems[i].tag != AV_STR || !w->elems[i].str)
            return 0;
        out[i] = w->elems[i].str;
    }
    return w->nelems;
}

/* Whether n reads the KV cache's dtype as a string: a name or attribute named like one
 * (`kv_cache_dtype`, `cache_config.cache_dtype`, `self.kv_dtype`), never a tensor's `.dtype` (a
 * torch.dtype: equal to no string) nor the model's (vLLM and SGLang turn it into a torch.dtype). */
static bool kv_dtype_string(pe_ctx *e, TSNode n, const aval *d)
{
    if (d->tag != AV_DTYPE || d->dtype.kind != DREF_KV || !plain_reference(e, n))
        return false;
    const char *last = pe_kind(e, n) == NK_attribute ? pe_raw_text(e, pe_fld(e, n, F_attribute)) : pe_raw_text(e, n);
    return last && pe_dtype_kind_by_name(last) == DREF_KV;   /* not `.dtype`: the model's by name */
}

/* A test of the spelling of the dtype dn reads (value d) against the words wn writes (value w;
 * seq: a written tuple, list or set, else one string); truth: where the test is true, or false
 * (`!=`, `not in`). A guard when dn reads the KV cache's dtype as a string, wn writes strings and
 * the table knows a spelling that passes. */
static bool spelled_guard(pe_ctx *e, TSNode dn, const aval *d, dstr_test test, TSNode wn, const aval *w, bool seq,
                          bool truth, pe_guard *g)
{
    const char *words[MAX_WORDS];
    size_t n = kv_dtype_string(e, spelling_of(e, dn), d) ? written_words(e, wn, w, seq, words) : 0;
    kv_dtype_set yes, no;
    bool auto_passes;
    if (!n || !dtype_strings_split(e->st->dstrings, DREF_KV, test, words, n, &yes, &no, &auto_passes))
        return false;
    kv_dtype_set all = dset_all();
    pe_guard both = { true, DREF_KV, yes, no, auto_passes ? all : 0, auto_passes ? 0 : all, true };
    *g = pe_guard_side(&both, truth);
    return true;
}

/* The value of an operand of a spelling test: v as evaluated, or, when v is no deployed dtype and
 * the operand is one's string lowered or stripped (`kv_cache_dtype.lower()`), that dtype. */
static aval spelled_operand(pe_ctx *e, TSNode n, const aval *v)
{
    TSNode inner = spelling_of(e, n);
    if (is_deployed_dtype(v) || ts_node_eq(inner, n) || !plain_reference(e, inner))
        return *v;
    return pe_eval(e, inner);
}

/* The test a `X.startswith(w)` / `X.endswith(w)` call (one argument) makes, or -1. */
static int string_test_of(pe_ctx *e, TSNode call)
{
    TSNode fn = pe_kind(e, call) == NK_call ? pe_fld(e, call, F_function) : (TSNode){ 0 };
    if (ts_node_is_null(fn) || pe_kind(e, fn) != NK_attribute)
        return -1;
    const char *m = pe_raw_text(e, pe_fld(e, fn, F_attribute));
    TSNode argl = pe_fld(e, call, F_arguments);
    if (!m || ts_node_is_null(argl) || ts_node_named_child_count(argl) != 1)
        return -1;
    return !strcmp(m, "startswith") ? DSTR_PREFIX : !strcmp(m, "endswith") ? DSTR_SUFFIX : -1;
}

bool pe_condition_is_test(pe_ctx *e, TSNode n)
{
    return pe_kind(e, n) == NK_comparison_operator || string_test_of(e, n) >= 0;
}

/* `D.startswith("fp8")`, `D.endswith(("e4m3", "e5m2"))` where D is a deployed dtype's string. Its
 * receiver must be a name or an attribute chain and its argument a written string or tuple of
 * them (both evaluated again by pe_eval when it is no such test: nothing there records a fact). */
static bool spelling_method(pe_ctx *e, TSNode cond, pe_guard *g)
{
    int test = string_test_of(e, cond);
    if (test < 0)
        return false;
    TSNode obj = spelling_of(e, pe_fld(e, pe_fld(e, cond, F_function), F_object));
    TSNode arg = unparenthesized(e, ts_node_named_child(pe_fld(e, cond, F_arguments), 0));
    bool seq = literal_collection(e, arg);
    if (!plain_reference(e, obj) || (!seq && pe_kind(e, arg) != NK_string))
        return false;
    aval d = pe_eval(e, obj);
    if (!kv_dtype_string(e, obj, &d))
        return false;
    aval w = pe_eval(e, arg);
    return spelled_guard(e, obj, &d, (dstr_test)test, arg, &w, seq, true, g);
}

/* `D in (torch.float16, torch.bfloat16)` (a tuple, list or set written out, of written dtypes;
 * `not in`): the guard holds where D is one of them (is none of them). A name is no such set (a
 * list may have been appended to). Spellings: `D in ("fp8", "fp8_e4m3")`, `"fp8" in D` (a
 * substring); `D in "fp8_e5m2"` (D a substring of the word) is none. */
static int membership(pe_ctx *e, TSNode cond, bool not_in, pe_guard *g, aval *value)
{
    TSNode dn = ts_node_child(cond, 0), sn = ts_node_child(cond, 2);
    aval d = pe_eval(e, dn);
    aval set = pe_eval(e, sn);   /* once: its elements' facts too */
    value->tensor = d.tensor;
    aval sd = spelled_operand(e, dn, &d), sset = spelled_operand(e, sn, &set);
    if (spelled_guard(e, dn, &sd, DSTR_EQUALS, sn, &set, true, !not_in, g)
        || spelled_guard(e, sn, &sset, DSTR_CONTAINS, dn, &d, false, !not_in, g))
        return -1;
    if (!is_deployed_dtype(&d) || !literal_collection(e, sn) || set.tag != AV_SEQ || set.other || !set.nelems)
        return -1;
    kv_dtype_set in = 0;
    for (size_t i = 0; i < set.nelems; i++) {
        const aval *x = &set.elems[i];
        if (x->tag != AV_DTYPE || x->dtype.kind != DREF_CONCRETE || x->dtype.dtype == KVN_DTYPE_INVALID)
            return -1;
        in |= dset_of(x->dtype.dtype);
    }
    *g = pe_guard_split(d.dtype.kind, in);
    *g = pe_guard_side(g, !not_in);
    return -1;
}

bool pe_flag_target(pe_ctx *e, TSNode target)
{
    return !ts_node_is_null(target)
           && (pe_is(target, "identifier") || (pe_kind(e, target) == NK_attribute && pe_self_key(e, target)));
}

/* The binding a name or `self.X` reads now (a value's own allocation, made anew by every
 * assignment: a guard kept in a name is known by it), as pe_lookup_key finds it: `self.X` in the
 * frame, else the class's attribute an initialiser set. NULL for anything else. */
static const aval *binding_of(pe_ctx *e, TSNode n)
{
    if (ts_node_is_null(n))
        return NULL;
    if (pe_is(n, "identifier"))
        return pe_env_get(e->cur, pe_raw_text(e, n));
    const char *key = pe_kind(e, n) == NK_attribute ? pe_self_key(e, n) : NULL;
    if (!key)
        return NULL;
    const aval *v = e->fr ? pe_env_get(&e->fr->locals, key) : NULL;
    return v ? v : e->cls ? pe_class_member(e->cls, key + 5, PE_MEMBER_ATTRS, false) : NULL;
}

/* A name bound to a dtype guard's result (`is_fp16 = k.dtype == torch.float16`, `self.quant =
 * cache_dtype != "auto"`), or `not` of one: that guard (pe_note_flag recorded it with the
 * binding's value). */
static bool flag_guard(pe_ctx *e, TSNode cond, pe_guard *g, aval *value)
{
    bool negate = !ts_node_is_null(cond) && pe_is(cond, "not_operator");
    TSNode name = negate ? pe_fld(e, cond, F_argument) : cond;
    if (ts_node_is_null(name) || !pe_flag_target(e, name))
        return false;
    const aval *b = binding_of(e, name);
    for (size_t i = 0; b && i < e->nflags; i++)
        if (e->flags[i].v == b) {
            *g = pe_guard_side(&e->flags[i].g, !negate);
            *value = *b;
            return true;
        }
    return false;
}

static void add_flag(pe_ctx *e, const aval *b, const pe_guard *g)
{
    if (!b)
        return;
    e->flags[e->next_flag] = (struct pe_flag){ b, *g };
    e->next_flag = (uint8_t)((e->next_flag + 1) % PE_MAX_FLAGS);
    if (e->nflags < PE_MAX_FLAGS)
        e->nflags++;
}

void pe_note_flag(pe_ctx *e, TSNode target, bool class_attr, const pe_guard *g)
{
    if (!g->on)
        return;
    add_flag(e, binding_of(e, target), g);
    const char *key = class_attr ? pe_self_key(e, target) : NULL;
    if (key && e->cls)   /* not when it joined an earlier value: that one may be what is read */
        add_flag(e, pe_env_get(&e->cls->attrs, key + 5), g);
}

/* An if's condition (or a conditional expression's, or an assignment's comparison), evaluated
 * once: its truth (known_truth), its value (value, when not NULL), and whether it is a dtype
 * guard, `D == torch.float16` (`is`, `!=`, `is not`, either order; `in`, membership), a test of
 * D's spelling, or `not` of one, where D is the model's or the cache's dtype, or a name bound to
 * one (g), so that what each branch holds is known to be held only where its side can be. A
 * comparison's operands are evaluated as eval_comparison evaluates them; its value is never one
 * known constant. */
int pe_condition_value(pe_ctx *e, TSNode cond, pe_guard *g, aval *value)
{
    aval scratch;
    if (!value)
        value = &scratch;
    memset(g, 0, sizeof *g);
    if (flag_guard(e, cond, g, value))
        return -1;
    *value = av_unknown();
    value->binary = true;
    if (!ts_node_is_null(cond) && pe_kind(e, cond) == NK_not_operator) {   /* `not D.startswith("fp8")` */
        aval inner;
        int t = pe_condition_value(e, pe_fld(e, cond, F_argument), g, &inner);
        if (g->on)
            *g = pe_guard_side(g, false);
        value->tensor = inner.tensor;
        return t < 0 ? -1 : !t;
    }
    if (!ts_node_is_null(cond) && spelling_method(e, cond, g))
        return -1;
    const char *op = !ts_node_is_null(cond) && pe_kind(e, cond) == NK_comparison_operator
                             && ts_node_child_count(cond) == 3
                         ? ts_node_type(ts_node_child(cond, 1))
                         : "";
    bool eq = !strcmp(op, "==") || !strcmp(op, "is"), ne = !strcmp(op, "!=") || !strcmp(op, "is not");
    bool in = !strcmp(op, "in"), not_in = !strcmp(op, "not in");
    if (in || not_in)
        return membership(e, cond, not_in, g, value);
    if (!eq && !ne) {
        *value = pe_eval(e, cond);
        return known_truth(e, value);
    }
    aval a = pe_eval(e, ts_node_child(cond, 0)), b = pe_eval(e, ts_node_child(cond, 2));
    value->tensor = a.tensor || b.tensor;
    aval sa = spelled_operand(e, ts_node_child(cond, 0), &a), sb = spelled_operand(e, ts_node_child(cond, 2), &b);
    if (spelled_guard(e, ts_node_child(cond, 0), &sa, DSTR_EQUALS, ts_node_child(cond, 2), &b, false, eq, g)
        || spelled_guard(e, ts_node_child(cond, 2), &sb, DSTR_EQUALS, ts_node_child(cond, 0), &a, false, eq, g))
        return -1;   /* `cache_dtype == "fp8"`, `"auto" != kv_cache_dtype`, `s.lower() == "fp8"` */
    const aval *sym = a.dtype.kind == DREF_CONCRETE ? &b : &a, *con = sym == &a ? &b : &a;
    g->on = a.tag == AV_DTYPE && b.tag == AV_DTYPE && con->dtype.kind == DREF_CONCRETE
            && con->dtype.dtype != KVN_DTYPE_INVALID && (sym->dtype.kind == DREF_MODEL || sym->dtype.kind == DREF_KV);
    if (g->on) {
        pe_guard split = pe_guard_split(sym->dtype.kind, dset_of(con->dtype.dtype));
        *g = pe_guard_side(&split, eq);
    }
    return -1;
}

int pe_condition(pe_ctx *e, TSNode cond, pe_guard *g)
{
    return pe_condition_value(e, cond, g, NULL);
}

