/*
 * pystmt.c: statements and the whole file: blocks, branches (joined), loops (one pass,
 * joined), try/except, match/case, class and function definitions, the queue that analyses every
 * function once on its own, syntax-error notes, and py_analyze_file, the entry point.
 * Expressions are pyexpr.c; which conditions are dtype guards, pyguard.c.
 */
#include <string.h>

#include "python/grammar.h"
#include "python/pyeval.h"
#include "util/strlist.h"

const char *const pe_field_names[F_COUNT] = { "alias", "alternative", "argument", "arguments", "attribute", "body", "condition", "consequence", "definition", "function", "key", "left", "module_name", "name", "object", "operator", "parameters", "right", "subscript", "superclasses", "value" };

static void exec_stmt(pe_ctx *e, TSNode s);

void pe_exec_block(pe_ctx *e, TSNode n)
{
    if (ts_node_is_null(n))
        return;
    uint32_t k;
    TSNode *ks = pe_kids(e, n, &k);
    uint8_t nguards = e->nguards;
    for (uint32_t i = 0; i < k; i++) {
        exec_stmt(e, ks[i]);
        if (e->after_return.on) {   /* `if d == torch.float16: return -6e4`: the rest where not
                                      * (after_return is that side already) */
            if (e->nguards < PE_MAX_PATH)
                e->guards[e->nguards++] = e->after_return;
            e->after_return.on = false;
        }
    }
    e->nguards = nguards;
}

/* Run block under guard g (when it is one): values it makes are held where g holds. */
static void exec_guarded(pe_ctx *e, TSNode block, const pe_guard *g)
{
    bool push = g && pe_guard_marks(g, true) && e->nguards < PE_MAX_PATH;
    if (push)
        e->guards[e->nguards++] = *g;
    pe_exec_block(e, block);
    if (push)
        e->nguards--;
}

/* Whether block's last statement leaves the function (return, raise). */
static bool ends_in_return(pe_ctx *e, TSNode block)
{
    uint32_t k;
    TSNode *ks = pe_kids(e, block, &k);
    return k && (pe_is(ks[k - 1], "return_statement") || pe_is(ks[k - 1], "raise_statement"));
}

/* Before a guarded if in an initialiser: the attributes set so far that this frame did not bind
 * itself (a base's __init__, an earlier initialiser) as self.x locals, so that a branch that
 * leaves one alone keeps it, marked with that branch's guard (join_guarded). */
static void attributes_as_locals(pe_ctx *e)
{
    const env *attrs = &e->cls->attrs;
    for (size_t i = 0; i < attrs->n; i++) {
        const char *key = arena_join(e->s, "self", '.', attrs->v[i].name);
        if (!pe_env_get(e->cur, key))
            pe_env_set(e->s, e->cur, key, *attrs->v[i].v);
    }
}

/* In an initialiser, self.x assigned in a guarded branch went into the class's attributes as the
 * branch ran (pe_update_key), unmarked: the attributes the branches changed take the marked
 * values of acc, so that `if dtype == torch.float16: self.neg = -6e4 else: self.neg = -1e9` is
 * refined in every method, as a local is. */
static void held_attributes(pe_ctx *e, const env *acc, const env *before, const env *attrs_before)
{
    e->cls->attrs = pe_env_copy(e->s, attrs_before);
    for (size_t i = 0; i < acc->n; i++) {
        const binding *b = &acc->v[i];
        if (strncmp(b->name, "self.", 5) != 0)
            continue;
        const aval *was = pe_env_get(before, b->name);
        if (was != b->v)
            pe_env_set(e->s, &e->cls->attrs, b->name + 5, *b->v);
    }
}

enum { MAX_GUARDED = 8 };   /* branches of one if refined by their dtype guards */

typedef struct branch_env {
    env en;
    pe_guard g;     /* the branch's guard (an else, or the fall-through: what the others' leave) */
} branch_env;

static bool changed_in(const env *x, const env *before, size_t i)
{
    return i >= before->n || x->v[i].name != before->v[i].name || x->v[i].v != before->v[i].v;
}

