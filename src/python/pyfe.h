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
 *   pysinks.c  the sink table (grammars/python/sinks.tsv plus .kvlint.yaml sinks), loaded once,
 *              and the matcher that binds a call to a sink's exact signature.
 *   pytorch_api.c  the torch API table (grammars/python/torch.tsv), loaded once with the sinks;
 *              the prefilter and the evaluator's torch model both read it.
 *   pyvalue.c  the abstract values the evaluator computes (value sets, intervals, steps;
 *              pyvalue.h).
 *   pyeval.h   the evaluator: flow-sensitive evaluation of one file, emitting facts, in files by
 *              concept: pytree.c (syntax tree access), pyscope.c (names, bindings, assignment),
 *              pytorch.c (the torch model), pyids.c (id classes), pystore.c (facts, sinks),
 *              pycall.c (calls, summaries), pyexpr.c (expressions), pystmt.c (statements, entry).
 *   frontend.c the frontend struct, init/fini, the analyze driver.
 */
#ifndef KV_PYFE_H
#define KV_PYFE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "project/project.h"
#include "facts/facts.h"
#include "facts/idvocab.h"
#include "frontend/frontend.h"
#include "python/pytorch_api.h"

/* A literal (or finfo/iinfo/inf spelling) whose magnitude is at least this is a sentinel. Arithmetic
 * keeps a value a sentinel but never makes one: `10**9` is an ordinary float. -10000.0 (the classic
 * BERT mask) is the smallest mask constant in common use, hence the threshold. */
#define PY_SENTINEL_MAGNITUDE KV_SENTINEL_MAGNITUDE

/* ---- sinks (pysinks.c) ----
 *
 * A sink is an exact signature (grammars/python/sinks.tsv): a call is a sink only when its
 * arguments bind to the sink's parameters as Python would bind them; the key and value are then
 * the arguments bound to the key and value parameters. The matcher sees no syntax tree: the
 * evaluator describes each call by its shape (py_call_shape). */

typedef enum py_sink_kind {
    PSK_CLASS,   /* instances are sinks when called: self.attn = Attention(...); self.attn(q, k, v) */
    PSK_CALL     /* a function or method called by this name: reshape_and_cache_flash(k, v, ...) */
} py_sink_kind;

typedef enum py_receiver {
    PSR_ANY,     /* name(...) or x.name(...) */
    PSR_OBJECT,  /* x.name(...) with x a value (not a module or class) */
    PSR_CACHE    /* x.name(...) with x named like a cache: past_key_values.update(k, v, i) */
} py_receiver;

typedef struct py_param {
    const char *name;
    bool optional;       /* has a default */
    bool keyword_only;   /* after `*` */
} py_param;

typedef struct py_sink {
    py_sink_kind kind;
    const char *name;
    py_receiver receiver;
    const char *package;          /* PSK_CLASS: the package an imported class must come from, or NULL */
    /* The signature. params == NULL for a .kvlint.yaml sink, which has no signature: its key and
     * value are found by key_pos/key_kw and value_pos/value_kw alone, whatever else is passed. */
    const py_param *params;
    size_t nparams;
    bool varargs, varkw;          /* `*` (extra positionals), `**` (any keyword) */
    int key_param, value_param;   /* index into params, -1 if none */
    int key_pos, value_pos;       /* positional indexes (user sinks), -1 if none */
    const char *key_kw, *value_kw;
    store_via via;
    kv_engine engine;             /* ENGINE_NONE: the table says "-" */
    const char *user_engine;      /* a .kvlint.yaml sink's engine kvlint does not model, or NULL */
    bool kv;                      /* the operands are not K and V but parts of one latent (MLA) */
    uint32_t line;                /* of its table line (0 for user sinks) */
} py_sink;

/* A cache-name pattern, split once at load: "*kv_cache*" is core "kv_cache", lead and trail. */
typedef struct py_pattern {
    const char *core;
    size_t n;
    bool lead, trail;    /* a leading / trailing `*` */
} py_pattern;

