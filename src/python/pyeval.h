/*
 * pyeval.h: the Python evaluator's internal interface, shared by the files that implement it
 * (pytree.c, pyscope.c, pydtype.c, pytorch.c, pyids.c, pystore.c, pycall.c, pymodule.c, pyexpr.c, pystmt.c). Nothing
 * outside src/python/ includes it; the rest of the front end sees py_analyze_file (pyfe.h).
 *
 * The evaluator walks tree-sitter-python's syntax tree statement by statement, in order, keeping
 * an environment from names to abstract values (pyvalue.h). It is flow-sensitive: both sides of a
 * branch are evaluated and joined, a loop body once and joined with the state before it. Around
 * that core:
 *   - module constants, class constants and `self.x` set in __init__ are visible to the methods;
 *   - calls are summaries (arguments bound to parameters, the joined return value comes back, a
 *     tuple element by element; only facts about the caller's values are emitted inside; each
 *     function is also analysed on its own once, with its default arguments) for: functions and
 *     methods of this file, methods of any object of a class of this file (`self.helper.build(x)`,
 *     `Klass.static(x)`, `instance(x)` as its forward; pycall.c), and top-level functions of other
 *     scanned files reached through imports (evaluated in that file, pymodule.c);
 *   - a summary that writes into a parameter in place (`k[..., -1] = x`) updates the caller's
 *     argument variable (frame mutations, pyscope.c);
 *   - `from .mod import NAME` constants are read from the index of a scanned file of that name
 *     (pylex.c, pylink.c);
 *   - torch calls are modelled by the rows of grammars/python/torch.tsv (full, where, cat, pad, to,
 *     masked_fill, ...; pytorch.c); anything not modelled yields an unknown value, which is how softmax/top-k/comparisons/torch.maximum stay
 *     silent: a sentinel that only feeds them never reaches a sink.
 * Facts are emitted where they happen: a store at the sink call or subscript store, a
 * construction at the call that materialises a sentinel in a known dtype, an int-cast at the
 * cast, an arithmetic fact at the operator, a dtype declaration at LLM(...)-like calls.
 *
 * The pieces call each other through the functions below (prefix pe_), each in the file named in
 * its section: statements (pystmt) evaluate expressions (pyexpr), which dispatch calls (pycall) to
 * the torch model (pytorch), to summaries of this file's functions, or to sinks (pystore); names
 * are bound and looked up through pyscope; pytree reads the syntax tree.
 *
 * Limits (so that bad input never hangs or overflows the stack): recursion depth, summary depth,
 * a budget of evaluated nodes per file (and one per loaded module), a cap on the arena, and on the
 * modules loaded per file; past a limit, values become unknown. It deliberately does not: follow
 * classes imported from other files, model loops beyond one iteration, or look inside f-strings,
 * lambdas or decorators.
 */
#ifndef KV_PYEVAL_H
#define KV_PYEVAL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <tree_sitter/api.h>

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
typedef enum fid { F_alias, F_alternative, F_argument, F_arguments, F_attribute, F_body, F_condition, F_consequence, F_definition, F_function, F_key, F_left, F_module_name, F_name, F_object, F_operator, F_parameters, F_right, F_subscript, F_superclasses, F_value, F_COUNT } fid;

/* Node kinds the evaluator dispatches on (eval_inner, exec_stmt): tree-sitter-python's named
 * symbols by name, mapped once from symbol ids (pe_node_kinds), so a dispatch is a switch on an
 * enum rather than a ladder of strcmp on ts_node_type. NK_OTHER is every other kind. */
#define PE_NODE_KINDS(X)                                                                            \
    X(identifier) X(integer) X(float) X(call) X(conditional_expression) X(comparison_operator)     \
    X(concatenated_string) X(attribute) X(await) X(string) X(subscript) X(unary_operator)         \
    X(binary_operator) X(boolean_operator) X(parenthesized_expression) X(tuple) X(list)           \
    X(list_comprehension) X(lambda) X(expression_list) X(named_expression) X(not_operator)        \
    X(generator_expression) X(dictionary) X(expression_statement) X(assignment)                   \
    X(augmented_assignment) X(return_statement) X(if_statement) X(for_statement)                  \
    X(while_statement) X(try_statement) X(match_statement) X(with_statement)                      \
    X(function_definition) X(class_definition) X(decorated_definition) X(import_statement)        \
    X(import_from_statement) X(block) X(decorator) X(true) X(false)
