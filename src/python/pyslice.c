/*
 * pyslice.c: which parts of a Python file the evaluator needs, so that only those are parsed.
 *
 * Parsing is most of what the Python front end costs, and most of a file that passes the
 * prefilter is code that cannot hold a fact: a 300 KB model runner with one cache store. The
 * prefilter's flags are a partition over the file's pieces (py_prefilter_units): its top-level
 * statements, the members of its top-level classes, the statements of their initialisers. What
 * one piece can compute depends only on its own text and on the pieces it reaches: those binding a
 * name it mentions (a function it calls, a class it instantiates or derives from, a module-level
 * name it reads), the attributes it reads (`self.x`, `obj.x`: the initialiser statements that set
 * `self.x`, the class-level statements binding x, and every method x), and theirs in turn; a
 * member reaches its class's header, an initialiser's statement its `def` line, and a class header
 * the methods calling an instance runs (forward, __call__). So a piece is *needed* when the flags
 * of everything it reaches, joined, decide the prefilter: the same sound test as for a whole
 * file, applied to the part of the file its evaluation can see. The parsed text is then
 *   - every top-level statement that is not a definition or a class (imports, assignments,
 *     module-level code: small, and it sets up the module's names), every needed piece with all
 *     it reaches, and of each class so parsed its header and its class-level statements; an
 *     initialiser is parsed whole when any piece of it is (its statements are pieces only so that
 *     a method reading `self.mask` reaches the statements setting it, not all of `__init__`).
 * A piece left out is one that no needed piece reaches: its absence changes no value the
 * evaluator computes for the rest (a caller that passes it a sentinel reaches it, so the caller's
 * flags include its own, and both are parsed); the evaluator takes `self.x` only from the
 * initialisers' own statements (pyscope.c), so a method reaches another only by its name.
 *
 * Names are matched as words, not resolved, in scopes: the module's names, a class body's, an
 * initialiser's locals, and one for attributes (any `.x`). A word of a piece names every piece of
 * its scopes binding it: a definition or class of that name, any other statement binding it (an
 * assignment target `X = ...`, `X, Y += ...`, `import x as X`, `from m import X`, `for X in`,
 * `with ... as X`, a `def X` inside an `if`), and inside an initialiser every `self.x` of a
 * statement (assigned, written into or called in place): more than Python binds, never less,
 * except names made by strings (globals()["X"], setattr) or by `global X` inside a function,
 * which the evaluator does not follow either. Keywords name nothing.
 *
 * The ranges are handed to tree-sitter (ts_parser_set_included_ranges): nodes keep their byte
 * offsets and lines in the whole file. Pieces below the top level start at the start of their
 * line, so that each keeps its own indentation. pystmt.c parses the whole file again if the parts
 * do not parse cleanly, so a syntax error is located as before (a piece left inside unclosed
 * brackets is always kept for that; another syntax error in a piece left out is not seen, as in a
 * file the prefilter drops). This file does not parse or
 * evaluate.
 */
#include <stdlib.h>
#include <string.h>
#include <tree_sitter/api.h>

#include "python/pyeval.h"
#include "python/pylexer.h"
#include "util/hash.h"

enum {
    MAX_UNITS = 1 << 16,          /* more top-level statements than this: parse the whole file */
    MIN_SAVED_PERCENT = 10,       /* parse the whole file unless at least this much is left out */
    MAX_EDGES_PER_UNIT = 64,      /* a name graph denser than this: parse the whole file */
};

typedef struct word_ref {
    const char *w;
    uint32_t n;
    uint32_t unit;
    uint32_t ns;                  /* the scope: NS_MODULE, NS_ATTR, or NS_LOCAL + the scope's piece */
} word_ref;

enum { NS_MODULE = 0, NS_ATTR = 1, NS_LOCAL = 2 };

typedef ARENA_VEC(word_ref) ref_vec;

typedef ARENA_VEC(uint32_t) unit_vec;

typedef struct name_slot {
    const char *w;                /* NULL: empty */
    uint32_t n, ns;
    unit_vec units;               /* the units binding it, ascending, distinct */
    uint32_t seen_from;           /* 1 + the last unit whose reference was looked up (refs come in unit order) */
} name_slot;

typedef struct name_table {
    name_slot *slot;
    size_t cap;
} name_table;

