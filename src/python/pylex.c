/*
 * pylex.c: the Python front end's lexical layer (see pyfe.h): the tokenizer shared by the
 * prefilter (pyprefilter.c) and the index, the word lists both sides read (infinity words, dtype
 * declarations, tensor names, id classes), number and float-string parsing, the index of
 * top-level `NAME = <literal>` lines, `# kvlint:` comments, and whether a file declares a
 * deployment with a literal (`LLM(dtype="float16")`: a run on named files reads the project's code
 * for it).
 *
 * This file does not parse, and decides nothing about a file's facts: pyprefilter.c does.
 */
#include "python/pyfe.h"
#include "python/pylexer.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "frontend/suppress.h"
#include "util/strlist.h"

bool py_is_infinity_word(const char *s, size_t n)
{
    static const char *const w[] = { "inf", "Inf", "Infinity", "infty", "PINF", "NINF", NULL };
    return mem_in_list(w, s, n);
}

bool py_is_decl_callee(const char *s, size_t n)
{
    static const char *const w[] = { "LLM", "EngineArgs", "AsyncEngineArgs", "Engine", "set_default_dtype", "LLMConfig",
                                     "vLLMEngineProcessorConfig", "SGLangEngineProcessorConfig", NULL };
    return mem_in_list(w, s, n);
}

/* Engine keywords that declare a dtype or an id range: what pystore.c reads of an engine call, and
 * so what the prefilter asks of a file with a dtype-declaring callee. */
static const py_decl_keyword decl_keywords[] = {
    { "kv_cache_dtype", DECL_KV_CACHE_DTYPE }, { "dtype", DECL_MODEL_DTYPE },
    { "calculate_kv_scales", DECL_KV_SCALES }, { "max_loras", DECL_ID_RANGE },
    { "max_model_len", DECL_ID_RANGE }, { "context_length", DECL_ID_RANGE },
};

const py_decl_keyword *py_decl_keywords(size_t *n)
{
    *n = sizeof decl_keywords / sizeof *decl_keywords;
    return decl_keywords;
}

bool py_is_decl_keyword(const char *s, size_t n)
{
    for (size_t i = 0; i < sizeof decl_keywords / sizeof *decl_keywords; i++)
        if (strlen(decl_keywords[i].kw) == n && memcmp(decl_keywords[i].kw, s, n) == 0)
            return true;
    return false;
}

bool py_is_cast_method(const py_state *st, const char *s, size_t n)
{
    return pt_word_of(st ? st->torch : NULL, s, n).cast;
}

/* Besides the API's tensor words (torch.tsv's `context` column): the names the evaluator reads as
 * dtypes or masks (`dtype`, `*mask*`), `Tensor` in annotations, and the id classes. */
/* The names (not API words) that make tensor context. */
bool py_is_tensor_name(const py_state *st, const char *s, size_t n)
{
    if (py_name_id_class(st, s, n))
        return true;
    if (n == 5 && memcmp(s, "dtype", 5) == 0)
        return true;
    for (size_t i = 0; i + 4 <= n; i++)
        if (memcmp(s + i, "mask", 4) == 0 || (i + 6 <= n && memcmp(s + i, "Tensor", 6) == 0))
            return true;
    return false;
}

bool py_is_tensor_word(const py_state *st, const char *s, size_t n)
{
    return pt_word_of(st ? st->torch : NULL, s, n).tensor_ctx || py_is_tensor_name(st, s, n);
}

bool py_is_int_source(const py_state *st, const char *s, size_t n)
{
    return pt_word_of(st ? st->torch : NULL, s, n).int_source;
}

/* ---- numbers ---- */