typedef enum node_kind {
    NK_OTHER,
#define PE_NK_ENUM(name) NK_##name,
    PE_NODE_KINDS(PE_NK_ENUM)
#undef PE_NK_ENUM
    NK_COUNT
} node_kind;

/* ---- environments ---- */

/* Values are immutable once bound, so an environment copy (a branch) copies pointers only, and a
 * join touches only the bindings whose value pointer differs. v keeps the bindings in the order
 * they were made (what a join walks); an environment of more than PE_ENV_LINEAR names also has an
 * index, open addressing over kv_hash32 of the name (util/hash.h): slot holds a binding's position
 * plus 1, 0 for an empty slot, and nslot is a power of two at least twice n. Two environments may
 * share v and slot after a struct copy (`acc = *e->cur`): a slot naming a position at or past n
 * belongs to the other one and is probed past. */
enum { PE_ENV_LINEAR = 32 };
typedef struct binding {
    const char *name;
    uint32_t hash;
    const aval *v;
} binding;

typedef struct env {
    binding *v;
    size_t n, cap;
    uint32_t *slot;
    size_t nslot;
} env;

enum { PE_MAX_INITS = PY_MAX_INITS };
#define PE_INIT_NAMES PY_INIT_NAMES

enum { PE_MAX_BASES = 4, PE_MAX_MRO = 8 };
typedef struct klass {
    const char *name;
    env attrs;     /* self.x as set by the initialisers (joined over their assignments) */
    env consts;    /* class body: constants and methods */
    TSNode init[PE_MAX_INITS];  /* the initialisers, in the order of PE_INIT_NAMES: __init__,
                                 * __post_init__, and unittest's setUpClass and setUp, which run
                                 * before every test method (`cls.dtype = torch.float32`); a
                                 * class without one of its own has its first base's */
    struct klass *init_cls[PE_MAX_INITS];  /* the class defining each (for super() in it) */
    struct klass *bases[PE_MAX_BASES];     /* the bases that are classes of this file, in order */
    size_t nbases;
    const char *import_base;               /* the first base imported from elsewhere: its origin */
    const struct klass *copied_from;       /* an object's own copy (pycall.c): its class */
    bool init_done;
} klass;

/* A member of class k by name, as Python finds it on an object: the attributes its initialisers
 * set (its own, then its bases', depth first), then the class bodies' constants and methods in the
 * same order (PE_MEMBER_ANY); only the class bodies' (PE_MEMBER_CONSTS: Klass.CONST, methods), or
 * only the attributes (PE_MEMBER_ATTRS). skip_own: start at the bases (super()). NULL when no class
 * of the chain has it (PE_MAX_MRO classes deep at most). */
typedef enum pe_member { PE_MEMBER_ANY, PE_MEMBER_CONSTS, PE_MEMBER_ATTRS } pe_member;
/* k and its bases in that search order, into out[PE_MAX_MRO]; their count. */
size_t pe_class_chain(const klass *k, const klass **out);
/* The origin of the first base of k's chain imported from another file (`from .base import
 * Writer`), or NULL: a method the chain does not define may be that class's (pymodule.c). */
const char *pe_class_import_base(const klass *k);
const aval *pe_class_member(const klass *k, const char *name, pe_member which, bool skip_own);

typedef struct qfn {
    TSNode node;
    klass *cls;          /* the class it runs as a method of (self an object of it) */
    const klass *defined_in;   /* the class whose body defines it: cls, or a base of cls */
    bool done;
} qfn;

