/*
 * pynest.c: the bracket-nesting pre-check that keeps a parse off libtree-sitter 0.20.7's faulty
 * path. That version (Debian 12's) frees a subtree twice when a file holds 65,533 or more unclosed
 * brackets (tree-sitter/tree-sitter#2231, #2346): the process aborts and the run's report is lost.
 * So before ts_parser_parse, one linear pass measures how deep brackets nest and the file is
 * refused, with a note, when that passes py_bracket_limit(): PY_MAX_BRACKET_DEPTH when kvlint is
 * linked with a core older than 0.20.8 (configure --with-tree-sitter-core=system), none with a
 * fixed core (the bundled one, docs/building.md), which parses such files without fault.
 *
 * The pass counts ( [ { and their closers in code and inside f-string text (whose replacement
 * fields tree-sitter parses as code), and skips comments and other string literals the way
 * Python's tokenizer delimits them (prefixes, triple quotes, backslash escapes). A closer only
 * lowers the depth outside strings, and a single-quoted string cut by a newline ends there, as in
 * tokenize. The limit is 16 times below the crash and 20 times above CPython's own limit (200
 * nested brackets: deeper is a SyntaxError), so no file CPython runs is refused.
 *
 * It does not parse: it knows brackets, strings and comments only.
 */
#include "config.h"
#include "python/pyfe.h"

#include <stdbool.h>
#include <string.h>

typedef struct nest {
    const char *s;
    size_t len, i;
    size_t depth, max;
    uint32_t line, max_line;
} nest;

static void open_bracket(nest *n)
{
    if (++n->depth > n->max) {
        n->max = n->depth;
        n->max_line = n->line;
    }
}

static void close_bracket(nest *n)
{
    if (n->depth)
        n->depth--;
}

/* Skip a string literal starting at its quote; f counts brackets in its text. */
static void skip_string(nest *n, bool f)
{
    char q = n->s[n->i];
    bool triple = n->i + 2 < n->len && n->s[n->i + 1] == q && n->s[n->i + 2] == q;
    n->i += triple ? 3 : 1;
    while (n->i < n->len) {
        char c = n->s[n->i];
        if (c == '\\' && n->i + 1 < n->len) {
            if (n->s[n->i + 1] == '\n')
                n->line++;
            n->i += 2;
            continue;
        }
        if (c == '\n') {
            n->line++;
            if (!triple) {
                n->i++;
                return;
            }
        } else if (c == q && (!triple || (n->i + 2 < n->len && n->s[n->i + 1] == q && n->s[n->i + 2] == q))) {
            n->i += triple ? 3 : 1;
            return;
        } else if (f && (c == '(' || c == '[' || c == '{')) {
            open_bracket(n);
        }
        n->i++;
    }
}

/* Letters before a quote that make a string prefix (r, b, u, f and their pairs); is it an f-string? */
static bool string_prefix(const char *s, size_t start, size_t at, bool *f)
{
    size_t k = at - start;
    if (k > 2)
        return false;
    *f = false;
    for (size_t j = start; j < at; j++) {
        char c = (char)(s[j] | 0x20);
        if (c != 'r' && c != 'b' && c != 'u' && c != 'f')
            return false;
        *f = *f || c == 'f';
    }
    return true;
}

size_t py_bracket_depth(const char *data, size_t len, uint32_t *line)
{
    nest n = { .s = data, .len = len, .line = 1, .max_line = 1 };
    size_t word = (size_t)-1;   /* start of the identifier being read, for string prefixes */
    while (n.i < n.len) {
        char c = data[n.i];
        bool ident = c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (ident) {
            if (word == (size_t)-1)
                word = n.i;
            n.i++;
            continue;
        }
        size_t w = word;
        word = (size_t)-1;
        if (c == '\'' || c == '"') {
            bool f = false;
            if (w != (size_t)-1 && !string_prefix(data, w, n.i, &f))
                f = false;
            skip_string(&n, f);
            continue;
        }
        if (c == '#') {
            const char *nl = memchr(data + n.i, '\n', n.len - n.i);
            n.i = nl ? (size_t)(nl - data) : n.len;
            continue;
        }
        if (c == '\n')
            n.line++;
        else if (c == '(' || c == '[' || c == '{')
            open_bracket(&n);
        else if (c == ')' || c == ']' || c == '}')
            close_bracket(&n);
        n.i++;
    }
    *line = n.max_line;
    return n.max;
}

size_t py_bracket_limit(void)
{
    return KVLINT_TSCORE_FIXED ? SIZE_MAX : PY_MAX_BRACKET_DEPTH;
}
