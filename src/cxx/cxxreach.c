/*
 * cxxreach.c: the second half of the C/C++/CUDA prefilter (frontend.c): can a special value reach
 * a store into a cache in the main file, as the evaluator (cxxeval.c, cxxwalk.c) would read it?
 * Lexical, on tokens; it answers "no" only where the evaluator cannot make a fact.
 *
 * A seed is what every fact starts at (cxxeval.c): a literal of magnitude >= 1e4 (or NaN), a word
 * of the table (a sentinel, numeric_limits, a bit-pattern reader), an identifier of an id class
 * (grammars/ids.tsv), or a carrier: a variable assigned from one, a constant of a header or a
 * macro whose body yields one. From each occurrence of a seed the expression around it is climbed
 * the way the evaluator passes a value on, and it dies where the evaluator stops following:
 *  - as an operand of a binary operator (arithmetic is not folded), behind `!`, `~`, `*` or `&`,
 *    as a ternary's condition, as a subscript (the index is never evaluated), after `.` or `->`,
 *    when it is called, as a declarator, after `return`, `sizeof`, `if`, `while`, ..., in `asm`;
 *  - through parentheses, casts, unary +/-, a ternary's arms and the arguments of a call it climbs
 *    on to the call (a conversion passes its argument on; any call is taken for one);
 *  - `x = v`, `T x = v`, `T x(v)`, `T x{v}` make x a carrier (its occurrences are seeds);
 *  - `lhs = v` where lhs writes through a pointer or a member is a store: it keeps the file when
 *    lhs names a cache (a cache-named identifier, one declared of the KV element type cache_t, a
 *    variable assigned from either) or a macro, and dies otherwise (a logits buffer).
 * Kept (the answer is "yes") wherever the reading is unsure: a call argument when the file spells a
 * sink of grammars/cxx/sinks.tsv (a sink stores its argument), a macro that assigns or names a sink,
 * brackets that do not balance (#if branches), a range-for, too many carriers.
 *
 * Headers (the include closure frontend.c reads) contribute their macros and their constants
 * (a `const`/`constexpr` declaration): the only ways a header's value reaches the main file's
 * functions, which alone are analysed. It does not parse: a wrong guess about what a token is can
 * only keep a file, never drop one whose analysis would give a fact.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cxx/cxxfe.h"
#include "cxx/cxxtok.h"

/* Bounds on the work for one file; past any of them the file is kept (parsed). */
enum { MAX_CLIMB = 64, MAX_NAMES = 4096, MAX_ROUNDS = 32, MAX_ANGLE = 256 };


/* A variable's name, where it means that variable: in one function body (the `{` token's index,
 * scope of cxxtok.h) or everywhere (-1: a global, a header's constant, a macro). */
typedef struct name {
    const char *s;
    unsigned len, hash;
    int scope;
    int next;                  /* the next name of the same spelling, or -1 */
} cname;

/* A set of names, hashed by spelling: slots[h] is the first name of a spelling or -1. */
typedef struct names {
    ARENA_VEC(cname) v;
    int *slots;
    size_t nslots;             /* a power of two, over twice v.n */
} names;

typedef struct reach {
    const cxx_state *st;
    kv_arena *a;
    cxx_lexer lx;              /* the texts' macros */
    names carriers;            /* names that carry a seed's value */
    names caches;              /* cache-ish names of the main file */
    bool sink_objects;         /* it spells T of a `T::operator()` sink: any call may be one */
    bool give_up;              /* keep the file */
    cxx_prefilter_why *why;
} reach;

/* Whether a fixed point may run one more round: not once the file is given up, nor after
 * MAX_ROUNDS rounds (a chain this long: give up, which keeps the file). */
static bool next_round(reach *r, int *round)
{
    if (r->give_up)
        return false;
    if ((*round)++ == MAX_ROUNDS) {
        r->give_up = true;
        return false;
    }
    return true;
}

static bool same_spelling(const char *s, unsigned len, const tok *k)
{
    return len == k->len && memcmp(s, k->s, len) == 0;
}

/* The slot of k's spelling in v (holding -1 when the spelling is not there). */
static size_t slot_of(const names *v, const tok *k)
{
    size_t mask = v->nslots - 1, i = k->hash & mask;
    while (v->slots[i] >= 0 && !same_spelling(v->v.v[v->slots[i]].s, v->v.v[v->slots[i]].len, k))
        i = (i + 1) & mask;
    return i;
}

/* Does k mean a name of v (same spelling, and v's scope is everywhere or k's)? */
static bool has_name(const names *v, const tok *k)
{
    if (k->kind != T_ID || !v->nslots)
        return false;
    for (int i = v->slots[slot_of(v, k)]; i >= 0; i = v->v.v[i].next)
        if (v->v.v[i].scope < 0 || v->v.v[i].scope == k->scope)
            return true;
    return false;
}

