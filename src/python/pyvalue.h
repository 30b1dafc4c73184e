/*
 * pyvalue.h: the abstract values of the Python evaluator (internal to src/python/).
 *
 * An aval is what the evaluator knows about one Python expression: a set of known values (each a
 * kv_value with its origin and the steps it took), a flag saying the object may also hold values
 * that are not listed, and, for tensors, the dtype it is built in. Other avals stand for the
 * non-numeric objects the analysis needs to follow: dtypes, strings, torch.finfo objects, modules,
 * imported names, functions, classes, instances of sink classes (vLLM Attention), and partials.
 *
 * Value arrays live in the arena the caller passes (the evaluator's scratch arena); what a fact
 * can point to (texts, step arrays) lives in the file's facts arena. avals are values (copied
 * freely), their arrays are never mutated after creation. This file knows nothing about tree-sitter.
 */
#ifndef KV_PYVALUE_H
#define KV_PYVALUE_H
#include <stdbool.h>
#include <stddef.h>

#include "python/pyfe.h"

enum { PV_MAX_VALUES = 8, PV_MAX_STEPS = 12, PV_MAX_ELEMS = 16 };

/* One known value and the construction fact it went through (1-based index, 0 if none). */
typedef struct pv {
    kv_value v;
    size_t cons;
    bool arg;   /* came in through an argument of the function being summarised (pycall.c) */
} pv;

typedef enum av_tag {
    AV_VALUES,   /* a number or tensor: vals[] plus `other` */
    AV_DTYPE,    /* a dtype: .dtype */
    AV_STR,      /* a string constant: .str */
    AV_FINFO,    /* torch.finfo(D) / torch.iinfo(D): .dtype, .iinfo */
    AV_MODULE,   /* torch, math, numpy, torch.nn.functional, ...: .str is "torch" or "math" */
    AV_IMPORT,   /* a name imported from elsewhere: .str is its dotted origin */
    AV_SINKOBJ,  /* an instance of a sink class: .sink */
    AV_SEQ,      /* tuple or list: elems[] */
    AV_DICT,     /* a dict literal: elems[] its values, keys[] their string keys (`other`: it may hold
                  * keys not listed) */
    AV_FUNC,     /* a function of this file: .node_id */
    AV_CLASS,    /* a class of this file: .node_id */
    AV_INSTANCE, /* an object of a class of this file (or of a loaded module: .mod): .node_id of
                  * the class, .str its name; methods are called as summaries with self bound */
    AV_PARTIAL   /* functools.partial(f, *bound, **bound): .partial (pycall.c); its nodes are of
                  * this file's tree, so it never crosses into another evaluator (.mod) */
} av_tag;

/* The dtype class of a tensor value (docs/facts.md), encoded by three fields without a field of
 * its own, so that every producer that already sets them keeps working:
 *   integer or bool  intdtype (bool also sets binary); has_dtype only when an explicit dtype is known
 *                    (dtype=torch.int32: dtype.kind DREF_UNKNOWN, spelled torch.int32)
 *   known float      has_dtype, dtype.kind == DREF_CONCRETE
 *   model / cache    has_dtype, dtype.kind == DREF_MODEL / DREF_KV
 *   unknown          neither intdtype nor has_dtype
 * An AV_DTYPE value uses intdtype (and binary for torch.bool) the same way, so that `x.dtype` of an
 * integer tensor is an integer dtype and `.to(x.dtype)` an integer cast (pydtype.c). */