typedef enum summary_state {
    SUMMARY_NONE,     /* not computed yet */
    SUMMARY_PENDING,  /* being computed: a call reaching it again is recursion */
    SUMMARY_DONE
} summary_state;

typedef struct summary {
    summary_state state;
    bool writes_args; /* the function writes into a parameter in place: every call is evaluated */
    aval v;
} summary;

enum { MAX_MUTATIONS = 8 };

/* What a function did to one of its local names (pyscope.c): written in place while still bound
 * to the caller's object (`k[..., -1] = m`, `k.masked_fill_(...)`), or rebound (`k = k.clone()`). */
typedef struct mutation {
    const char *name;
    aval v;          /* the value after the last in-place write, if written */
    bool written, rebound;
    TSNode arg;      /* the caller's argument node the parameter was bound from */
    bool has_arg;
} mutation;

/* The arguments a summary wrote into in place, for the caller to apply to its own variables. */
typedef struct written_args {
    TSNode node[MAX_MUTATIONS];
    aval v[MAX_MUTATIONS];
    size_t n;
} written_args;


typedef struct frame {
    env locals;
    mutation muts[MAX_MUTATIONS];  /* the first names assigned or written (bounded) */
    size_t nmuts;
    aval ret;
    bool has_ret;
    bool is_init;
    const char *self_name;
    TSNode fn;
    const struct klass *defined_in;   /* the class whose body defines fn (super() starts at its bases) */
    struct frame *up;
} frame;

/* A dtype guard (pe_condition): the condition can hold only where the model's (kind DREF_MODEL)
 * or the cache's (DREF_KV) dtype is in set (`dtype == torch.float16`: {float16}; `dtype in
 * (...)`: the listed ones; `cache_dtype.startswith("fp8")`: the dtypes an fp8 spelling names),
 * and fail only where it is in other. A comparison of dtype objects splits the dtypes (other is
 * the rest); one of spellings may leave a dtype on both sides (fp8_e4m3 is spelled "fp8" and
 * "fp8_e4m3": `cache_dtype == "fp8"` may be true or false there). aset / aother: the same where
 * the deployment spells the dtype `auto` (a test of the string decides there: `== "auto"` holds
 * everywhere and fails nowhere); set / other where it names it. spelled: a test of a string. */
typedef struct pe_guard {
    bool on;
    dref_kind kind;
    kv_dtype_set set, other, aset, aother;
    bool spelled;
} pe_guard;
/* The guard of where g's condition is true (truth) or false. */
static inline pe_guard pe_guard_side(const pe_guard *g, bool truth)
{
    pe_guard s = *g;
    if (!truth) {
        s.set = g->other;
        s.other = g->set;
        s.aset = g->aother;
        s.aother = g->aset;
    }
    return s;
}
/* A guard that splits the dtypes: true in set, false everywhere else, however they are spelled. */
static inline pe_guard pe_guard_split(dref_kind kind, kv_dtype_set set)
{
    kv_dtype_set rest = dset_all() & ~set;
    return (pe_guard){ true, kind, set, rest, set, rest, false };
}
/* Whether the side of g where its condition is true (truth) or false says something: it does not
 * hold everywhere, and somewhere. */
static inline bool pe_guard_marks(const pe_guard *g, bool truth)
{
    if (!g || !g->on)
        return false;
    pe_guard s = pe_guard_side(g, truth);
    return (s.set || s.aset) && (s.set != dset_all() || s.aset != dset_all());
}
/* Mark v held only where g's side holds (set for deployments that name the dtype, aset for those
 * that spell it auto). */
static inline void pe_mark_held(kv_value *v, const pe_guard *g)
{
    v->held_kind = g->kind;
    v->held_set = g->set;
    v->held_auto_set = g->aset;
    v->held_spelled = g->spelled;
}
enum { PE_MAX_PATH = 4, PE_MAX_FLAGS = 8 };
struct pe_flag { const struct aval *v; pe_guard g; };   /* a name's value that is a guard's result */

/* The Python evaluator's state while it analyses one file (or a module that file imports). In check/
 * "ev_" names the rule evaluation's helpers; here the evaluator is "pe_". */