static void rehash(reach *r, names *v)
{
    size_t n = v->nslots ? 2 * v->nslots : 64;
    v->slots = arena_alloc(r->a, n * sizeof *v->slots);
    v->nslots = n;
    for (size_t i = 0; i < n; i++)
        v->slots[i] = -1;
    for (size_t i = 0; i < v->v.n; i++) {
        cname *e = &v->v.v[i];
        tok k = { .kind = T_ID, .s = e->s, .len = e->len, .hash = e->hash };
        size_t s = slot_of(v, &k);
        e->next = v->slots[s];  /* newest first, as add_name makes them */
        v->slots[s] = (int)i;
    }
}

/* k's spelling into v, meaning it in scope (-1: everywhere). Past MAX_NAMES the file is kept. */
static void add_name(reach *r, names *v, const tok *k, int scope)
{
    if (v->v.n >= MAX_NAMES) {
        r->give_up = true;
        return;
    }
    if (2 * (v->v.n + 1) > v->nslots)
        rehash(r, v);
    cname e = { k->s, k->len, k->hash, scope, -1 };
    size_t s = slot_of(v, k);
    e.next = v->slots[s];
    ARENA_PUSH(r->a, v->v, e);
    v->slots[s] = (int)(v->v.n - 1);
}


/* ---- what a token is ---- */


static bool in_list(const char *const *v, size_t n, const tok *t)
{
    for (size_t i = 0; i < n; i++)
        if (v[i][0] == t->s[0] && strlen(v[i]) == t->len && memcmp(v[i], t->s, t->len) == 0)
            return true;
    return false;
}

/* A word of the table that makes a special value by a call or a template (FLT_MAX, __builtin_inff(),
 * numeric_limits<T>::lowest(), __int_as_float(bits)). */
static bool is_table_word(const cxx_state *st, const tok *t)
{
    if (t->kind != T_ID)
        return false;
    if (in_list(st->sentinels.v, st->sentinels.n, t) || in_list(st->limits.v, st->limits.n, t))
        return true;
    for (size_t i = 0; i < st->bits.n; i++)
        if (st->bits.v[i].name[0] == t->s[0] && strlen(st->bits.v[i].name) == t->len &&
            memcmp(st->bits.v[i].name, t->s, t->len) == 0)
            return true;
    return false;
}

/* A literal >= 1e4 (or NaN), a table word, an id, or a carrier. What does not depend on the
 * carriers is worked out once per token (t->seed). */
static bool is_seed(const reach *r, tok *t)
{
    if (t->kind == T_P)
        return false;
    if (!t->seed) {
        bool fixed;
        if (t->kind == T_NUM) {
            double v = cxx_tok_number(t);
            fixed = v >= KV_SENTINEL_MAGNITUDE || v != v;
        } else {
            fixed = is_table_word(r->st, t) || (r->st->ids && id_vocab_name_class(r->st->ids, t->s, t->len));
        }
        t->seed = fixed ? 2 : 1;
    }
    return t->seed == 2 || has_name(&r->carriers, t);
}

/* Is t a sink's name or the first part of one (kv_buffer_saver of kv_buffer_saver::save)? */
static bool is_sink_word(const cxx_state *st, const tok *t)
{
    for (size_t i = 0; i < st->sinks.n; i++) {
        const char *name = st->sinks.v[i].name, *sep = strstr(name, "::");
        size_t n = sep ? (size_t)(sep - name) : strlen(name);
        if (n == t->len && memcmp(name, t->s, n) == 0)
            return true;
    }
    return false;
}

/* Is t the last part of a sink's name (copy_kv_warp, save of kv_buffer_saver::save)? */
static bool is_sink_call(const cxx_state *st, const tok *t)
{
    for (size_t i = 0; i < st->sinks.n; i++) {
        const char *name = st->sinks.v[i].name, *sep = strrchr(name, ':');
        const char *last = sep ? sep + 1 : name;
        if (strlen(last) == t->len && memcmp(last, t->s, t->len) == 0)
            return true;
    }
    return false;
}

static bool is_kv_type(const cxx_state *st, const tok *t)
{
    for (size_t i = 0; i < st->types.n; i++)
        if (st->types.v[i].dt_kind == CXD_KV && strlen(st->types.v[i].name) == t->len &&
            memcmp(st->types.v[i].name, t->s, t->len) == 0)
            return true;
    return false;
}

static const char *const BINOPS[] = { "+", "-", "*", "/", "%", "<<", ">>", "<", ">", "<=", ">=", "==", "!=", "&", "|",
                                      "^", "&&", "||", "!", "~", "++", "--", ".", "->", ".*", "->*", NULL };
static const char *const COMPOUND[] = { "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", NULL };
/* Words before an expression whose value goes nowhere the evaluator follows. */
static const char *const DEADKW[] = { "return", "case", "throw", "sizeof", "co_return", "co_yield", "alignof",
                                      "decltype", "typeid", "if", "while", "switch", "for", "delete", "new", "goto",
                                      "noexcept", "static_assert", "asm", "__asm__", "__asm", "alignas", NULL };