bool py_parse_number(const char *s, size_t n, double *out)
{
    char buf[128];
    size_t k = 0;
    if (n == 0 || n >= sizeof buf)
        return false;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '_')
            continue;
        if (s[i] == 'j' || s[i] == 'J')
            return false;  /* complex */
        buf[k++] = s[i];
    }
    buf[k] = '\0';
    char *end = NULL;
    if (k > 2 && buf[0] == '0' && strchr("xXoObB", buf[1])) {
        int base = (buf[1] == 'x' || buf[1] == 'X') ? 16 : (buf[1] == 'o' || buf[1] == 'O') ? 8 : 2;
        double v = 0;
        for (size_t i = 2; i < k; i++) {
            int d = isdigit((unsigned char)buf[i]) ? buf[i] - '0'
                    : isxdigit((unsigned char)buf[i]) ? tolower((unsigned char)buf[i]) - 'a' + 10 : 99;
            if (d >= base)
                return false;
            v = v * base + d;
        }
        *out = v;
        return true;
    }
    if (!isdigit((unsigned char)buf[0]) && buf[0] != '.')
        return false;
    double v = strtod(buf, &end);
    if (!end || *end)
        return false;
    *out = v;
    return true;
}

bool py_float_string_special(const char *s, size_t n, double *out)
{
    while (n && isspace((unsigned char)*s))
        s++, n--;
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    if (n == 0 || n > 40)
        return false;
    const char *p = s;
    size_t m = n;
    double sign = 1;
    if (*p == '+' || *p == '-') {
        sign = *p == '-' ? -1 : 1;
        p++, m--;
    }
    if ((m == 3 && strncasecmp(p, "inf", 3) == 0) || (m == 8 && strncasecmp(p, "infinity", 8) == 0)) {
        *out = sign * INFINITY;
        return true;
    }
    double v;
    if (m && p[0] != '_' && py_parse_number(p, m, &v) && fabs(v) >= PY_SENTINEL_MAGNITUDE) {
        *out = sign * v;
        return true;
    }
    return false;
}

/* ---- id classes of names ---- */

const char *py_name_id_class(const py_state *st, const char *name, size_t n)
{
    return id_vocab_name_class(st ? st->ids : NULL, name, n);
}

bool py_name_integer(const py_state *st, const char *name, size_t n)
{
    return id_vocab_name_integer(st ? st->ids : NULL, name, n);
}

/* ---- the tokenizer (pylexer.h) ---- */

/* Byte classes, as the C locale has them (kvlint never calls setlocale), looked up instead of a
 * ctype call per byte: 1 skipped between tokens (blanks, newlines, a line-joining backslash),
 * 2 digit, 4 letter or digit, 8 word byte (letters, digits, '_' and every byte >= 0x80). */
enum { B_GAP = 1, B_DIGIT = 2, B_ALNUM = 4, B_WORD = 8 };
static const unsigned char byte_class[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 1, 1, 0, 0,   /* 0x00 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,   /* 0x10 */
    1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,   /* 0x20 */
    14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 0, 0, 0, 0, 0, 0,   /* 0x30 */
    0, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12,   /* 0x40 */
    12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 0, 1, 0, 0, 8,   /* 0x50 */
    0, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12,   /* 0x60 */
    12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 0, 0, 0, 0, 0,   /* 0x70 */
    8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8,   /* 0x80 */
    8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8,   /* 0x90 */
    8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8,   /* 0xA0 */
    8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8,   /* 0xB0 */
    8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8,   /* 0xC0 */
    8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8,   /* 0xD0 */
    8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8,   /* 0xE0 */
    8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8,   /* 0xF0 */
};

static inline bool is_digit_byte(unsigned char c)
{
    return byte_class[c] & B_DIGIT;
}

static inline bool is_alnum_byte(unsigned char c)
{
    return byte_class[c] & B_ALNUM;
}

static inline bool is_word_byte(unsigned char c)
{
    return byte_class[c] & B_WORD;
}

static inline bool is_gap_byte(unsigned char c)
{
    return byte_class[c] & B_GAP;
}

static bool is_string_prefix(const char *s, size_t n)
{
    if (n > 3)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!strchr("rRbBuUfFtT", s[i]))
            return false;
    return true;
}

