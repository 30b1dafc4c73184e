/*
 * pyprefilter.c: the Python front end's prefilter: may analysing this file produce a fact?
 *
 * The prefilter is what makes a whole tree cheap: most Python files cannot hold a fact, and
 * deciding that needs one pass over the bytes instead of a parse. It is sound because every fact
 * the evaluator can emit needs a word the prefilter looks for, and both sides use the same word
 * lists (pylex.c, pytorch_api.c):
 *   store        a sink word (the sink table's calls and classes, .kvlint.yaml sinks), or a
 *                cache-tensor name (`kv_cache`, `k_buffer`, ...) where a write names it: its
 *                subscript as a target (`k_cache[i] = x`, `k[i], v[i] = ...`) or a call of a
 *                method that writes into it, after subscripts too (an in-place method of the torch
 *                API table, `kv_cache[0].copy_(x)`, or a cache sink's, `past_key_values.update(k,
 *                v, i)`), as pe_base_name reads a write's target (cache_token); the name alone
 *                (`kv_cache_dtype`, `is_quantized_kv_cache(...)`), a read (`s = self.kv_cache[0]`)
 *                or another method (`self.kv_cache_manager.free(r)`, `kv_cache.view(...)`) stores
 *                nothing
 *   construction a sentinel (a literal >= PY_SENTINEL_MAGNITUDE, an infinity word, finfo/iinfo,
 *                float("inf")-like strings, or a sentinel imported from another scanned file: see
 *                below) AND a known dtype: the keyword `dtype` or a cast method after '.'; or a
 *                checkpoint field read as pyconfig.c reads one (`config.x`, `getattr(cfg, ...)`,
 *                `config["x"]`, `config.get("x")`, never an import's module path, `from
 *                vllm.config.cache import X`: a number of any magnitude, never a sentinel of
 *                arithmetic or an id) AND a
 *                known dtype: the word `dtype` or a cast method (the only ways a tensor gets a
 *                known dtype in the torch model, so the only ways a field is built into one)
 *   arithmetic   a sentinel AND a tensor: a tensor word (py_is_tensor_word: a name the torch API
 *                table marks as tensor context (torch, F, np, where, masked_fill, new_full, ...),
 *                dtype, an integer source or id name, a *mask* or *Tensor* name), a cast
 *                method or `a @ b`; or an infinity of the file's own (a word, a string, 1e999)
 *                AND a product `a * b`: `(1 - keep) * -inf` is NaN wherever keep is 1, tensors
 *                or not (pyexpr.c zero_times_inf). Not sound for an infinity imported from
 *                another file into a product with no tensor word: the index does not say which
 *                exported sentinels are infinite, and counting them all keeps a third of the
 *                standard library (any imported constant >= 1e4 and any `*`)
 * A number token this lexer cannot read counts as a sentinel (Python reads `10000if` as 10000).
 *   int-cast     a cast method after '.' AND an integer source (arange, argmax, ... or an id name)
 *   dtype decl   set_default_dtype; or LLM / EngineArgs / AsyncEngineArgs / Engine / Ray's configs AND
 *                a keyword pystore.c reads of them (kv_cache_dtype, dtype, max_model_len, ...: pylex.c),
 *                as a word or a string (engine_kwargs={"kv_cache_dtype": ...}): `LLM(model)`, or
 *                `LLM(**kwargs)`, declares nothing pystore.c sees
 *   suppression  a comment mentioning kvlint
 * Words inside comments and strings do not count (the evaluator never looks there), except that
 * string literals are checked for what float() would make of them.
 *
 * A store in another file counts as a sink word of this one where this file reaches a function or
 * class of a scanned file whose text has a sink word (its index's store flag: a value passed in
 * may be stored there, and pymodule.c makes that store this file's fact), in the same ways as
 * sentinels below; a helper reaching the sink through a third file is not counted.
 * Sentinels from other files come in the ways the evaluator follows, and only those:
 *   `from M import NAME`   NAME is a sentinel constant of a file named like M's last part (as
 *                          pyscope.c binds it), or a function of the module file M resolves to
 *                          (pylink.c, as pymodule.c calls it) that spells a sentinel;
 *   `A.f` / `A.b.f`        A was bound by `import M [as A]` or `from P import A`, and the module the
 *                          dotted prefix names defines f, spelling a sentinel;
 *   a bare module alias    (passed on, assigned) whose module defines any such function.
 * The module names are read from the file's own import statements; a file with more imports than
 * the table holds falls back to matching any exported sentinel name (still sound, less tight).
 * The soundness is tested on the fixtures and the standard library (tests/unit/check_python.c).
 *
 * This file does not parse, and does not evaluate: it only answers "maybe" or "no".
 */
