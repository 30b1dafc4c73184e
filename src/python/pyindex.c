/*
 * pyindex.c: the functions a Python file exports to the others, found without parsing (pyfe.h),
 * in the index pass that runs on every file before any analysis.
 *
 * Module constants (top-level `NAME = <literal>` lines) are read by pylex.c; this file adds the
 * top-level functions and classes: the extent of each `def NAME(` or `class NAME` block (up to the
 * next line that starts in column 0), whether its text spells a sentinel in the prefilter's own words, whether a decorator marks it a kernel
 * (@triton.jit), which names it uses that the file imports with `from M import`, and which
 * functions of the file it calls; a function naming a sentinel constant or sentinel function of
 * its own file spells a sentinel too (a bounded fixpoint). The prologue: byte ranges of the
 * top-level imports, assignments and expressions, which is what a loaded module evaluates
 * besides the function called (pymodule.c). The link pass (pylink.c) combines the indexes.
 *
 * It does not parse and never reads other files; everything is bounded per file.
 */
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include "python/pyfe.h"
#include "python/pylexer.h"
#include "util/strlist.h"
#include "util/hash.h"

/* ---- index: top-level functions ---- */

typedef struct fn_extent {
    py_func_export f;
    const char **members;      /* a class's sentinel_members (in scratch); f.nsentinel_members of them */
    size_t name_len;
    const char *start, *end;   /* the tokens of the block, `def` to the next column-0 line */
    const char *uses[32];      /* imported names it mentions (MAX_USES) */
    const char *use_modules[32];/* the module each comes from, NULL for a same-file function */
    size_t nuses;
    const char **calls;        /* names it calls as name(...) (at most MAX_CALLS, in scratch);
                                * after keep_file_calls, only the functions of its file */
    size_t ncalls, calls_cap;
    bool class_spells;         /* a class with a token member_sentinel_token counts */
    const char *nested[4];     /* names of the functions it defines inside (makes_function) */
    uint8_t nested_len[4], nnested;
    uint8_t after;             /* the token before: AFTER_DEF (a nested def's name next), AFTER_RETURN,
                                * AFTER_WORD / AFTER_ASSIGN (`name =`, a lambda next names one) */
    const char *last;          /* AFTER_WORD / AFTER_ASSIGN: that name */
    uint8_t last_len;
    const char *passed[8];     /* callees of partial(name, ...) it makes, in the file's bytes:
                                * calls if a function of the file has the name */
    uint8_t passed_len[8];
    size_t npassed;
} fn_extent;

typedef ARENA_VEC(fn_extent) fn_vec;

/* Names a file imports with `from M import a, b as c` at top level: a hash set of the local
 * names (b's local name is c) mapping to the imported ones, so that a function can say which
 * imported names it uses (the link pass then knows which of them are sentinels elsewhere). */
/* MAX_USES: a function of a model file names many imported layers and helpers before the constant
 * that makes it a sentinel's (8 dropped `from .consts import NEG` after nine imported helpers). */
/* MAX_CALLS: distinct names a function calls, builtins and imports included, before only its
 * file's functions are kept (16 dropped a helper's `_neg()` after twenty-one builtin calls, and the
 * module loaded for the helper then left `_neg` unparsed). */
enum { IMPORT_SLOTS = 512, MAX_USES = 32, MAX_CALLS = 1024 };

typedef struct import_set {
    const char *local[IMPORT_SLOTS];
    size_t local_len[IMPORT_SLOTS];
    const char *orig[IMPORT_SLOTS];
    const char *module[IMPORT_SLOTS];
    bool type[IMPORT_SLOTS];   /* called, subclassed or an annotation somewhere: no constant */
    uint16_t typed[IMPORT_SLOTS];   /* the slots with type set, ntyped of them */
    size_t n, ntyped;
} import_set;

static size_t import_slot(const import_set *im, const char *s, size_t n)
{
    size_t i = kv_hash32(s, n) % IMPORT_SLOTS;
    while (im->local[i] && !(im->local_len[i] == n && memcmp(im->local[i], s, n) == 0))
        i = (i + 1) % IMPORT_SLOTS;
    return i;
}

static void import_add(import_set *im, kv_arena *a, const char *local, size_t n, const char *orig, const char *module)
{
    if (im->n >= IMPORT_SLOTS / 2)
        return;  /* bounded: names past this are not followed through the link pass */
    size_t i = import_slot(im, local, n);
    if (!im->local[i])
        im->n++;
    im->local[i] = arena_strndup(a, local, n);
    im->local_len[i] = n;
    im->orig[i] = orig;
    im->module[i] = module;
}

/* Name n of the file's imports is called, a base class, an annotation or a decorator somewhere:
 * a callable or a type, no constant. */
static void import_mark_type(import_set *im, const char *s, size_t n)
{
    size_t i = im->n ? import_slot(im, s, n) : 0;
    if (im->n && im->local[i] && !im->type[i])
        im->type[i] = true, im->typed[im->ntyped++] = (uint16_t)i;
}

/* A class's uses are the imported constants its text names (py_link_class_follows): a name the
 * file uses as a callable or a type is none, so it is dropped. */