static void lex_string(lexer *lx)
{
    char q = *lx->p;
    bool triple = lx->end - lx->p >= 3 && lx->p[1] == q && lx->p[2] == q;
    lx->p += triple ? 3 : 1;
    lx->tok = lx->p;
    while (lx->p < lx->end) {
        const char *r = lx->p;   /* the body up to a quote, a backslash or a newline, at once */
        while (r < lx->end && *r != q && *r != '\\' && *r != '\n')
            r++;
        lx->p = r;
        if (r == lx->end)
            break;
        char c = *lx->p;
        if (c == '\\' && lx->p + 1 < lx->end) {
            if (lx->p[1] == '\n')
                lx->line++, lx->line_start = lx->p + 2;
            lx->p += 2;
            continue;
        }
        if (c == '\n') {
            if (!triple)
                break;  /* unterminated: stop at the line end */
            lx->line++;
            lx->line_start = lx->p + 1;
        }
        if (c == q && (!triple || (lx->end - lx->p >= 3 && lx->p[1] == q && lx->p[2] == q))) {
            lx->len = (size_t)(lx->p - lx->tok);
            lx->p += triple ? 3 : 1;
            return;
        }
        lx->p++;
    }
    lx->len = (size_t)(lx->p - lx->tok);
}

lex_kind py_lex_next(lexer *lx)
{
    lx->fresh_line = false;
    for (;;) {
        while (lx->p < lx->end && is_gap_byte((unsigned char)*lx->p)) {
            if (*lx->p == '\n') {
                const char *q = lx->p;
                if (q > lx->line_start && q[-1] == '\r')
                    q--;
                if (lx->after_comment || !(q > lx->line_start && q[-1] == '\\'))
                    lx->fresh_line = true;
                lx->after_comment = false;
                lx->line++, lx->line_start = lx->p + 1;
            }
            lx->p++;
        }
        if (lx->p >= lx->end)
            return LEX_END;
        lx->at_line_start = lx->p == lx->line_start;
        lx->tok_line = lx->line_start;
        unsigned char c = (unsigned char)*lx->p;
        lx->tok = lx->p;
        if (c == '#') {
            const char *nl = memchr(lx->p, '\n', (size_t)(lx->end - lx->p));
            lx->p = nl ? nl : lx->end;
            lx->len = (size_t)(lx->p - lx->tok);
            lx->after_comment = true;
            return LEX_COMMENT;
        }
        lx->after_comment = false;
        if (c == '"' || c == '\'') {
            lex_string(lx);
            return LEX_STRING;
        }
        if (is_digit_byte(c) || (c == '.' && lx->p + 1 < lx->end && is_digit_byte((unsigned char)lx->p[1]))) {
            bool hex = c == '0' && lx->p + 1 < lx->end && (lx->p[1] == 'x' || lx->p[1] == 'X');
            lx->p++;
            while (lx->p < lx->end) {
                unsigned char d = (unsigned char)*lx->p;
                if (is_alnum_byte(d) || d == '_' || d == '.')
                    lx->p++;
                else if ((d == '+' || d == '-') && !hex && (lx->p[-1] == 'e' || lx->p[-1] == 'E'))
                    lx->p++;
                else
                    break;
            }
            lx->len = (size_t)(lx->p - lx->tok);
            return LEX_NUMBER;
        }
        if (is_word_byte(c)) {
            while (lx->p < lx->end && is_word_byte((unsigned char)*lx->p))
                lx->p++;
            lx->len = (size_t)(lx->p - lx->tok);
            if (lx->p < lx->end && (*lx->p == '"' || *lx->p == '\'') && is_string_prefix(lx->tok, lx->len)) {
                lex_string(lx);
                return LEX_STRING;
            }
            return LEX_WORD;
        }
        lx->p++;
        lx->len = 1;
        return LEX_PUNCT;
    }
}

void py_lex_init(lexer *lx, const char *data, size_t len)
{
    memset(lx, 0, sizeof *lx);
    lx->p = data;
    lx->end = data + len;
    lx->line = 1;
    lx->line_start = data;
}

/* ---- prefilter ---- */

int py_lex_column(const lexer *lx)
{
    int col = 0;
    for (const char *q = lx->tok_line; q < lx->end && (*q == ' ' || *q == '\t' || *q == '\f'); q++)
        col = *q == '\t' ? (col / 8 + 1) * 8 : *q == '\f' ? 0 : col + 1;
    return col;
}