typedef struct edge {
    uint32_t from, to;
} edge;

/* A set of words (the names import statements bind), open addressing; a full set adds no more
 * (then fewer dotted words are known to name a module's attribute: more edges, never fewer). */
enum { WORD_SET_CAP = 1024 };
typedef struct word_set {
    const char *w[WORD_SET_CAP];
    uint32_t n[WORD_SET_CAP];
    size_t count;
} word_set;

static size_t word_set_slot(const word_set *ws, const char *w, size_t n)
{
    size_t i = kv_hash32(w, n) & (WORD_SET_CAP - 1);
    while (ws->w[i] && !(ws->n[i] == n && memcmp(ws->w[i], w, n) == 0))
        i = (i + 1) & (WORD_SET_CAP - 1);
    return i;
}

static void word_set_add(word_set *ws, const char *w, size_t n)
{
    if (ws->count >= WORD_SET_CAP / 2)
        return;
    size_t i = word_set_slot(ws, w, n);
    if (!ws->w[i])
        ws->w[i] = w, ws->n[i] = (uint32_t)n, ws->count++;
}

static bool word_set_has(const word_set *ws, const char *w, size_t n)
{
    return ws->w[word_set_slot(ws, w, n)] != NULL;
}

typedef ARENA_VEC(edge) edge_vec;

static bool is_keyword(const char *w, size_t n)
{
    static const char *const kw[] = {
        "False", "None", "True", "and", "as", "assert", "async", "await", "break", "case", "class",
        "continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if",
        "import", "in", "is", "lambda", "match", "nonlocal", "not", "or", "pass", "raise", "return",
        "try", "type", "while", "with", "yield", "_",
    };
    if (n < 2 || n > 8)
        return n == 1 && *w == '_';
    for (size_t i = 0; i < sizeof kw / sizeof *kw; i++)
        if (kw[i][0] == w[0] && strlen(kw[i]) == n && memcmp(kw[i], w, n) == 0)
            return true;
    return false;
}

static name_slot *table_find(const name_table *t, const char *w, uint32_t n, uint32_t ns)
{
    size_t i = (kv_hash32(w, n) ^ (ns * 0x9e3779b1u)) & (t->cap - 1);
    for (; t->slot[i].w; i = (i + 1) & (t->cap - 1))
        if (t->slot[i].n == n && t->slot[i].ns == ns && memcmp(t->slot[i].w, w, n) == 0)
            return &t->slot[i];
    return &t->slot[i];
}

static void table_put(name_table *t, const word_ref *r, kv_arena *a)
{
    name_slot *s = table_find(t, r->w, r->n, r->ns);
    if (!s->w)
        s->w = r->w, s->n = r->n, s->ns = r->ns;
    if (s->units.n == 0 || s->units.v[s->units.n - 1] != r->unit)   /* defs come in unit order */
        ARENA_PUSH(a, s->units, r->unit);
}

/* What a statement of a non-definition piece binds, read token by token: assignment targets (the
 * words before an `=` at bracket depth 0 that is not a comparison, `(a, b) = ...` and `d[k] = v`
 * included; in a chain `a = b = c`, the depth-0 words between), imported names (in parentheses
 * too), `for` targets, and the name after `as`, `def` and `class` (inside an `if` or `try`). The
 * words bind in each of the piece's scopes (ns). */
enum { MAX_TARGETS = 32 };

typedef struct binder {
    enum { B_PLAIN, B_IMPORT, B_FROM, B_FROM_NAMES, B_FOR } kind;
    word_ref cand[MAX_TARGETS];   /* words that an `=` would make targets */
    size_t ncand;
    bool assigned;                /* an `=` was read: only depth-0 words can be targets now */
    bool overflow;                /* more candidates than fit: every word binds */
    bool want_name;               /* after def, class, as */
    bool first_seen, first_keyword; /* the statement's first word was read; it is a keyword */
    bool annotating;              /* `x: T = ...`: the annotation's words bind nothing */
    uint32_t ns[2];               /* the scopes its names bind in */
    size_t nns;
    word_set *imported;           /* the names import statements bind */
} binder;

static void binder_start(binder *b)
{
    b->kind = B_PLAIN;
    b->ncand = 0;
    b->assigned = b->overflow = b->want_name = false;
    b->first_seen = b->first_keyword = b->annotating = false;
}