typedef struct aval {
    av_tag tag;
    bool other;       /* AV_VALUES: may hold values that are not listed (unknown) */
    bool tensor;      /* known to be a tensor */
    bool binary;      /* every element is 0 or 1 (a bool mask, or one cast to a float dtype) */
    bool intdtype;    /* tensor (or AV_DTYPE) of an integer or bool dtype */
    bool iinfo;       /* AV_FINFO: torch.iinfo */
    bool has_dtype;   /* AV_VALUES: dtype below is what the tensor is built in */
    bool wide_source; /* AV_VALUES: a cast's result whose input was of a float32 or wider dtype
                       * (`key.float().masked_fill(m, -1e9).to(D)`): its values reach the cast in
                       * that dtype, not in the model's */
    unsigned char n;
    const pv *vals;
    dtype_ref dtype;
    const char *str;
    const py_sink *sink;
    const struct aval *elems;
    size_t nelems;
    const char *const *keys;  /* AV_DICT: nelems keys */
    size_t node_id;   /* AV_FUNC / AV_CLASS / AV_INSTANCE: index into the evaluator's node table;
                       * PE_LAZY_CLASS: an object of an imported class not built yet (.str its origin);
                       * PE_LAZY_PRODUCT: an AV_FUNC, what an imported factory returns, the factory
                       * not run yet (.str its origin: pe_lazy_product) */
    struct klass *own;/* AV_INSTANCE built with arguments (PadMasker(-1e9)): the class as its
                       * initialisers, run with them, set self.x (pycall.c); NULL: the class's
                       * own attributes */
    struct pe_ctx *mod;   /* AV_INSTANCE of a class of a loaded module, AV_FUNC returned by one
                           * (pymodule.c): that module's evaluator, whose node table node_id
                           * indexes; NULL: this file's. AV_PARTIAL: the evaluator that made it
                           * (where it is called: pe_call_module_value for another file's) */
    union {
        const struct partial_fn *partial;   /* AV_PARTIAL: the callee and its bound arguments */
        const struct env *closure;   /* AV_FUNC returned by the function defining it (a lambda
                                      * or nested def): that function's variables as they were
                                      * when it returned, which its body reads (pycall.c); NULL:
                                      * none captured */
    };
} aval;

#define PE_LAZY_CLASS ((size_t)-1)
#define PE_LAZY_PRODUCT ((size_t)-2)

aval av_unknown(void);
aval av_unknown_tensor(void);
aval av_const(kv_arena *a, const kv_value *v);
bool av_is_unknown(const aval *x);
bool av_has_sentinel(const aval *x);
bool av_has_integer(const aval *x);
/* The single concrete value of a constant (one value, not other, lo == hi), if any. */
bool av_single(const aval *x, double *out);

/* Union of two value sets (branch join, torch.cat, where); keeps a's dtype if b agrees. */
aval av_join(kv_arena *a, const aval *x, const aval *y);
/* What an iteration over seq binds (a for loop's target, a comprehension's): the join of its
 * elements, unknown when it is no sequence with known elements. */
aval av_seq_element(kv_arena *a, const aval *seq);
/* Add one step to every value. The new value array goes to a (scratch), the step arrays to keep
 * (they end up in facts); what must live in keep. */
aval av_step(kv_arena *a, kv_arena *keep, const aval *x, kv_loc loc, const char *what);
/* Arithmetic. op is one of "+", "-", "*", "/", "**", "neg". Values that cannot be followed
 * (NaN, unknown operands) turn into `other`. */
/* keep: the facts arena, for what a result may point to (a checkpoint-field expression). */
aval av_arith(kv_arena *a, kv_arena *keep, const char *op, const aval *x, const aval *y, kv_loc where,
              const char *text);
aval av_negate(kv_arena *a, kv_arena *keep, const aval *x, kv_loc where, const char *text);
/* x times a 0/1 tensor: every value v becomes [min(0, lo), max(0, hi)], and 0 is held too. */
aval av_times_binary(kv_arena *a, const aval *x);
/* Drop the sentinels (torch.maximum(x, finfo.min) and clamp keep x's other values). */
aval av_without_sentinels(kv_arena *a, const aval *x);

/* Integer hull of x's integer values (for an int-cast fact). */
bool av_integer_hull(const aval *x, kv_value *out);

#endif