typedef struct pe_ctx {
    const char *path;
    const char *src;
    size_t len;
    kv_arena *a;               /* values: texts, steps, expressions; freed after the file (a fact
                                  is recorded as a copy in out->arena: facts_copy.c) */
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
    pe_guard guards[PE_MAX_PATH]; /* the dtype guards the statements being run are under, inner
                                   * last: values made here are held only where the innermost
                                   * holds (pe_value_make); cleared inside a call's summary */
    uint8_t nguards;
    pe_guard after_return;        /* set by an if whose guarded branch returns: the rest of the
                                   * block runs where the guard does not hold (pe_exec_block) */
    struct pe_flag flags[PE_MAX_FLAGS];   /* the last names bound to a dtype guard's result */
    uint8_t nflags, next_flag;            /* entries in use; where the next goes (a ring) */
    bool again;                /* analysing a function a second time, as a subclass's method
                                * (pystmt.c): a fact already recorded at the same place with the
                                * same values is not recorded again (pystore.c) */
    size_t budget;
    bool too_deep;             /* pe_depth_ok refused once: code nested past MAX_DEPTH was skipped */
    int decl_group;
    klass *orphans;            /* methods found outside a class (syntax errors) */
    ARENA_VEC(summary) summaries; /* per node id: the summary of a call without known arguments */
    struct pe_modules *mods;   /* other files loaded for imported calls, shared by every pe_ctx of
                                * one file's analysis (pymodule.c); NULL until the first */
    int module_depth;          /* 0 for the analysed file, 1 for a module it imports, ... */
    TSFieldId fields[F_COUNT];
    const unsigned char *kinds;   /* node_kind by symbol id (py_state's, or this file's) */
    uint32_t nkinds;
    struct pe_kids_memo *kids;    /* pe_kids' answers by node, in e->s (pytree.c); NULL until the first */
} pe_ctx;

/* The arguments of one call, evaluated left to right. */
typedef struct args {
    TSNode pos[MAX_ARGS];
    aval posv[MAX_ARGS];
    size_t npos;
    const char *kwname[MAX_ARGS];
    TSNode kw[MAX_ARGS];
    aval kwv[MAX_ARGS];
    size_t nkw;
    bool star;  /* *args or **kwargs present: positions after it are unknown */
    written_args *written;  /* where a summary reports arguments it wrote into, or NULL */
} args;

/* Field names of tree-sitter-python the evaluator reads, indexed by fid (pystmt.c). */
extern const char *const pe_field_names[F_COUNT];

/* ---- tree access, text and locations (pytree.c) ---- */
TSNode pe_fld(const pe_ctx *e, TSNode n, fid f);
TSNode *pe_kids(pe_ctx *e, TSNode n, uint32_t *count);
bool pe_is(TSNode n, const char *type);
kv_loc pe_loc_of(const pe_ctx *e, TSNode n);
const char *pe_text_of(pe_ctx *e, TSNode n);
const char *pe_raw_text(pe_ctx *e, TSNode n);
const char *pe_dotted(pe_ctx *e, TSNode n);
const char *pe_base_name(pe_ctx *e, TSNode n);
bool pe_budget_ok(pe_ctx *e);
/* The one nesting guard of the walkers: false (and e->too_deep set) at MAX_DEPTH. */
bool pe_depth_ok(pe_ctx *e);
const char *pe_last_dotted(const char *s);
bool pe_same_bytes(const pe_ctx *e, TSNode a, TSNode b);
node_kind pe_kind(const pe_ctx *e, TSNode n);

/* A condition (pyguard.c): its truth where known (else -1), and *g when it is a dtype guard
 * (see pe_guard), so that each branch's values are held where its side can be. */
int pe_condition(pe_ctx *e, TSNode cond, pe_guard *g);
/* Whether n is a comparison or a startswith/endswith call: a test whose result a name may keep
 * as a guard (`is_fp8 = cache_dtype.startswith("fp8")`, pe_note_flag). */