static const char *const QUALS[] = { "const", "volatile", "__restrict__", "__restrict", "restrict", NULL };

/* Does token i end an operand (so a following + or - is binary)? */
/* Does token i surely end an operand, so that a + or - after it is binary? A number, a name that
 * is no keyword and no macro, a `]`; not a `)`, which may close a cast: (float)-1e9f. */
static bool operand_end(const reach *r, const toks *t, int i)
{
    if (i < 0)
        return false;
    const tok *k = &t->v[i];
    if (k->kind == T_NUM || is_p(t, i, "]"))
        return true;
    return k->kind == T_ID && !tin(k, DEADKW) && !tis(k, "else") && !tis(k, "do") && !cxx_find_macro(&r->lx, k);
}

static bool is_assign(const tok *k)
{
    return k->kind == T_P && (tis(k, "=") || tin(k, COMPOUND));
}

/* ---- climbing ---- */

typedef enum { F_DEAD, F_LIVE, F_CARRIER, F_MACRO_VALUE } fate_kind;

typedef struct fate {
    fate_kind kind;
    int name;                  /* F_CARRIER: the token of the name */
    bool is_const;             /* F_CARRIER: its declaration says const or constexpr */
} fate;

static fate dead(void) { return (fate){ .kind = F_DEAD }; }
static fate live(void) { return (fate){ .kind = F_LIVE }; }

/* The first token of the statement piece ending before i: after `;`, `{`, `}` or the open bracket. */
static int statement_start(const toks *t, int i)
{
    int s = i;
    while (s > 0) {
        const tok *k = &t->v[s - 1];
        if (k->kind == T_P && k->match >= 0 && (tis(k, ")") || tis(k, "]") || tis(k, "}"))) {
            if (tis(k, "}"))
                break;
            s = k->match;
            continue;
        }
        if (k->kind == T_P && (tis(k, ";") || tis(k, "{") || tis(k, "(") || tis(k, "[")))
            break;
        s--;
    }
    return s;
}

static bool const_declaration(const toks *t, int from, int to)
{
    for (int i = from; i < to; i++)
        if (t->v[i].kind == T_ID && (tis(&t->v[i], "const") || tis(&t->v[i], "constexpr")))
            return true;
    return false;
}

static fate carrier(const toks *t, int name)
{
    return (fate){ .kind = F_CARRIER, .name = name, .is_const = const_declaration(t, statement_start(t, name), name) };
}

/* The left operand of the assignment at eq: its first token. */
static int lhs_start(const toks *t, int eq)
{
    int s = eq;
    while (s > 0) {
        const tok *k = &t->v[s - 1];
        if (k->kind == T_P && k->match >= 0 && (tis(k, ")") || tis(k, "]"))) {
            s = k->match;
            continue;
        }
        if (k->kind == T_P && (tis(k, ";") || tis(k, ",") || tis(k, "?") || tis(k, ":") || tis(k, "{") ||
                               tis(k, "}") || tis(k, "(") || tis(k, "[") || is_assign(k)))
            break;
        if (k->kind == T_ID && (tin(k, DEADKW) || tis(k, "else") || tis(k, "do")))
            break;
        s--;
    }
    return s;
}

/* Where a conditional expression whose `?` is at q starts: after an assignment, a statement
 * boundary, an open bracket or a keyword (commas are crossed: they may be a template's). */
static int conditional_start(const toks *t, int q)
{
    int s = q;
    while (s > 0) {
        const tok *k = &t->v[s - 1];
        if (k->kind == T_P && k->match >= 0 && (tis(k, ")") || tis(k, "]"))) {
            s = k->match;
            continue;
        }
        if (k->kind == T_P && (tis(k, ";") || tis(k, "{") || tis(k, "}") || tis(k, "(") || tis(k, "[") || is_assign(k)))
            break;
        if (k->kind == T_ID && tin(k, DEADKW))
            break;
        s--;
    }
    return s;
}

/* Where the expression from e on ends: at a comma, `;` or a closing bracket of the same depth. */
static int expression_end(const toks *t, int e)
{
    int j = e;
    while (j < t->n) {
        const tok *k = &t->v[j];
        if (k->kind == T_P && k->match > j) {
            j = k->match + 1;
            continue;
        }
        if (k->kind == T_P && (tis(k, ",") || tis(k, ";") || tis(k, ")") || tis(k, "]") || tis(k, "}")))
            break;
        j++;
    }
    return j;
}

static bool names_a_cache(const reach *r, const toks *t, int from, int to)
{
    for (int i = from; i < to; i++) {
        const tok *k = &t->v[i];
        const cxx_macro *m;
        if (k->kind == T_ID && (has_name(&r->caches, k) || ((m = cxx_find_macro(&r->lx, k)) && m->cache)))
            return true;
    }
    return false;
}

static fate climb(reach *r, const toks *t, int b, int e, int depth);

