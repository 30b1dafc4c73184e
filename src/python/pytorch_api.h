/*
 * pytorch_api.h: the torch API model of the Python front end, as read from
 * grammars/python/torch.tsv (internal to src/python/; the format is documented in the table's
 * header and in docs/facts.md).
 *
 * One row says, for a function or tensor method, what it returns (a new tensor, a view, the
 * input written in place, a cast, a reinterpretation, an object), the rule that gives the
 * result's dtype, the rule that gives its values, and which arguments carry values into it.
 * Module names (torch, F, np, math) and dtype names (torch.float16, torch.int32) are rows too.
 *
 * The table is loaded once before the scan and never written afterwards, so threads share it.
 * Both the prefilter (pylex.c) and the evaluator (pytorch.c) ask it, which is what keeps the
 * prefilter sound: a word that makes the evaluator model a call is a word the prefilter counts.
 * This file knows nothing about syntax trees or abstract values.
 */
#ifndef KV_PYTORCH_API_H
#define KV_PYTORCH_API_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"
#include "util/diag.h"

typedef enum pt_on {
    PT_FN = 1,       /* torch.NAME(...), F.NAME(...), NAME imported from torch */
    PT_METHOD = 2,   /* x.NAME(...) */
    PT_MODULE = 4,   /* a bare name that means a module */
    PT_DTYPE = 8     /* torch.NAME as a dtype */
} pt_on;

typedef enum pt_returns {
    PTR_NEW, PTR_VIEW, PTR_INPLACE, PTR_CAST, PTR_REINTERPRET, PTR_OBJECT
} pt_returns;

typedef enum pt_dtype_rule {
    PTD_NONE,          /* -: not a tensor */
    PTD_KW,            /* dtype=, else the default dtype (left unknown) */
    PTD_KW_OR_INPUT,   /* dtype=, else the input's */
    PTD_KW_OR_INT,     /* dtype=, else int64 */
    PTD_INPUT,         /* the input's */
    PTD_INT,           /* an integer dtype */
    PTD_BOOL,          /* torch.bool */
    PTD_CONCRETE,      /* the named float dtype (pt_entry.dtype_name) */
    PTD_TARGET,        /* a cast's target argument */
    PTD_LIKE,          /* the dtype of tensor argument 0 (type_as) */
    PTD_PROMOTE,       /* the operands' promoted dtype */
    PTD_UNKNOWN        /* a dtype the model does not follow */
} pt_dtype_rule;

typedef enum pt_values {
    PTV_UNKNOWN, PTV_FILL, PTV_ZEROS, PTV_ONES, PTV_LITERAL, PTV_SAME, PTV_JOIN, PTV_WHERE,
    PTV_CAT, PTV_ARANGE, PTV_INDEX, PTV_FINFO, PTV_IINFO, PTV_DEFAULT_DTYPE, PTV_CLAMP, PTV_BOOL,
    PTV_CAST
} pt_values;

typedef enum pt_bits {
    PTB_NEVER,
    PTB_DTYPE_ARG,    /* x.view(torch.uint8): the first argument is a dtype */
    PTB_BITCAST_KW    /* x.to(D, bitcast=True) */
} pt_bits;

typedef enum pt_dtype_class {
    PTC_INT, PTC_BOOL, PTC_FLOAT, PTC_WIDE   /* PTC_WIDE: a float dtype at least as wide as float32 */
} pt_dtype_class;

enum { PT_MAX_FILL = 3 };

/* An argument that carries values into the result: position (receiver not counted) or keyword. */
typedef struct pt_arg {
    int pos;              /* -1: keyword only */
    const char *kw;       /* or NULL */
    bool has_default;
    double def;           /* the value when the argument is absent (F.pad's value=0) */
} pt_arg;

/* One row. Which fields mean something depends on `on`:
 *   PT_FN / PT_METHOD: api, returns, dtype (+ dtype_name for PTD_CONCRETE), values, fill, bits;
 *   PT_MODULE: module ("torch", "math", "numpy");
 *   PT_DTYPE: cls and dtype_name (the numerics' canonical name of a float, the width of an
 *   integer: "int64", "uint8"; NULL for bool).
 * tensor_ctx / int_source / cast_ctx are the `context` column: what the prefilter counts (a cast
 * method only after a '.'; int_source implies tensor_ctx). */
typedef struct pt_entry {
    const char *name;
    const char *api;      /* how facts name the call: "torch.full", ".to", "masked_fill" */
    unsigned on;          /* pt_on bits (a `both` row has PT_FN | PT_METHOD) */
    pt_returns returns;
    pt_dtype_rule dtype;
    const char *dtype_name;
    pt_values values;
    pt_arg fill[PT_MAX_FILL];
    size_t nfill;
    pt_bits bits;
    bool tensor_ctx, int_source, cast_ctx;
    const char *module;
    pt_dtype_class cls;
    uint32_t line;        /* its line in the table (diagnostics) */
} pt_entry;

typedef struct pt_api pt_api;

/* Load <datadir>/grammars/python/torch.tsv. A malformed line, or a second row for a name and an
 * `on` kind already given, is a warning with its line number and is skipped; an unreadable file
 * is an error and gives an empty table. Never NULL. */
pt_api *pt_api_load(const char *datadir, diag_list *diags);
/* The same from a text in memory (tests); path names it in diagnostics. */
pt_api *pt_api_parse(const char *text, size_t len, const char *path, diag_list *diags);
void pt_api_free(pt_api *api);

/* The row for name (n bytes) that has any of the `on` bits, or NULL. api may be NULL. */
const pt_entry *pt_lookup(const pt_api *api, unsigned on, const char *name, size_t n);
static inline const pt_entry *pt_function(const pt_api *api, const char *name, size_t n)
{
    return pt_lookup(api, PT_FN, name, n);
}
static inline const pt_entry *pt_method(const pt_api *api, const char *name, size_t n)
{
    return pt_lookup(api, PT_METHOD, name, n);
}

/* What the prefilter counts about one word, over every row that spells it. */
typedef struct pt_word {
    bool tensor_ctx;   /* a module or API name that says "tensor code" */
    bool int_source;   /* an integer source (arange, argmax, ...) */
    bool cast;         /* a cast method into a float or an argument-given dtype */
    bool writes;       /* a method writing values into its receiver in place (fill_, copy_, ...) */
} pt_word;
pt_word pt_word_of(const pt_api *api, const char *s, size_t n);

/* The width of an integer dtype row (8, 16, 32, 64; *is_unsigned for uint8...), or 0. */
int pt_int_bits(const pt_entry *e, bool *is_unsigned);

/* The fill argument i of a row, if the row has one. */
const pt_arg *pt_fill(const pt_entry *e, size_t i);
/* The fill argument of a row named kw (clamp's "max"), or NULL. */
const pt_arg *pt_fill_kw(const pt_entry *e, const char *kw);

#endif
