/*
 * cxxtok.h: the tokens of the C/C++/CUDA prefilter's second half (cxxtok.c makes them, cxxreach.c
 * reads them): identifiers, numbers and punctuators outside comments, strings and directives, with
 * their brackets paired, and the `#define`s met on the way. Nothing outside src/cxx includes it.
 */
#ifndef KV_CXXTOK_H
#define KV_CXXTOK_H
#include <stdbool.h>
#include <string.h>

#include "util/arena.h"

typedef enum { T_ID, T_NUM, T_P } tkind;

typedef struct tok {
    tkind kind;
    const char *s;             /* into the text */
    unsigned len, line;
    int match;                 /* the other bracket of a pair, or -1 */
    int open;                  /* the innermost bracket open before this token, or -1 */
    int scope;                 /* the `{` of the outermost function body around it, or -1 */
    unsigned hash;             /* of an identifier's spelling (cxx_tok_hash), else 0 */
    unsigned char seed;        /* cxxreach.c's cache: 0 not known yet, 1 no seed of the tables, 2 one */
} tok;

/* Invariant: when balanced, every bracket's match is its partner and open/scope are exact. */
typedef struct toks {
    tok *v;
    int n;
    bool balanced;
    bool macro_body;           /* its start and end are wherever the macro is used */
    const char *path;
} toks;

typedef struct cxx_macro {
    const char *name;
    bool fn;                   /* function-like */
    toks body;
    bool assigns;              /* its body assigns, or names a sink: its arguments may be stored */
    bool stores;               /* its expansion may store: an assignment through anything but a plain
                                * identifier (any assignment of a function-like macro), or a sink */
    bool carrier;              /* its body yields a seed's value */
    bool cache;                /* its body names a cache (or the KV element type) */
    unsigned hash;             /* of its name */
    int prev;                  /* the definition of the same name before it (#undef, #if), or -1 */
} cxx_macro;

/* Invariant: slots (nslots, a power of two over twice macros.n, or 0) hold the index of the last
 * definition of each name, or -1. */
typedef struct cxx_lexer {
    kv_arena *a;
    ARENA_VEC(cxx_macro) macros;   /* every #define of the texts read, in order */
    int *slots;
    size_t nslots;
} cxx_lexer;

/* The tokens of s (a file: its directives are left out, its #defines recorded in lx; a macro body:
 * directives=false). */
void cxx_tokenize(cxx_lexer *lx, const char *path, const char *s, size_t len, bool directives, toks *out);
/* The macro t names (the last definition read; the others through prev), or NULL. */
cxx_macro *cxx_find_macro(const cxx_lexer *lx, const tok *t);
/* FNV-1a of a spelling. */
unsigned cxx_tok_hash(const char *s, unsigned len);
/* A number token's value (digit separators dropped), as strtod reads it. */
double cxx_tok_number(const tok *t);
/* Does the `{` at o open a block (a function body, a compound statement), not an initialiser? */
bool cxx_tok_block(const toks *t, int o);

static inline bool tis(const tok *t, const char *p)
{
    return t->s[0] == p[0] && t->len == strlen(p) && memcmp(t->s, p, t->len) == 0;
}

static inline bool tin(const tok *t, const char *const *set)
{
    for (size_t i = 0; set[i]; i++)
        if (tis(t, set[i]))
            return true;
    return false;
}

static inline bool is_p(const toks *t, int i, const char *p)
{
    return i >= 0 && i < t->n && t->v[i].kind == T_P && tis(&t->v[i], p);
}

#endif