bool py_token_is_sentinel(lex_kind k, const char *s, size_t n)
{
    double v;
    switch (k) {
    case LEX_STRING:
        return py_float_string_special(s, n, &v);
    case LEX_NUMBER:
        /* a token this lexer cannot read (`10000if`, which Python reads as 10000 if) counts */
        return !py_parse_number(s, n, &v) || fabs(v) >= PY_SENTINEL_MAGNITUDE;
    case LEX_WORD:
        return py_is_infinity_word(s, n) || (n == 5 && (memcmp(s, "finfo", 5) == 0 || memcmp(s, "iinfo", 5) == 0));
    default:
        return false;
    }
}

/* ---- index: top-level NAME = <literal> ---- */

/* After `NAME =` (or `NAME: T =`): [-] number | [-] float("...") | [-] <module>.<infinity word>. */
static bool lex_constant_rhs(lexer *lx, double *out, bool *sentinel)
{
    double sign = 1;
    lex_kind k = py_lex_next(lx);
    if (k == LEX_PUNCT && (*lx->tok == '-' || *lx->tok == '+')) {
        sign = *lx->tok == '-' ? -1 : 1;
        k = py_lex_next(lx);
    }
    double v;
    if (k == LEX_NUMBER && py_parse_number(lx->tok, lx->len, &v)) {
        *out = sign * v;
        *sentinel = fabs(v) >= PY_SENTINEL_MAGNITUDE;
    } else if (k == LEX_WORD && lx->len == 5 && memcmp(lx->tok, "float", 5) == 0) {
        if (py_lex_next(lx) != LEX_PUNCT || *lx->tok != '(' || py_lex_next(lx) != LEX_STRING
            || !py_float_string_special(lx->tok, lx->len, &v))
            return false;
        if (py_lex_next(lx) != LEX_PUNCT || *lx->tok != ')')
            return false;
        *out = sign * v;
        *sentinel = true;
    } else if (k == LEX_WORD) {
        if (py_lex_next(lx) != LEX_PUNCT || *lx->tok != '.' || py_lex_next(lx) != LEX_WORD
            || !py_is_infinity_word(lx->tok, lx->len))
            return false;
        *out = sign * (lx->tok[0] == 'N' ? -INFINITY : INFINITY);
        *sentinel = true;
    } else {
        return false;
    }
    /* The statement must end here: a newline (or ';' / a comment) follows. */
    const char *q = lx->p;
    while (q < lx->end && (*q == ' ' || *q == '\t' || *q == '\r'))
        q++;
    return q >= lx->end || *q == '\n' || *q == '#' || *q == ';';
}

const py_exports *py_index_source(const py_state *st, const char *data, size_t len, kv_arena *arena)
{
    ARENA_VEC(py_export) out = {0};
    lexer lx;
    py_lex_init(&lx, data, len);
    int depth = 0;  /* bracket depth: a line start inside brackets is not a statement */
    for (lex_kind k; (k = py_lex_next(&lx)) != LEX_END;) {
        if (k == LEX_PUNCT) {
            if (strchr("([{", *lx.tok))
                depth++;
            else if (strchr(")]}", *lx.tok) && depth > 0)
                depth--;
            continue;
        }
        if (k != LEX_WORD || !lx.at_line_start || depth != 0)
            continue;
        const char *name = lx.tok;
        size_t nlen = lx.len;
        uint32_t line = lx.line, col = (uint32_t)(lx.tok - lx.line_start) + 1;
        lexer save = lx;
        k = py_lex_next(&lx);
        if (k == LEX_PUNCT && *lx.tok == ':') {  /* NAME: type = value (a simple type only) */
            if (py_lex_next(&lx) != LEX_WORD) {
                lx = save;
                continue;
            }
            k = py_lex_next(&lx);
        }
        if (k == LEX_PUNCT && *lx.tok == '=' && (lx.p >= lx.end || *lx.p != '=')) {
            const char *rhs = lx.p;
            double v;
            bool sentinel = false;
            if (lex_constant_rhs(&lx, &v, &sentinel)) {
                while (rhs < lx.p && (*rhs == ' ' || *rhs == '\t'))
                    rhs++;
                /* the origin is the value, on the same line as the name (no continuation seen) */
                if (lx.line == line)
                    col = (uint32_t)(rhs - lx.line_start) + 1;
                py_export e = { arena_strndup(arena, name, nlen), v, sentinel,
                                arena_strndup(arena, rhs, (size_t)(lx.p - rhs)), line, col };
                ARENA_PUSH(arena, out, e);
                continue;
            }
        }
        lx = save;
    }
    py_exports *ex = arena_zalloc(arena, sizeof *ex);
    ex->v = out.v;
    ex->n = out.n;
    py_index_functions(st, data, len, arena, ex);
    return ex;
}