#include "python/pyfe.h"
#include "python/pylexer.h"
#include "util/hash.h"

#include <math.h>
#include <string.h>
#include <strings.h>

enum { MAX_ALIASES = 64, MAX_DOTTED = 200 };

typedef struct alias {
    const char *name;           /* the name bound in this file */
    size_t n;
    char module[MAX_DOTTED];    /* the module it names, dotted as written (".masks", "pkg.m") */
} alias;

/* The import statement being read, and the names the file's imports have bound. */
typedef struct imports {
    enum { IMP_NONE, IMP_IMPORT, IMP_FROM, IMP_NAMES } state;
    char mod[MAX_DOTTED];       /* IMP_FROM/IMP_NAMES: the module after `from` */
    char cur[MAX_DOTTED];       /* IMP_IMPORT: the dotted name being read */
    const char *name;           /* IMP_NAMES: the imported name being read */
    size_t name_n;
    const char *as;             /* its `as` alias */
    size_t as_n;
    bool want_alias;            /* `as` was read */
    bool after_dot;             /* a '.' was the last token of the dotted name */
    bool overflow;              /* a name or the table did not fit: be loose */
    alias v[MAX_ALIASES];
    size_t nv;
} imports;

static bool comment_mentions_kvlint(const char *s, size_t n)
{
    for (size_t i = 0; i + 6 <= n; i++)
        if ((s[i] | 0x20) == 'k' && strncasecmp(s + i, "kvlint", 6) == 0)
            return true;
    return false;
}

/* What another file's name brings (the loose rule, by name): PF_SENTINEL for any sentinel constant
 * or sentinel-spelling function exported under it, PF_DECISIVE for a function or class that stores. */
static uint16_t any_exported(const fe_context *ctx, const char *s, size_t n)
{
    if (!ctx)
        return 0;
    return (py_link_is_sentinel(ctx->link, s, n) || py_link_is_sentinel_function(ctx->link, s, n) ? PF_SENTINEL : 0)
           | (py_link_is_store_function(ctx->link, s, n) ? PF_DECISIVE : 0);
}

static bool append(char *buf, const char *s, size_t n)
{
    size_t l = strlen(buf);
    if (l + n + 1 > MAX_DOTTED)
        return false;
    memcpy(buf + l, s, n);
    buf[l + n] = '\0';
    return true;
}

static void bind(imports *im, const char *name, size_t n, const char *module, const char *suffix, size_t sn)
{
    if (im->nv == MAX_ALIASES) {
        im->overflow = true;
        return;
    }
    alias *a = &im->v[im->nv];
    a->name = name;
    a->n = n;
    a->module[0] = '\0';
    if (!append(a->module, module, strlen(module))) {
        im->overflow = true;
        return;
    }
    size_t ml = strlen(module);
    /* `from . import masks` names .masks, `from .pkg import masks` .pkg.masks (as pyscope.c) */
    if (suffix && ((ml && module[ml - 1] != '.' && !append(a->module, ".", 1)) || !append(a->module, suffix, sn))) {
        im->overflow = true;
        return;
    }
    im->nv++;
}

static const alias *find_alias(const imports *im, const char *s, size_t n)
{
    for (size_t i = im->nv; i-- > 0;)   /* the last binding wins */
        if (im->v[i].n == n && memcmp(im->v[i].name, s, n) == 0)
            return &im->v[i];
    return NULL;
}

/* What the module (dotted, as written in path's imports) brings through its function or class f
 * (any if f is NULL): PF_SENTINEL if it spells a sentinel, PF_DECISIVE if it stores (a value of
 * this file passed in may be stored there: pymodule.c carries that store into this file's facts). */
static uint16_t module_fn_flags(const fe_context *ctx, const char *path, const char *module, const char *f, size_t fn)
{
    if (!ctx || !ctx->link || !path)
        return 0;
    const fe_file_index *ix = py_link_module(ctx->link, path, module, strlen(module));
    const py_exports *ex = ix ? ix->exports : NULL;
    uint16_t got = 0;
    for (size_t k = 0; ex && k < ex->nfn && got != (PF_SENTINEL | PF_DECISIVE); k++) {
        const py_func_export *e = &ex->fn[k];
        if (f && !py_tok_is(f, fn, e->name))
            continue;
        if (py_link_function_sentinel(ctx->link, ix, e))
            got |= PF_SENTINEL;
        if (e->store && !e->kernel)
            got |= PF_DECISIVE;
    }
    return got;
}