static bool in_names(const char *const *names, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (names[i] == name || !strcmp(names[i], name))
            return true;
    return false;
}

/* The join of the branches of a guarded if, each binding any branch changed held only where its
 * branch's guard says: `if d == torch.float16: neg = -6e4 elif d == torch.bfloat16: neg = -1e9
 * else: neg = -1e30` makes -6e4 `is` float16, -1e9 `is` bfloat16, -1e30 held where d is
 * neither (else_guard: where every condition can fail). */
static env join_guarded(pe_ctx *e, branch_env *br, size_t nb, const env *before)
{
    const char **names = arena_alloc(e->s, 64 * sizeof *names);
    size_t nn = 0;
    for (size_t b = 0; b < nb; b++)
        for (size_t i = 0; i < br[b].en.n && nn < 64; i++)
            if (changed_in(&br[b].en, before, i) && !in_names(names, nn, br[b].en.v[i].name))
                names[nn++] = br[b].en.v[i].name;
    env acc = { 0 };
    for (size_t b = 0; b < nb; b++) {
        env r = pe_env_copy(e->s, &br[b].en);
        for (size_t i = 0; i < r.n && pe_guard_marks(&br[b].g, true); i++)
            if (in_names(names, nn, r.v[i].name)) {
                aval t = pe_value_held(e->s, r.v[i].v, &br[b].g);
                r.v[i].v = arena_memdup(e->s, &t, sizeof t);
            }
        acc = b ? pe_env_join(e->s, &acc, &r) : r;
    }
    return acc;
}

/* The guard of the else (or the fall-through) after the guards br[0..n) (all on one dtype):
 * where every one fails. False when that is nowhere. */
static bool else_guard(const branch_env *br, size_t n, pe_guard *out)
{
    *out = pe_guard_side(&br[0].g, false);
    for (size_t i = 1; i < n; i++) {
        out->set &= br[i].g.other;
        out->other |= br[i].g.set;
        out->aset &= br[i].g.aother;
        out->aother |= br[i].g.aset;
        out->spelled = out->spelled || br[i].g.spelled;
    }
    return out->set || out->aset;
}

/* if / elif / else. When every condition is a dtype guard on the same dtype (the model's or the
 * cache's), what each branch binds is held only where its guard holds (join_guarded): `mv = -1e4
 * if ... else -1e9` written as statements is refined as the expression is. */
static void exec_branches(pe_ctx *e, TSNode s)
{
    pe_guard g;
    int t = pe_condition(e, pe_fld(e, s, F_condition), &g);
    if (t == 1) {
        pe_exec_block(e, pe_fld(e, s, F_consequence));  /* no other clause runs */
        return;
    }
    bool init = e->fr && e->fr->is_init && e->cls && e->cur == &e->fr->locals;
    if (init && g.on)
        attributes_as_locals(e);
    env before = pe_env_copy(e->s, e->cur);
    env acc = before;
    env attrs_before = init ? pe_env_copy(e->s, &e->cls->attrs) : (env){ 0 };
    branch_env br[MAX_GUARDED + 1];
    size_t nb = 0;
    bool guarded = g.on && t == -1, has_else = false, clauses = false;
    bool have = false, covered = false;   /* acc holds a branch; some branch surely runs */
    if (t == -1) {
        exec_guarded(e, pe_fld(e, s, F_consequence), &g);
        acc = *e->cur;
        have = true;
        br[nb++] = (branch_env){ *e->cur, g };
    }
    uint32_t k;
    TSNode *ks = pe_kids(e, s, &k);
    for (uint32_t i = 0; i < k && !covered; i++) {
        TSNode c = ks[i];
        if (!pe_is(c, "elif_clause") && !pe_is(c, "else_clause"))
            continue;
        clauses = true;
        *e->cur = pe_env_copy(e->s, &before);
        if (pe_is(c, "elif_clause")) {
            pe_guard ge;
            int te = pe_condition(e, pe_fld(e, c, F_condition), &ge);
            if (te == 0)
                continue;
            covered = te == 1;
            guarded = guarded && te == -1 && ge.on && ge.kind == g.kind && nb < MAX_GUARDED;
            exec_guarded(e, pe_fld(e, c, F_consequence), te == -1 ? &ge : NULL);
            if (guarded)
                br[nb++] = (branch_env){ *e->cur, ge };
        } else {
            covered = has_else = true;
            pe_guard eg;
            bool known = guarded && nb > 0 && else_guard(br, nb, &eg);
            exec_guarded(e, pe_fld(e, c, F_body), known ? &eg : NULL);
            if (guarded)
                br[nb] = (branch_env){ *e->cur, g };   /* its guard: else_guard below */
        }
        acc = have ? pe_env_join(e->s, &acc, e->cur) : *e->cur;
        have = true;
    }
    pe_guard rest;
    if (g.on && t == -1 && !clauses && ends_in_return(e, pe_fld(e, s, F_consequence))) {
        e->after_return = pe_guard_side(&g, false);
        e->after_return.on = pe_guard_marks(&g, false);
    }
    if (guarded && nb > 0 && else_guard(br, nb, &rest)) {   /* each branch where its guard holds */
        if (!has_else)
            br[nb].en = before;   /* the fall-through */
        br[nb++].g = rest;
        acc = join_guarded(e, br, nb, &before);
        covered = true;
        if (init)
            held_attributes(e, &acc, &before, &attrs_before);
    }
    if (!covered)
        acc = have ? pe_env_join(e->s, &acc, &before) : before;
    *e->cur = acc;
}