/* A ':' at bracket depth 0: after a statement's first name and before any `=`, an annotation. */
static void binder_colon(binder *b)
{
    if (b->kind == B_PLAIN && !b->assigned && b->first_seen && !b->first_keyword)
        b->annotating = true;
}

static void bind(const binder *b, const word_ref *r, kv_arena *a, ref_vec *defs)
{
    if (b->imported && (b->kind == B_IMPORT || b->kind == B_FROM_NAMES))
        word_set_add(b->imported, r->w, r->n);
    for (size_t i = 0; i < b->nns; i++) {
        word_ref d = *r;
        d.ns = b->ns[i];
        ARENA_PUSH(a, *defs, d);
    }
}

static void binder_word(binder *b, const word_ref *r, bool keyword, int depth, kv_arena *a, ref_vec *defs)
{
    const char *w = r->w;
    size_t n = r->n;
    if (!b->first_seen)
        b->first_seen = true, b->first_keyword = keyword;
    if (b->annotating)
        return;
#define IS(lit) (n == sizeof lit - 1 && memcmp(w, lit, n) == 0)
    if (b->want_name && !keyword) {
        bind(b, r, a, defs);
        b->want_name = false;
        return;
    }
    if (IS("def") || IS("class") || IS("as")) {
        b->want_name = true;
        return;
    }
    if (b->kind == B_PLAIN && b->ncand == 0 && !b->assigned && depth == 0 && (IS("import") || IS("from") || IS("for"))) {
        b->kind = IS("import") ? B_IMPORT : IS("from") ? B_FROM : B_FOR;
        return;
    }
    if (b->kind == B_FROM && IS("import")) {
        b->kind = B_FROM_NAMES;
        return;
    }
    if (b->kind == B_FOR && IS("in") && depth == 0) {
        b->kind = B_PLAIN;
        b->assigned = true;   /* what follows `in` is read, not bound */
        return;
    }
#undef IS
    if (keyword || b->kind == B_FROM)
        return;
    if (b->assigned && depth > 0 && b->kind == B_PLAIN)
        return;
    if (b->kind == B_PLAIN && !b->overflow && b->ncand < MAX_TARGETS) {
        b->cand[b->ncand++] = *r;
        return;
    }
    if (b->kind == B_PLAIN && !b->overflow) {   /* too many to tell: every word binds */
        b->overflow = true;
        for (size_t i = 0; i < b->ncand; i++)
            bind(b, &b->cand[i], a, defs);
        b->ncand = 0;
    }
    bind(b, r, a, defs);
}

static void binder_assign(binder *b, kv_arena *a, ref_vec *defs)
{
    for (size_t i = 0; i < b->ncand; i++)
        bind(b, &b->cand[i], a, defs);
    b->ncand = 0;
    b->assigned = true;
    b->annotating = false;
}

/* The scopes of a piece: its class's body (level >= 1) and its initialiser's locals (an
 * initialiser's `def` line and its statements), as NS_LOCAL + the scope's piece; 0 if none. */
static uint32_t class_scope(const py_unit *u, size_t i)
{
    if (u[i].level == 0)
        return 0;
    size_t h = u[i].level == 1 ? u[i].parent : u[u[i].parent].parent;
    return NS_LOCAL + (uint32_t)h;
}

static uint32_t init_scope(const py_unit *u, size_t i)
{
    if (u[i].level == 2)
        return NS_LOCAL + u[i].parent;
    if (u[i].level == 1 && u[i].kind == PY_UNIT_DEF && u[i].name && py_is_init_name(u[i].name, u[i].name_len))
        return NS_LOCAL + (uint32_t)i;
    return 0;
}

/* The names each piece binds (defs), by scope: a definition's or class's own name (a member's in
 * its class's scope and as an attribute), and what the statements of any other piece bind. */
static void piece_names(const py_unit *u, size_t nu, kv_arena *a, ref_vec *defs)
{
    for (size_t i = 0; i < nu; i++) {
        if (u[i].kind == PY_UNIT_OTHER || !u[i].name)
            continue;
        word_ref r = { u[i].name, u[i].name_len, (uint32_t)i, NS_MODULE };
        if (u[i].level >= 1) {
            r.ns = NS_ATTR;
            ARENA_PUSH(a, *defs, r);
            r.ns = class_scope(u, i);
        }
        ARENA_PUSH(a, *defs, r);
    }
}