/* A value assigned by the operator at j. */
static fate assigned(reach *r, const toks *t, int j)
{
    int s = lhs_start(t, j);
    if (s >= j)
        return live();
    const tok *last = &t->v[j - 1];
    /* *x = v is a store; T *x = v declares x (only a type name or `>` stands before its `*`) */
    bool deref = is_p(t, j - 2, "*") && !(j >= 3 && ((t->v[j - 3].kind == T_ID && !tin(&t->v[j - 3], DEADKW)) ||
                                                    is_p(t, j - 3, ">")));
    if (last->kind == T_ID && !is_p(t, j - 2, ".") && !is_p(t, j - 2, "->") && !deref)
        return tis(&t->v[j], "=") ? carrier(t, j - 1) : dead();  /* x = v; x += v is unknown */
    /* a store through a pointer, a subscript or a member (in a macro body, maybe through a
     * parameter that is a cache where it is used) */
    if (t->macro_body || names_a_cache(r, t, s, j))
        return live();
    return dead();
}

/* The call, cast or initialisation whose argument list opens at o (t[o] is `(` or `{`). */
static fate argument(reach *r, const toks *t, int o, int depth)
{
    int c = t->v[o].match;
    int pj = o - 1;
    bool brace = tis(&t->v[o], "{");
    if (pj < 0)
        return brace ? dead() : climb(r, t, o, c + 1, depth + 1);
    const tok *p = &t->v[pj];
    if (p->kind == T_ID && tin(p, DEADKW))
        return dead();
    if (brace && p->kind == T_P && (tis(p, "=") || tis(p, ",") || tis(p, "(") || tis(p, "{") || tis(p, "[")))
        return climb(r, t, o, c + 1, depth + 1);  /* = {v}, f({v}) */
    if (brace && !(p->kind == T_ID && !tis(p, "else") && !tis(p, "do") && !tis(p, "try")) && !is_p(t, pj, ">"))
        return dead();  /* a block: v starts a statement */
    bool callee_end = p->kind == T_ID || is_p(t, pj, ">") || is_p(t, pj, ")") || is_p(t, pj, "]");
    if (!callee_end)
        return climb(r, t, o, c + 1, depth + 1);  /* parentheses */
    if (r->sink_objects)
        return live();
    if (is_p(t, pj, ")") || is_p(t, pj, "]"))
        return live();  /* f(x)(v), a[i](v), a lambda's parameters: not read further */
    int cb = pj;
    if (is_p(t, pj, ">")) {  /* static_cast<float>(v), f<T>(v): back to the name before `<` */
        int d = 0, k = pj;
        for (; k >= 0 && pj - k < MAX_ANGLE; k--) {  /* a kernel launch's <<<...>>> counts as three */
            if (is_p(t, k, ">"))
                d++;
            else if (is_p(t, k, ">>"))
                d += 2;
            else if (is_p(t, k, "<"))
                d--;
            else if (is_p(t, k, "<<"))
                d -= 2;
            else if (is_p(t, k, ";") || is_p(t, k, "{") || is_p(t, k, "}"))
                return live();
            if (d <= 0)
                break;
        }
        if (d > 0)
            return live();
        if (is_p(t, k, "<<") && is_p(t, k - 1, ">")) {  /* f<T><<<...>>>(v): f's own arguments */
            for (d = 0, k--; k >= 0 && pj - k < 2 * MAX_ANGLE; k--) {
                d += is_p(t, k, ">") ? 1 : is_p(t, k, ">>") ? 2 : is_p(t, k, "<") ? -1 : 0;
                if (d <= 0 || is_p(t, k, ";") || is_p(t, k, "{") || is_p(t, k, "}"))
                    break;
            }
            if (k < 0 || d > 0 || !is_p(t, k, "<"))
                return live();
        }
        if (k < 1 || t->v[k - 1].kind != T_ID)
            return live();
        cb = k - 1;
    }
    if (is_sink_call(r->st, &t->v[cb]))
        return live();  /* a sink stores its value argument */
    while (cb >= 2 && is_p(t, cb - 1, "::") && t->v[cb - 2].kind == T_ID)
        cb -= 2;
    const cxx_macro *m = cxx_find_macro(&r->lx, &t->v[cb]);
    if (m && m->assigns)
        return live();
    /* T x(v), T* x(v), T x{v}: a declaration; x holds v */
    int pp = cb - 1;
    if (pp >= 0 && cb == pj && ((t->v[pp].kind == T_ID && !tin(&t->v[pp], DEADKW) && !tis(&t->v[pp], "else") &&
                                 !tis(&t->v[pp], "do")) || is_p(t, pp, "*") || is_p(t, pp, "&") ||
                                is_p(t, pp, "&&") || is_p(t, pp, ">"))) {
        if (cxx_find_macro(&r->lx, &t->v[pp]))
            return live();
        return carrier(t, cb);
    }
    return climb(r, t, cb, c + 1, depth + 1);
}