/* A loop body runs zero or one time (as far as this analysis is concerned). */
static void exec_loop(pe_ctx *e, TSNode s)
{
    if (pe_is(s, "for_statement")) {
        aval it = pe_eval(e, pe_fld(e, s, F_right));
        aval el = av_seq_element(e->s, &it);
        env before = pe_env_copy(e->s, e->cur);
        pe_assign(e, pe_fld(e, s, F_left), el, s);
        pe_exec_block(e, pe_fld(e, s, F_body));
        *e->cur = pe_env_join(e->s, e->cur, &before);
    } else {
        pe_eval(e, pe_fld(e, s, F_condition));
        env before = pe_env_copy(e->s, e->cur);
        pe_exec_block(e, pe_fld(e, s, F_body));
        *e->cur = pe_env_join(e->s, e->cur, &before);
    }
    TSNode alt = pe_fld(e, s, F_alternative);
    if (!ts_node_is_null(alt))
        pe_exec_block(e, pe_fld(e, alt, F_body));
}

static void exec_try(pe_ctx *e, TSNode s)
{
    env before = pe_env_copy(e->s, e->cur);
    pe_exec_block(e, pe_fld(e, s, F_body));
    env acc = *e->cur;
    uint32_t k;
    TSNode *ks = pe_kids(e, s, &k);
    for (uint32_t i = 0; i < k; i++) {
        TSNode c = ks[i];
        if (pe_is(c, "except_clause") || pe_is(c, "except_group_clause")) {
            *e->cur = pe_env_copy(e->s, &before);
            for (uint32_t j = 0; j < ts_node_named_child_count(c); j++)
                if (pe_is(ts_node_named_child(c, j), "block"))
                    pe_exec_block(e, ts_node_named_child(c, j));
            acc = pe_env_join(e->s, &acc, e->cur);
        } else if (pe_is(c, "else_clause") || pe_is(c, "finally_clause")) {
            *e->cur = acc;
            for (uint32_t j = 0; j < ts_node_named_child_count(c); j++)
                if (pe_is(ts_node_named_child(c, j), "block"))
                    pe_exec_block(e, ts_node_named_child(c, j));
            acc = *e->cur;
        }
    }
    *e->cur = acc;
}

/* match s: case ...: each case runs from the state before the match, and no case may match: the
 * state after is the join of all of them. Patterns bind nothing we track. */