/* An identifier, with its length (the prefilter compares lengths first). */
typedef struct py_word {
    const char *s;
    size_t n;
} py_word;

typedef struct py_state {
    kv_arena *arena;
    pt_api *torch;                         /* grammars/python/torch.tsv (pytorch_api.h) */
    id_vocab *ids;                         /* grammars/ids.tsv: id classes, their names and bounds */
    struct dtype_strings *dstrings;        /* grammars/dtype_strings.tsv (facts/dtypestr.h) */
    ARENA_VEC(py_sink) sinks;
    ARENA_VEC(py_pattern) cache_names;     /* glob-ish: "*kv_cache*", "k_cache", "past_key_value*" */
    ARENA_VEC(py_word) sink_words;         /* last dotted parts of the sinks, without repeats */
    ARENA_VEC(py_word) cache_sink_words;   /* the same of the sinks called on a cache-named receiver */
    ARENA_VEC(const char *) kernels;       /* decorators of device kernels: "triton.jit", ... */
    const unsigned char *node_kinds;       /* the evaluator's node kind by symbol id (pytree.c) */
    uint32_t nnode_kinds;
    struct py_modcache *modcache;          /* parsed parts of imported modules (pymodcache.c) */
} py_state;

/* How a call is written. */
typedef enum py_call_form {
    PCF_NAME,    /* f(...) */
    PCF_VALUE,   /* x.f(...), x a value (self.pool, impl, past_key_values, a call result) */
    PCF_MODULE   /* m.f(...), m an imported module or class (ops, torch.ops._C_cache_ops, Pool) */
} py_call_form;

typedef struct py_call_shape {
    const char *callee;          /* dotted spelling, or an imported name's origin */
    py_call_form form;
    const char *recv;            /* the receiver's last identifier (x of a.x.f(...)), or NULL */
    size_t npos;                 /* positional arguments before any *args */
    const char *const *kw;       /* keyword argument names */
    size_t nkw;
    bool star;                   /* *args or **kwargs at the call: what else is passed is unknown */
} py_call_shape;

/* An argument of a call: its positional index or its keyword index (the other is -1); both -1
 * when the call does not pass it. */
typedef struct py_arg_ref {
    int pos, kw;
} py_arg_ref;

/* An empty state (no table read): for tests and for py_state_load. Never NULL. */
py_state *py_state_new(void);
/* Load <datadir>/grammars/python/sinks.tsv and add the project's user sinks. Never NULL. */
py_state *py_state_load(const char *datadir, const kv_project *project, diag_list *diags);
/* Add the lines of a sink table (the text of the file path) to st. A malformed line is skipped
 * with a warning at path:line saying what is wrong; the other lines still count. */
void py_sinks_read(py_state *st, const char *path, const char *text, size_t len, diag_list *diags);
void py_state_free(py_state *st);
/* The first call sink whose name, receiver and signature fit the call; its key and value
 * arguments in *key and *value. NULL if none: an unknown signature is no sink. */
const py_sink *py_sink_match(const py_state *st, const py_call_shape *c, py_arg_ref *key, py_arg_ref *value);
/* Bind a call to sink s's signature (c->callee, form and receiver are not looked at): false if it
 * does not fit. For the calls of class-sink instances. */
bool py_sink_bind(const py_sink *s, const py_call_shape *c, py_arg_ref *key, py_arg_ref *value);
/* The class sink a class's name or import origin ("vllm.model_executor.layers.attention.Attention")
 * names, or NULL: one imported from another package than the sink's is none. */
const py_sink *py_sink_class(const py_state *st, const char *class_name);
/* Is name (one identifier) the name of a cache tensor: kv_cache, key_cache, k_buffer, ...? */
bool py_is_cache_name(const py_state *st, const char *name, size_t n);
/* Does a decorator's spelling (or its origin: `jit` imported from triton is triton.jit) make its
 * function a device kernel whose body is not evaluated? */