/* In the list of the bracket at o: the element [b, e). */
static fate element(reach *r, const toks *t, int o, int e, int depth)
{
    if (tis(&t->v[o], "["))
        return dead();  /* a subscript or a capture list */
    if (t->v[o].match < 0)
        return live();
    if (tis(&t->v[o], "{") && cxx_tok_block(t, o))  /* `{ v; }`, `{ a, v; }`: a statement of its own */
        return is_p(t, e, ";") ? dead() : live();
    if (e < t->n && !(is_p(t, e, ",") || e == t->v[o].match))
        return live();
    return argument(r, t, o, depth);
}

/* The fate of the value of tokens [b, e). */
static fate climb(reach *r, const toks *t, int b, int e, int depth)
{
    if (depth > MAX_CLIMB)
        return live();
    if (b == 0 && e == t->n)
        return (fate){ .kind = F_MACRO_VALUE };  /* a macro's whole body (in a file: keep it) */
    int j = b - 1;
    while (j >= 0 && (is_p(t, j, "-") || is_p(t, j, "+"))) {
        if (operand_end(r, t, j - 1))
            return dead();  /* a binary operand */
        j--;
    }
    const tok *p = j >= 0 ? &t->v[j] : NULL, *q = e < t->n ? &t->v[e] : NULL;
    if (q && (q->kind != T_P || tin(q, BINOPS) || is_assign(q) || tis(q, "(") || tis(q, "[") || tis(q, "{") ||
              tis(q, "?")))
        return dead();
    if (!p)  /* the first token: of a file, a statement; of a macro body, the body's value */
        return t->macro_body || !q ? (fate){ .kind = F_MACRO_VALUE } : dead();
    if (p->kind == T_NUM || tin(p, BINOPS) || tis(p, "]"))
        return dead();
    if (p->kind == T_ID)
        return cxx_find_macro(&r->lx, p) ? live() : dead();  /* a declarator, `return v`, `case v` */
    if (tis(p, ")"))
        return p->match >= 0 ? climb(r, t, p->match, e, depth + 1) : live();  /* a cast */
    if (tis(p, "?"))
        return climb(r, t, conditional_start(t, j), expression_end(t, e), depth + 1);
    if (tis(p, ":")) {
        /* a ternary's second arm when a `?` is open to the left in the same statement */
        int open = 0;
        for (int k = j - 1; k >= 0; k--) {
            const tok *x = &t->v[k];
            if (x->kind == T_P && x->match >= 0 && (tis(x, ")") || tis(x, "]"))) {
                k = x->match;
                continue;
            }
            if (x->kind == T_P && (tis(x, ";") || tis(x, "{") || tis(x, "}") || tis(x, "(") || tis(x, "[")))
                break;
            if (tis(x, ":"))
                open++;
            else if (tis(x, "?") && open-- == 0)
                return climb(r, t, conditional_start(t, k), expression_end(t, e), depth + 1);
        }
        int o = p->open;
        if (o >= 1 && tis(&t->v[o], "(") && tis(&t->v[o - 1], "for"))
            return live();  /* for (x : v) */
        return q && (tis(q, ";") || tis(q, ",") || tis(q, ")") || tis(q, "}")) ? dead() : live();
    }
    if (is_assign(p))
        return assigned(r, t, j);
    if (tis(p, ",")) {
        int o = p->open;
        if (o < 0)  /* `int a, v;`, `x = a, v;`; in a macro body, maybe a list where it is used */
            return t->macro_body ? (fate){ .kind = F_MACRO_VALUE } : dead();
        return element(r, t, o, e, depth);
    }
    if (tis(p, "(") || tis(p, "[") || tis(p, "{"))
        return element(r, t, j, e, depth);
    if (tis(p, ";") || tis(p, "}"))
        return dead();  /* a statement of its own: `v;` */
    if (tis(p, "::"))
        return live();
    return live();
}

/* The tokens an occurrence of a seed at i spans: qualifiers before it, subscripts after an
 * identifier, template arguments, members and the call of a table word or function-like macro. */
static void primary(const reach *r, const toks *t, int i, int *b, int *e)
{
    const tok *k = &t->v[i];
    const cxx_macro *m = cxx_find_macro(&r->lx, k);
    bool callish = is_table_word(r->st, k) || (m && m->fn);
    int s = i;
    while (s >= 2 && is_p(t, s - 1, "::") && t->v[s - 2].kind == T_ID)
        s -= 2;
    if (is_p(t, s - 1, "::"))
        s--;
    int x = i + 1;
    while (x < t->n) {
        if (is_p(t, x, "::") && x + 1 < t->n && t->v[x + 1].kind == T_ID) {
            x += 2;
        } else if (callish && is_p(t, x, "<")) {
            int d = 0, y = x;
            for (; y < t->n && y - x < MAX_ANGLE && !is_p(t, y, ";") && !is_p(t, y, "{"); y++) {
                d += is_p(t, y, "<") ? 1 : is_p(t, y, ">") ? -1 : is_p(t, y, ">>") ? -2 : 0;
                if (d <= 0)
                    break;
            }
            if (y >= t->n || d > 0)
                break;
            x = y + 1;
        } else if (callish && is_p(t, x, "(") && t->v[x].match > x) {
            x = t->v[x].match + 1;
        } else if (!callish && is_p(t, x, "[") && t->v[x].match > x) {
            x = t->v[x].match + 1;
        } else {
            break;
        }
    }
    *b = s;
    *e = x;
}

