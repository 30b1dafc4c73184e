/*
 * pyfe.h: the Python front end's internal interface, shared by the files of src/python/ and by its
 * unit tests. Nothing outside src/python/ (and tests/) includes this; the rest of kvlint sees only
 * `python_frontend` (frontend/frontend.h).
 *
 * The pieces, in the order a file meets them:
 *   pylex.c    lexical layer: Python number literals, the vocabulary that makes a fact possible,
 *              the sound prefilter, `# kvlint: ignore[...]` comments, the cross-file index
 *              (module constants found without parsing).
 *   pylink.c   run-wide lookups over every file's index (modules by file name, exported
 *              sentinel names), built once between the scanner's passes.
 *   pysinks.c  the sink table (grammars/python/sinks.tsv plus .kvlint.yaml sinks), loaded once.
 *   pyvalue.c  the abstract values the evaluator computes (value sets, intervals, steps;
 *              pyvalue.h).
 *   pyeval.h   the evaluator: flow-sensitive evaluation of one file, emitting facts, in files by
 *              concept: pytree.c (syntax tree access), pyscope.c (names, bindings, assignment),
 *              pytorch.c (the torch model), pyids.c (id families), pystore.c (facts, sinks),
 *              pycall.c (calls, summaries), pyexpr.c (expressions), pystmt.c (statements, entry).
 *   frontend.c the frontend struct, init/fini, the analyze driver.
 */
#ifndef KV_PYFE_H
#define KV_PYFE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/project.h"
#include "facts/facts.h"
#include "frontend/frontend.h"

/* A literal (or finfo/iinfo/inf spelling) whose magnitude is at least this is a sentinel. Arithmetic
 * keeps a value a sentinel but never makes one: `10**9` is an ordinary float. -10000.0 (the classic
 * BERT mask) is the smallest mask constant in common use, hence the threshold. */
#define PY_SENTINEL_MAGNITUDE 1e4

/* ---- sinks (pysinks.c) ---- */

typedef enum py_sink_kind {
    PSK_CLASS,   /* instances are sinks when called: self.attn = Attention(...); self.attn(q, k, v) */
    PSK_CALL,    /* a function or method called by this name: reshape_and_cache_flash(k, v, ...) */
    PSK_METHOD,  /* a method whose receiver is named like a cache: past_key_values.update(k, v, i) */
    PSK_PREFIX   /* any callee whose dotted text starts with this: torch.ops._C_cache_ops. */
} py_sink_kind;

typedef struct py_sink {
    py_sink_kind kind;
    const char *name;
    sink_family family;
    const char *engine;        /* or NULL */
    int key_pos, value_pos;    /* positional indexes, -1 if none */
    const char *key_kw, *value_kw;
    bool kv;                   /* the operands are not K and V but parts of one latent (MLA) */
} py_sink;

typedef struct py_state {
    kv_arena *arena;
    ARENA_VEC(py_sink) sinks;
    ARENA_VEC(const char *) cache_names;   /* glob-ish: "*kv_cache*", "k_cache", "past_key_value*" */
    const unsigned char *node_kinds;       /* the evaluator's node kind by symbol id (pytree.c) */
    uint32_t nnode_kinds;
} py_state;

/* Load <datadir>/grammars/python/sinks.tsv and add the project's user sinks. Never NULL. */
py_state *py_state_load(const char *datadir, const kv_project *project, diag_list *diags);
void py_state_free(py_state *st);
/* The sink a callee's dotted text names (last parts matched), or NULL. */
const py_sink *py_sink_for_call(const py_state *st, const char *callee);
const py_sink *py_sink_class(const py_state *st, const char *class_name);
/* Is name (one identifier) the name of a cache tensor: kv_cache, key_cache, k_buffer, ...? */
bool py_is_cache_name(const py_state *st, const char *name, size_t n);
/* Is the identifier part of any sink spelling (for the prefilter)? */
bool py_is_sink_word(const py_state *st, const char *name, size_t n);

