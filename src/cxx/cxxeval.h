/*
 * cxxeval.h: what the walk over a unit's functions (cxxwalk.c) and the evaluator of stored
 * expressions (cxxeval.c) share, inside the C/C++/CUDA front end: the abstract values, the
 * per-function context, and the evaluator's entry points. Nothing outside src/cxx includes it.
 */
#ifndef KV_CXXEVAL_H
#define KV_CXXEVAL_H
#include "cxx/cxxfe.h"

enum { MAX_DEPTH = 24, MAX_VALUES = 16 };

/* One value a stored expression may hold, with the conversion on its way (if any). */
typedef struct cval {
    kv_value v;
    bool converted;
    store_conv conv;
    const char *conv_api;
    bool conv_fixed;          /* the conversion fixes the dtype (conv_dtype) */
    bool conv_elem;           /* a cast or construction to cache_t: its overflow is cache_t's own */
    kvn_dtype conv_dtype;
} cval;

typedef struct cvals {
    cval v[MAX_VALUES];
    size_t n;
    bool unknown;             /* some path holds a value the evaluator does not know */
} cvals;

typedef struct assign {
    CXCursor var;             /* the VarDecl */
    CXCursor expr;            /* assigned expression; null cursor = unknown (compound assignment) */
} assign;

typedef struct store_site {
    CXCursor stmt, lhs, rhs;
} store_site;

/* A call of a sink of the table (cxxsinks.c); its arguments from first on bind to its parameters. */
typedef struct sink_call {
    CXCursor call;
    const cxx_sink *sink;
    unsigned first;
} sink_call;

typedef struct fn_ctx {
    const cxx_state *st;
    CXTranslationUnit tu;
    const fe_source *src;
    file_facts *out;
    kv_arena *a;
    ARENA_VEC(assign) assigns;
    ARENA_VEC(store_site) stores;
    ARENA_VEC(sink_call) sink_calls;
    const char *buf;          /* main file bytes as libclang has them */
    size_t buflen;
    CXCursor fn;              /* the function being analysed */
    const cxx_sink *fn_sink;  /* the sink it is (its cache parameters are caches), or NULL */
    cxx_dispatch dispatch;    /* the unit's instantiations (cxxtypes.c) */
    CXCursor visiting[MAX_DEPTH];
    size_t nvisiting;
    cxx_budget budget;        /* the unit's: every walker below charges it */
} fn_ctx;

/* The values expression c may hold (depth: nesting so far, MAX_DEPTH at most); every call charges
 * x's budget one step. Unknown paths set .unknown; nothing is guessed. */
cvals cxx_eval(fn_ctx *x, CXCursor c, int depth);
/* in with every value not converted yet converted by conv (api as written; fixed: into dt). */
cvals cxx_converted(cvals in, store_conv conv, const char *api, bool fixed, kvn_dtype dt);
store_conv cxx_conv_of(cxx_sat s);
/* The byte offset of l in the main file; false outside it. */
bool cxx_offset_of(const fn_ctx *x, CXSourceLocation l, unsigned *off);
/* The operator after the left operand of a binary expression ("=", "+=", ...), from the bytes. */
bool cxx_binop_after(const fn_ctx *x, CXCursor lhs, char op[4]);
/* The first character of a unary expression's first token (its operator when prefix). */
char cxx_unop_char(const fn_ctx *x, CXCursor c);

#endif
