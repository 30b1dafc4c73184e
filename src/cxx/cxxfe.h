/*
 * cxxfe.h: the C/C++/CUDA front end's internal interface (the scanner sees `cxx_frontend`).
 *
 * Files and what they do:
 *   frontend.c  claims sources by extension (and .h by content), the sound prefilter, analyze()
 *   cxxdata.c   the knowledge table (grammars/cxx/cxx.tsv) plus the shared cache-name patterns
 *   cxxids.c    integer ids by the id vocabulary (grammars/ids.tsv)
 *   cxxsinks.c  the sink table (grammars/cxx/sinks.tsv): definitions and calls matched to it
 *   cxxreach.c  the prefilter's second half: can a special value reach a store into a cache
 *   cxxtok.c    its tokens (cxxtok.h: shared with cxxreach.c only), macros, scopes
 *   cxxparse.c  libclang: the argument vector (database or defaults, stubs), the translation unit,
 *               its diagnostics as notes, tokens and locations
 *   cxxpch.c    the run's precompiled system headers, built once per parse setting
 *   cxxtypes.c  the table entry of a type, and the types a template parameter (cache_t) takes at the
 *               unit's launch sites and explicit instantiations
 *   cxxwalk.c   the walk over the main file's functions: cache pointers, stores, sink calls, facts
 *   cxxeval.c   the values a stored expression may hold and its conversions (cxxeval.h: shared
 *               with cxxwalk.c only)
 * It emits store facts located in the source it was handed; it does not analyse headers through
 * the translation units that include them (a scanned header is analysed on its own).
 */
#ifndef KV_CXXFE_H
#define KV_CXXFE_H
#include <clang-c/Index.h>
#include <stdbool.h>
#include <stddef.h>

#include "facts/idvocab.h"
#include "frontend/frontend.h"

/* ---- knowledge (cxxdata.c) ---- */

typedef enum cxx_dt_kind { CXD_FIXED, CXD_KV, CXD_FP8_ARG } cxx_dt_kind;
typedef enum cxx_sat { CXS_NONSAT, CXS_SAT, CXS_SATFINITE_ARG } cxx_sat;

typedef struct cxx_conv {
    const char *name;
    cxx_dt_kind dt_kind;
    kvn_dtype dtype;           /* CXD_FIXED */
    cxx_sat sat;
} cxx_conv;

typedef enum cxx_limit_kind { CXL_INFINITY, CXL_LOWEST, CXL_MAX } cxx_limit_kind;

typedef struct cxx_member {
    const char *name;          /* numeric_limits<T>::name() */
    cxx_limit_kind kind;
} cxx_member;

/* A word in an argument of a conversion that takes its format or saturation as an argument
 * (__nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3)): it selects a dtype or a saturation. */
typedef struct cxx_argword {
    const char *word;
    bool is_dtype;
    kvn_dtype dtype;           /* is_dtype */
    cxx_sat sat;               /* !is_dtype: CXS_SAT or CXS_NONSAT */
} cxx_argword;

/* How a sink converts the float it stores (grammars/cxx/sinks.tsv `conversion`). */
typedef enum cxx_sink_conv { CXK_ELEMENT, CXK_FP8_SATURATING, CXK_SATURATING, CXK_NONSATURATING } cxx_sink_conv;

enum { CXX_SINK_MAX_PAIRS = 2 };

/* A function whose cache parameters are KV caches and whose value parameters are stored into them
 * (cxxsinks.c). Invariant: cache[i] and value[i] are indices into params, i < npairs; the
 * parameters from nrequired on have defaults. */
typedef struct cxx_sink {
    const char *name;          /* as in the table: "reshape_and_cache_flash_kernel", "T::operator()" */
    const char **params;
    size_t nparams, nrequired;
    size_t cache[CXX_SINK_MAX_PAIRS], value[CXX_SINK_MAX_PAIRS], npairs;
    cxx_sink_conv conv;
    kv_engine engine;          /* ENGINE_VLLM, ENGINE_SGLANG */
    bool latent;               /* one latent cache (MLA): operand kv; else key then value */
} cxx_sink;