bool py_is_kernel_decorator(const py_state *st, const char *spelling);
/* Is the identifier the last part of a sink call's or class's spelling (for the prefilter; cache
 * names are py_is_cache_name's)? */
bool py_is_sink_word(const py_state *st, const char *name, size_t n);
/* Is the identifier the method of a sink called on a cache-named receiver (`update` of
 * `past_key_values.update(k, v, i)`)? */
bool py_is_cache_sink_word(const py_state *st, const char *name, size_t n);

/* ---- lexical layer (pylex.c) ---- */

/* Parse a Python int/float literal (underscores, 0x/0o/0b, exponents). False for complex or junk. */
bool py_parse_number(const char *s, size_t n, double *out);
/* What float("<s>") gives for a string literal's content, if that is a special value (an infinity or
 * a magnitude >= PY_SENTINEL_MAGNITUDE). */
bool py_float_string_special(const char *s, size_t n, double *out);

/* The id class of an identifier ("adapter_ids": "adapter", "positions": "position"), or NULL: the
 * id vocabulary's (grammars/ids.tsv, st->ids). */
const char *py_name_id_class(const py_state *st, const char *name, size_t n);
/* Does the identifier name a tensor of integers (idvocab.h: id_vocab_name_integer)? */
bool py_name_integer(const py_state *st, const char *name, size_t n);

/* Words of the vocabulary (shared by the evaluator and the prefilter, so that they cannot disagree). */
bool py_is_infinity_word(const char *s, size_t n);      /* inf, Inf, Infinity, infty, PINF, NINF */
bool py_is_decl_callee(const char *s, size_t n);        /* LLM, EngineArgs, ..., set_default_dtype, Ray's LLMConfig */
/* The keywords of an engine call that declare something (kv_cache_dtype=, dtype=, max_model_len=,
 * ...), each with what it declares: read by pystore.c, and by the prefilter, which keeps a file with
 * a dtype-declaring callee (set_default_dtype aside, which takes its dtype by position) only if one
 * of them is spelled in it, as a word or as a string (a key of Ray's engine_kwargs dict). */
typedef struct py_decl_keyword { const char *kw; decl_key key; } py_decl_keyword;
const py_decl_keyword *py_decl_keywords(size_t *n);
bool py_is_decl_keyword(const char *s, size_t n);
/* From the torch API table (st->torch, grammars/python/torch.tsv); false for every word when st is NULL. */
bool py_is_cast_method(const py_state *st, const char *s, size_t n);   /* to, half, bfloat16, float, ... */
bool py_is_int_source(const py_state *st, const char *s, size_t n);    /* arange, argmax, argmin, ... */
/* Words without which the evaluator never calls a value a tensor or gives it a dtype. */
bool py_is_tensor_word(const py_state *st, const char *s, size_t n);

/* Module constants a file exports (found lexically: top-level `NAME = <literal>` lines). */
typedef struct py_export {
    const char *name;
    double value;
    bool sentinel;
    const char *text;
    uint32_t line, col;
} py_export;

typedef struct py_range {
    uint32_t start, end;   /* bytes [start, end) */
} py_range;

/* A top-level function or class a file defines (found lexically by pyindex.c: `def NAME(`, `async
 * def NAME(` or `class NAME` starting in column 0), which other files may import and call. The flags say what its text
 * can contribute to a caller's facts, for the caller's prefilter (words, not an analysis). */