/* The scopes a statement of piece i binds its names in. */
static void binder_scopes(binder *b, const py_unit *u, size_t i)
{
    b->nns = 0;
    if (u[i].level == 0)
        b->ns[b->nns++] = NS_MODULE;
    else if (u[i].level == 1)
        b->ns[b->nns++] = class_scope(u, i), b->ns[b->nns++] = NS_ATTR;
    else
        b->ns[b->nns++] = init_scope(u, i);
}

/* A word read as a reference: in the module's scope and the piece's own, or (after '.') as an
 * attribute. */
static void add_refs(const py_unit *u, const word_ref *r, bool dotted, kv_arena *a, ref_vec *refs)
{
    word_ref x = *r;
    if (dotted) {
        x.ns = NS_ATTR;
        ARENA_PUSH(a, *refs, x);
        return;
    }
    x.ns = NS_MODULE;
    ARENA_PUSH(a, *refs, x);
    uint32_t c = class_scope(u, r->unit), in = init_scope(u, r->unit);
    if (c) {
        x.ns = c;
        ARENA_PUSH(a, *refs, x);
    }
    if (in) {
        x.ns = in;
        ARENA_PUSH(a, *refs, x);
    }
}

/* The name an initialiser calls its instance: its first parameter (`self`, `cls`). */
typedef struct self_name {
    const char *w;
    size_t n;
    enum { SELF_BEFORE_NAME, SELF_AFTER_NAME, SELF_IN_PARAMS, SELF_READ } state;
} self_name;

/* A `self.x` just read, whose next tokens tell whether the statement may set x: a target or a
 * receiver (`self.x = v`, `self.x[i] = v`, `self.x.fill_(v)`, `self.x += v`) sets it, a read of
 * one of its attributes (`self.x.y`) does not, and an argument (`f(self.x)`) does when f is a
 * function of this file that writes into its parameter (decided once the names are known). */
typedef struct self_attr {
    enum { SA_NONE, SA_READ, SA_DOT, SA_DOT_WORD } state;
    word_ref r;
    int depth;
    size_t ref;                   /* 1 + its index in refs */
    bool starts_line;             /* `self` is the first word of its line (`self.x: T = v`, not
                                   * `if not self.x:`) */
} self_attr;

/* The token reader of read_words. */
typedef struct reader {
    const char *data;
    size_t len;
    const py_unit *u;
    size_t nu;
    kv_arena *a;
    ref_vec *refs, *defs, *passed;  /* passed: `self.x` passed as arguments, bound if the piece calls a local def */
    size_t cur;                   /* the piece being read */
    int depth;
    char prev;                    /* the punctuation just read, 0 after anything else */
    const char *prev_word;        /* the word just read (kept across a following '.') */
    const char *line_first;       /* the first token of the line being read */
    size_t prev_word_n;
    self_name self;
    self_attr sa;
    binder b;
    bool of_import;               /* the dotted name being read starts with an imported name */
} reader;

static bool is_self_word(const reader *rd, const char *w, size_t n)
{
    return rd->self.state == SELF_READ && n == rd->self.n && memcmp(w, rd->self.w, n) == 0;
}

/* The decision on the `self.x` read before this token (c: the punctuation, 0 for another token). */
static void self_attr_next(reader *rd, char c, bool word)
{
    self_attr *sa = &rd->sa;
    if (sa->state == SA_NONE)
        return;
    bool level2 = rd->u[sa->r.unit].level == 2;
    if (sa->state == SA_READ && c == '.') {
        sa->state = SA_DOT;
        return;
    }
    if (sa->state == SA_DOT && word) {
        sa->state = SA_DOT_WORD;
        return;
    }
    bool sets;
    if (sa->state == SA_READ) {
        sets = (sa->depth == 0 && !rd->b.assigned) || c == '[';   /* `y = self.x` reads it */
        if (!sets && level2)
            ARENA_PUSH(rd->a, *rd->passed, ((word_ref){ sa->r.w, sa->r.n, sa->r.unit, NS_ATTR }));
    } else {
        sets = sa->state == SA_DOT_WORD && c == '(';   /* self.x.method(...) */
    }
    if (sets && level2)
        ARENA_PUSH(rd->a, *rd->defs, ((word_ref){ sa->r.w, sa->r.n, sa->r.unit, NS_ATTR }));
    sa->state = SA_NONE;
}