static void exec_match(pe_ctx *e, TSNode s)
{
    env before = pe_env_copy(e->s, e->cur), acc = before;
    uint32_t k;
    TSNode *ks = pe_kids(e, s, &k);
    for (uint32_t i = 0; i < k; i++) {
        if (!pe_is(ks[i], "block")) {
            pe_eval(e, ks[i]);  /* the subject */
            continue;
        }
        uint32_t nc;
        TSNode *cases = pe_kids(e, ks[i], &nc);
        for (uint32_t c = 0; c < nc; c++) {
            if (!pe_is(cases[c], "case_clause"))
                continue;
            *e->cur = pe_env_copy(e->s, &before);
            uint32_t nb;
            TSNode *parts = pe_kids(e, cases[c], &nb);
            for (uint32_t j = 0; j < nb; j++)
                if (pe_is(parts[j], "block"))
                    pe_exec_block(e, parts[j]);
            acc = pe_env_join(e->s, &acc, e->cur);
        }
    }
    *e->cur = acc;
}

/* The bases of class k that are classes of this file (`class Child(Writer):`), and the first one
 * imported from another file (its methods are followed there, pymodule.c, where that is a scanned
 * file); others (`nn.Module`, `Generic[T]`) add nothing. */
static void class_bases(pe_ctx *e, klass *k, TSNode s)
{
    TSNode list = pe_fld(e, s, F_superclasses);
    if (ts_node_is_null(list))
        return;
    uint32_t n;
    TSNode *ks = pe_kids(e, list, &n);
    for (uint32_t i = 0; i < n && k->nbases < PE_MAX_BASES; i++) {
        if (!pe_is(ks[i], "identifier") && !pe_is(ks[i], "attribute"))
            continue;   /* metaclass=..., Generic[T] */
        aval b = pe_eval(e, ks[i]);
        if (b.tag == AV_CLASS && !b.mod && b.node_id < e->node_cls.n && e->node_cls.v[b.node_id])
            k->bases[k->nbases++] = e->node_cls.v[b.node_id];
        else if (b.tag == AV_IMPORT && b.str && !k->import_base && strncmp(b.str, "torch", 5) != 0)
            k->import_base = b.str;
    }
}

/* After the body: an initialiser the class does not define is its first base's that has one. */
static void inherit_inits(klass *k)
{
    for (size_t i = 0; i < PE_MAX_INITS; i++)
        for (size_t b = 0; ts_node_is_null(k->init[i]) && b < k->nbases; b++)
            if (!ts_node_is_null(k->bases[b]->init[i])) {
                k->init[i] = k->bases[b]->init[i];
                k->init_cls[i] = k->bases[b]->init_cls[i];
            }
}

/* Each method k inherits is analysed again as k's (self an object of k: its overrides, its
 * attributes), so that a base's forward calling self.mask() stores what k's mask returns. */
static void queue_inherited(pe_ctx *e, klass *k)
{
    const klass *chain[PE_MAX_MRO];
    size_t n = e->quiet || !k->nbases ? 0 : pe_class_chain(k, chain);
    for (size_t c = 1; c < n; c++)
        for (size_t i = 0; i < chain[c]->consts.n; i++) {
            const binding *b = &chain[c]->consts.v[i];
            if (b->v->tag != AV_FUNC || b->v->mod || b->v->node_id >= e->nodes.n)
                continue;
            const aval *m = pe_class_member(k, b->name, PE_MEMBER_CONSTS, false);
            if (m == b->v)   /* not overridden, and not found first in an earlier base */
                ARENA_PUSH(e->s, e->queue, ((qfn){ e->nodes.v[b->v->node_id], k, chain[c], false }));
        }
}

static void exec_class(pe_ctx *e, TSNode s)
{
    klass *k = arena_zalloc(e->s, sizeof *k);
    k->name = pe_raw_text(e, pe_fld(e, s, F_name));
    class_bases(e, k, s);
    klass *saved_cls = e->cls;
    env *saved_cur = e->cur;
    frame *saved_fr = e->fr;
    aval c = av_unknown();
    c.tag = AV_CLASS;
    c.str = k->name;
    c.node_id = pe_node_id(e, s, k);
    pe_set_name(e, k->name, c);
    e->cls = k;
    e->cur = &k->consts;
    e->fr = NULL;
    pe_exec_block(e, pe_fld(e, s, F_body));
    inherit_inits(k);
    queue_inherited(e, k);
    e->cls = saved_cls;
    e->cur = saved_cur;
    e->fr = saved_fr;
}