bool pe_condition_is_test(pe_ctx *e, TSNode n);
/* pe_condition, with the condition's value in *value (NULL: not wanted). */
int pe_condition_value(pe_ctx *e, TSNode cond, pe_guard *g, struct aval *value);
/* Whether target (of an assignment) can keep a guard's result: a name, or `self.X`. */
bool pe_flag_target(pe_ctx *e, TSNode target);
/* target was just bound to the result of the guard g: a condition naming it is that guard while it
 * keeps that value. class_attr: `self.X` set by an initialiser for the first time, so that the
 * other methods' reads of the attribute are that guard too. */
void pe_note_flag(pe_ctx *e, TSNode target, bool class_attr, const pe_guard *g);

/* ---- environments, bindings, assignment targets, parameters, imports (pyscope.c) ---- */
const aval *pe_env_find_n(const env *en, const char *s, size_t n, uint32_t h);
const aval *pe_env_get(const env *en, const char *name);
void pe_env_set(kv_arena *a, env *en, const char *name, aval v);
env pe_env_copy(kv_arena *a, const env *en);
/* v with its values marked held only where g's dtype is in g->set (held_spelled: g tests a
 * string); an inner mark stays. */
aval pe_value_held(kv_arena *a, const aval *v, const pe_guard *g);
env pe_env_join(kv_arena *a, const env *x, const env *y);
const char *pe_self_key(pe_ctx *e, TSNode attr_node);
aval pe_lookup_self(pe_ctx *e, const char *key, TSNode at);
void pe_set_name(pe_ctx *e, const char *name, aval v);
const char *pe_var_key(pe_ctx *e, TSNode n);
aval pe_lookup_key(pe_ctx *e, const char *key, TSNode at);
void pe_update_key(pe_ctx *e, const char *key, aval v);
/* Is target (a subscript or a name) a table the code allocated in a dtype no KV cache has
 * (float32, int16-int64, bool), though named like a cache? Then a write into it is no store. */
bool pe_own_table(pe_ctx *e, TSNode target);
void pe_write_into(pe_ctx *e, TSNode target, aval x, TSNode at, const char *what);
void pe_assign(pe_ctx *e, TSNode target, aval v, TSNode at);
void pe_bind_imports(pe_ctx *e, TSNode n);
void pe_bind_params(pe_ctx *e, TSNode fn, const args *g);
/* Whether the first parameter of the function definition fn is named self. */
bool pe_first_param_is_self(pe_ctx *e, TSNode fn);
/* The constant NAME exported by the scanned file MODULE names (`from M import NAME`, `M.NAME`). */
bool pe_module_constant(pe_ctx *e, const char *module, const char *name, aval *out);

/* ---- dtypes: names, objects, classes, dtype=, finfo/iinfo (pydtype.c) ---- */
dtype_ref pe_dref(pe_ctx *e, dref_kind k, TSNode at);
aval pe_dtype_value(dtype_ref r, bool intdtype);
bool pe_is_int_dtype(const pe_ctx *e, const dtype_ref *d);
bool pe_is_wide_float(const pe_ctx *e, const dtype_ref *r);
bool pe_torch_dtype_name(pe_ctx *e, const char *name, TSNode at, aval *out);
bool pe_dtype_by_name(const char *name);
dref_kind pe_dtype_kind_by_name(const char *name);
/* What a value means as a dtype argument; *found is false when it is not one. */
dtype_ref pe_dtype_of_aval(pe_ctx *e, const aval *x, TSNode at, bool *found);
/* The dtype= keyword of a call, if given (*intdtype: an integer or bool dtype). */
bool pe_dtype_kwarg(pe_ctx *e, const args *g, dtype_ref *out, bool *intdtype);
/* `obj.dtype` (objn the object's node, at the attribute's). */
aval pe_dtype_attr(pe_ctx *e, const aval *obj, TSNode objn, TSNode at);
/* The dtype of a tensor nothing is known about, from what objn names (pydtype.c). */
aval pe_dtype_of_unknown(pe_ctx *e, TSNode objn, TSNode at);
aval pe_finfo_value(pe_ctx *e, const args *g, TSNode call, bool iinfo);
aval pe_finfo_attr(pe_ctx *e, const aval *f, const char *attr, TSNode at);