static void reader_punct(reader *rd, const lexer *lx)
{
    char c = *lx->tok;
    bool other = rd->u[rd->cur].kind == PY_UNIT_OTHER;
    bool assign = c == '=' && py_is_assign(rd->data, lx->tok, rd->data + rd->len);
    if (rd->sa.state == SA_READ && rd->sa.depth == 0 && rd->sa.ref == rd->refs->n
        && ((c == ':' && rd->sa.starts_line) || assign))
        rd->refs->n--;   /* `self.x = v`, `self.x: T = v` rebind x: the statement does not read it
                          * (`if not self.x:` does) */
    self_attr_next(rd, c, false);
    if (c == '(' && rd->self.state == SELF_AFTER_NAME)
        rd->self.state = SELF_IN_PARAMS;
    if (c == '(' || c == '[' || c == '{')
        rd->depth++;
    else if ((c == ')' || c == ']' || c == '}') && rd->depth > 0)
        rd->depth--;
    else if (other && rd->depth == 0 && c == ';')
        binder_start(&rd->b);
    else if (other && rd->depth == 0 && assign)
        binder_assign(&rd->b, rd->a, rd->defs);
    else if (other && rd->depth == 0 && c == ':')
        binder_colon(&rd->b);
    if (c != '.')
        rd->prev_word = NULL, rd->of_import = false;
    rd->prev = c;
}

static void reader_word(reader *rd, const lexer *lx)
{
    const py_unit *u = rd->u;
    size_t cur = rd->cur;
    word_ref r = { lx->tok, (uint32_t)lx->len, (uint32_t)cur, NS_MODULE };
    bool keyword = is_keyword(lx->tok, lx->len);
    bool init_header = init_scope(u, cur) == NS_LOCAL + cur;
    self_attr_next(rd, 0, true);
    if (rd->self.state == SELF_BEFORE_NAME && init_header && lx->tok == u[cur].name)
        rd->self.state = SELF_AFTER_NAME;
    else if (rd->self.state == SELF_IN_PARAMS && !keyword)
        rd->self = (self_name){ lx->tok, lx->len, SELF_READ };
    if (rd->prev == '.' && rd->of_import) {
        /* `torch.device`, `np.float32`: an attribute of a module or an imported object, never
         * one this file's classes set */
    } else if (rd->prev == '.') {
        add_refs(u, &r, true, rd->a, rd->refs);
        if (rd->prev_word && is_self_word(rd, rd->prev_word, rd->prev_word_n))
            rd->sa = (self_attr){ SA_READ, r, rd->depth, rd->refs->n, rd->prev_word == rd->line_first };
    } else {
        bool other = u[cur].kind == PY_UNIT_OTHER;
        rd->of_import = word_set_has(rd->b.imported, lx->tok, lx->len);
        if (!keyword)
            add_refs(u, &r, false, rd->a, rd->refs);
        if (other && u[cur].level == 2 && is_self_word(rd, lx->tok, lx->len))
            rd->b.first_seen = true;   /* `self.x = ...` sets an attribute: it does not rebind self */
        else if (other)
            binder_word(&rd->b, &r, keyword, rd->depth, rd->a, rd->defs);
        else if (!keyword && init_header)   /* an initialiser's parameters */
            ARENA_PUSH(rd->a, *rd->defs, ((word_ref){ r.w, r.n, r.unit, NS_LOCAL + (uint32_t)cur }));
    }
    rd->prev_word = lx->tok;
    rd->prev_word_n = lx->len;
    rd->prev = 0;
}

/* Every word of the file (refs), the names each piece binds (defs), and the attributes an
 * initialiser's statement passes as arguments (passed). */