static void exec_def(pe_ctx *e, TSNode s)
{
    const char *name = pe_raw_text(e, pe_fld(e, s, F_name));
    klass *cls = (e->cur == (e->cls ? &e->cls->consts : NULL)) ? e->cls : NULL;
    if (!cls && !e->fr && pe_first_param_is_self(e, s)) {
        /* a method whose class header did not parse: its siblings share one recovered class */
        if (!e->orphans) {
            e->orphans = arena_zalloc(e->s, sizeof *e->orphans);
            e->orphans->name = "<recovered>";
        }
        cls = e->orphans;
        pe_env_set(e->s, &cls->consts, name, (aval){ .tag = AV_FUNC, .node_id = pe_node_id(e, s, cls) });
    }
    aval f = av_unknown();
    f.tag = AV_FUNC;
    f.other = false;
    f.node_id = pe_node_id(e, s, cls);
    pe_set_name(e, name, f);
    static const char *const inits[PE_MAX_INITS] = PE_INIT_NAMES;
    for (size_t i = 0; cls && i < PE_MAX_INITS; i++)
        if (strcmp(name, inits[i]) == 0) {
            cls->init[i] = s;
            cls->init_cls[i] = cls;
        }
    if (!e->quiet)
        ARENA_PUSH(e->s, e->queue, ((qfn){ s, cls, cls, false }));
}

static void exec_assignment(pe_ctx *e, TSNode s)
{
    TSNode right = pe_fld(e, s, F_right);
    aval v;
    if (!ts_node_is_null(right) && pe_kind(e, right) == NK_assignment) {  /* a = b = c */
        exec_stmt(e, right);
        v = pe_eval(e, pe_fld(e, right, F_left));
    } else if (!ts_node_is_null(right) && pe_condition_is_test(e, right)
               && pe_flag_target(e, pe_fld(e, s, F_left))) {   /* is_fp16 = k.dtype == torch.float16 */
        pe_guard g;
        pe_condition_value(e, right, &g, &v);
        TSNode left = pe_fld(e, s, F_left);
        const char *key = pe_kind(e, left) == NK_attribute ? pe_self_key(e, left) : NULL;
        bool fresh = key && e->fr && e->fr->is_init && e->cls && !pe_env_get(&e->cls->attrs, key + 5);
        pe_assign(e, left, v, s);
        pe_note_flag(e, left, fresh, &g);
        return;
    } else {
        v = pe_eval(e, right);
    }
    if (!ts_node_is_null(right))
        pe_assign(e, pe_fld(e, s, F_left), v, s);
}

static void exec_augmented(pe_ctx *e, TSNode s)
{
    TSNode left = pe_fld(e, s, F_left);
    aval r = pe_eval(e, pe_fld(e, s, F_right));
    TSNode on = pe_fld(e, s, F_operator);
    char op[4] = { 0 };
    const char *ot = ts_node_is_null(on) ? "" : ts_node_type(on);
    size_t ol = strlen(ot) > 1 ? strlen(ot) - 1 : 0;
    if (ol < sizeof op)
        memcpy(op, ot, ol);
    bool arith = (ol == 1 && strchr("+-*/", op[0])) || strcmp(op, "**") == 0;
    if (pe_kind(e, left) == NK_subscript) {
        pe_write_into(e, left, r, s, "[]=");
    } else {
        aval l = pe_eval(e, left);
        pe_assign(e, left, arith ? av_arith(e->s, e->a, op, &l, &r, pe_loc_of(e, s), pe_text_of(e, s))
                                 : av_unknown(), s);
    }
}

static void exec_return(pe_ctx *e, TSNode s)
{
    aval v = ts_node_named_child_count(s) ? pe_eval(e, ts_node_named_child(s, 0)) : av_unknown();
    if (e->fr) {
        e->fr->ret = e->fr->has_ret ? av_join(e->s, &e->fr->ret, &v) : v;
        e->fr->has_ret = true;
    }
}