static void drop_type_uses(fn_vec *fns, const import_set *im)
{
    for (size_t i = 0; i < fns->n; i++) {
        fn_extent *c = &fns->v[i];
        size_t n = 0;
        for (size_t u = 0; c->f.is_class && u < c->nuses; u++) {
            bool type = false;
            for (size_t j = 0; j < im->ntyped && !type; j++)
                type = im->orig[im->typed[j]] == c->uses[u] && im->module[im->typed[j]] == c->use_modules[u];
            if (!type)
                c->uses[n] = c->uses[u], c->use_modules[n++] = c->use_modules[u];
        }
        if (c->f.is_class)
            c->nuses = n;
    }
}

static const char *import_find(const import_set *im, const char *s, size_t n, const char **module)
{
    if (im->n == 0)
        return NULL;
    size_t i = import_slot(im, s, n);
    *module = im->module[i];
    return im->local[i] ? im->orig[i] : NULL;
}

/* Record a use of orig from module (NULL: a function of the same file). The strings live in the
 * scratch arena for the whole index pass. */
static void fn_use(fn_extent *f, const char *orig, const char *module)
{
    for (size_t i = 0; i < f->nuses; i++)
        if (strcmp(f->uses[i], orig) == 0 && (f->use_modules[i] == module
                                               || (f->use_modules[i] && module && strcmp(f->use_modules[i], module) == 0)))
            return;
    if (f->nuses < MAX_USES) {
        f->use_modules[f->nuses] = module;
        f->uses[f->nuses++] = orig;
    }
}

/* A name the function calls, kept if it turns out to be a function of the same file. */
static void fn_call(fn_extent *f, const char *w, size_t n, kv_arena *a)
{
    for (size_t i = 0; i < f->ncalls; i++)
        if (strlen(f->calls[i]) == n && memcmp(f->calls[i], w, n) == 0)
            return;
    if (f->ncalls < MAX_CALLS) {
        f->calls = arena_grow(a, f->calls, &f->calls_cap, f->ncalls + 1, sizeof *f->calls);
        f->calls[f->ncalls++] = arena_strndup(a, w, n);
    }
}

/* Keep of each function's calls only the functions of its file (another of the same name for
 * its own), so that the passes over calls below look at a few names, not every builtin. */
static void keep_file_calls(fn_vec *fns, kv_arena *a)
{
    size_t cap = 16;
    while (cap < 2 * fns->n)
        cap *= 2;
    typedef struct { const char *name; size_t len; uint32_t count; } slot_t;
    slot_t *t = arena_zalloc(a, cap * sizeof *t);
    for (size_t i = 0; i < fns->n; i++) {
        const fn_extent *f = &fns->v[i];
        size_t h = kv_hash32(f->f.name, f->name_len) & (cap - 1);
        while (t[h].name && !(t[h].len == f->name_len && memcmp(t[h].name, f->f.name, f->name_len) == 0))
            h = (h + 1) & (cap - 1);
        t[h] = (slot_t){ f->f.name, f->name_len, t[h].count + 1 };
    }
    for (size_t i = 0; i < fns->n; i++) {
        fn_extent *f = &fns->v[i];
        size_t kept = 0;
        for (size_t c = 0; c < f->ncalls; c++) {
            size_t n = strlen(f->calls[c]), h = kv_hash32(f->calls[c], n) & (cap - 1);
            while (t[h].name && !(t[h].len == n && memcmp(t[h].name, f->calls[c], n) == 0))
                h = (h + 1) & (cap - 1);
            bool own = n == f->name_len && memcmp(f->calls[c], f->f.name, n) == 0;
            if (t[h].name && (!own || t[h].count > 1))
                f->calls[kept++] = f->calls[c];
        }
        f->ncalls = kept;
    }
}

/* A name f passes on (not copied: the file's bytes live through the index pass). */
static void fn_passed(fn_extent *f, const char *w, size_t n)
{
    for (size_t i = 0; i < f->npassed; i++)
        if (f->passed_len[i] == n && memcmp(f->passed[i], w, n) == 0)
            return;
    if (f->npassed < sizeof f->passed / sizeof *f->passed && n < 256)
        f->passed[f->npassed] = w, f->passed_len[f->npassed++] = (uint8_t)n;
}

/* A function making partial(name, ...) of a function of its file may have it run (the partial it
 * returns, called by another file): those names are its calls too (the module loaded for it
 * parses them). Any name passed on would be more, and cost the vLLM tree 2 MB of parsed pieces. */
static void passed_to_calls(fn_vec *fns, kv_arena *a)
{
    for (size_t i = 0; i < fns->n; i++)
        for (size_t p = 0; p < fns->v[i].npassed; p++)
            for (size_t j = 0; j < fns->n; j++)
                if (j != i && fns->v[j].name_len == fns->v[i].passed_len[p]
                    && memcmp(fns->v[j].f.name, fns->v[i].passed[p], fns->v[j].name_len) == 0) {
                    fn_call(&fns->v[i], fns->v[i].passed[p], fns->v[i].passed_len[p], a);
                    break;
                }
}

/* Inside `from M import ...`: the names, `as` aliases, up to the end of the statement. */
typedef enum from_phase {
    FROM_NONE,               /* not in a from-import */
    FROM_MODULE,             /* after `from`: reading M */
    FROM_NAMES               /* after `import`: reading the names */
} from_phase;

