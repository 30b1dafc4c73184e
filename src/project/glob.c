/*
 * glob.c: kv_glob_match, the one glob dialect of .kvlint.yaml (include, exclude, deployments), and
 * kv_glob_match_git, the same automaton reading gitignore's dialect.
 *
 * `*` matches within one path segment, `**` any number of whole segments ("a/" + "**" matches
 * everything under a, "**" + "/b" matches b at any depth), `?` one character other than '/'. No character classes,
 * no braces. The gitignore dialect (git's wildmatch with WM_PATHNAME) adds `[abc]`, `[a-z]`,
 * `[!x]`/`[^x]` (never '/'), `\x` for a literal x, and `**` is special only as a whole segment
 * (elsewhere it is `*`).
 *
 * Matching simulates the pattern as a nondeterministic automaton, all states at once (Thompson's
 * construction, as RE2 and Go's path.Match avoid backtracking), so `*a*a*a*a*a*b` or `**` repeated
 * twelve times against a long, deep path cost no more than a literal. The pattern is first cut into
 * tokens; token k is state k, and a `**` token has a second state ("inside", after a character other
 * than '/') from which the rest of the pattern may not start until the next '/'. The state sets are
 * bit sets and each character is a few word operations per 64 tokens (bit-parallel, as in
 * Shift-And): the cost is O(|pattern| / 64 x |path|), one word per character for any pattern of
 * up to 63 tokens.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "project/project.h"
#include "util/xalloc.h"

typedef enum tok_kind { T_LIT, T_ONE, T_STAR, T_DSTAR, T_CLASS } tok_kind;

typedef struct tok {
    tok_kind kind;
    char c;           /* T_LIT */
    bool slash;       /* T_DSTAR: written "**" + "/", whose '/' belongs to the token */
    unsigned char set[32];  /* T_CLASS: the bytes it matches (never '/') */
} tok;

enum { SMALL = 64 };

/* A set of states, one bit each (state k is bit k % 64 of word k / 64). */
typedef uint64_t word;

typedef struct nfa {
    const tok *t;
    size_t n;          /* tokens; state n accepts */
    size_t w;          /* words per set: states 0..n */
    word *at;          /* "about to match token k", k = 0..n */
    word *in;          /* "inside the `**` token k" (only `**` tokens have it) */
    word *eps;         /* tokens that may match nothing: `*` and `**` */
    word *star;        /* `*` tokens */
    word *dstar;       /* `**` tokens */
    word *adv;         /* 256 sets: the tokens that consume byte c and move on (filled on first use) */
    bool filled[256];
} nfa;

/* A gitignore class at p ('['): fills t and returns the byte after ']', or NULL when it is not
 * closed (the '[' is then a literal). */
static const char *read_class(const char *p, tok *t)
{
    const char *q = p + 1;
    bool neg = *q == '!' || *q == '^';
    q += neg;
    unsigned char set[32] = { 0 };
    for (bool first = true; *q && (first || *q != ']'); first = false) {
        unsigned char lo = (unsigned char)*q;
        if (lo == '\\' && q[1])
            lo = (unsigned char)*++q;
        q++;
        unsigned char hi = lo;
        if (q[0] == '-' && q[1] && q[1] != ']') {
            hi = (unsigned char)q[1];
            if (hi == '\\' && q[2])
                hi = (unsigned char)q[2], q++;
            q += 2;
        }
        for (unsigned c = lo; c <= hi; c++)
            set[c >> 3] |= (unsigned char)(1u << (c & 7));
    }
    if (*q != ']')
        return NULL;
    for (unsigned c = 0; c < 256; c++) {
        bool in = set[c >> 3] >> (c & 7) & 1;
        if (neg)
            in = !in;
        if (in && c != '/' && c != 0)
            t->set[c >> 3] |= (unsigned char)(1u << (c & 7));
    }
    t->kind = T_CLASS;
    return q + 1;
}

static size_t tokenize(const char *p, tok *out, bool git)
{
    size_t n = 0;
    const char *start = p;
    while (*p) {
        tok t = { .kind = T_LIT, .c = *p };
        if (p[0] == '*' && p[1] == '*') {
            /* gitignore: special only as a whole segment ("**" + "/" at the start or after a
             * '/', "/" + "**" at the end); otherwise one `*` */
            bool whole = !git || ((p == start || p[-1] == '/') && (p[2] == '/' || p[2] == '\0'));
            p += 2;
            if (!whole) {
                while (*p == '*')
                    p++;
                out[n++] = (tok){ .kind = T_STAR };
                continue;
            }
            bool slash = *p == '/';
            p += slash;
            out[n++] = (tok){ .kind = T_DSTAR, .slash = slash };
            continue;
        }
        if (*p == '*') {
            t.kind = T_STAR;
            p++;
        } else if (*p == '?') {
            t.kind = T_ONE;
            p++;
        } else if (git && *p == '\\' && p[1]) {
            t.c = p[1];
            p += 2;
        } else if (git && *p == '[') {
            const char *after = read_class(p, &t);
            if (after)
                p = after;
            else
                t = (tok){ .kind = T_LIT, .c = *p++ };
        } else {
            p++;
        }
        out[n++] = t;
    }
    return n;
}

static void bit_set(word *s, size_t k)
{
    s[k >> 6] |= (word)1 << (k & 63);
}

static bool bit_get(const word *s, size_t k)
{
    return s[k >> 6] >> (k & 63) & 1;
}

/* The tokens that consume byte c and move on to the next: a literal c, `?` (unless c is '/'), a
 * class holding c. */