/* ---- the torch model: calls of torch functions and tensor methods by grammars/python/torch.tsv (pytorch.c) ---- */
aval pe_torch_function(pe_ctx *e, const char *f, TSNode call, const args *g);
aval pe_tensor_method(pe_ctx *e, TSNode call, TSNode recv, aval x, const char *m, const args *g);

/* ---- integer id classes of names (pyids.c) ---- */
aval pe_id_class_value(pe_ctx *e, const char *idc, TSNode at);
aval pe_refine_id_class(pe_ctx *e, const char *name, aval x, TSNode at);
aval pe_default_for_name(pe_ctx *e, const char *name, TSNode at);

/* ---- facts: stores at sinks, constructions, int-casts, arithmetic, dtype declarations (pystore.c) ---- */
aval pe_constructions_for(pe_ctx *e, construction_kind k, const char *api, TSNode at, aval x, const dtype_ref *d);
void pe_emit_intcast(pe_ctx *e, const char *api, TSNode at, const aval *x, const dtype_ref *d);
void pe_emit_arith(pe_ctx *e, arith_kind k, TSNode at, const kv_value *a, const kv_value *b, const dtype_ref *d);
/* A sum or difference: a_negated / b_negated say which operand enters with a minus sign. */
void pe_emit_arith_signed(pe_ctx *e, arith_kind k, TSNode at, const kv_value *a, bool a_negated, const kv_value *b,
                          bool b_negated, const dtype_ref *d);
void pe_store_direct(pe_ctx *e, TSNode at, const char *cache, TSNode tensor, aval x);
/* A call of a class-sink instance (self.attn(q, k, v)): its key and value stored if the call binds to
 * the class's forward signature. */
void pe_store_sink_call(pe_ctx *e, const py_sink *s, const char *callee, TSNode call, const args *g);
/* If the call fn(...) (fn as written; recv the value of its receiver when fn is an attribute) is a
 * table sink, store its key and value and return true. origin: callee, or an imported name's origin. */
bool pe_sink_call(pe_ctx *e, TSNode call, TSNode fn, const aval *recv, const char *callee, const char *origin,
                  const args *g);
void pe_dtype_decls(pe_ctx *e, const char *callee_last, const char *origin, const args *g);
/* After the file: its engine calls' groups numbered in the order of the file (pystore.c). */
void pe_number_decl_groups(pe_ctx *e);
aval pe_class_instance(pe_ctx *e, const char *class_name, TSNode call, const args *g);

/* ---- calls: arguments, dispatch, summaries of functions of this file (pycall.c) ---- */
const aval *pe_kwarg(const args *g, const char *name, TSNode *node);
const aval *pe_arg(const args *g, int pos, const char *kw, TSNode *node);
size_t pe_node_id(pe_ctx *e, TSNode n, klass *cls);
aval pe_eval_call(pe_ctx *e, TSNode call);
/* The summary of a call of the function or method with node id `id` (of e's file). */
aval pe_call_summary(pe_ctx *e, size_t id, const args *g);
/* recv.method(args) on a class of e's file or an object of one: the method's summary (false if it
 * has no such method). */
bool pe_call_method_of(pe_ctx *e, const aval *recv, const char *method, const args *g, aval *out);
/* An object of the class cls of e's file, built with the arguments g. */
aval pe_instance_of(pe_ctx *e, const aval *cls, const args *g);
/* A function value of e's own (a function, a closure, a partial of one) called with g: what
 * pymodule.c runs for a function value another file's function returned. */
aval pe_call_value(pe_ctx *e, const aval *fv, const args *g);

/* ---- functions imported from other scanned files (pymodule.c) ---- */
/* origin is the dotted name a call reaches through imports (`.masks.make_mask`, `pkg.masks.f`):
 * if it is a top-level function of a scanned file, *out is the summary of this call evaluated in
 * that file, and true is returned. */