static void read_words(const char *data, size_t len, const py_unit *u, size_t nu, kv_arena *a, ref_vec *refs,
                       ref_vec *defs, ref_vec *passed)
{
    piece_names(u, nu, a, defs);
    reader rd = { .data = data, .len = len, .u = u, .nu = nu, .a = a, .refs = refs, .defs = defs, .passed = passed,
                  .self = { NULL, 0, SELF_BEFORE_NAME } };
    rd.b.imported = arena_zalloc(a, sizeof *rd.b.imported);
    binder_start(&rd.b);
    binder_scopes(&rd.b, u, 0);
    lexer lx;
    py_lex_init(&lx, data, len);
    for (lex_kind k; (k = py_lex_next(&lx)) != LEX_END;) {
        if (k == LEX_COMMENT)
            continue;
        uint32_t at = (uint32_t)(lx.tok - data);
        if (lx.fresh_line)
            rd.line_first = lx.tok;
        while (rd.cur + 1 < nu && at >= u[rd.cur + 1].start) {
            self_attr_next(&rd, 0, false);
            rd.cur++, rd.depth = 0;   /* a piece starts at bracket depth 0 */
            binder_scopes(&rd.b, u, rd.cur);
            if (init_scope(u, rd.cur) == NS_LOCAL + rd.cur)
                rd.self = (self_name){ NULL, 0, SELF_BEFORE_NAME };
        }
        if (u[rd.cur].kind == PY_UNIT_OTHER && rd.depth == 0 && (lx.fresh_line || at == u[rd.cur].start)) {
            self_attr_next(&rd, 0, false);
            binder_start(&rd.b);
        }
        if (k == LEX_PUNCT) {
            reader_punct(&rd, &lx);
        } else if (k == LEX_WORD) {
            reader_word(&rd, &lx);
        } else {
            self_attr_next(&rd, 0, false);
            rd.prev_word = NULL;
            rd.of_import = false;
            rd.prev = 0;
        }
    }
    self_attr_next(&rd, 0, false);
}

/* The edges a piece has without naming anything: a class header to the methods calling an
 * instance runs (forward, __call__). A member does not reach its class's header (the evaluator
 * does not follow base classes), nor an initialiser's statement its `def` line, except by the
 * parameters it names (that line binds its words in the initialiser's scope). */
static void implicit_edges(const py_unit *u, size_t nu, kv_arena *a, edge_vec *out)
{
    for (size_t i = 0; i < nu; i++)
        if (u[i].level == 1 && u[i].kind == PY_UNIT_DEF && u[i].name
            && ((u[i].name_len == 7 && memcmp(u[i].name, "forward", 7) == 0)
                || (u[i].name_len == 8 && memcmp(u[i].name, "__call__", 8) == 0)))
            ARENA_PUSH(a, *out, ((edge){ u[i].parent, (uint32_t)i }));
}

static int cmp_edge(const void *a, const void *b)
{
    const edge *x = a, *y = b;
    if (x->from != y->from)
        return x->from < y->from ? -1 : 1;
    return x->to < y->to ? -1 : x->to > y->to;
}

/* Does piece i name a definition or class of this file (a call it may make)? For each piece, from
 * the table of names. */
static bool *local_callers(const py_unit *u, size_t nu, const ref_vec *refs, const name_table *t, kv_arena *a)
{
    bool *calls = arena_zalloc(a, (nu ? nu : 1) * sizeof *calls);
    for (size_t i = 0; i < refs->n; i++) {
        const word_ref *r = &refs->v[i];
        if (calls[r->unit])
            continue;
        const name_slot *s = table_find(t, r->w, r->n, r->ns);
        for (size_t k = 0; s->w && k < s->units.n && !calls[r->unit]; k++)
            calls[r->unit] = s->units.v[k] != r->unit && u[s->units.v[k]].kind != PY_UNIT_OTHER;
    }
    return calls;
}

/* The edges unit -> unit it names, sorted and distinct; false if there would be more than
 * max_edges (then the file is parsed whole: twenty thousand `y = ...` lines all binding y). An
 * attribute passed as an argument (passed) is bound by a piece that calls a function of this file
 * (which may write into it). */