static void exec_with(pe_ctx *e, TSNode s)
{
    TSNode wc = ts_node_named_child(s, 0);
    for (uint32_t i = 0; !ts_node_is_null(wc) && i < ts_node_named_child_count(wc); i++) {
        TSNode item = ts_node_named_child(wc, i);
        TSNode v = pe_fld(e, item, F_value);
        if (!ts_node_is_null(v) && pe_is(v, "as_pattern")) {
            pe_eval(e, ts_node_named_child(v, 0));
            TSNode al = pe_fld(e, v, F_alias);
            if (!ts_node_is_null(al) && ts_node_named_child_count(al))
                pe_assign(e, ts_node_named_child(al, 0), av_unknown(), item);
        } else if (!ts_node_is_null(v)) {
            pe_eval(e, v);
        }
    }
    pe_exec_block(e, pe_fld(e, s, F_body));
}

/* Statements that bind or compute nothing the analysis follows. */
static bool inert_statement(const char *t)
{
    static const char *const inert[] = { "ERROR", "comment", "pass_statement", "raise_statement",
                                         "global_statement", "nonlocal_statement", "delete_statement",
                                         "assert_statement", "type_alias_statement", NULL };
    for (size_t i = 0; inert[i]; i++)
        if (strcmp(t, inert[i]) == 0)
            return true;
    return false;
}

/* Is a decorator one of a device kernel (sinks.tsv `kernel` lines: @triton.jit, @triton.autotune(...),
 * @jit imported from triton, ...)? By its spelling, or by the origin of an imported name. */
static bool kernel_decorator(pe_ctx *e, TSNode dec)
{
    TSNode x = ts_node_named_child_count(dec) ? ts_node_named_child(dec, 0) : dec;
    if (!ts_node_is_null(x) && pe_kind(e, x) == NK_call)
        x = pe_fld(e, x, F_function);
    node_kind k = ts_node_is_null(x) ? NK_OTHER : pe_kind(e, x);
    if (k != NK_identifier && k != NK_attribute)
        return false;
    if (py_is_kernel_decorator(e->st, pe_dotted(e, x)))
        return true;
    if (k != NK_identifier)
        return false;
    aval v = pe_eval(e, x);
    return v.tag == AV_IMPORT && py_is_kernel_decorator(e->st, v.str);
}

/* A decorated function or class. The body of a device kernel (Triton, CuTe, TileLang) holds
 * registers, not tensors: `tl.full(..., -1e30, dtype=tl.float32)` is a register, and a kernel
 * stores only through pointers its launch passes. It is not evaluated at all, and its name is an
 * unknown value, so a launch `kernel[grid](k, v, ...)` is no call of it either. */
static void exec_decorated(pe_ctx *e, TSNode s)
{
    TSNode def = pe_fld(e, s, F_definition);
    uint32_t n;
    TSNode *ks = pe_kids(e, s, &n);
    for (uint32_t i = 0; i < n && !ts_node_is_null(def) && pe_kind(e, def) == NK_function_definition; i++)
        if (pe_kind(e, ks[i]) == NK_decorator && kernel_decorator(e, ks[i])) {
            pe_set_name(e, pe_raw_text(e, pe_fld(e, def, F_name)), av_unknown());
            return;
        }
    exec_stmt(e, def);
}

static void exec_stmt(pe_ctx *e, TSNode s)
{
    if (!pe_depth_ok(e) || !pe_budget_ok(e))
        return;
    e->depth++;
    switch (pe_kind(e, s)) {
    case NK_expression_statement: {
        uint32_t k;
        TSNode *ks = pe_kids(e, s, &k);
        for (uint32_t i = 0; i < k; i++)
            exec_stmt(e, ks[i]);
        break;
    }
    case NK_assignment: exec_assignment(e, s); break;
    case NK_augmented_assignment: exec_augmented(e, s); break;
    case NK_return_statement: exec_return(e, s); break;
    case NK_if_statement: exec_branches(e, s); break;
    case NK_for_statement:
    case NK_while_statement: exec_loop(e, s); break;
    case NK_try_statement: exec_try(e, s); break;
    case NK_match_statement: exec_match(e, s); break;
    case NK_with_statement: exec_with(e, s); break;
    case NK_function_definition: exec_def(e, s); break;
    case NK_class_definition: exec_class(e, s); break;
    case NK_decorated_definition: exec_decorated(e, s); break;
    case NK_import_statement:
    case NK_import_from_statement: pe_bind_imports(e, s); break;
    case NK_block: pe_exec_block(e, s); break;
    default:
        if (!inert_statement(ts_node_type(s)))
            pe_eval(e, s);  /* a bare expression: a call, usually */
        break;
    }
    e->depth--;
}