/* Is token i inside the operands of an asm statement (which stores nothing the walk reads)? */
static bool in_asm(const toks *t, int i)
{
    static const char *const asm_words[] = { "asm", "__asm__", "__asm", NULL };
    for (int o = t->v[i].open; o >= 0; o = t->v[o].open) {
        int k = o - 1;
        while (k >= 0 && (tis(&t->v[k], "volatile") || tis(&t->v[k], "__volatile__") || tis(&t->v[k], "goto")))
            k--;
        if (k >= 0 && tis(&t->v[o], "(") && tin(&t->v[k], asm_words))
            return true;
    }
    return false;
}


static void note(reach *r, const toks *t, int i)
{
    if (!r->why || r->why->special.path)
        return;
    const tok *k = &t->v[i];
    size_t n = k->len < sizeof r->why->special.word - 1 ? k->len : sizeof r->why->special.word - 1;
    memcpy(r->why->special.word, k->s, n);
    r->why->special.word[n] = '\0';
    r->why->special.path = t->path;
    r->why->special.line = k->line;
}

/* The identifiers of a token list by hash: head[h & mask] is the last token of that bucket, next[i]
 * the one before token i (-1: none). */
typedef struct occurrences {
    int *head, *next;
    unsigned mask;
} occurrences;

static occurrences index_identifiers(kv_arena *a, const toks *t)
{
    unsigned n = 16;
    while (n < 2u * (unsigned)t->n)
        n *= 2;
    occurrences o = { arena_alloc(a, n * sizeof(int)), arena_alloc(a, ((size_t)t->n + 1) * sizeof(int)), n - 1 };
    for (unsigned i = 0; i < n; i++)
        o.head[i] = -1;
    for (int i = 0; i < t->n; i++) {
        o.next[i] = -1;
        if (t->v[i].kind == T_ID) {
            o.next[i] = o.head[t->v[i].hash & o.mask];
            o.head[t->v[i].hash & o.mask] = i;
        }
    }
    return o;
}

typedef enum { IN_MAIN, IN_HEADER, IN_MACRO } follow_mode;

/* Follow every seed of t. In the main file: true when one lives (a store may hold it), and every
 * carrier found is added to r. In a header: its constants are added. In a macro body: true when a
 * seed may be what the body yields where it is used (its value, a store, an assignment). */
static bool follow(reach *r, toks *t, follow_mode mode)
{
    if (!t->balanced)
        return mode != IN_HEADER;
    occurrences occ = index_identifiers(r->a, t);
    ARENA_VEC(int) work = {0};
    unsigned char *seen = arena_alloc(r->a, (size_t)t->n + 1);
    memset(seen, 0, (size_t)t->n + 1);
    for (int i = 0; i < t->n; i++)
        if (is_seed(r, &t->v[i]))
            ARENA_PUSH(r->a, work, i);
    bool lives = false;
    while (work.n && !lives && !r->give_up) {
        int i = work.v[--work.n];
        if (seen[i])
            continue;
        seen[i] = 1;
        const tok *k = &t->v[i];
        const cxx_macro *m = cxx_find_macro(&r->lx, k);
        if (m && m->stores && has_name(&r->carriers, k) && mode != IN_HEADER) {
            note(r, t, i);
            lives = true;  /* its expansion may store a special value */
            break;
        }
        int b, e;
        primary(r, t, i, &b, &e);
        fate f = in_asm(t, i) ? dead() : climb(r, t, b, e, 0);
        if (mode == IN_MACRO && f.kind != F_CARRIER) {
            lives = f.kind != F_DEAD;  /* its value or a store where it is used */
            continue;
        }
        if (f.kind == F_LIVE || f.kind == F_MACRO_VALUE) {
            if (mode == IN_HEADER)
                continue;
            note(r, t, i);
            lives = true;
        } else if (f.kind == F_CARRIER && (mode != IN_HEADER || f.is_const) && !has_name(&r->carriers, &t->v[f.name])) {
            /* a variable of a function body means itself there only; a header's constant, a
             * macro's assignment and a global mean theirs everywhere */
            int scope = mode == IN_MAIN ? t->v[f.name].scope : -1;
            const tok *nm = &t->v[f.name];
            add_name(r, &r->carriers, nm, scope);
            for (int j = occ.head[nm->hash & occ.mask]; j >= 0; j = occ.next[j])
                if (!seen[j] && same_spelling(nm->s, nm->len, &t->v[j]) && (scope < 0 || t->v[j].scope == scope))
                    ARENA_PUSH(r->a, work, j);
        }
    }
    return lives || r->give_up;
}