typedef struct from_state {
    from_phase phase;
    const char *last;        /* the previous imported name */
    size_t last_len;
    bool alias_next;
    char mod[200];           /* M as written, dots included ("" if it did not fit) */
    bool mod_overflow;
    const char *module;      /* mod in the scratch arena, once `import` is read */
} from_state;

/* One token of M in `from M import` (a word or a '.'). */
static void from_module_token(from_state *fs, const char *w, size_t n)
{
    size_t l = strlen(fs->mod);
    if (l + n + 1 > sizeof fs->mod) {
        fs->mod_overflow = true;
        return;
    }
    memcpy(fs->mod + l, w, n);
    fs->mod[l + n] = '\0';
}

static void from_word(from_state *fs, import_set *im, kv_arena *a, const char *w, size_t n)
{
    if (fs->phase == FROM_MODULE) {
        if (n == 6 && memcmp(w, "import", 6) == 0) {
            fs->phase = FROM_NAMES;
            fs->module = fs->mod_overflow ? NULL : arena_strdup(a, fs->mod);
        } else {
            from_module_token(fs, w, n);
        }
        return;
    }
    if (!fs->module)
        return;  /* a module name too long to follow */
    if (n == 2 && memcmp(w, "as", 2) == 0) {
        fs->alias_next = true;
        return;
    }
    if (fs->alias_next && fs->last) {
        import_add(im, a, w, n, arena_strndup(a, fs->last, fs->last_len), fs->module);
        fs->alias_next = false;
        return;
    }
    import_add(im, a, w, n, arena_strndup(a, w, n), fs->module);
    fs->last = w;
    fs->last_len = n;
}

/* @triton.jit, @triton.autotune, @triton.heuristics, @numba.jit: the function is a kernel whose
 * body holds registers, not torch tensors (the evaluator does not follow a call into it). */
static bool kernel_decorator_word(const char *s, size_t n)
{
    static const char *const w[] = { "jit", "autotune", "heuristics", "njit", NULL };
    return mem_in_list(w, s, n);
}

/* Does a top-level statement starting with this token belong to the prologue a module needs
 * to evaluate one of its functions: imports, assignments, plain expressions (not definitions,
 * decorators, compound statements, docstrings)? */
static bool prologue_statement(lex_kind k, const char *s, size_t n)
{
    static const char *const skip[] = { "def", "async", "class", "if", "elif", "else", "for", "while", "with",
                                        "try", "except", "finally", "match", NULL };
    return k == LEX_WORD && !mem_in_list(skip, s, n);
}

typedef ARENA_VEC(py_range) range_vec;

static void prologue_add(range_vec *v, kv_arena *a, uint32_t start, uint32_t end)
{
    enum { MAX_PROLOGUE = 64 };
    if (v->n && v->v[v->n - 1].end == start) {
        v->v[v->n - 1].end = end;
        return;
    }
    if (v->n < MAX_PROLOGUE)
        ARENA_PUSH(a, *v, ((py_range){ start, end }));
}

/* A token of a member that spells a mask-like sentinel: an infinity, finfo/iinfo, a float string
 * float() reads as special, a number of magnitude >= PY_SENTINEL_MAGNITUDE written negative or as
 * a float (-10000, -1e9, 1e30, 65504.0). A positive integer literal (16384, 65536) is read as a
 * size here: config classes are full of them, and following each for one cost 5-10% of the vLLM tree
 * (a function's flag, read by the prefilter too, counts it: py_token_is_sentinel). */
static bool member_sentinel_token(lex_kind k, const char *s, size_t n, bool after_minus)
{
    double v;
    if (k != LEX_NUMBER)
        return py_token_is_sentinel(k, s, n);
    if (!py_parse_number(s, n, &v))
        return true;
    bool hex = n > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    bool float_spelt = !hex && (memchr(s, '.', n) || memchr(s, 'e', n) || memchr(s, 'E', n));
    return fabs(v) >= PY_SENTINEL_MAGNITUDE && (after_minus || float_spelt);
}

/* An imported name a function mentions, waiting for the next token: `name.attr` uses attr of the
 * module name is (when name is one), anything else uses name itself. */
/* Where a token of a top-level block is: in its header (`class X(Base):`, `def f(x: T) -> U:`)
 * or its body. */
typedef enum block_header { NO_HEADER, CLASS_HEADER, DEF_HEADER } block_header;

typedef struct pending_use {
    const char *orig, *module;
    bool dot;   /* the '.' after it was read */
    bool type;  /* a base class (in a class header), an annotation (after ':' or '->' in a def
                 * header), a decorator (after '@') */
} pending_use;

/* The imported name just read is used bare (called, passed on, assigned) by function f; in a class
 * only as a value (not called or subscripted: call_next, no base class or annotation: its uses are
 * the constants it names). */
static void use_pending(fn_extent *f, pending_use *p, bool call_next)
{
    if (p->orig && f && !(f->f.is_class && (p->type || call_next)))
        fn_use(f, p->orig, p->module);
    p->orig = NULL;
}