typedef struct py_func_export {
    const char *name;
    uint32_t line;
    uint32_t start, end;   /* its bytes: `def` to the next line starting in column 0 */
    bool sentinel;  /* it (or a function or sentinel constant of its file that it names) spells a sentinel */
    bool cast;      /* reserved: the index has no torch table to tell cast methods (always false) */
    bool store;     /* its text (or that of a function of its file it calls) has a sink word: a
                     * caller's value passed in may be stored (the caller's prefilter counts it
                     * as one) */
    bool kernel;    /* decorated @triton.jit / @triton.autotune / @...jit: a kernel, not torch code */
    bool makes_function;  /* a function returning one it makes (`return lambda`, a nested def's
                           * name, a partial): with store, a factory whose product may store what
                           * a caller passes it later (`w = make_writer(); w(k, ...)`): its call
                           * is a lazy product (pymodule.c), run when the product gets a value */
    bool is_class;  /* a top-level `class NAME`: its methods are followed on objects a caller builds.
                     * A class never has the sentinel flag: one -inf in one of a large class's
                     * methods would make every importer a candidate; what a class makes of a
                     * caller's values still counts (store) */
    bool own_sentinel;  /* a class whose class-level statements or initialisers spell a sentinel
                         * (or name a sentinel constant or function of its file, or a member that
                         * does): its objects are built with the caller's arguments and every method
                         * is followed. Read by the evaluator only, never by the prefilter */
    uint8_t nsentinel_members;     /* a class's other members (methods) that spell one the same
                                    * way: followed on an object built with nothing that could
                                    * become a fact. Their names are py_exports.member_names[
                                    * sentinel_members_at ..] (in the padding: no byte more per
                                    * function). More than MAX_SENTINEL_MEMBERS: own_sentinel */
    uint16_t sentinel_members_at;
    const char *const *uses;  /* names it uses that its file imports with `from M import`, by their
                               * imported spelling, or same-file functions that do (at most 32; only
                               * if not already a sentinel). A class's are the imported names its
                               * text uses as values (not called, subscripted or annotated with,
                               * nor as a base; not if own_sentinel): py_link_class_follows */
    const char *const *use_modules;  /* for each use: the module M as written (".masks"), or NULL
                                      * for a function of the same file */
    size_t nuses;
    const char *const *calls; /* functions of the same file it calls (at most 16) */
    size_t ncalls;
} py_func_export;

typedef struct py_exports {
    const py_export *v;
    size_t n;
    const py_func_export *fn;   /* sorted by name, one entry per name (flags joined) */
    size_t nfn;
    const char *const *member_names;   /* the classes' sentinel_members, one run per class */
    size_t nmember_names;
    const py_range *prologue;   /* top-level imports, assignments and expressions (at most 64 runs) */
    size_t nprologue;
} py_exports;

/* st: the sink words, for the functions' store flags (NULL: none is flagged). */
const py_exports *py_index_source(const py_state *st, const char *data, size_t len, kv_arena *arena);
/* The top-level functions and the prologue of a file, into ex (pyindex.c). */
void py_index_functions(const py_state *st, const char *data, size_t len, kv_arena *arena, py_exports *ex);
/* The function name of ex, or NULL. */
const py_func_export *py_exported_function(const py_exports *ex, const char *name);
/* Is a call of member `method` of the exported class c worth following though the object was
 * built with nothing that could become a fact: c spells a sentinel where every member sees it
 * (own_sentinel), or that member does? */
bool py_class_member_spells(const py_exports *ex, const py_func_export *c, const char *method);

/* The files a file imports (any statement starting a line), as paths to try (frontend.h's imports;
 * pyimports.c). */
size_t py_imports(const char *data, size_t len, kv_arena *arena, const fe_import **out);
/* Whether the file calls an engine (LLM, EngineArgs, ...) with a declaring keyword written as a
 * literal (pylex.c): a deployment of the project, for a run on named files. */
bool py_declares_literal_deployment(const char *data, size_t len);

/* ---- run-wide lookups over the indexes (pylink.c) ---- */

typedef struct py_module {
    const char *file;          /* the file name, "masks.py" */
    const char *path;
    const py_exports *exports;
} py_module;

struct py_link_names;

typedef struct py_link {
    const py_module *modules;  /* sorted by (file, path) */
    size_t nmodules;
    const char *const *sentinels;  /* names of exported sentinels, sorted, distinct */
    size_t nsentinels;
    const struct py_link_names *fns;  /* functions and modules for imported calls (pylink.c) */
} py_link;