/* A class: *out is an object of it, built in that file (its .mod says so); `.mod.Klass.method`
 * (a static or class method through the class) is that method's summary. */
bool pe_call_imported(pe_ctx *e, const char *origin, TSNode call, const args *g, aval *out);
/* recv.method(args) on an object of a loaded module's class (recv->mod): the method's summary in
 * that module, as for an imported function; false if the class has no such method. */
bool pe_call_module_method(pe_ctx *e, const aval *recv, const char *method, const args *g, aval *out);
/* A function value a loaded module returned (fv->mod: a closure, a partial, a function) called
 * with g: run in that module as an imported function is; false if it cannot be. */
bool pe_call_module_value(pe_ctx *e, const aval *fv, const args *g, aval *out);
/* An object of the imported class origin, not built yet: pe_call_module_method builds it in its
 * module at the first method passed a value. */
aval pe_lazy_instance(pe_ctx *e, const char *origin);
/* What the imported factory origin returns (a function it makes), the factory not run yet:
 * pe_call_lazy_product runs it, and then its product, when the product is passed a value. */
aval pe_lazy_product(pe_ctx *e, const char *origin);
bool pe_call_lazy_product(pe_ctx *e, const aval *fv, const args *g, aval *out);
/* A value read from an object of a loaded module's class (inst.attr), made the caller's. */
aval pe_module_value(pe_ctx *e, struct pe_ctx *m, aval x);
/* Release the modules loaded for e's file (their trees and parsers). */
void pe_modules_free(pe_ctx *e);

/* ---- expressions (pyexpr.c) ---- */
/* d[key] of a dict literal d with a string key it lists (false: not a dict, or not listed). */
bool pe_dict_lookup(const aval *d, const aval *key, aval *out);
aval pe_stepf(pe_ctx *e, const aval *x, TSNode at, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
kv_value pe_value_make(pe_ctx *e, value_kind k, double lo, double hi, TSNode at);
aval pe_number_value(pe_ctx *e, double x, TSNode at);
aval pe_eval(pe_ctx *e, TSNode n);

/* ---- checkpoint config fields (pyconfig.c) ---- */
/* `objn.attr` on the model's config object: a symbolic field value in *out. */
bool pe_config_attr(pe_ctx *e, TSNode attr_node, TSNode objn, const aval *obj, const char *attr, aval *out);
/* getattr(config, "x"[, constant default]): a symbolic field value in *out. */
bool pe_config_getattr(pe_ctx *e, TSNode call, const args *g, aval *out);
/* config.get("x"[, d]) (recv: the receiver's value, unknown) and config["x"] (keyn: the subscript,
 * a string literal), as pe_config_getattr. */
bool pe_config_get(pe_ctx *e, TSNode call, TSNode recv_node, const aval *recv, const args *g, aval *out);
bool pe_config_item(pe_ctx *e, TSNode sub, TSNode objn, const aval *obj, TSNode keyn, aval *out);

/* ---- which parts of a file to parse (pyslice.c) ---- */
/* The parts of a file that can hold a fact (pyslice.c), as sorted, disjoint tree-sitter ranges in
 * a: every top-level statement but the definitions and classes that neither decide the prefilter
 * themselves, with everything they name, nor are named by one that does. NULL (parse the whole
 * file) when that is most of it. */
TSRange *py_slice(const py_state *st, const fe_context *ctx, const char *path, const char *data, size_t len,
              kv_arena *a, uint32_t *count);

/* The byte ranges r[0..k) of data (sorted here; empty or past len dropped, overlapping and
 * adjacent ones merged) as tree-sitter ranges with their rows and columns, in a (pyslice.c). */
TSRange *py_ts_ranges(const char *data, size_t len, py_range *r, size_t k, kv_arena *a, uint32_t *count);
/* ---- statements and the file (pystmt.c) ---- */
void pe_exec_block(pe_ctx *e, TSNode n);

#endif