static void analyse_function(pe_ctx *e, qfn *q)
{
    if (q->done)
        return;
    q->done = true;
    frame fr;
    memset(&fr, 0, sizeof fr);
    fr.fn = q->node;
    fr.defined_in = q->defined_in;
    e->again = q->defined_in != q->cls;
    for (size_t i = 0; q->cls && i < PE_MAX_INITS; i++)
        fr.is_init |= ts_node_eq(q->cls->init[i], q->node);
    e->fr = &fr;
    e->cls = q->cls;
    e->cur = &fr.locals;
    pe_bind_params(e, q->node, NULL);
    pe_exec_block(e, pe_fld(e, q->node, F_body));
    e->fr = NULL;
    e->cls = NULL;
    e->cur = &e->module;
    e->again = false;
}

static void analyse_queue(pe_ctx *e)
{
    for (size_t i = 0; i < e->queue.n; i++) {
        qfn q = e->queue.v[i];
        if (q.done)
            continue;
        /* the initialisers first, so that the other methods see self.x */
        if (q.cls && !q.cls->init_done) {
            q.cls->init_done = true;
            for (size_t k = 0; k < PE_MAX_INITS; k++)
                for (size_t j = i; !ts_node_is_null(q.cls->init[k]) && j < e->queue.n; j++)
                    if (ts_node_eq(e->queue.v[j].node, q.cls->init[k])) {
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

/* Where to point a syntax-error note: the first ERROR or MISSING node in document order; inside an
 * ERROR whose children are all intact (tree-sitter wrapped whole statements), the first child
 * that is not a complete statement. */
static bool whole_statement(TSNode c)
{
    const char *t = ts_node_type(c);
    return str_ends_with(t, "_statement") || str_ends_with(t, "_definition") || strcmp(t, "comment") == 0;
}

/* The first child of n with an error (want_error), or the first that is not a whole statement;
 * a null node if none. A cursor walks the children: ts_node_child(n, i) restarts from the first
 * child every time, which made this quadratic in the width of an ERROR node. */
static TSNode first_child(TSNode n, bool want_error)
{
    TSNode found = { 0 };
    TSTreeCursor cur = ts_tree_cursor_new(n);
    if (ts_tree_cursor_goto_first_child(&cur))
        do {
            TSNode c = ts_tree_cursor_current_node(&cur);
            if (want_error ? ts_node_has_error(c) : !whole_statement(c)) {
                found = c;
                break;
            }
        } while (ts_tree_cursor_goto_next_sibling(&cur));
    ts_tree_cursor_delete(&cur);
    return found;
}

static TSNode first_error(TSNode n, int depth)
{
    for (; depth <= MAX_DEPTH && !ts_node_is_missing(n); depth++) {
        TSNode c = first_child(n, true);
        if (ts_node_is_null(c)) {
            if (pe_is(n, "ERROR") && !ts_node_is_null(c = first_child(n, false)))
                return c;
            return n;
        }
        n = c;
    }
    return n;
}

static void note_syntax_error(pe_ctx *e, TSNode root)
{
    TSPoint p = ts_node_start_point(first_error(root, 0));
    diag_add(&e->out->diags, DIAG_NOTE, e->out->path, p.row + 1, p.column + 1,
             "syntax error: facts come from the parts of the file that parse");
}

/* Parse the parts of the file the evaluator needs (pyslice.c), or all of it; all of it too if the
 * parts do not parse cleanly, so that a syntax error is found and located as in the whole file. */
static TSTree *parse_needed(TSParser *parser, const fe_context *ctx, const char *path, const char *data, size_t len,
                           bool slice)
{
    kv_arena *a = arena_new();
    uint32_t n = 0;
    TSRange *r = !slice ? NULL : py_slice(ctx ? ctx->state : NULL, ctx, path, data, len, a, &n);
    TSTree *tree = NULL;
    if (r && ts_parser_set_included_ranges(parser, r, n)) {
        tree = ts_parser_parse_string(parser, NULL, data, (uint32_t)len);
        if (tree && ts_node_has_error(ts_tree_root_node(tree))) {
            ts_tree_delete(tree);
            tree = NULL;
        }
        ts_parser_set_included_ranges(parser, NULL, 0);
    }
    arena_free(a);
    return tree ? tree : ts_parser_parse_string(parser, NULL, data, (uint32_t)len);
}

static void analyze(const char *path, const char *data, size_t len, const fe_context *ctx, file_facts *out, bool slice)
{
    if (len > UINT32_MAX)
        return;
    uint32_t deep_line;
    size_t depth = py_bracket_depth(data, len, &deep_line);
    if (depth > py_bracket_limit()) {
        diag_limit(&out->diags, DIAG_NOTE, out->path, deep_line, 0,
                   "brackets nested %zu deep (the limit is %zu; CPython stops at 200): the file is not parsed",
                   depth, py_bracket_limit());
        out->skipped = true;
        return;
    }
    TSParser *parser = ts_parser_new();
    if (!parser || !ts_parser_set_language(parser, tree_sitter_python())) {
        diag_add(&out->diags, DIAG_ERROR, out->path, 0, 0, "cannot load the tree-sitter-python grammar");
        if (parser)
            ts_parser_delete(parser);
        return;
    }
    TSTree *tree = parse_needed(parser, ctx, path, data, len, slice);
    if (!tree) {
        diag_add(&out->diags, DIAG_NOTE, out->path, 0, 0, "not parsed");
        ts_parser_delete(parser);
        return;
    }
    TSNode root = ts_tree_root_node(tree);
    pe_ctx e;
    memset(&e, 0, sizeof e);
    e.path = out->path;
    e.src = data;
    e.len = len;
    e.a = arena_new();   /* values; facts are copied out of it (pystore.c) */
    e.out = out;
    e.s = arena_new();
    e.ctx = ctx;
    e.st = ctx ? ctx->state : NULL;
    e.cur = &e.module;
    if (e.st && e.st->node_kinds) {
        e.kinds = e.st->node_kinds;
        e.nkinds = e.st->nnode_kinds;
    } else {
        e.kinds = py_node_kinds(e.s, &e.nkinds);   /* no run state (unit tests): this file's own */
    }
    e.budget = 100000 + 10 * (size_t)len;  /* about 40 evaluations per syntax node, summaries included */
    for (int f = 0; f < F_COUNT; f++)
        e.fields[f] = ts_language_field_id_for_name(tree_sitter_python(), pe_field_names[f], (uint32_t)strlen(pe_field_names[f]));
    if (ts_node_has_error(root))
        note_syntax_error(&e, root);
    pe_exec_block(&e, root);
    analyse_queue(&e);
    pe_number_decl_groups(&e);
    bool stopped = e.budget == 0 || arena_bytes(e.a) + arena_bytes(e.s) > ARENA_CAP;
    pe_modules_free(&e);
    arena_free(e.s);
    arena_free(e.a);
    if (stopped)
        diag_limit(&out->diags, DIAG_NOTE, out->path, 0, 0, "analysis stopped early: file too complex (facts may be missing)");
    if (e.too_deep)
        diag_limit(&out->diags, DIAG_NOTE, out->path, 0, 0,
                   "code nested deeper than %d expressions or blocks is not analysed (facts may be missing)", MAX_DEPTH);
    ts_tree_delete(tree);
    ts_parser_delete(parser);
}

void py_analyze_file(const char *path, const char *data, size_t len, const fe_context *ctx, file_facts *out)
{
    analyze(path, data, len, ctx, out, true);
}

void py_analyze_file_whole(const char *path, const char *data, size_t len, const fe_context *ctx, file_facts *out)
{
    analyze(path, data, len, ctx, out, false);
}