enum { AFTER_NONE, AFTER_DEF, AFTER_RETURN, AFTER_WORD, AFTER_ASSIGN };

static void add_nested(fn_extent *cur, const char *w, size_t n)
{
    if (cur->nnested < 4 && n < 256)
        cur->nested[cur->nnested] = w, cur->nested_len[cur->nnested++] = (uint8_t)n;
}

/* makes_function: the function returns one it makes, `return lambda ...`, `return NAME` of a
 * def nested in it or of a name assigned a lambda, `return partial(...)` /
 * `functools.partial(...)` (the first of a returned tuple too). Lexical, not a class's. */
static void returned_function(fn_extent *cur, lex_kind k, const char *w, size_t n)
{
    uint8_t after = cur->after;
    cur->after = AFTER_NONE;
    if (cur->f.is_class)
        return;
    if (k == LEX_PUNCT && *w == '=' && n == 1 && after == AFTER_WORD)
        cur->after = AFTER_ASSIGN;
    if (k != LEX_WORD)
        return;
    if (after == AFTER_ASSIGN && py_tok_is(w, n, "lambda")) {
        add_nested(cur, cur->last, cur->last_len);
    } else if (after == AFTER_DEF) {
        add_nested(cur, w, n);
    } else if (after == AFTER_RETURN) {
        bool made = py_tok_is(w, n, "lambda") || py_tok_is(w, n, "partial") || py_tok_is(w, n, "functools");
        for (uint8_t i = 0; i < cur->nnested && !made; i++)
            made = cur->nested_len[i] == n && memcmp(cur->nested[i], w, n) == 0;
        cur->f.makes_function |= made;
    }
    cur->after = py_tok_is(w, n, "def") ? AFTER_DEF : py_tok_is(w, n, "return") ? AFTER_RETURN
               : n < 256 ? AFTER_WORD : AFTER_NONE;
    cur->last = w, cur->last_len = (uint8_t)(n < 256 ? n : 0);
}

/* A token of a top-level block (cur) after the first: its flags, and the imported names it uses
 * (`name`, `name.attr`; in a class decided by the next token, pending). */
static void block_token(const py_state *st, const lexer *lx, lex_kind k, char prev, block_header *hp,
                        import_set *im, kv_arena *scratch, fn_extent *cur, pending_use *pending)
{
    if (k == LEX_WORD && lx->len == 3 && memcmp(lx->tok, "def", 3) == 0)
        *hp = DEF_HEADER;   /* a method's (or a nested function's) header, up to its ':' */
    block_header header = *hp;
    cur->f.sentinel |= !cur->f.is_class && py_token_is_sentinel(k, lx->tok, lx->len);
    cur->class_spells |= cur->f.is_class && member_sentinel_token(k, lx->tok, lx->len, prev == '-');
    cur->f.store |= k == LEX_WORD && py_is_sink_word(st, lx->tok, lx->len);
    returned_function(cur, k, lx->tok, lx->len);
    if (pending->orig && k == LEX_WORD && prev == '.' && pending->dot) {
        /* masks.make_mask: the use is make_mask of the module `from M import masks` names */
        size_t ml = pending->module ? strlen(pending->module) : 0;
        const char *sub = pending->module ? arena_printf(scratch, "%s%s%s", pending->module,
                                                         ml && pending->module[ml - 1] == '.' ? "" : ".", pending->orig)
                                          : NULL;
        const char *attr = arena_strndup(scratch, lx->tok, lx->len);
        if (cur->f.is_class)   /* decided by the next token, as a bare name is */
            *pending = (pending_use){ attr, sub, false, pending->type || header == CLASS_HEADER };
        else
            fn_use(cur, attr, sub), pending->orig = NULL;
        return;
    }
    const char *module = NULL;
    const char *orig = k == LEX_WORD && prev != '.' ? import_find(im, lx->tok, lx->len, &module) : NULL;
    /* a base, a parameter or return annotation (`x: T`, `-> T`), a decorator: a comparison, a
     * dict value or a slice (`a > X`, `{"k": X}`, `x[:X]`) is none */
    bool type = header == CLASS_HEADER || (header == DEF_HEADER && (prev == ':' || prev == '>'))
                || (!lx->fresh_line && prev == '@');
    if (orig && type)
        import_mark_type(im, lx->tok, lx->len);
    if (orig)
        *pending = (pending_use){ orig, module, false, type };
}

/* `partial(name, ...)` (functools.partial, or partial as imported): name is its callee. */
typedef struct partial_track {
    bool word;     /* the token is the word partial */
    bool paren;    /* the token is the '(' after it */
    bool target;   /* the token is the word after that '(' (up to the punctuation after it) */
} partial_track;

static void track_partial(partial_track *t, lex_kind k, const char *tok, size_t n)
{
    if (k == LEX_PUNCT) {
        t->paren = *tok == '(' && t->word;
        t->word = t->target = false;
        return;
    }
    t->target = t->paren && k == LEX_WORD;
    t->paren = false;
    t->word = k == LEX_WORD && n == 7 && memcmp(tok, "partial", 7) == 0;
}

/* A word (not after '.') followed by punctuation p: `name(` calls name (maybe a function of this
 * file; an imported one is a callable), and the callee of a partial (target) runs for it too. */