static bool name_edges(const py_unit *u, size_t nu, const ref_vec *refs, const ref_vec *defs, const ref_vec *passed,
                       size_t max_edges, kv_arena *a, edge_vec *out)
{
    name_table t = { NULL, 16 };
    while (t.cap < 2 * (defs->n + passed->n) + 16)
        t.cap *= 2;
    t.slot = arena_zalloc(a, t.cap * sizeof *t.slot);
    for (size_t i = 0; i < defs->n; i++)
        table_put(&t, &defs->v[i], a);
    if (passed->n) {
        bool *calls = local_callers(u, nu, refs, &t, a);
        for (size_t i = 0; i < passed->n; i++)
            if (calls[passed->v[i].unit])
                table_put(&t, &passed->v[i], a);
    }
    for (size_t i = 0; i < refs->n; i++) {
        const word_ref *r = &refs->v[i];
        name_slot *s = table_find(&t, r->w, r->n, r->ns);
        if (!s->w || s->seen_from == r->unit + 1)
            continue;
        s->seen_from = r->unit + 1;
        if (out->n + s->units.n > max_edges)
            return false;
        for (size_t k = 0; k < s->units.n; k++)
            if (s->units.v[k] != r->unit)
                ARENA_PUSH(a, *out, ((edge){ r->unit, s->units.v[k] }));
    }
    if (out->n)
        qsort(out->v, out->n, sizeof *out->v, cmp_edge);
    size_t m = 0;
    for (size_t i = 0; i < out->n; i++)
        if (m == 0 || cmp_edge(&out->v[m - 1], &out->v[i]) != 0)
            out->v[m++] = out->v[i];
    out->n = m;
    return true;
}

/* Compressed adjacency: the targets of unit i are to[first[i] .. first[i+1]). */
typedef struct graph {
    uint32_t *first, *to;
} graph;

static graph adjacency(const edge *e, size_t ne, size_t nu, bool reverse, kv_arena *a)
{
    graph g = { arena_zalloc(a, (nu + 1) * sizeof *g.first), arena_alloc(a, (ne ? ne : 1) * sizeof *g.to) };
    for (size_t i = 0; i < ne; i++)
        g.first[(reverse ? e[i].to : e[i].from) + 1]++;
    for (size_t i = 0; i < nu; i++)
        g.first[i + 1] += g.first[i];
    uint32_t *fill = arena_alloc(a, (nu + 1) * sizeof *fill);
    memcpy(fill, g.first, (nu + 1) * sizeof *fill);
    for (size_t i = 0; i < ne; i++) {
        uint32_t from = reverse ? e[i].to : e[i].from, to = reverse ? e[i].from : e[i].to;
        g.to[fill[from]++] = to;
    }
    return g;
}

/* Mark with bit everything reachable in g from the units already marked with it. */
static void reach(const graph *g, size_t nu, uint16_t *mark, uint16_t bit, kv_arena *a)
{
    uint32_t *queue = arena_alloc(a, nu * sizeof *queue);
    size_t head = 0, tail = 0;
    for (size_t i = 0; i < nu; i++)
        if (mark[i] & bit)
            queue[tail++] = (uint32_t)i;
    while (head < tail) {
        uint32_t u = queue[head++];
        for (uint32_t k = g->first[u]; k < g->first[u + 1]; k++)
            if (!(mark[g->to[k]] & bit)) {
                mark[g->to[k]] |= bit;
                queue[tail++] = g->to[k];
            }
    }
}

static void advance(const char *data, uint32_t *at, uint32_t to, uint32_t *row, uint32_t *col)
{
    for (; *at < to; (*at)++)
        if (data[*at] == '\n')
            (*row)++, *col = 0;
        else
            (*col)++;
}

