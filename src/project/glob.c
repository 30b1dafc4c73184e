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
 * construction, as RE2 and Go's path.Match avoid backtracking): the cost is O(|pattern| x |path|)
 * whatever the pattern, so `*a*a*a*a*a*b` or `**` repeated twelve times against a long, deep path
 * cost no more than a literal. The pattern is first cut into tokens; token k is state k, and a `**`
 * token has a second state ("inside", after a character other than '/') from which the rest of the
 * pattern may not start until the next '/'.
 */
#include <stdbool.h>
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

typedef struct nfa {
    const tok *t;
    size_t n;          /* tokens; state n accepts */
    bool *cur, *next;  /* states 0..n: "about to match token k"; n+1+k: inside the `**` token k */
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

/* Add state k and everything it reaches without reading a character. */
static void add(const nfa *m, bool *set, size_t k)
{
    while (k <= m->n && !set[k]) {
        set[k] = true;
        if (k == m->n || (m->t[k].kind != T_STAR && m->t[k].kind != T_DSTAR))
            return;
        k++;   /* `*` and `**` may match nothing */
    }
}

/* A `**` token without its slash that ends the pattern ("a/" + "**") matches whatever follows. */
static bool open_tail(const nfa *m, size_t k)
{
    return m->t[k].kind == T_DSTAR && !m->t[k].slash && k + 1 == m->n;
}

static bool accepting(const nfa *m, const bool *set)
{
    if (set[m->n])
        return true;
    return m->n > 0 && set[m->n + 1 + m->n - 1] && open_tail(m, m->n - 1);
}

static void step(const nfa *m, char c)
{
    size_t total = 2 * m->n + 1;
    memset(m->next, 0, total * sizeof *m->next);
    for (size_t k = 0; k < m->n; k++) {
        bool at = m->cur[k], inside = m->cur[m->n + 1 + k];
        if (!at && !inside)
            continue;
        const tok *t = &m->t[k];
        switch (t->kind) {
        case T_LIT: if (at && c == t->c) add(m, m->next, k + 1); break;
        case T_ONE: if (at && c != '/') add(m, m->next, k + 1); break;
        case T_CLASS:
            if (at && (t->set[(unsigned char)c >> 3] >> ((unsigned char)c & 7) & 1))
                add(m, m->next, k + 1);
            break;
        case T_STAR: if (at && c != '/') add(m, m->next, k); break;
        case T_DSTAR:
            /* After a '/', the rest may start again; after anything else, not until the next one. */
            if (c == '/')
                add(m, m->next, k);
            else
                m->next[m->n + 1 + k] = true;
            break;
        }
    }
    memcpy(m->cur, m->next, total * sizeof *m->cur);
}

/* Run pattern over path; with dirs, also true when it matches a directory above path (a prefix
 * of path that ends just before a '/'). */
static bool run(const char *pattern, const char *path, bool dirs, bool git)
{
    size_t plen = strlen(pattern);
    tok small_t[SMALL];
    bool small_s[2 * (2 * SMALL + 1)];
    tok *t = plen <= SMALL ? small_t : xmalloc(plen * sizeof *t);
    size_t n = tokenize(pattern, t, git);
    size_t total = 2 * n + 1;
    bool *sets = plen <= SMALL ? small_s : xmalloc(2 * total * sizeof *sets);
    nfa m = { .t = t, .n = n, .cur = sets, .next = sets + total };
    memset(m.cur, 0, total * sizeof *m.cur);
    add(&m, m.cur, 0);
    bool hit = false, alive = true;
    for (const char *s = path; *s && alive && !hit; s++) {
        if (dirs && *s == '/' && s != path && accepting(&m, m.cur))
            hit = true;
        else {
            step(&m, *s);
            alive = memchr(m.cur, true, total) != NULL;
        }
    }
    if (!hit && alive)
        hit = accepting(&m, m.cur);
    if (t != small_t)
        free(t);
    if (sets != small_s)
        free(sets);
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