/* What `from module import name` can bind: a sentinel, a function that makes one, one that stores. */
static uint16_t from_import_flags(const fe_context *ctx, const char *path, const char *module, const char *name, size_t n)
{
    if (!ctx || !ctx->link)
        return 0;
    uint16_t got = py_link_module_const_sentinel(ctx->link, module, name, n) ? PF_SENTINEL : 0;
    return got | module_fn_flags(ctx, path, module, name, n);
}

/* The end of one imported name (`a`, `a as b`, at ',' ')' or the end of the statement). */
static uint16_t end_name(imports *im, const fe_context *ctx, const char *path)
{
    uint16_t got = 0;
    if (im->state == IMP_IMPORT && im->cur[0]) {
        /* `import a.b as c` binds c to a.b; `import a.b` binds a to a */
        size_t first = strcspn(im->cur, ".");
        char top[MAX_DOTTED];
        memcpy(top, im->cur, first);
        top[first] = '\0';
        if (im->as)
            bind(im, im->as, im->as_n, im->cur, NULL, 0);
        else if (im->name)
            bind(im, im->name, im->name_n, top, NULL, 0);
    } else if (im->state == IMP_NAMES && im->name) {
        got |= from_import_flags(ctx, path, im->mod, im->name, im->name_n);
        const char *b = im->as ? im->as : im->name;
        bind(im, b, im->as ? im->as_n : im->name_n, im->mod, im->name, im->name_n);
    }
    im->cur[0] = '\0';
    im->name = im->as = NULL;
    im->name_n = im->as_n = 0;
    im->want_alias = im->after_dot = false;
    return got;
}

/* One token of an import statement: the flags of what it imports (end_name). */
static uint16_t import_token(imports *im, const fe_context *ctx, const char *path, lex_kind k, const char *w, size_t n)
{
    if (k == LEX_PUNCT && (*w == ',' || *w == ')'))
        return end_name(im, ctx, path);
    switch (im->state) {
    case IMP_IMPORT:
        if (k == LEX_WORD && py_tok_is(w, n, "as"))
            im->want_alias = true;
        else if (k == LEX_WORD && im->want_alias)
            im->as = w, im->as_n = n;
        else if (k == LEX_WORD && (!im->cur[0] || im->after_dot)) {
            if (!im->cur[0])
                im->name = w, im->name_n = n;   /* the top-level name `import a.b` binds */
            im->overflow |= !append(im->cur, w, n);
            im->after_dot = false;
        } else if (k == LEX_PUNCT && *w == '.') {
            im->overflow |= !append(im->cur, ".", 1);
            im->after_dot = true;
        }
        return 0;
    case IMP_FROM:
        if (k == LEX_WORD && py_tok_is(w, n, "import"))
            im->state = IMP_NAMES;
        else if (k == LEX_WORD || (k == LEX_PUNCT && *w == '.'))
            im->overflow |= !append(im->mod, w, n);
        return 0;
    case IMP_NAMES:
        if (k == LEX_WORD && py_tok_is(w, n, "as"))
            im->want_alias = true;
        else if (k == LEX_WORD && im->want_alias)
            im->as = w, im->as_n = n;
        else if (k == LEX_WORD)
            im->name = w, im->name_n = n;
        return 0;
    case IMP_NONE:
        return 0;
    }
    return 0;
}

/* A statement starts with w: is it an import? */
static void start_statement(imports *im, const char *w, size_t n)
{
    im->state = IMP_NONE;
    im->mod[0] = im->cur[0] = '\0';
    im->name = im->as = NULL;
    im->want_alias = im->after_dot = false;
    if (py_tok_is(w, n, "import"))
        im->state = IMP_IMPORT;
    else if (py_tok_is(w, n, "from"))
        im->state = IMP_FROM;
}

/* The dotted expression being read outside imports (`A.b.f`), to tell module attributes. */
typedef struct chain {
    char text[MAX_DOTTED];
    bool ok;                     /* text is the whole chain so far */
    const alias *bare;           /* the previous token was a module alias not yet followed by '.' */
} chain;

/* A word w after '.' (after_dot) or starting a chain: what it reaches (module_fn_flags). */
static uint16_t chain_word(chain *c, const imports *im, const fe_context *ctx, const char *path, const char *w,
                       size_t n, bool after_dot)
{
    uint16_t got = 0;
    if (!after_dot) {
        if (c->bare)   /* `return masks` then a word on the next line: the alias was used bare */
            got = module_fn_flags(ctx, path, c->bare->module, NULL, 0);
        c->text[0] = '\0';
        c->ok = append(c->text, w, n);
        c->bare = find_alias(im, w, n);
        return got;
    }
    if (c->ok && c->text[0]) {
        size_t first = strcspn(c->text, ".");
        const alias *a = find_alias(im, c->text, first);
        if (a) {
            char module[MAX_DOTTED];
            module[0] = '\0';
            if (append(module, a->module, strlen(a->module)) && append(module, c->text + first, strlen(c->text + first)))
                got = module_fn_flags(ctx, path, module, w, n);
            else
                got = any_exported(ctx, w, n);
        }
    }
    c->ok = c->ok && append(c->text, ".", 1) && append(c->text, w, n);
    return got;
}