static void word_then_punct(import_set *im, fn_extent *cur, const char *word, size_t n, bool target, char p,
                            kv_arena *a)
{
    if (word && p == '(')
        import_mark_type(im, word, n);
    if (word && cur && p == '(')
        fn_call(cur, word, n, a);
    else if (word && cur && target && (p == ',' || p == ')'))
        fn_passed(cur, word, n);
}

/* The top-level functions of a file with the flags of their own text and the imported names they
 * use, and the byte ranges of its prologue statements. */
static void lex_functions(const py_state *st, const char *data, size_t len, kv_arena *scratch, fn_vec *out,
                          range_vec *prologue)
{
    lexer lx;
    py_lex_init(&lx, data, len);
    int depth = 0;
    char prev = 0;
    fn_extent *cur = NULL;
    import_set *im = arena_zalloc(scratch, sizeof *im);
    from_state fs = { 0 };
    const char *word = NULL;  /* the previous token, if a word not after '.' */
    size_t word_len = 0;
    partial_track pt = { false, false, false };
    const char *stmt = NULL;  /* the prologue statement being read */
    pending_use pending = { NULL, NULL, false, false };  /* an imported name just read, maybe `name.attr` */
    block_header header = NO_HEADER;   /* from `class` or `def` to its `:` */
    bool decorating = false, jit = false;  /* in a column-0 decorator; one of them names a kernel compiler */
    for (lex_kind k; (k = py_lex_next(&lx)) != LEX_END;) {
        if (k == LEX_COMMENT)
            continue;
        if (lx.at_line_start && depth == 0) {
            use_pending(cur, &pending, false);   /* the block's last token: its use, not the next block's */
            if (cur)
                cur->end = lx.tok;
            cur = NULL;
            bool at = k == LEX_PUNCT && *lx.tok == '@';
            if (!at && !(k == LEX_WORD && ((lx.len == 3 && memcmp(lx.tok, "def", 3) == 0)
                                           || (lx.len == 5 && memcmp(lx.tok, "async", 5) == 0))))
                jit = false;
            decorating = at;
            if (stmt)
                prologue_add(prologue, scratch, (uint32_t)(stmt - data), (uint32_t)(lx.tok - data));
            stmt = prologue_statement(k, lx.tok, lx.len) ? lx.tok : NULL;
            memset(&fs, 0, sizeof fs);
            if (k == LEX_WORD && lx.len == 4 && memcmp(lx.tok, "from", 4) == 0) {
                fs.phase = FROM_MODULE;
                continue;
            }
        }
        if (pending.orig && cur && !(k == LEX_PUNCT && *lx.tok == '.' && !pending.dot)
            && !(k == LEX_WORD && prev == '.' && pending.dot))
            use_pending(cur, &pending, k == LEX_PUNCT && (*lx.tok == '(' || *lx.tok == '['));
        if (k == LEX_PUNCT && *lx.tok == '.' && pending.orig)
            pending.dot = true;
        if (k == LEX_PUNCT) {
            prev = *lx.tok;
            if (cur)
                returned_function(cur, k, lx.tok, lx.len);   /* `name = lambda` */
            word_then_punct(im, cur, word, word_len, pt.target, prev, scratch);
            track_partial(&pt, k, lx.tok, lx.len);
            header = prev == ':' && depth == 0 ? NO_HEADER : header;
            word = NULL;
            if (strchr("([{", prev))
                depth++;
            else if (strchr(")]}", prev) && depth > 0)
                depth--;
            else if (prev == ';')
                memset(&fs, 0, sizeof fs);
            else if (prev == '.' && fs.phase == FROM_MODULE)
                from_module_token(&fs, lx.tok, 1);   /* `from .pkg import`, `from a.b import` */
            continue;
        }
        word = k == LEX_WORD && prev != '.' ? lx.tok : NULL;
        track_partial(&pt, k, lx.tok, lx.len);
        word_len = lx.len;
        if (decorating && k == LEX_WORD && kernel_decorator_word(lx.tok, lx.len))
            jit = true;
        if (fs.phase != FROM_NONE && k == LEX_WORD) {
            from_word(&fs, im, scratch, lx.tok, lx.len);
            continue;
        }
        bool class_here = k == LEX_WORD && lx.at_line_start && depth == 0 && lx.len == 5
                          && memcmp(lx.tok, "class", 5) == 0;
        bool def_here = k == LEX_WORD && lx.at_line_start && depth == 0
                        && ((lx.len == 3 && memcmp(lx.tok, "def", 3) == 0) || (lx.len == 5 && memcmp(lx.tok, "async", 5) == 0));
        if (def_here || class_here) {
            const char *start = lx.tok;
            uint32_t line = lx.line;
            if (def_here && lx.len == 5 && (py_lex_next(&lx) != LEX_WORD || lx.len != 3 || memcmp(lx.tok, "def", 3) != 0))
                continue;
            if (py_lex_next(&lx) != LEX_WORD)
                continue;
            fn_extent fe = { .f = { .name = arena_strndup(scratch, lx.tok, lx.len), .line = line, .kernel = jit && def_here,
                                    .is_class = class_here }, .name_len = lx.len, .start = start, .end = data + len };
            ARENA_PUSH(scratch, *out, fe);
            cur = &out->v[out->n - 1];
            header = class_here ? CLASS_HEADER : DEF_HEADER;
            prev = 0;
            jit = false;
            continue;
        }
        if (cur) {
            cur->f.start = (uint32_t)(cur->start - data);
            block_token(st, &lx, k, prev, &header, im, scratch, cur, &pending);
        }
        prev = 0;
    }
    use_pending(cur, &pending, false);
    drop_type_uses(out, im);
    passed_to_calls(out, scratch);
    keep_file_calls(out, scratch);
    if (stmt)
        prologue_add(prologue, scratch, (uint32_t)(stmt - data), (uint32_t)len);
}

