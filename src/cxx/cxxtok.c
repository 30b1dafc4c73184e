/*
 * cxxtok.c: tokens for the C/C++/CUDA prefilter (cxxtok.h): identifiers, numbers (with digit
 * separators) and punctuators outside comments, string and character literals; directives are
 * left out of a file's tokens and each `#define` is kept with its body's own tokens; brackets are
 * paired, and each token knows the outermost function body it is in. It does not expand macros or
 * follow #if: both branches of a conditional are read, which can only unbalance the brackets.
 */
#include <stdlib.h>
#include <string.h>

#include "cxx/cxxtok.h"

static bool is_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_word(char c)
{
    return is_start(c) || (c >= '0' && c <= '9');
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static unsigned punct_len(const char *s, size_t left)
{
    static const char *const three[] = { "<<=", ">>=", "->*", NULL };
    static const char *const two[] = { "->", "::", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "++", "--", "+=",
                                       "-=", "*=", "/=", "%=", "&=", "|=", "^=", ".*", NULL };
    for (size_t i = 0; three[i]; i++)
        if (left >= 3 && memcmp(s, three[i], 3) == 0)
            return 3;
    for (size_t i = 0; two[i]; i++)
        if (left >= 2 && memcmp(s, two[i], 2) == 0)
            return 2;
    return 1;
}

/* Pair brackets; a closer that does not match its opener unbalances the list. */
static void pair_brackets(kv_arena *a, toks *t)
{
    int *stack = arena_alloc(a, (size_t)(t->n + 1) * sizeof *stack);
    int depth = 0;
    t->balanced = true;
    for (int i = 0; i < t->n; i++) {
        tok *k = &t->v[i];
        k->match = -1;
        k->open = depth ? stack[depth - 1] : -1;
        if (k->kind != T_P || k->len != 1)
            continue;
        char c = k->s[0];
        if (c == '(' || c == '[' || c == '{') {
            stack[depth++] = i;
        } else if (c == ')' || c == ']' || c == '}') {
            char want = c == ')' ? '(' : c == ']' ? '[' : '{';
            if (!depth || t->v[stack[depth - 1]].s[0] != want) {
                t->balanced = false;
                continue;
            }
            int o = stack[--depth];
            t->v[o].match = i;
            k->match = o;
            k->open = depth ? stack[depth - 1] : -1;
        }
    }
    if (depth)
        t->balanced = false;
    /* scopes: the outermost block opened outside any function body is one (namespace, class and
     * extern "C" braces follow a name, not a `)`) */
    int scope = -1, until = -1;
    for (int i = 0; i < t->n; i++) {
        if (i > until)
            scope = -1;
        if (scope < 0 && t->balanced && is_p(t, i, "{") && !t->macro_body && cxx_tok_block(t, i) &&
            t->v[i].match > i) {
            scope = i;
            until = t->v[i].match;
        }
        t->v[i].scope = scope;
    }
}

/* One preprocessor directive starting at s[i] ('#'); its end (the newline not escaped). A
 * `#define` is recorded as a macro. */
static size_t directive(cxx_lexer *lx, const char *path, const char *s, size_t len, size_t i);

void cxx_tokenize(cxx_lexer *lx, const char *path, const char *s, size_t len, bool directives, toks *out)
{
    ARENA_VEC(tok) v = {0};
    unsigned line = 1;
    bool line_start = true;
    size_t i = 0;
    while (i < len) {
        char c = s[i];
        if (c == '\n') {
            line++, i++, line_start = true;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' || (c == '\\' && i + 1 < len && s[i + 1] == '\n')) {
            i += c == '\\' ? 2 : 1;
            line += c == '\\';
            continue;
        }
        if (directives && line_start && c == '#') {
            size_t e = directive(lx, path, s, len, i);
            for (size_t k = i; k < e; k++)
                line += s[k] == '\n';
            i = e;
            continue;
        }
        line_start = false;
        if (c == '/' && i + 1 < len && s[i + 1] == '/') {
            while (i < len && s[i] != '\n')
                i++;
            continue;
        }
        if (c == '/' && i + 1 < len && s[i + 1] == '*') {
            size_t j = i + 2;
            while (j + 1 < len && !(s[j] == '*' && s[j + 1] == '/'))
                line += s[j++] == '\n';
            i = j + 1 < len ? j + 2 : len;
            continue;
        }
        if (c == '"' || c == '\'') {
            i++;
            while (i < len && s[i] != c && s[i] != '\n')
                i += s[i] == '\\' ? 2 : 1;
            i++;
            continue;
        }
        tok t = { .s = s + i, .line = line };
        if (is_start(c)) {
            size_t b = i;
            while (i < len && is_word(s[i]))
                i++;
            t.kind = T_ID;
            t.len = (unsigned)(i - b);
            t.hash = cxx_tok_hash(t.s, t.len);
        } else if (is_digit(c) || (c == '.' && i + 1 < len && is_digit(s[i + 1]))) {
            size_t b = i;
            while (i < len && (is_word(s[i]) || s[i] == '.' || (s[i] == '\'' && i + 1 < len && is_word(s[i + 1])) ||
                               ((s[i] == '+' || s[i] == '-') && strchr("eEpP", s[i - 1]))))
                i++;
            t.kind = T_NUM;
            t.len = (unsigned)(i - b);
        } else {
            t.kind = T_P;
            t.len = punct_len(s + i, len - i);
            i += t.len;
        }
        ARENA_PUSH(lx->a, v, t);
    }
    out->v = v.v;
    out->n = (int)v.n;
    out->path = path;
    out->macro_body = !directives;
    pair_brackets(lx->a, out);
}

/* The slot of a name in lx's table (holding -1 when it is not there). */
static size_t macro_slot(const cxx_lexer *lx, const char *name, unsigned len, unsigned hash)
{
    size_t mask = lx->nslots - 1, i = hash & mask;
    for (int k; (k = lx->slots[i]) >= 0; i = (i + 1) & mask)
        if (strlen(lx->macros.v[k].name) == len && memcmp(lx->macros.v[k].name, name, len) == 0)
            break;
    return i;
}

static void add_macro(cxx_lexer *lx, cxx_macro *m)
{
    if (2 * (lx->macros.n + 1) > lx->nslots) {
        size_t n = lx->nslots ? 2 * lx->nslots : 64;
        lx->slots = arena_alloc(lx->a, n * sizeof *lx->slots);
        lx->nslots = n;
        for (size_t i = 0; i < n; i++)
            lx->slots[i] = -1;
        for (size_t i = 0; i < lx->macros.n; i++) {  /* the last definition of each name wins */
            const cxx_macro *x = &lx->macros.v[i];
            lx->slots[macro_slot(lx, x->name, (unsigned)strlen(x->name), x->hash)] = (int)i;
        }
    }
    unsigned len = (unsigned)strlen(m->name);
    m->hash = cxx_tok_hash(m->name, len);
    size_t s = macro_slot(lx, m->name, len, m->hash);
    m->prev = lx->slots[s];
    ARENA_PUSH(lx->a, lx->macros, *m);
    lx->slots[s] = (int)(lx->macros.n - 1);
}

static size_t directive(cxx_lexer *lx, const char *path, const char *s, size_t len, size_t i)
{
    size_t e = i;
    while (e < len && !(s[e] == '\n' && s[e - 1] != '\\' && !(s[e - 1] == '\r' && e >= 2 && s[e - 2] == '\\')))
        e++;
    size_t j = i + 1;
    while (j < e && (s[j] == ' ' || s[j] == '\t'))
        j++;
    if (e - j < 7 || strncmp(s + j, "define", 6) != 0 || is_word(s[j + 6]))
        return e;
    j += 6;
    while (j < e && (s[j] == ' ' || s[j] == '\t'))
        j++;
    size_t nb = j;
    while (j < e && is_word(s[j]))
        j++;
    if (j == nb)
        return e;
    cxx_macro m = { .name = arena_strndup(lx->a, s + nb, j - nb), .fn = j < e && s[j] == '(' };
    if (m.fn) {
        while (j < e && s[j] != ')')
            j++;
        j += j < e;
    }
    cxx_tokenize(lx, path, s + j, e - j, false, &m.body);
    add_macro(lx, &m);
    return e;
}

double cxx_tok_number(const tok *t)
{
    char buf[64];
    size_t n = 0;
    for (unsigned i = 0; i < t->len && n + 1 < sizeof buf; i++)
        if (t->s[i] != '\'')
            buf[n++] = t->s[i];
    buf[n] = '\0';
    return strtod(buf, NULL);
}

cxx_macro *cxx_find_macro(const cxx_lexer *lx, const tok *t)
{
    if (t->kind != T_ID || !lx->nslots)
        return NULL;
    int k = lx->slots[macro_slot(lx, t->s, t->len, t->hash)];
    return k >= 0 ? &lx->macros.v[k] : NULL;
}

/* Does the `{` at o open a block (a function body, a compound statement), not an initialiser? */
bool cxx_tok_block(const toks *t, int o)
{
    if (o == 0)
        return true;
    const tok *p = &t->v[o - 1];
    if (p->kind == T_P)
        return tis(p, ")") || tis(p, ";") || tis(p, "}") || tis(p, ":");
    static const char *const before_block[] = { "else", "do", "try", "const", "override", "final", "noexcept",
                                                "mutable", "volatile", NULL };
    return p->kind == T_ID && tin(p, before_block);
}

unsigned cxx_tok_hash(const char *s, unsigned len)
{
    unsigned h = 2166136261u;
    for (unsigned i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}