/* Any token but a word: a module alias used bare (not `A.`) hands its module on. */
static uint16_t chain_other(chain *c, const fe_context *ctx, const char *path, lex_kind k, const char *t)
{
    const alias *bare = c->bare;
    c->bare = NULL;
    if (k == LEX_PUNCT && *t == '.')
        return 0;
    c->ok = false;
    return bare ? module_fn_flags(ctx, path, bare->module, NULL, 0) : 0;
}

/* What the vocabulary says about one word, computed once per distinct word of a file: the word
 * lists are scanned per call (sink words, id classes by segment), and identifiers repeat. */
enum {
    W_DECISIVE = 1,    /* a dtype declaration or a sink word: the file is analysed */
    W_SENTINEL = 2,    /* an infinity word, finfo, iinfo */
    W_CAST = 4,        /* a cast method (counts after '.') */
    W_INT = 8,         /* an integer source or an id name */
    W_TENSOR = 16,     /* tensor context */
    W_INF = 32,        /* an infinity word (with W_SENTINEL) */
    W_DTYPE = 64,      /* `dtype` (the keyword argument, x.dtype) */
    W_CACHE = 128,     /* a cache-tensor name: decisive before `[` or `.method(` with a W_WRITE method */
    W_WRITE = 256,     /* a method that writes into its receiver: in place (fill_, copy_), or a cache
                        * sink's (update of past_key_values.update) */
    W_DECL = 512,      /* a dtype-declaring callee other than set_default_dtype: with a W_DECL_KW */
    W_DECL_KW = 1024,  /* a keyword an engine call declares with */
};

enum { MEMO_SLOTS = 1024 };

typedef struct word_memo {
    const char *w;     /* NULL: empty slot */
    uint32_t n;
    uint16_t flags;
} word_memo;

static uint16_t word_flags(const py_state *st, const char *w, size_t n)
{
    uint16_t f = 0;
    if (py_tok_is(w, n, "set_default_dtype") || (st && py_is_sink_word(st, w, n)))
        f |= W_DECISIVE;   /* set_default_dtype(d) declares by position */
    else if (py_is_decl_callee(w, n))
        f |= W_DECL;       /* LLM(model): nothing is declared without a keyword pystore.c reads */
    if (py_is_decl_keyword(w, n))
        f |= W_DECL_KW;
    if (st && py_is_cache_name(st, w, n))
        f |= W_CACHE;
    if (py_is_infinity_word(w, n))
        f |= W_SENTINEL | W_INF;
    if (n == 5 && (memcmp(w, "finfo", 5) == 0 || memcmp(w, "iinfo", 5) == 0))
        f |= W_SENTINEL;
    if (n == 5 && memcmp(w, "dtype", 5) == 0)
        f |= W_DTYPE;
    pt_word pw = pt_word_of(st ? st->torch : NULL, w, n);
    if (pw.cast)
        f |= W_CAST;
    if (pw.int_source || py_name_id_class(st, w, n))
        f |= W_INT;
    if (pw.tensor_ctx || py_is_tensor_name(st, w, n))
        f |= W_TENSOR;
    if (pw.writes || (st && py_is_cache_sink_word(st, w, n)))
        f |= W_WRITE;
    return f;
}

static uint16_t memo_flags(word_memo *memo, const py_state *st, const char *w, size_t n)
{
    uint32_t h = kv_hash32(w, n);
    word_memo *m = &memo[h % MEMO_SLOTS];   /* direct-mapped: a collision recomputes */
    if (m->w && m->n == n && memcmp(m->w, w, n) == 0)
        return m->flags;
    *m = (word_memo){ w, (uint32_t)n, word_flags(st, w, n) };
    return m->flags;
}

/* The prefilter's reading of a file, token by token: the import table, the dotted chain being
 * read, the word memo and the bracket depth. pf_token says which flags a token raises. */