/* Whether "kvlint:" occurs anywhere in the bytes: a suppression needs it, and most files have none. */
static bool mentions_kvlint_colon(const char *data, size_t len)
{
    for (const char *p = data, *end = data + len; len >= 7 && p <= end - 7; p++) {
        p = memchr(p, 'k', (size_t)(end - 7 - p) + 1);
        if (!p)
            return false;
        if (memcmp(p, "kvlint:", 7) == 0)
            return true;
    }
    return false;
}

void py_collect_suppressions(const char *data, size_t len, kv_arena *a, file_facts *out)
{
    if (!mentions_kvlint_colon(data, len))
        return;   /* no comment can suppress anything: skip the lexing */
    lexer lx;
    py_lex_init(&lx, data, len);
    for (lex_kind k; (k = py_lex_next(&lx)) != LEX_END;) {
        suppression s;
        if (k == LEX_COMMENT && suppress_parse(lx.tok, lx.len, "#", a, &s)) {
            s.line = lx.line;
            s.col = (uint32_t)(lx.tok - lx.line_start) + 1;
            ARENA_PUSH(a, out->suppressions, s);
        }
    }
}

bool py_is_assign(const char *data, const char *p, const char *end)
{
    if (p + 1 < end && p[1] == '=')
        return false;
    if (p > data && (p[-1] == '=' || p[-1] == '!'))
        return false;
    if (p > data && (p[-1] == '<' || p[-1] == '>'))
        return p - 1 > data && p[-2] == p[-1];   /* <<= >>= */
    return true;
}

/* Whether the file calls an engine with a declaring keyword written as a literal string or
 * number: `LLM(model=..., dtype="float16")`, `sgl.Engine(..., kv_cache_dtype="fp8_e5m2")`,
 * `EngineArgs(max_model_len=8192)`. Lexical, for a run on named files (frontend.h's `declares`):
 * such a file is a deployment of the project as a config is, so its code is read for it. Not the
 * evaluator's reading: a keyword bound to a variable or to `torch.float16`, `**kwargs` or
 * `engine_kwargs=` is not seen here, and `set_default_dtype` is left out (tests call it); a
 * `def LLM(dtype="float16")` or a class of the same name passes. It only widens what is read. */
bool py_declares_literal_deployment(const char *data, size_t len)
{
    lexer lx;
    py_lex_init(&lx, data, len);
    enum { OUT, CALLEE, ARGS, KEYWORD, EQUALS } st = OUT;
    int depth = 0, call_depth = 0;   /* brackets open; those open outside the engine call */
    for (lex_kind k; (k = py_lex_next(&lx)) != LEX_END;) {
        if (k == LEX_COMMENT)
            continue;
        bool open = k == LEX_PUNCT && strchr("([{", *lx.tok), close = k == LEX_PUNCT && strchr(")]}", *lx.tok);
        if (st == EQUALS && (k == LEX_STRING || k == LEX_NUMBER))
            return true;
        if (st == KEYWORD)
            st = k == LEX_PUNCT && *lx.tok == '=' && lx.len == 1 ? EQUALS : ARGS;
        else if (st == EQUALS)
            st = ARGS;
        if (st == CALLEE)
            st = open && *lx.tok == '(' ? ARGS : OUT;
        else if (st == OUT && k == LEX_WORD && py_is_decl_callee(lx.tok, lx.len) &&
                 !py_tok_is(lx.tok, lx.len, "set_default_dtype"))
            st = CALLEE, call_depth = depth;
        else if (st == ARGS && depth == call_depth + 1 && k == LEX_WORD && py_is_decl_keyword(lx.tok, lx.len))
            st = KEYWORD;
        if (open)
            depth++;
        if (close && depth > 0 && --depth == call_depth && st != OUT && st != CALLEE)
            st = OUT;
    }
    return false;
}