static bool names_in(const char *s, size_t n, const char *const *names, const size_t *lens, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (lens[i] == n && memcmp(names[i], s, n) == 0)
            return true;
    return false;
}

typedef struct name_list {
    const char **names;
    size_t *lens;
    size_t count;
} name_list;

/* The file's sentinel constants and the functions flagged so far. */
static name_list sentinel_names(const fn_vec *fns, const py_export *consts, size_t nconsts, kv_arena *scratch)
{
    size_t cap = nconsts + fns->n;
    name_list l = { arena_alloc(scratch, (cap ? cap : 1) * sizeof *l.names),
                    arena_alloc(scratch, (cap ? cap : 1) * sizeof *l.lens), 0 };
    for (size_t i = 0; i < nconsts; i++)
        if (consts[i].sentinel)
            l.names[l.count] = consts[i].name, l.lens[l.count++] = strlen(consts[i].name);
    for (size_t i = 0; i < fns->n; i++)
        if (fns->v[i].f.sentinel)
            l.names[l.count] = fns->v[i].f.name, l.lens[l.count++] = fns->v[i].name_len;
    return l;
}

/* A function that names a sentinel constant or a sentinel function of its own file spells a
 * sentinel too. Each round re-reads only the functions not yet flagged; a few rounds cover the
 * helper chains that occur (a longer chain stays unflagged: bounded, never wrong, only less sound). */
static void propagate_sentinels(fn_vec *fns, const py_export *consts, size_t nconsts, kv_arena *scratch)
{
    enum { ROUNDS = 3 };
    for (int round = 0; round < ROUNDS; round++) {
        name_list l = sentinel_names(fns, consts, nconsts, scratch);
        if (l.count == 0)
            return;
        bool changed = false;
        for (size_t i = 0; i < fns->n; i++) {
            fn_extent *f = &fns->v[i];
            if (f->f.sentinel || f->f.is_class)
                continue;
            lexer lx;
            py_lex_init(&lx, f->start, (size_t)(f->end - f->start));
            for (lex_kind k; !f->f.sentinel && (k = py_lex_next(&lx)) != LEX_END;)
                if (k == LEX_WORD && names_in(lx.tok, lx.len, l.names, l.lens, l.count))
                    f->f.sentinel = changed = true;
        }
        if (!changed)
            return;
    }
}

/* ---- classes: which members spell a sentinel ---- */

enum { MAX_SENTINEL_MEMBERS = 16, MAX_MEMBERS = 256, MEMBER_ROUNDS = 3 };

typedef struct member {
    const char *name;            /* NULL: class-level statements (and decorators) */
    size_t name_len;
    const char *start, *end;
    bool init, spells;
} member;

typedef ARENA_VEC(member) member_vec;

/* The members of a class's block: a statement at the body's indentation opens one (a `def` its
 * method, anything else the class level); what is indented deeper belongs to it. Each records
 * whether its text spells a sentinel or names one of the file's sentinels (names). */
static void class_members(const fn_extent *c, const char *const *names, const size_t *lens, size_t count,
                          kv_arena *a, member_vec *out)
{
    lexer lx;
    py_lex_init(&lx, c->start, (size_t)(c->end - c->start));
    int depth = 0, body_col = -1;
    bool header = true, want_name = false, minus = false;
    member *cur = NULL;
    for (lex_kind k; (k = py_lex_next(&lx)) != LEX_END;) {
        if (k == LEX_COMMENT)
            continue;
        bool word = k == LEX_WORD, after_minus = minus;
        minus = k == LEX_PUNCT && *lx.tok == '-';
        if (!header && lx.fresh_line && depth == 0 && (body_col < 0 || py_lex_column(&lx) <= body_col)) {
            if (body_col < 0)
                body_col = py_lex_column(&lx);
            if (cur)
                cur->end = lx.tok;
            if (out->n >= MAX_MEMBERS)
                return;
            ARENA_PUSH(a, *out, ((member){ NULL, 0, lx.tok, c->end, false, false }));
            cur = &out->v[out->n - 1];
            want_name = word && ((lx.len == 3 && memcmp(lx.tok, "def", 3) == 0)
                                 || (lx.len == 5 && memcmp(lx.tok, "async", 5) == 0));
            continue;
        }
        if (k == LEX_PUNCT) {
            char p = *lx.tok;
            depth += strchr("([{", p) ? 1 : strchr(")]}", p) && depth > 0 ? -1 : 0;
            header = header && !(p == ':' && depth == 0);
            continue;
        }
        if (want_name && word && !(lx.len == 3 && memcmp(lx.tok, "def", 3) == 0)) {
            cur->name = lx.tok, cur->name_len = lx.len, cur->init = py_is_init_name(lx.tok, lx.len);
            want_name = false;
            continue;
        }
        bool spelt = member_sentinel_token(k, lx.tok, lx.len, after_minus)
                     || (word && names_in(lx.tok, lx.len, names, lens, count));
        if (spelt && cur)
            cur->spells = true;
        else if (spelt)   /* on the header line: `class X: NEG = -1e9` */
            ARENA_PUSH(a, *out, ((member){ NULL, 0, lx.tok, c->end, false, true }));
    }
}