/* ---- lexical layer (pylex.c) ---- */

/* Parse a Python int/float literal (underscores, 0x/0o/0b, exponents). False for complex or junk. */
bool py_parse_number(const char *s, size_t n, double *out);
/* What float("<s>") gives for a string literal's content, if that is a special value (an infinity or
 * a magnitude >= PY_SENTINEL_MAGNITUDE). */
bool py_float_string_special(const char *s, size_t n, double *out);

/* Integer families of names: "adapter", "expert", "position", "token", "slot", or NULL. */
const char *py_name_family(const char *name, size_t n);
/* The range names that bound a family, most specific first; NULL-terminated. add: bound offset. */
const char *const *py_family_bounds(const char *family, const double **adds);

/* Words of the vocabulary (shared by the evaluator and the prefilter, so that they cannot disagree). */
bool py_is_infinity_word(const char *s, size_t n);      /* inf, Inf, Infinity, infty, PINF, NINF */
bool py_is_decl_callee(const char *s, size_t n);        /* LLM, EngineArgs, AsyncEngineArgs, Engine, set_default_dtype */
bool py_is_cast_method(const char *s, size_t n);        /* to, half, bfloat16, float, double, type, type_as */
bool py_is_int_source(const char *s, size_t n);         /* arange, argmax, argmin, ... */
/* Words without which the evaluator never calls a value a tensor or gives it a dtype. */
bool py_is_tensor_word(const char *s, size_t n);

/* Module constants a file exports (found lexically: top-level `NAME = <literal>` lines). */
typedef struct py_export {
    const char *name;
    double value;
    bool sentinel;
    const char *text;
    uint32_t line, col;
} py_export;

typedef struct py_exports {
    const py_export *v;
    size_t n;
} py_exports;

const py_exports *py_index_source(const char *data, size_t len, kv_arena *arena);

/* ---- run-wide lookups over the indexes (pylink.c) ---- */

typedef struct py_module {
    const char *file;          /* the file name, "masks.py" */
    const char *path;
    const py_exports *exports;
} py_module;

typedef struct py_link {
    const py_module *modules;  /* sorted by (file, path) */
    size_t nmodules;
    const char *const *sentinels;  /* names of exported sentinels, sorted, distinct */
    size_t nsentinels;
} py_link;

/* Built once between the passes (frontend link()); read-only afterwards. */
const py_link *py_link_indexes(const fe_file_index *ix, size_t n, kv_arena *arena);
/* The files called `file` ("masks.py"), in path order; *count of them (0: NULL). l may be NULL. */
const py_module *py_link_modules(const py_link *l, const char *file, size_t *count);
/* Does some scanned file export a sentinel called s[0..n)? l may be NULL. */
bool py_link_is_sentinel(const py_link *l, const char *s, size_t n);

/* The sound prefilter: false only if analysing the file cannot produce any fact. st and ctx may be
 * NULL (then only the built-in vocabulary counts, and no cross-file constants). */
bool py_prefilter(const py_state *st, const fe_context *ctx, const char *data, size_t len);

/* Every `# kvlint: ignore[...]` comment of a file (frontend/suppress.h), into out->suppressions. */
void py_collect_suppressions(const char *data, size_t len, kv_arena *a, file_facts *out);

/* The evaluator's node kind (pyeval.h node_kind) of every symbol of tree-sitter-python, indexed by
 * symbol id, in a (*n entries); built once per run with the sink table (pytree.c). */
const unsigned char *py_node_kinds(kv_arena *a, uint32_t *n);

/* ---- analysis (pystmt.c; the evaluator's files share pyeval.h) ---- */

/* Parse and evaluate one file into out, without the prefilter. */
void py_analyze_file(const char *path, const char *data, size_t len, const fe_context *ctx, file_facts *out);

#endif