typedef struct pf_scan {
    const py_state *st;
    const fe_context *ctx;
    const char *path;
    word_memo memo[MEMO_SLOTS];
    imports im;
    chain ch;
    char prev;            /* previous punctuation, 0 after a word/number/string */
    uint32_t prev_line;   /* line of the previous token */
    int depth;            /* bracket depth */
    enum { CF_NONE, CF_OBJECT, CF_DOT, CF_FIELD, CF_GET, CF_SUBSCRIPT, CF_GETATTR, CF_GETATTR_PAREN } field;
    enum { CW_NONE, CW_NAME, CW_SUB, CW_CLOSED, CW_DOT, CW_METHOD } cache;
                          /* after a cache-tensor name: `name`, inside `name[`, after `name[...]`,
                           * `name.` (or `name[...].`), `name.method` */
    int cache_depth;      /* CW_SUB: the depth of its '[' */
    bool cache_target;    /* a `name[...]` read in this statement may be a target: a later `=` says */
    bool stmt_as;         /* the statement says `as` (`with f() as k_cache[0]:`) */
                          /* reading `config.x` (a field unless a call follows), `config.get(`,
                           * `config[`, or `getattr(config` */
} pf_scan;

static void pf_init(pf_scan *p, const py_state *st, const fe_context *ctx, const char *path)
{
    memset(p->memo, 0, sizeof p->memo);
    p->st = st;
    p->ctx = ctx;
    p->path = path;
    p->im.state = IMP_NONE;
    p->im.nv = 0;
    p->im.overflow = false;
    p->ch = (chain){ .ok = false };
    p->prev = 0;
    p->prev_line = 0;
    p->depth = 0;
    p->field = CF_NONE;
    p->cache = CW_NONE;
    p->cache_depth = 0;
    p->cache_target = p->stmt_as = false;
}

/* A cache-tensor name written into, as pe_write_into, pytorch.c apply_inplace and a cache sink's
 * receiver write (wf: the word's W_* flags): its subscript as a target (`k_cache[i] = x`,
 * `k_cache[i] += x`, `k[i], v[i] = ...`, `for k_cache[i] in`, `with ... as k_cache[i]`), or a call of
 * a method that writes into its receiver, after subscripts too (`kv_cache.copy_(x)`,
 * `kv_cache[0].fill_(v)`). A read (`conv_state = self.kv_cache[0]`, `f(kv_cache[i])`),
 * `kv_cache.view(...)` or `self.kv_cache_manager.free(r)` writes nothing (pe_base_name does not
 * look through a call). A subscript followed by anything else may be a target: the statement's
 * next `=` at bracket depth 0 (not `==`, `<=`), `in` or `as` decides. */
static bool cache_token(pf_scan *p, const lexer *lx, lex_kind k, uint16_t wf)
{
    char c = k == LEX_PUNCT ? *lx->tok : 0;
    bool store = p->cache == CW_METHOD && c == '(';
    switch (p->cache) {
    case CW_NAME:
    case CW_CLOSED:
        if (c == '[')
            p->cache = CW_SUB, p->cache_depth = p->depth;
        else if (c == '.')
            p->cache = CW_DOT;
        else
            p->cache_target |= p->cache == CW_CLOSED, p->cache = CW_NONE;
        break;
    case CW_SUB:
        if (c == ']' && p->depth == p->cache_depth + 1)
            p->cache = CW_CLOSED;
        break;
    case CW_DOT:
        p->cache = k == LEX_WORD && (wf & W_WRITE) ? CW_METHOD : CW_NONE;
        break;
    case CW_METHOD:
    case CW_NONE:
        p->cache = CW_NONE;
        break;
    }
    bool as = k == LEX_WORD && py_tok_is(lx->tok, lx->len, "as");
    if (p->cache_target && (p->stmt_as || as || (k == LEX_WORD && py_tok_is(lx->tok, lx->len, "in"))
                            || (c == '=' && p->depth == 0 && py_is_assign(lx->tok_line, lx->tok, lx->end))))
        store = true, p->cache_target = false;
    p->stmt_as |= as;
    return store;
}

/* A checkpoint field read as pyconfig.c reads one: `config.x` (x not a method called),
 * `hf_config.x`, `self.config.x`, `getattr(cfg, ...)`, `config["x"]`, `config.get("x", d)`: a
 * number of any magnitude, known per deployment. Returns whether the token before this one ended
 * one, or this one does. */
static bool field_token(pf_scan *p, lex_kind k, const char *w, size_t n)
{
    bool punct = k == LEX_PUNCT;
    bool field = (p->field == CF_FIELD && !(punct && *w == '('))
                 || p->field == CF_GET   /* config.get("x"), or config.get itself: a field "get" */
                 || (p->field == CF_SUBSCRIPT && k == LEX_STRING)
                 || (k == LEX_WORD && p->field == CF_GETATTR_PAREN && py_is_config_name(w, n));
    if (k == LEX_WORD && p->field == CF_DOT && py_tok_is(w, n, "get"))
        p->field = CF_GET;
    else if (k == LEX_WORD && p->field == CF_DOT && py_is_config_field(w, n))
        p->field = CF_FIELD;
    else if (k == LEX_WORD && py_is_config_name(w, n))
        p->field = CF_OBJECT;
    else if (punct && *w == '.' && p->field == CF_OBJECT)
        p->field = CF_DOT;
    else if (punct && *w == '[' && p->field == CF_OBJECT)
        p->field = CF_SUBSCRIPT;
    else if (k == LEX_WORD && py_tok_is(w, n, "getattr"))
        p->field = CF_GETATTR;
    else if (punct && *w == '(' && p->field == CF_GETATTR)
        p->field = CF_GETATTR_PAREN;
    else
        p->field = CF_NONE;
    return field;
}