/* A member naming one that spells a sentinel (`self.mask()`, `self.NEG`) spells one too, for a
 * few rounds (a longer chain stays unflagged, as for functions). */
static void propagate_members(member_vec *m, kv_arena *scratch)
{
    const char **names = arena_alloc(scratch, (m->n ? m->n : 1) * sizeof *names);
    size_t *lens = arena_alloc(scratch, (m->n ? m->n : 1) * sizeof *lens);
    for (int round = 0; round < MEMBER_ROUNDS; round++) {
        size_t count = 0, unflagged = 0;
        for (size_t i = 0; i < m->n; i++)
            if (m->v[i].spells && m->v[i].name)
                names[count] = m->v[i].name, lens[count++] = m->v[i].name_len;
            else
                unflagged += !m->v[i].spells;
        if (count == 0 || unflagged == 0)
            return;
        bool changed = false;
        for (size_t i = 0; i < m->n; i++) {
            if (m->v[i].spells)
                continue;
            lexer lx;
            py_lex_init(&lx, m->v[i].start, (size_t)(m->v[i].end - m->v[i].start));
            for (lex_kind k; !m->v[i].spells && (k = py_lex_next(&lx)) != LEX_END;)
                if (k == LEX_WORD && names_in(lx.tok, lx.len, names, lens, count))
                    m->v[i].spells = changed = true;
        }
        if (!changed)
            return;
    }
}

/* Each class's own_sentinel (its class level or an initialiser spells a sentinel) and its
 * sentinel_members. names: the file's sentinel constants and functions. */
static void class_sentinels(fn_vec *fns, const char *const *names, const size_t *lens, size_t count, kv_arena *scratch)
{
    for (size_t i = 0; i < fns->n; i++) {
        fn_extent *c = &fns->v[i];
        if (!c->f.is_class || (!c->class_spells && count == 0))
            continue;
        member_vec m = { 0 };
        class_members(c, names, lens, count, scratch, &m);
        propagate_members(&m, scratch);
        const char **spelling = arena_alloc(scratch, MAX_SENTINEL_MEMBERS * sizeof *spelling);
        size_t n = 0;
        for (size_t j = 0; j < m.n && !c->f.own_sentinel; j++) {
            if (!m.v[j].spells)
                continue;
            if (!m.v[j].name || m.v[j].init || n == MAX_SENTINEL_MEMBERS)
                c->f.own_sentinel = true;
            else
                spelling[n++] = arena_strndup(scratch, m.v[j].name, m.v[j].name_len);
        }
        if (m.n >= MAX_MEMBERS)   /* too many to tell */
            c->f.own_sentinel = true;
        c->members = c->f.own_sentinel ? NULL : spelling;
        c->f.nsentinel_members = c->f.own_sentinel ? 0 : (uint8_t)n;
    }
}

bool py_class_member_spells(const py_exports *ex, const py_func_export *c, const char *method)
{
    if (c->own_sentinel)
        return true;
    for (size_t i = 0; method && i < c->nsentinel_members; i++)
        if (c->sentinel_members_at + i < ex->nmember_names
            && strcmp(ex->member_names[c->sentinel_members_at + i], method) == 0)
            return true;
    return false;
}

/* A function whose sentinel may come from another file through a function of its own file
 * that it calls: that callee's name is a use too (the link pass looks names up by name). */
static void calls_to_uses(fn_vec *fns)
{
    for (size_t i = 0; i < fns->n; i++) {
        fn_extent *f = &fns->v[i];
        for (size_t c = 0; !f->f.sentinel && !f->f.is_class && c < f->ncalls; c++)
            for (size_t j = 0; j < fns->n; j++)
                if (j != i && strcmp(fns->v[j].f.name, f->calls[c]) == 0 && fns->v[j].nuses) {
                    fn_use(f, f->calls[c], NULL);   /* a function of this file */
                    break;
                }
    }
}

/* A function calling a function of its own file that stores stores too (a few rounds: a longer
 * chain of helpers stays unflagged, as for sentinels; a helper of a third file is not followed). */
static void propagate_stores(fn_vec *fns)
{
    enum { ROUNDS = 3 };
    for (int round = 0; round < ROUNDS; round++) {
        bool changed = false;
        for (size_t i = 0; i < fns->n; i++)
            for (size_t c = 0; !fns->v[i].f.store && c < fns->v[i].ncalls; c++)
                for (size_t j = 0; j < fns->n; j++)
                    if (j != i && fns->v[j].f.store && strcmp(fns->v[j].f.name, fns->v[i].calls[c]) == 0) {
                        fns->v[i].f.store = changed = true;
                        break;
                    }
        if (!changed)
            return;
    }
}