typedef struct cxx_pch_header {
    const char *name;          /* <name> */
    const char *macro;         /* "" or the macro it needs (__x86_64__ for immintrin.h) */
} cxx_pch_header;

typedef struct cxx_pch cxx_pch;

typedef struct cxx_state {
    kv_arena *arena;
    const char *stubs;         /* <datadir>/grammars/cxx/stubs */
    ARENA_VEC(cxx_conv) types;     /* element types (name -> dtype, how a float converts) */
    ARENA_VEC(cxx_conv) converts;  /* conversion functions */
    ARENA_VEC(cxx_conv) bits;      /* bit-pattern readers (dtype) */
    ARENA_VEC(const char *) clamp_min, clamp_max, limits, sentinels, cache_names;
    ARENA_VEC(const char *) negates;   /* functions returning their argument negated (__hneg) */
    ARENA_VEC(cxx_member) members;     /* numeric_limits members */
    ARENA_VEC(cxx_argword) argwords;
    ARENA_VEC(cxx_pch_header) pch_headers;  /* the system headers precompiled once per run */
    ARENA_VEC(cxx_sink) sinks;                /* grammars/cxx/sinks.tsv */
    id_vocab *ids;                            /* grammars/ids.tsv: id classes, names and bounds */
    size_t budget_steps;       /* analysis steps per translation unit: this, plus */
    size_t budget_steps_per_byte;  /* this many per byte of the main file (cxx_budget_for) */
    size_t budget_bytes;       /* libclang memory per translation unit */
    cxx_pch *pch;              /* mutable, behind its own lock (cxxpch.c); NULL: none */
} cxx_state;

cxx_state *cxx_state_load(const char *datadir, diag_list *diags);
void cxx_state_free(cxx_state *st);
const cxx_conv *cxx_find(const cxx_conv *v, size_t n, const char *name);
bool cxx_is_cache_name(const cxx_state *st, const char *name, size_t n);
const cxx_member *cxx_find_member(const cxx_state *st, const char *name);

/* ---- sinks (cxxsinks.c) ---- */

/* A `sink` line of grammars/cxx/sinks.tsv (fields split at tabs) into out; false if malformed. */
bool cxx_sink_parse(kv_arena *a, char **f, size_t n, cxx_sink *out);
/* The sink a function definition is, by qualified name and parameter count; NULL: none. */
const cxx_sink *cxx_sink_of_function(const cxx_state *st, CXCursor fn);
/* Is parm one of sink k's cache parameters (by name)? *pair: which pair. */
bool cxx_sink_cache_param(const cxx_sink *k, CXCursor parm, size_t *pair);
/* The sink a call calls, with arguments that bind to it; NULL: none. *first_arg: the index of
 * the argument bound to its first parameter (1 when the called object is argument 0). */
const cxx_sink *cxx_sink_of_call(const cxx_state *st, CXTranslationUnit tu, CXCursor call, kv_arena *a,
                                 unsigned *first_arg);

/* ---- the analysis budget (cxxdata.c) ---- */

/* Work the analysis of one unit may do, counted in steps (a cursor visited, an expression
 * evaluated, an assignment compared), never in time: the same file stops at the same place on
 * every machine and under any load. Invariant: spent is set once left would go below zero, and
 * then stays set; every walker stops at its next charge. */
typedef struct cxx_budget {
    size_t left, total;
    bool spent;
} cxx_budget;

/* The budget of a main file of len bytes: budget_steps + budget_steps_per_byte * len. */
cxx_budget cxx_budget_for(const cxx_state *st, size_t len);
/* Charge n steps; false (and spent) when the budget does not hold them. */
bool cxx_charge(cxx_budget *b, size_t n);

/* ---- precompiled headers (cxxpch.c) ---- */

cxx_pch *cxx_pch_new(void);
/* Removes the run's precompiled headers and their folder. */
void cxx_pch_free(cxx_pch *p);
/* The precompiled header for a file of language lang parsed with args (cxxparse.c's vector without
 * the prelude), built on first use; NULL when none applies. Thread-safe. */