static int cmp_range(const void *a, const void *b)
{
    const py_range *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

TSRange *py_ts_ranges(const char *data, size_t len, py_range *r, size_t k, kv_arena *a, uint32_t *count)
{
    qsort(r, k, sizeof *r, cmp_range);
    size_t m = 0;
    for (size_t i = 0; i < k; i++) {
        if (r[i].end > len || r[i].start >= r[i].end)
            continue;
        if (m && r[i].start <= r[m - 1].end) {   /* overlapping or adjacent: one range */
            if (r[i].end > r[m - 1].end)
                r[m - 1].end = r[i].end;
        } else {
            r[m++] = r[i];
        }
    }
    TSRange *out = arena_alloc(a, (m ? m : 1) * sizeof *out);
    uint32_t row = 0, col = 0, at = 0;
    for (size_t i = 0; i < m; i++) {   /* rows and columns, counted forward */
        advance(data, &at, r[i].start, &row, &col);
        out[i].start_byte = r[i].start;
        out[i].start_point = (TSPoint){ row, col };
        advance(data, &at, r[i].end, &row, &col);
        out[i].end_byte = r[i].end;
        out[i].end_point = (TSPoint){ row, col };
    }
    *count = (uint32_t)m;
    return out;
}

/* Which pieces are parsed, from the kept ones (needed, or reached from a needed one): every
 * top-level statement that is no definition or class; a class with any kept piece, and of it its
 * header, its class-level statements and its kept members (all of them if none is kept); an
 * initialiser with any kept piece, whole. Returns the bytes parsed. */
static size_t parsed_pieces(const py_unit *u, size_t nu, uint16_t *keep)
{
    for (size_t h = 0; h < nu; h++) {
        if (u[h].level != 0) {
            continue;
        } else if (u[h].kind != PY_UNIT_CLASS) {
            keep[h] = keep[h] || u[h].kind == PY_UNIT_OTHER;
            continue;
        }
        size_t end = h + 1;
        bool any = keep[h];
        for (; end < nu && u[end].level > 0; end++)
            any = any || keep[end];
        keep[h] = any;
        size_t members = 0;
        for (size_t i = h + 1; i < end; i++) {
            if (u[i].level != 1)
                continue;
            bool whole = false;   /* an initialiser with a kept statement */
            for (size_t j = i + 1; j < end && u[j].level == 2; j++)
                whole = whole || keep[j];
            keep[i] = any && (keep[i] || whole || u[i].kind == PY_UNIT_OTHER);
            members += keep[i];
            for (size_t j = i + 1; j < end && u[j].level == 2; j++)
                keep[j] = keep[i];
        }
        for (size_t i = h + 1; any && !members && i < end; i++)
            keep[i] = 1;
    }
    size_t bytes = 0;
    for (size_t i = 0; i < nu; i++)
        if (keep[i])
            bytes += u[i].end - u[i].start;
    return bytes;
}

TSRange *py_slice(const py_state *st, const fe_context *ctx, const char *path, const char *data, size_t len,
                  kv_arena *a, uint32_t *count)
{
    *count = 0;
    py_unit *u;
    size_t nu = py_prefilter_units(st, ctx, path, data, len, a, &u);
    if (nu < 3 || nu > MAX_UNITS)
        return NULL;
    ref_vec refs = { 0 }, defs = { 0 }, passed = { 0 };
    read_words(data, len, u, nu, a, &refs, &defs, &passed);
    edge_vec e = { 0 };
    implicit_edges(u, nu, a, &e);
    if (!name_edges(u, nu, &refs, &defs, &passed, MAX_EDGES_PER_UNIT * nu + MAX_EDGES_PER_UNIT * 1024, a, &e))
        return NULL;
    /* flags[i]: the flags of everything unit i reaches, i.e. the units reaching a flagged one */
    uint16_t *flags = arena_alloc(a, nu * sizeof *flags);
    uint16_t present = 0;
    for (size_t i = 0; i < nu; i++)
        present |= flags[i] = u[i].flags;
    graph back = adjacency(e.v, e.n, nu, true, a);
    for (uint32_t bit = 1; bit <= 0x8000; bit <<= 1)
        if (bit & PF_JOINED & present)
            reach(&back, nu, flags, (uint16_t)bit, a);
    uint16_t *keep = arena_zalloc(a, nu * sizeof *keep);
    for (size_t i = 0; i < nu; i++)
        keep[i] = py_prefilter_decides(flags[i]) || (u[i].flags & PF_UNBALANCED);   /* its note */
    graph fwd = adjacency(e.v, e.n, nu, false, a);
    reach(&fwd, nu, keep, 1, a);
    size_t kept = parsed_pieces(u, nu, keep);
    if ((len - kept) * 100 < len * MIN_SAVED_PERCENT)
        return NULL;
    py_range *r = arena_alloc(a, nu * sizeof *r);
    size_t k = 0;
    for (size_t i = 0; i < nu; i++)
        if (keep[i])
            r[k++] = (py_range){ u[i].start, u[i].end };
    return py_ts_ranges(data, len, r, k, a, count);
}

size_t py_slice_bytes(const py_state *st, const fe_context *ctx, const char *path, const char *data, size_t len)
{
    kv_arena *a = arena_new();
    uint32_t n;
    TSRange *r = py_slice(st, ctx, path, data, len, a, &n);
    size_t bytes = r ? 0 : len;
    for (uint32_t i = 0; r && i < n; i++)
        bytes += r[i].end_byte - r[i].start_byte;
    arena_free(a);
    return bytes;
}