bool py_prefilter_decides(uint16_t flags)
{
    return (flags & PF_DECISIVE) || ((flags & PF_CAST) && (flags & PF_INT)) || ((flags & PF_SENTINEL) && (flags & PF_TENSOR))
           || ((flags & PF_INF) && (flags & PF_MUL)) || ((flags & PF_FIELD) && (flags & (PF_DTYPE | PF_CAST)))
           || ((flags & PF_DECL) && (flags & PF_DECL_KW));
}

/* What ends with the statement before a new top-level one: the import being read, a module alias
 * used bare as the last token. */
static uint16_t pf_flush(pf_scan *p)
{
    uint16_t f = end_name(&p->im, p->ctx, p->path);
    if (p->ch.bare)
        f |= module_fn_flags(p->ctx, p->path, p->ch.bare->module, NULL, 0);
    p->ch.bare = NULL;
    if (p->field == CF_FIELD || p->field == CF_GET)
        f |= PF_FIELD;
    p->field = CF_NONE;
    return f;
}

static uint16_t pf_token(pf_scan *p, const lexer *lx, lex_kind k)
{
    if (k == LEX_COMMENT)   /* a comment does not change `prev` */
        return comment_mentions_kvlint(lx->tok, lx->len) ? PF_DECISIVE : 0;
    uint16_t f = 0;
    uint16_t got = 0;   /* from another file (imports, module aliases): a sentinel, a store */
    char before = p->prev;
    bool first_on_line = (lx->fresh_line || p->prev_line == 0) && p->depth == 0;
    p->prev_line = lx->line;
    if (first_on_line || (k == LEX_PUNCT && *lx->tok == ';')) {
        if (p->cache == CW_CLOSED)   /* `kv_cache[0]` ended its statement */
            p->cache = CW_NONE;
        p->cache_target = p->stmt_as = false;
        got |= end_name(&p->im, p->ctx, p->path);
        start_statement(&p->im, k == LEX_WORD ? lx->tok : "", k == LEX_WORD ? lx->len : 0);
    } else if (p->im.state != IMP_NONE) {
        got |= import_token(&p->im, p->ctx, p->path, k, lx->tok, lx->len);
    }
    if (k != LEX_WORD)
        got |= chain_other(&p->ch, p->ctx, p->path, k, lx->tok);
    if (p->im.state != IMP_NONE)   /* `from vllm.config.cache import X` names a module */
        p->field = CF_NONE;
    else if (field_token(p, k, lx->tok, lx->len))
        f |= PF_FIELD;
    uint16_t wf = k == LEX_WORD ? memo_flags(p->memo, p->st, lx->tok, lx->len) : 0;
    if (k != LEX_COMMENT && cache_token(p, lx, k, wf))
        f |= PF_DECISIVE;
    double v;
    switch (k) {
    case LEX_STRING:
        if (py_float_string_special(lx->tok, lx->len, &v))
            f |= PF_SENTINEL | (isinf(v) ? PF_INF : 0);
        if (py_is_decl_keyword(lx->tok, lx->len))   /* the string's body */
            f |= PF_DECL_KW;   /* engine_kwargs={"kv_cache_dtype": ...} */
        break;
    case LEX_NUMBER:
        /* a token this lexer cannot read (`10000if`, which Python reads as 10000 if) counts */
        if (!py_parse_number(lx->tok, lx->len, &v) || fabs(v) >= PY_SENTINEL_MAGNITUDE)
            f |= PF_SENTINEL | (isinf(v) || !py_parse_number(lx->tok, lx->len, &v) ? PF_INF : 0);
        break;
    case LEX_WORD: {
        const char *w = lx->tok;
        size_t n = lx->len;
        if ((wf & W_DECISIVE) && p->im.state != IMP_FROM && p->im.state != IMP_IMPORT)
            f |= PF_DECISIVE;   /* a module's path stores nothing (`from vllm.v1.kv_cache_utils import`) */
        if ((wf & W_DECL) && p->im.state != IMP_FROM && p->im.state != IMP_IMPORT)
            f |= PF_DECL;
        if (wf & W_DECL_KW)
            f |= PF_DECL_KW;
        if ((wf & W_CACHE) && p->im.state == IMP_NONE && p->cache != CW_SUB)   /* k_cache[kv_cache_idx] */
            p->cache = CW_NAME;
        if (wf & W_SENTINEL)
            f |= PF_SENTINEL | (wf & W_INF ? PF_INF : 0);
        if (p->im.overflow && (p->im.state == IMP_NAMES || p->prev == '.'))
            got |= any_exported(p->ctx, w, n);  /* too many imports to tell: any exported name counts */
        if (p->im.state == IMP_NONE)
            got |= chain_word(&p->ch, &p->im, p->ctx, p->path, w, n, p->prev == '.');
        if (p->prev == '.' && (wf & W_CAST))
            f |= PF_CAST | PF_TENSOR;
        if (wf & W_INT)
            f |= PF_INT;
        if (wf & W_DTYPE)
            f |= PF_DTYPE;
        if (wf & W_TENSOR)
            f |= PF_TENSOR;
        break;
    }
    case LEX_PUNCT:
        p->prev = *lx->tok;
        if (p->prev == '@' && !first_on_line)
            f |= PF_TENSOR;  /* a @ b (a decorator starts its line) */
        if (p->prev == '*' && (before == 0 || before == ')' || before == ']') && !first_on_line)
            f |= PF_MUL;     /* a product (not *args: that follows '(' or ',') */
        if (p->prev == '(' || p->prev == '[' || p->prev == '{')
            p->depth++;
        else if ((p->prev == ')' || p->prev == ']' || p->prev == '}') && p->depth > 0)
            p->depth--;
        return f | got;
    case LEX_COMMENT:
    case LEX_END:
        break;
    }
    p->prev = 0;
    return f | got;
}