const char *cxx_pch_for(const cxx_state *st, const char *lang, const char *const *args, size_t nargs);
bool cxx_is_include_flag(const char *arg);
/* The setting of an argument vector, as cxx_pch_for keys its headers: the language and every
 * argument but the include folders, NUL-separated, in a; *len its length. */
const char *cxx_pch_setting(const char *lang, const char *const *args, size_t nargs, kv_arena *a, size_t *len);
/* How many parse settings the run has met (a header built, or tried, for each). */
size_t cxx_pch_count(cxx_pch *p);

/* ---- the prefilter (frontend.c) ---- */

/* False only if analysing src cannot produce a store fact (see frontend.c); scratch in a. */
bool cxx_prefilter(const cxx_state *st, const fe_source *src, kv_arena *a);

/* Where a condition of the prefilter was first met: the word (a number as written), the file
 * (src's path or a header's real path, in the arena) and the line; path NULL: not met. */
typedef struct cxx_prefilter_reason {
    char word[64];
    const char *path;
    unsigned line;
} cxx_prefilter_reason;

typedef struct cxx_prefilter_why {
    cxx_prefilter_reason cache, special;
} cxx_prefilter_why;

/* cxx_prefilter, and why (for bench/cxx-bench and the tests; why may be NULL). */
bool cxx_prefilter_explain(const cxx_state *st, const fe_source *src, kv_arena *a, cxx_prefilter_why *why);

/* ---- the prefilter's second half (cxxreach.c) ---- */

typedef struct cxx_source_text {
    const char *path;
    const char *data;
    size_t len;
} cxx_source_text;

/* False only if no special value (a literal of magnitude >= 1e4, a word of the table, an id, or
 * what carries one) can reach a store into a cache in main as the evaluator reads it; headers are
 * main's include closure (their macros and constants count). Scratch in a; why->special: the
 * first seed found to reach one. */
bool cxx_reach(const cxx_state *st, const cxx_source_text *main, const cxx_source_text *headers, size_t nheaders,
               kv_arena *a, cxx_prefilter_why *why);

/* ---- parsing (cxxparse.c) ---- */

/* The arguments src is parsed with (language, defaults, the database's flags, include folders,
 * the stubs), in a; *prelude_at: where the prelude or the precompiled header goes. */
const char **cxx_parse_args(const cxx_state *st, const fe_source *src, kv_arena *a, size_t *n, size_t *prelude_at);
/* src's parse setting (cxx_pch_setting of those arguments), in a. */
const char *cxx_parse_setting(const cxx_state *st, const fe_source *src, kv_arena *a, size_t *len);
/* Parse src, with the setting's precompiled header when use_pch (and one applies); NULL with a
 * note in out->diags when libclang cannot. *idx receives the index to dispose after the unit. */
CXTranslationUnit cxx_parse(const cxx_state *st, const fe_source *src, bool use_pch, CXIndex *idx, file_facts *out);
/* Unresolved includes and fatal errors of the unit as notes on out (at most a few). */
void cxx_report_diagnostics(CXTranslationUnit tu, const fe_source *src, file_facts *out);
/* Expansion position of l when it is in the main file (a macro used there counts); false if not. */
bool cxx_offset(CXTranslationUnit tu, CXSourceLocation l, unsigned *line, unsigned *col, unsigned *off);
/* Location of a cursor in the main file (expansion location), 1-based; false outside it. */
bool cxx_main_loc(CXTranslationUnit tu, CXCursor c, const char *path, kv_loc *out);
/* Location of a cursor in any file; a header's path is relative to the working directory when below it. */
bool cxx_any_loc(CXTranslationUnit tu, CXCursor c, const char *path, kv_arena *a, kv_loc *out);
enum { CXX_MAX_KIDS = 8 };
typedef struct cxx_kids_t {
    CXCursor v[CXX_MAX_KIDS];
    size_t n;
} cxx_kids_t;
/* The first CXX_MAX_KIDS children of a cursor. */
cxx_kids_t cxx_kids(CXCursor c);
bool cxx_is_expr(CXCursor c);
/* Is c a function or class the compiler instantiated from a template (it stands at the template's
 * own location)? The unit's top-level declarations list them (the index excludes the precompiled
 * headers' declarations, cxxparse.c), but kvlint reads templates as written. An explicit
 * specialization, written where it stands, is not one. */