/* Macros: which assign (or name a sink), which may store, which name a cache; to a fixed point,
 * since one macro may use another. */
static void macro_flags(reach *r)
{
    for (size_t i = 0; i < r->lx.macros.n; i++) {
        cxx_macro *m = &r->lx.macros.v[i];
        const toks *b = &m->body;
        for (int k = 0; k < b->n; k++) {
            const tok *x = &b->v[k];
            bool sink = is_sink_word(r->st, x);
            if (is_assign(x) || sink) {
                m->assigns = true;
                /* `x = v` in an object-like macro assigns a variable where it is used (followed as
                 * a carrier); anything else may be a store */
                m->stores |= sink || m->fn || !(k >= 1 && b->v[k - 1].kind == T_ID && !is_p(b, k - 2, ".") &&
                                                !is_p(b, k - 2, "->") && !is_p(b, k - 2, "*"));
            }
            m->cache |= x->kind == T_ID && (cxx_is_cache_name(r->st, x->s, x->len) || is_kv_type(r->st, x));
        }
        m->assigns |= !b->balanced;
        m->stores |= !b->balanced;
        m->cache |= !b->balanced;
        if (m->prev >= 0) {  /* a name defined twice is read as either definition */
            const cxx_macro *p = &r->lx.macros.v[m->prev];
            m->fn |= p->fn;
            m->assigns |= p->assigns;
            m->stores |= p->stores;
            m->cache |= p->cache;
        }
    }
    /* a macro that uses one that assigns, stores, names a cache */
    int round = 0;
    for (bool changed = true; changed && next_round(r, &round);) {
        changed = false;
        for (size_t i = 0; i < r->lx.macros.n; i++) {
            cxx_macro *m = &r->lx.macros.v[i];
            for (int k = -1; k < m->body.n; k++) {  /* k = -1: its earlier definition */
                const cxx_macro *u = k < 0 ? (m->prev >= 0 ? &r->lx.macros.v[m->prev] : NULL)
                                           : cxx_find_macro(&r->lx, &m->body.v[k]);
                if (!u || u == m)
                    continue;
                if ((u->assigns && !m->assigns) || (u->stores && !m->stores) || (u->cache && !m->cache))
                    changed = true;
                m->assigns |= u->assigns;
                m->stores |= u->stores;
                m->cache |= u->cache;
            }
        }
    }
}

/* Which macros yield a seed's value (carriers, by name); to a fixed point, since one macro may use
 * another's value. */
static void settle_macros(reach *r)
{
    int round = 0;
    for (bool changed = true; changed && next_round(r, &round);) {
        changed = false;
        for (size_t i = 0; i < r->lx.macros.n && !r->give_up; i++) {
            cxx_macro *m = &r->lx.macros.v[i];
            if (m->carrier)
                continue;
            if (follow(r, &m->body, IN_MACRO)) {
                m->carrier = changed = true;
                unsigned len = (unsigned)strlen(m->name);
                tok word = { .kind = T_ID, .s = m->name, .len = len, .scope = -1, .hash = cxx_tok_hash(m->name, len) };
                if (!has_name(&r->carriers, &word))
                    add_name(r, &r->carriers, &word, -1);
            }
        }
    }
}

/* Could [from, to) have a cache as its pointer base (cxx_pointer_base: p in p + i, &p[i], *p,
 * casts of p)? It names one outside subscripts, members and the arguments of calls. */
static bool based_on_cache(const reach *r, const toks *t, int from, int to)
{
    static const char *const casts[] = { "reinterpret_cast", "static_cast", "const_cast", "dynamic_cast", NULL };
    for (int i = from; i < to; i++) {
        const tok *k = &t->v[i];
        if (k->kind == T_P && k->match > i && (tis(k, "[") ||
                                               (tis(k, "(") && i > from && t->v[i - 1].kind == T_ID &&
                                                !tin(&t->v[i - 1], casts)))) {
            i = k->match;  /* an index, or a call's arguments */
            continue;
        }
        if (k->kind == T_ID && !is_p(t, i - 1, ".") && !is_p(t, i - 1, "->") && names_a_cache(r, t, i, i + 1))
            return true;
    }
    return false;
}

/* Words that are no variable's name. */
static const char *const NOT_NAMES[] = { "if", "for", "while", "switch", "catch", "return", "sizeof", "alignof",
                                         "decltype", "const", "volatile", "noexcept", "static_assert", "namespace",
                                         "struct", "class", "union", "enum", "operator", "template", "typename",
                                         "else", "do", "try", "new", "delete", "throw", "case", "asm", NULL };

/* Does the identifier at i, followed by `(` or `{`, declare a variable with an initialiser (T x(v),
 * T *x{v})? Not a call, a namespace or class body, a function's parameters or body. */