/* Built once between the passes (frontend link()); read-only afterwards. */
const py_link *py_link_indexes(const fe_file_index *ix, size_t n, kv_arena *arena);
/* The files called `file` ("masks.py"), in path order; *count of them (0: NULL). l may be NULL. */
const py_module *py_link_modules(const py_link *l, const char *file, size_t *count);
/* The scanned files a dotted module as written (`.consts`, `pkg.consts`) may be, by its last part
 * (consts.py): how a `from M import NAME` constant is bound (pyscope.c), and so what the prefilter
 * and the link pass must count. NULL (count 0) if none, or if the module has no last part. */
const py_module *py_link_modules_of(const py_link *l, const char *module, size_t *count);
/* Does one of py_link_modules_of(module) export name[0..n) as a sentinel constant? */
bool py_link_module_const_sentinel(const py_link *l, const char *module, const char *name, size_t n);
/* Does some scanned file export a sentinel called s[0..n)? l may be NULL. */
bool py_link_is_sentinel(const py_link *l, const char *s, size_t n);
/* Does some scanned file export a function called s[0..n) whose text spells a sentinel (itself,
 * or through the names it imports)? l may be NULL. */
bool py_link_is_sentinel_function(const py_link *l, const char *s, size_t n);
/* Does some scanned file export a function or class called s[0..n) whose text stores (its store
 * flag)? l may be NULL. */
bool py_link_is_store_function(const py_link *l, const char *s, size_t n);
/* Is a call on an object of the exported class c (file ix) worth following though the object was
 * built with nothing that could become a fact: member `method` (NULL: the construction) spells a
 * sentinel (py_class_member_spells), or the class names an imported constant that is a mask-like
 * sentinel of the module it comes from (then every member is followed)? */
bool py_link_class_follows(const py_link *l, const fe_file_index *ix, const py_func_export *c, const char *method);
/* Does function f of the indexed file ix spell a sentinel, counting the names it imports (a
 * sentinel constant or sentinel function of another file, through a bounded number of rounds)? */
bool py_link_function_sentinel(const py_link *l, const fe_file_index *ix, const py_func_export *f);
/* The indexed file a module names, as written in an import in file `importer`: `pkg.masks`,
 * `.masks`, `..pkg.masks` (a module file or a package's __init__.py). Absolute names match the
 * end of a path; among several matches the one sharing the longest directory prefix with the
 * importer wins (then the first by path). NULL if no scanned file is that module. */
const fe_file_index *py_link_module(const py_link *l, const char *importer, const char *module, size_t module_len);

/* The sound prefilter (pyprefilter.c): false only if analysing the file at path cannot produce any
 * fact. st and ctx may be NULL (then only the built-in vocabulary counts, and no cross-file
 * constants); path is the file's name as the index knows it (relative imports resolve from it). */
bool py_prefilter(const py_state *st, const fe_context *ctx, const char *path, const char *data, size_t len);
/* The flags a token raises in the prefilter; a file (or a part of it) may hold a fact only if the
 * flags of its tokens, joined, decide. */
enum {
    PF_DECISIVE = 1,   /* a sink word, a dtype declaration, a kvlint comment */
    PF_SENTINEL = 2,
    PF_CAST = 4,       /* a cast method after '.' */
    PF_INT = 8,        /* an integer source or an id name */
    PF_TENSOR = 16,    /* tensor context */
    PF_INF = 32,       /* an infinity (with PF_SENTINEL) */
    PF_MUL = 64,       /* a product a * b */
    PF_FIELD = 128,    /* a checkpoint field read (config.x) */
    PF_DTYPE = 256,    /* the word dtype */
    PF_UNBALANCED = 512, /* py_prefilter_units: the piece ends inside brackets (a syntax error) */
    PF_DECL = 1024,    /* a dtype-declaring callee (LLM, EngineArgs, ...; set_default_dtype is decisive) */
    PF_DECL_KW = 2048, /* a keyword such a call declares with (kv_cache_dtype, dtype, max_model_len, ...) */
    PF_JOINED = 0xffff & ~PF_UNBALANCED,   /* what a piece joins from the pieces it reaches (pyslice.c) */
};
bool py_prefilter_decides(uint16_t flags);