/* The classes' sentinel_members into one table of ex (before the functions are sorted, so
 * that each keeps its run); a table past 65535 names makes the rest own_sentinel. */
static void export_members(fn_vec *fns, kv_arena *arena, py_exports *ex)
{
    size_t total = 0;
    for (size_t i = 0; i < fns->n; i++)
        total += fns->v[i].f.nsentinel_members;
    if (!total)
        return;
    const char **names = arena_alloc(arena, total * sizeof *names);
    size_t n = 0;
    for (size_t i = 0; i < fns->n; i++) {
        py_func_export *f = &fns->v[i].f;
        if (!f->nsentinel_members)
            continue;
        if (n + f->nsentinel_members > UINT16_MAX) {
            f->own_sentinel = true, f->nsentinel_members = 0;
            continue;
        }
        f->sentinel_members_at = (uint16_t)n;
        for (size_t j = 0; j < f->nsentinel_members; j++)
            names[n++] = arena_strdup(arena, fns->v[i].members[j]);
    }
    ex->member_names = names;
    ex->nmember_names = n;
}

static int cmp_fn(const void *a, const void *b)
{
    return strcmp(((const py_func_export *)a)->name, ((const py_func_export *)b)->name);
}

/* Sorted by name, one entry per name with the flags of all its definitions. */
static void export_functions(fn_vec *fns, const char *data, kv_arena *arena, py_exports *ex)
{
    if (fns->n == 0)
        return;
    export_members(fns, arena, ex);
    py_func_export *v = arena_alloc(arena, fns->n * sizeof *v);
    for (size_t i = 0; i < fns->n; i++) {
        const fn_extent *f = &fns->v[i];
        v[i] = f->f;
        v[i].name = arena_strdup(arena, v[i].name);
        v[i].start = (uint32_t)(f->start - data);
        v[i].end = (uint32_t)(f->end - data);
        const char **calls = arena_alloc(arena, (f->ncalls ? f->ncalls : 1) * sizeof *calls);
        size_t nc = 0;
        for (size_t c = 0; c < f->ncalls; c++)
            for (size_t j = 0; j < fns->n; j++)
                if (j != i && strcmp(fns->v[j].f.name, f->calls[c]) == 0) {
                    calls[nc++] = arena_strdup(arena, f->calls[c]);
                    break;
                }
        v[i].calls = calls;
        v[i].ncalls = nc;
        if (f->nuses && !f->f.sentinel && !f->f.own_sentinel) {   /* a class's: the constants it names */
            const char **u = arena_alloc(arena, f->nuses * sizeof *u);
            const char **um = arena_alloc(arena, f->nuses * sizeof *um);
            for (size_t j = 0; j < f->nuses; j++) {
                u[j] = arena_strdup(arena, f->uses[j]);
                um[j] = f->use_modules[j] ? arena_strdup(arena, f->use_modules[j]) : NULL;
            }
            v[i].uses = u;
            v[i].use_modules = um;
            v[i].nuses = f->nuses;
        }
    }
    qsort(v, fns->n, sizeof *v, cmp_fn);
    size_t n = 0;
    for (size_t i = 0; i < fns->n; i++) {
        if (n && strcmp(v[n - 1].name, v[i].name) == 0) {
            v[n - 1].sentinel |= v[i].sentinel;
            v[n - 1].cast |= v[i].cast;
            v[n - 1].store |= v[i].store;
            v[n - 1].makes_function |= v[i].makes_function;
            v[n - 1].own_sentinel |= v[i].own_sentinel || v[i].nsentinel_members;   /* two classes X: any member */
            if (!v[n - 1].nuses)  /* a redefinition: the first one's imported names are kept */
                v[n - 1].uses = v[i].uses, v[n - 1].use_modules = v[i].use_modules, v[n - 1].nuses = v[i].nuses;
            continue;
        }
        v[n++] = v[i];
    }
    ex->fn = v;
    ex->nfn = n;
}

const py_func_export *py_exported_function(const py_exports *ex, const char *name)
{
    if (!ex || !ex->nfn)
        return NULL;
    py_func_export key = { .name = name };
    return bsearch(&key, ex->fn, ex->nfn, sizeof key, cmp_fn);
}

void py_index_functions(const py_state *st, const char *data, size_t len, kv_arena *arena, py_exports *ex)
{
    kv_arena *scratch = arena_new();
    fn_vec fns = {0};
    range_vec prologue = {0};
    lex_functions(st, data, len, scratch, &fns, &prologue);
    propagate_sentinels(&fns, ex->v, ex->n, scratch);
    name_list sn = sentinel_names(&fns, ex->v, ex->n, scratch);
    class_sentinels(&fns, sn.names, sn.lens, sn.count, scratch);
    propagate_stores(&fns);
    calls_to_uses(&fns);
    export_functions(&fns, data, arena, ex);
    if (prologue.n) {
        ex->prologue = arena_memdup(arena, prologue.v, prologue.n * sizeof *prologue.v);
        ex->nprologue = prologue.n;
    }
    arena_free(scratch);
}