static const word *advancing(nfa *m, unsigned char c)
{
    word *s = m->adv + (size_t)c * m->w;
    if (m->filled[c])
        return s;
    memset(s, 0, m->w * sizeof *s);
    for (size_t k = 0; k < m->n; k++) {
        const tok *t = &m->t[k];
        bool on = (t->kind == T_LIT && (unsigned char)t->c == c) || (t->kind == T_ONE && c != '/')
                  || (t->kind == T_CLASS && (t->set[c >> 3] >> (c & 7) & 1));
        if (on)
            bit_set(s, k);
    }
    m->filled[c] = true;
    return s;
}

/* Add to at every state reachable without reading a character: a run of `*`/`**` tokens entered
 * at k is left at the first token after the run. One addition does it for all runs at once: adding
 * the entered bits (y, inside eps) to eps carries from the lowest entered bit of each run to the bit
 * just past it, and flips the bits on the way; XOR with eps reads the flipped bits back. Returns
 * whether any state is set in at or in. */
static bool close_states(const nfa *m)
{
    word carry = 0, any = 0;
    for (size_t i = 0; i < m->w; i++) {
        word e = m->eps[i], y = m->at[i] & e;
        word sum = e + y;
        word c1 = sum < e;
        word sum2 = sum + carry;
        word c2 = sum2 < sum;
        carry = c1 | c2;
        m->at[i] |= sum2 ^ e;
        any |= m->at[i] | m->in[i];
    }
    return any != 0;
}

/* A `**` token without its slash that ends the pattern ("a/" + "**") matches whatever follows. */
static bool open_tail(const nfa *m, size_t k)
{
    return m->t[k].kind == T_DSTAR && !m->t[k].slash && k + 1 == m->n;
}

static bool accepting(const nfa *m)
{
    if (bit_get(m->at, m->n))
        return true;
    return m->n > 0 && bit_get(m->in, m->n - 1) && open_tail(m, m->n - 1);
}

/* Read c: tokens that consume it move on; `*` stays (not across '/'); a `**` reached or inside goes
 * inside on a character other than '/', and back to its start (the rest may begin) on '/'. */
static bool step(nfa *m, char c)
{
    const word *adv = advancing(m, (unsigned char)c);
    word moved_prev = 0;
    for (size_t i = 0; i < m->w; i++) {
        word at = m->at[i], in = m->in[i];
        word moved = at & adv[i];
        word next = moved << 1 | moved_prev >> 63;
        moved_prev = moved;
        word ds = (at | in) & m->dstar[i];
        if (c == '/') {
            m->at[i] = next | ds;
            m->in[i] = 0;
        } else {
            m->at[i] = next | (at & m->star[i]);
            m->in[i] = ds;
        }
    }
    return close_states(m);
}

/* The state sets of m over one block: 5 sets of w words, then the 256 sets of adv. */
static void nfa_layout(nfa *m, word *block)
{
    m->at = block;
    m->in = block + m->w;
    m->eps = block + 2 * m->w;
    m->star = block + 3 * m->w;
    m->dstar = block + 4 * m->w;
    m->adv = block + 5 * m->w;
    memset(block, 0, 5 * m->w * sizeof *block);
    memset(m->filled, 0, sizeof m->filled);
    for (size_t k = 0; k < m->n; k++) {
        if (m->t[k].kind == T_STAR)
            bit_set(m->star, k);
        if (m->t[k].kind == T_DSTAR)
            bit_set(m->dstar, k);
    }
    for (size_t i = 0; i < m->w; i++)
        m->eps[i] = m->star[i] | m->dstar[i];
}

/* Run pattern over path; with dirs, also true when it matches a directory above path (a prefix
 * of path that ends just before a '/'). */
static bool run(const char *pattern, const char *path, bool dirs, bool git)
{
    size_t plen = strlen(pattern);
    tok small_t[SMALL];
    enum { SMALL_WORDS = 2 };   /* SMALL tokens and the accepting state */
    word small_s[(5 + 256) * SMALL_WORDS];
    tok *t = plen <= SMALL ? small_t : xmalloc(plen * sizeof *t);
    nfa m = { .t = t, .n = tokenize(pattern, t, git) };
    m.w = (m.n + 1 + 63) / 64;
    word *block = m.w <= SMALL_WORDS ? small_s : xmalloc((5 + 256) * m.w * sizeof *block);
    nfa_layout(&m, block);
    bit_set(m.at, 0);
    bool alive = close_states(&m), hit = false;
    for (const char *s = path; *s && alive && !hit; s++) {
        if (dirs && *s == '/' && s != path && accepting(&m))
            hit = true;
        else
            alive = step(&m, *s);
    }
    if (!hit && alive)
        hit = accepting(&m);
    if (t != small_t)
        free(t);
    if (block != small_s)
        free(block);
    return hit;
}

static void strip_dot_slash(const char **pattern, const char **path)
{
    while ((*path)[0] == '.' && (*path)[1] == '/')
        *path += 2;
    while ((*pattern)[0] == '.' && (*pattern)[1] == '/')
        *pattern += 2;
}

bool kv_glob_match(const char *pattern, const char *path)
{
    if (!pattern || !path)
        return false;
    strip_dot_slash(&pattern, &path);
    return run(pattern, path, false, false);
}

bool kv_glob_match_dirs(const char *pattern, const char *path)
{
    if (!pattern || !path)
        return false;
    strip_dot_slash(&pattern, &path);
    return run(pattern, path, true, false);
}

bool kv_glob_match_git(const char *pattern, const char *path)
{
    if (!pattern || !path)
        return false;
    return run(pattern, path, false, true);
}