static uint16_t pf_finish(pf_scan *p)
{
    uint16_t f = end_name(&p->im, p->ctx, p->path);
    f |= p->field == CF_FIELD || p->field == CF_GET ? PF_FIELD : 0;
    if (p->cache == CW_SUB)   /* `k_cache[` never closed: a syntax error, which may hide a store */
        f |= PF_DECISIVE;
    f |= chain_other(&p->ch, p->ctx, p->path, LEX_END, "");
    return f;
}

bool py_prefilter(const py_state *st, const fe_context *ctx, const char *path, const char *data, size_t len)
{
    pf_scan p;
    pf_init(&p, st, ctx, path);
    lexer lx;
    py_lex_init(&lx, data, len);
    uint16_t flags = 0;
    for (lex_kind k; (k = py_lex_next(&lx)) != LEX_END;) {
        flags |= pf_token(&p, &lx, k);
        if (py_prefilter_decides(flags))
            return true;
    }
    return py_prefilter_decides(flags | pf_finish(&p));
}

static bool word_at(const lexer *lx, lex_kind k, const char *lit)
{
    return k == LEX_WORD && py_tok_is(lx->tok, lx->len, lit);
}

bool py_is_init_name(const char *s, size_t n)
{
    static const char *const inits[PY_MAX_INITS] = PY_INIT_NAMES;
    for (size_t i = 0; i < PY_MAX_INITS; i++)
        if (py_tok_is(s, n, inits[i]))
            return true;
    return false;
}


typedef ARENA_VEC(py_unit) unit_list;

/* The pieces being cut (py_prefilter_units): where the current one sits in the nesting. */
typedef struct splitter {
    unit_list v;
    bool started;               /* a top-level statement was read */
    bool decorating;            /* the piece so far is decorators: a def or class joins it */
    bool want_name;             /* the next word names the piece's def or class */
    uint16_t carry;             /* flags for the next piece (a kvlint comment line above it) */
    bool in_class;              /* the top-level piece is a class */
    int member_col;             /* the column of its members; -1 until the first is read */
    uint32_t header;            /* the class's header piece */
    bool in_init;               /* the current member is an initialiser */
    int stmt_col;               /* the column of its statements; -1 until the first is read */
    uint32_t init;              /* the initialiser's header piece */
} splitter;

/* End the current piece at `at` and start one of this level there. */
static void new_piece(splitter *sp, pf_scan *p, kv_arena *a, uint32_t at, uint8_t level)
{
    py_unit *last = &sp->v.v[sp->v.n - 1];
    last->flags |= pf_flush(p) | (p->depth ? PF_UNBALANCED : 0);
    last->end = at;
    py_unit u = { .start = at, .kind = PY_UNIT_OTHER, .flags = sp->carry, .level = level,
                  .parent = level == 1 ? sp->header : level == 2 ? sp->init : 0 };
    ARENA_PUSH(a, sp->v, u);
    sp->carry = 0;
    sp->decorating = false;
}