bool cxx_is_instantiation(CXCursor c);
/* The expression under parentheses, implicit conversions and casts that keep the pointer. */
CXCursor cxx_strip(CXCursor c);
/* The source text of a cursor's extent (tokens joined as written, at most n bytes), in a. */
const char *cxx_text(CXTranslationUnit tu, CXCursor c, kv_arena *a);

/* ---- element types and instantiations (cxxtypes.c) ---- */

/* Type spelling without qualifiers: "const __half *__restrict" -> "__half *"; pointee via clang. */
void cxx_bare_type(CXType t, char *buf, size_t n);
/* The table's entry for a type (as spelled, else its canonical type); NULL if unknown. */
const cxx_conv *cxx_type_entry(const cxx_state *st, CXType t);

typedef struct cxx_targ {
    bool known;                /* a type argument (else a value, or empty) */
    CXType type;               /* from a resolved call */
    const char *text;          /* from an explicit instantiation's tokens (then type is unset) */
} cxx_targ;

/* One instantiation of a function template seen in the unit. Invariant: tmpl is the template's
 * cursor for a resolved call, the null cursor for an explicit instantiation or a dependent call
 * (both matched by name, their arguments as written). A dependent call sits inside the function
 * template `within` (has_within), whose type parameters its arguments may name (cache_t). */
typedef struct cxx_inst {
    CXCursor tmpl;
    const char *name;
    cxx_targ *args;
    size_t nargs;
    kv_loc at;                 /* the call or the instantiation, in the main file */
    bool has_within;
    CXCursor within;           /* has_within: the function template the call is in */
} cxx_inst;

typedef struct cxx_dispatch {
    ARENA_VEC(cxx_inst) v;
} cxx_dispatch;

/* The unit's instantiations, one step of b per cursor visited (stops when b is spent). */
void cxx_dispatch_collect(CXTranslationUnit tu, const fe_source *src, kv_arena *a, cxx_budget *b, cxx_dispatch *out);

enum { CXX_MAX_PARAM_TYPES = 8 };
/* What a template's type parameter is at the unit's sites: the distinct fixed float types of the
 * table (with where each was first seen); containers: some site gives a type the table does not
 * know as a float format (uint8_t, uint16_t), so the KV dtype decides; open: some site's argument
 * is unknown. sites == 0: none seen. */
typedef struct cxx_param_types {
    struct {
        const cxx_conv *entry;
        char name[128];
        kv_loc at;
    } types[CXX_MAX_PARAM_TYPES];
    size_t n, sites;
    bool containers, open;
} cxx_param_types;

void cxx_param_types_of(const cxx_state *st, const cxx_dispatch *d, CXCursor fn, const char *param,
                     cxx_param_types *out);

/* ---- ids (cxxids.c) ---- */

/* The id value expr holds when it reads decl (subscripted: decl[i]) and decl is of integer type
 * (element type) with a name of an id class: VK_INTEGER from 0 to its id class's first bound. */
bool cxx_id_value(const cxx_state *st, CXTranslationUnit tu, CXCursor expr, CXCursor decl, bool subscripted,
                  const char *path, kv_arena *a, kv_value *out);

/* ---- analysis (cxxwalk.c) ---- */

/* The declaration of the pointer an lvalue or pointer expression goes through: p in p[i], *p,
 * *(p + i), p + i, &p[i]. Null cursor when there is none. */
CXCursor cxx_pointer_base(CXCursor c);

void cxx_analyze_unit(const cxx_state *st, CXTranslationUnit tu, const fe_source *src, file_facts *out);
/* Memory libclang holds for a unit, in bytes (its own accounting: AST, identifiers, sources). */
size_t cxx_unit_bytes(CXTranslationUnit tu);

extern const frontend cxx_frontend;

#endif
