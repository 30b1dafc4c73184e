/*
 * pylexer.h: the Python front end's tokenizer, shared by the lexical layer (pylex.c: prefilter,
 * suppressions) and the index (pyindex.c). Internal to src/python/.
 *
 * Just good enough for words, numbers, strings and comments: no parse, no indentation tokens;
 * a token's column-0 position says where a top-level statement starts.
 */
#ifndef KV_PYLEXER_H
#define KV_PYLEXER_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef enum lex_kind { LEX_END, LEX_WORD, LEX_NUMBER, LEX_STRING, LEX_COMMENT, LEX_PUNCT } lex_kind;

typedef struct lexer {
    const char *p, *end;
    const char *tok;        /* token start */
    size_t len;             /* token length (strings: content only) */
    bool at_line_start;     /* the token is the first on its line, in column 0 */
    bool fresh_line;        /* an unescaped newline came between the previous token and this one */
    bool after_comment;     /* the previous token was a comment: the newline ending it is never
                             * escaped (`# C:\` continues no line) */
    uint32_t line;
    const char *line_start;
    const char *tok_line;   /* the start of the line the token starts on (a string may end on a later one) */
} lexer;

/* Whether the n bytes at w are the word lit. */
static inline bool py_tok_is(const char *w, size_t n, const char *lit)
{
    return strlen(lit) == n && memcmp(w, lit, n) == 0;
}

void py_lex_init(lexer *lx, const char *data, size_t len);
lex_kind py_lex_next(lexer *lx);
/* The column of a token that starts its line, as Python counts indentation (a tab to the next
 * multiple of 8, a form feed back to 0). */
int py_lex_column(const lexer *lx);
/* Does this token spell a sentinel by itself (a large or unreadable number, an infinity word,
 * finfo/iinfo, a string float() reads as special)? */
bool py_token_is_sentinel(lex_kind k, const char *s, size_t n);
/* Is the '=' at p (data: where the bytes before it may be read, such as the token's line) an
 * assignment (`=`, `+=`, `>>=`, `:=`), not part of `==`, `!=`, `<=`, `>=`? */
bool py_is_assign(const char *data, const char *p, const char *end);

#endif