static bool declares(const toks *t, int i)
{
    const tok *b = i >= 1 ? &t->v[i - 1] : NULL;
    if (!b || !((b->kind == T_ID && !tin(b, NOT_NAMES)) || tis(b, "*") || tis(b, "&") || tis(b, "&&") || tis(b, ">")))
        return false;
    int c = t->v[i + 1].match;
    static const char *const after_params[] = { "{", "const", "override", "final", "noexcept", "->", ":", "throw",
                                                "mutable", NULL };
    return !(tis(&t->v[i + 1], "(") && c + 1 < t->n && tin(&t->v[c + 1], after_params));
}

/* Cache-ish names of the main file: named like a cache, declared of the KV element type (cache_t
 * *p), or assigned (initialised) from an expression whose pointer base may be one. */
static void find_caches(reach *r, const toks *t)
{
    for (int i = 0; i < t->n; i++) {
        const tok *k = &t->v[i];
        if (k->kind != T_ID)
            continue;
        if (cxx_is_cache_name(r->st, k->s, k->len) && !has_name(&r->caches, k))
            add_name(r, &r->caches, k, -1);
        if (is_kv_type(r->st, k)) {
            int j = i + 1;
            while (j < t->n && (tin(&t->v[j], QUALS) || is_p(t, j, "*") || is_p(t, j, "&")))
                j++;
            if (j < t->n && t->v[j].kind == T_ID && !has_name(&r->caches, &t->v[j]))
                add_name(r, &r->caches, &t->v[j], t->v[j].scope);
        }
    }
    int round = 0;
    for (bool changed = true; changed && next_round(r, &round);) {
        changed = false;
        for (int i = 1; i < t->n; i++) {
            /* x = ... a cache ..., T x(... a cache ...), T x{...} */
            const tok *nm = &t->v[i - 1];
            bool init = is_p(t, i, "=") || ((is_p(t, i, "(") || is_p(t, i, "{")) && t->v[i].match > i &&
                                              declares(t, i - 1));
            if (!init || nm->kind != T_ID || tin(nm, NOT_NAMES) || has_name(&r->caches, nm))
                continue;
            int end = is_p(t, i, "=") ? expression_end(t, i + 1) : t->v[i].match;
            if (based_on_cache(r, t, i + 1, end)) {
                add_name(r, &r->caches, nm, nm->scope);
                changed = true;
            }
        }
    }
}

bool cxx_reach(const cxx_state *st, const cxx_source_text *main, const cxx_source_text *headers, size_t nheaders,
               kv_arena *a, cxx_prefilter_why *why)
{
    reach r = { .st = st, .a = a, .lx = { .a = a }, .why = why };
    toks *hs = arena_alloc(a, (nheaders + 1) * sizeof *hs);
    for (size_t i = 0; i < nheaders; i++)
        cxx_tokenize(&r.lx, headers[i].path, headers[i].data, headers[i].len, true, &hs[i]);
    toks m;
    cxx_tokenize(&r.lx, main->path, main->data, main->len, true, &m);
    /* A sink the file spells: where it is defined, its cache parameters are caches; a
     * `T::operator()` sink is called through objects of any name. */
    for (int i = 0; i < m.n; i++)
        for (size_t k = 0; k < st->sinks.n && m.v[i].kind == T_ID; k++) {
            const cxx_sink *sk = &st->sinks.v[k];
            const char *sep = strstr(sk->name, "::");
            size_t n = sep ? (size_t)(sep - sk->name) : strlen(sk->name);
            if (n != m.v[i].len || memcmp(sk->name, m.v[i].s, n) != 0)
                continue;
            r.sink_objects |= strstr(sk->name, "::operator()") != NULL;
            for (size_t c = 0; c < sk->npairs; c++) {
                const char *pn = sk->params[sk->cache[c]];
                unsigned len = (unsigned)strlen(pn);
                tok word = { .kind = T_ID, .s = pn, .len = len, .scope = -1, .hash = cxx_tok_hash(pn, len) };
                if (!has_name(&r.caches, &word))
                    add_name(&r, &r.caches, &word, -1);
            }
        }
    macro_flags(&r);
    find_caches(&r, &m);
    /* headers' constants and every macro, until no carrier is added */
    int round = 0;
    for (size_t before = (size_t)-1; before != r.carriers.v.n && next_round(&r, &round);) {
        before = r.carriers.v.n;
        settle_macros(&r);
        for (size_t i = 0; i < nheaders && !r.give_up; i++)
            follow(&r, &hs[i], IN_HEADER);
    }
    if (r.give_up) {
        if (why && !why->special.path)
            snprintf(why->special.word, sizeof why->special.word, "(too many carriers)");
        return true;
    }
    if (!m.balanced) {
        if (why && !why->special.path) {
            snprintf(why->special.word, sizeof why->special.word, "(unbalanced brackets)");
            why->special.path = main->path;
        }
        return true;
    }
    return follow(&r, &m, IN_MAIN);
}