/* A piece of a file: a top-level statement (a definition with its decorators, a class, or anything
 * else: level 0); inside a top-level class, each statement of its body (level 1: a method, a
 * nested class, or a class-level statement), the level-0 piece being the class's header up to its
 * first member; inside an initialiser of such a class (PY_INIT_NAMES), each statement of its body
 * (level 2), the level-1 piece being the `def` line(s). */
typedef enum py_unit_kind { PY_UNIT_OTHER, PY_UNIT_DEF, PY_UNIT_CLASS } py_unit_kind;
typedef struct py_unit {
    uint32_t start, end;        /* bytes: level 0 from its first token, deeper from the start of
                                 * its first line, to the next piece's start */
    py_unit_kind kind;
    const char *name;           /* DEF/CLASS: its name, in the file's bytes (NULL if none) */
    uint32_t name_len;
    uint16_t flags;             /* PF_* of its own tokens */
    uint8_t level;              /* 0, 1 or 2 */
    uint32_t parent;            /* level 1: the class's header piece; level 2: the initialiser's */
} py_unit;
/* The file's pieces, in order and covering every byte, into *out (allocated in a); their count. */
size_t py_prefilter_units(const py_state *st, const fe_context *ctx, const char *path, const char *data, size_t len,
                          kv_arena *a, py_unit **out);
/* The methods that run before the others of their class and set its attributes (`self.x = ...`). */
enum { PY_MAX_INITS = 4 };
#define PY_INIT_NAMES { "__init__", "__post_init__", "setUpClass", "setUp" }
bool py_is_init_name(const char *s, size_t n);

/* Is s[0..n) a name the checkpoint config is reached through (config, hf_config, cfg, ...)? Its
 * numeric fields are symbolic values, resolved per deployment (pyconfig.c). */
bool py_is_config_name(const char *s, size_t n);
/* Is f[0..n) a field name such a config can hold as a number (not a dunder, not a dtype)? */
bool py_is_config_field(const char *f, size_t n);
/* How many bytes of the file py_analyze_file parses (pyslice.c): len, or what the slicing keeps. */
size_t py_slice_bytes(const py_state *st, const fe_context *ctx, const char *path, const char *data, size_t len);
/* A name (not an API word) that makes tensor context: `dtype`, *mask*, *Tensor*, an id class. */
bool py_is_tensor_name(const py_state *st, const char *s, size_t n);

/* Every `# kvlint: ignore[...]` comment of a file (frontend/suppress.h), into out->suppressions. */
void py_collect_suppressions(const char *data, size_t len, kv_arena *a, file_facts *out);

/* The evaluator's node kind (pyeval.h node_kind) of every symbol of tree-sitter-python, indexed by
 * symbol id, in a (*n entries); built once per run with the sink table (pytree.c). */
const unsigned char *py_node_kinds(kv_arena *a, uint32_t *n);

/* ---- analysis (pystmt.c; the evaluator's files share pyeval.h) ---- */

/* Deepest bracket nesting of a Python text (pynest.c), and the line where it is first reached.
 * Files nested deeper than py_bracket_limit() are not parsed: PY_MAX_BRACKET_DEPTH with a
 * tree-sitter core older than 0.20.8 (0.20.7 aborts on 65,533), SIZE_MAX (none) with a fixed one. */
enum { PY_MAX_BRACKET_DEPTH = 4096 };
size_t py_bracket_depth(const char *data, size_t len, uint32_t *line);
size_t py_bracket_limit(void);

/* Parse and evaluate one file into out, without the prefilter: only the parts that can hold a
 * fact (pyslice.c), or (_whole) all of it, as the test of the slicing's soundness does. */
void py_analyze_file(const char *path, const char *data, size_t len, const fe_context *ctx, file_facts *out);
void py_analyze_file_whole(const char *path, const char *data, size_t len, const fe_context *ctx, file_facts *out);

#endif