/* A token that starts a statement at bracket depth 0 on a new line: does it start a piece? */
static void statement_start(splitter *sp, pf_scan *p, const lexer *lx, lex_kind k, const char *data, kv_arena *a)
{
    bool def = word_at(lx, k, "def") || word_at(lx, k, "async"), cls = word_at(lx, k, "class");
    bool at = k == LEX_PUNCT && *lx->tok == '@';
    bool join = sp->decorating && (at || def || cls);   /* a decorated definition is one piece */
    uint8_t level;
    if (lx->at_line_start) {
        level = 0;
        if (sp->started && !join)
            new_piece(sp, p, a, (uint32_t)(lx->tok - data), 0);
        sp->started = true;
        if (!join)
            sp->in_class = false, sp->in_init = false;
    } else if (sp->in_class && lx->fresh_line) {
        int col = py_lex_column(lx);
        if (sp->member_col < 0 && col > 0)
            sp->member_col = col;
        if (col == sp->member_col) {
            level = 1;
            if (!join)
                new_piece(sp, p, a, (uint32_t)(lx->tok_line - data), 1), sp->in_init = false;
        } else if (sp->in_init && col > sp->member_col && (sp->stmt_col < 0 || col == sp->stmt_col)) {
            level = 2;
            sp->stmt_col = col;
            if (!join)
                new_piece(sp, p, a, (uint32_t)(lx->tok_line - data), 2);
        } else {
            return;   /* a line inside the piece */
        }
    } else {
        return;
    }
    if (at)
        sp->decorating = true;
    if (def || cls) {
        py_unit *cur = &sp->v.v[sp->v.n - 1];
        cur->kind = def ? PY_UNIT_DEF : PY_UNIT_CLASS;
        sp->want_name = true;
        sp->decorating = false;
        if (level == 0 && cls) {
            sp->in_class = true;
            sp->member_col = -1;
            sp->header = (uint32_t)(sp->v.n - 1);
        }
    }
}

/* The word after `def` or `class` names the current piece; an initialiser of a class is split into
 * its statements. */
static void piece_name(splitter *sp, const lexer *lx, lex_kind k)
{
    if (!sp->want_name)
        return;
    sp->want_name = false;
    if (k != LEX_WORD)
        return;   /* `def (` : no name */
    if (word_at(lx, k, "def") || word_at(lx, k, "async") || word_at(lx, k, "class")) {
        sp->want_name = true;
        return;
    }
    py_unit *cur = &sp->v.v[sp->v.n - 1];
    cur->name = lx->tok;
    cur->name_len = (uint32_t)lx->len;
    if (cur->level == 1 && cur->kind == PY_UNIT_DEF && py_is_init_name(lx->tok, lx->len)) {
        sp->in_init = true;
        sp->stmt_col = -1;
        sp->init = (uint32_t)(sp->v.n - 1);
    }
}

/* The file cut into pieces (pyfe.h), each with the flags its own tokens raise: the same scan as
 * py_prefilter, so that the flags of all pieces together are the file's. A `kvlint` comment on a
 * line of its own also flags the next piece (a suppression there may be meant for the statement
 * below it). Members are read by their column: the first line of a class's body sets it. */
size_t py_prefilter_units(const py_state *st, const fe_context *ctx, const char *path, const char *data, size_t len,
                          kv_arena *a, py_unit **out)
{
    pf_scan p;
    pf_init(&p, st, ctx, path);
    lexer lx;
    py_lex_init(&lx, data, len);
    splitter sp;
    memset(&sp, 0, sizeof sp);
    ARENA_PUSH(a, sp.v, ((py_unit){ .kind = PY_UNIT_OTHER }));
    for (lex_kind k; (k = py_lex_next(&lx)) != LEX_END;) {
        if (k != LEX_COMMENT && p.depth == 0 && (lx.at_line_start || lx.fresh_line))
            statement_start(&sp, &p, &lx, k, data, a);
        uint16_t f = pf_token(&p, &lx, k);
        if (k == LEX_COMMENT && (f & PF_DECISIVE) && lx.fresh_line)
            sp.carry = PF_DECISIVE;
        sp.v.v[sp.v.n - 1].flags |= f;
        if (k != LEX_COMMENT)
            piece_name(&sp, &lx, k);
    }
    sp.v.v[sp.v.n - 1].flags |= pf_finish(&p) | sp.carry | (p.depth ? PF_UNBALANCED : 0);
    sp.v.v[sp.v.n - 1].end = (uint32_t)len;
    *out = sp.v.v;
    return sp.v.n;
}
