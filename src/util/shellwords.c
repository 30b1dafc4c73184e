/*
 * shellwords.c: the splitter (see shellwords.h). A single forward scan with a small state
 * machine; each word keeps where it started and whether its text maps 1:1 onto the source.
 */
#include "util/shellwords.h"

#include <string.h>

#include "util/strbuf.h"

enum { SH_MAX_DEPTH = 4 };

typedef struct splitter {
    const char *s;
    size_t len, i, base;
    int flags, depth;
    kv_arena *a;
    sh_cmds *out;
    ARENA_VEC(sh_word) cur;
    strbuf word;
    bool in_word;
    size_t w_off;
    bool w_exact;       /* every char so far copied verbatim */
    int w_shift;
    bool w_quoted;      /* the word began with a quoted string (shift 1) */
    bool w_var;
} splitter;

static void sh_split_depth(const char *src, size_t len, size_t base, int flags, int depth, kv_arena *a,
                           sh_cmds *out);

static bool is_blank(const splitter *p, char c)
{
    return c == ' ' || c == '\t' || (c == '\n' && (p->flags & SH_NEWLINE_IS_SPACE)) ||
           (c == ',' && (p->flags & SH_COMMA_IS_SPACE)) || c == '\r';
}

static bool is_sep(char c)
{
    return c == ';' || c == '&' || c == '|' || c == '(' || c == ')' || c == '\n';
}

static void word_begin(splitter *p)
{
    if (p->in_word)
        return;
    p->in_word = true;
    p->w_off = p->i;
    p->w_exact = true;
    p->w_shift = 0;
    p->w_var = false;
    p->w_quoted = false;
    sb_reset(&p->word);
}

static void word_end(splitter *p)
{
    if (!p->in_word)
        return;
    sh_word w = {
        .text = arena_strndup(p->a, sb_str(&p->word), p->word.len),
        .off = p->base + p->w_off,
        .end = p->base + p->i,
        .shift = p->w_exact ? p->w_shift : -1,
        .var = p->w_var,
    };
    if (p->flags & SH_DETACHED) {
        w.off = w.end = p->base;
        w.shift = -1;
    }
    ARENA_PUSH(p->a, p->cur, w);
    p->in_word = false;
}

static const char *basename_of(const char *s)
{
    const char *slash = strrchr(s, '/');
    return slash ? slash + 1 : s;
}

static bool is_shell(const char *w)
{
    const char *b = basename_of(w);
    return !strcmp(b, "sh") || !strcmp(b, "bash") || !strcmp(b, "dash") || !strcmp(b, "zsh");
}

long sh_script_index(const char *const *words, size_t n)
{
    for (size_t i = 0; i + 1 < n; i++) {
        if (!is_shell(words[i]))
            continue;
        /* As the shell parses it: options (-e, -lc, -o pipefail, --login) then, with -c, the first
         * operand is the script; `--` ends the options (`bash -lc -- SCRIPT`). */
        bool script = false;
        for (size_t j = i + 1; j < n; j++) {
            const char *w = words[j];
            if (!strcmp(w, "--"))
                return script && j + 1 < n ? (long)(j + 1) : -1;
            if (w[0] == '-' && w[1] == '-')
                continue;
            if ((w[0] == '-' || w[0] == '+') && w[1]) {
                script = script || (w[0] == '-' && strchr(w + 1, 'c'));
                if (strchr(w + 1, 'o'))
                    j++; /* -o OPTION */
                continue;
            }
            return script ? (long)j : -1;
        }
        return -1;
    }
    return -1;
}

/* The script word after `sh -c` (flags such as -e, -x, -lc may come first), or NULL. */
static const sh_word *script_word(const sh_cmd *c, kv_arena *a)
{
    const char **words = arena_alloc(a, (c->n + 1) * sizeof *words);
    for (size_t i = 0; i < c->n; i++)
        words[i] = c->w[i].text;
    long k = sh_script_index(words, c->n);
    return k < 0 ? NULL : &c->w[k];
}

static void cmd_end(splitter *p)
{
    word_end(p);
    if (p->cur.n == 0)
        return;
    sh_cmd c = { p->cur.v, p->cur.n };
    p->out->v = arena_grow(p->a, p->out->v, &p->out->cap, p->out->n + 1, sizeof *p->out->v);
    p->out->v[p->out->n++] = c;
    memset(&p->cur, 0, sizeof p->cur);
    const sh_word *script = script_word(&c, p->a);
    if (!script || p->depth >= SH_MAX_DEPTH)
        return;
    if (script->shift >= 0) {
        /* Split the script where it is written, so inner words keep exact positions. */
        size_t from = script->off - p->base + (size_t)script->shift;
        size_t n = strlen(script->text);
        /* folded YAML text folds the script's newlines too */
        sh_split_depth(p->s + from, n, p->base + from, p->flags & (SH_DETACHED | SH_NEWLINE_IS_SPACE), p->depth + 1,
                       p->a, p->out);
    } else {
        /* Escapes inside: split the unquoted text; positions fall back to the script word. */
        sh_cmds inner = {0};
        sh_split_depth(script->text, strlen(script->text), 0, 0, p->depth + 1, p->a, &inner);
        for (size_t k = 0; k < inner.n; k++) {
            for (size_t m = 0; m < inner.v[k].n; m++) {
                inner.v[k].w[m].off = inner.v[k].w[m].end = script->off;
                inner.v[k].w[m].shift = -1;
            }
            p->out->v = arena_grow(p->a, p->out->v, &p->out->cap, p->out->n + 1, sizeof *p->out->v);
            p->out->v[p->out->n++] = inner.v[k];
        }
    }
}

static void add_char(splitter *p, char c, bool verbatim)
{
    if (!verbatim)
        p->w_exact = false;
    sb_addc(&p->word, c);
}

/* Copy a $(...), ${...} or `...` group into the word as written; p->s[p->i] is the opener. */
static void copy_group(splitter *p, char open, char close)
{
    p->w_var = true;
    add_char(p, p->s[p->i++], true);
    int depth = 1;
    while (p->i < p->len && depth > 0) {
        char c = p->s[p->i++];
        add_char(p, c, true);
        if (open == close)
            depth = c == close ? 0 : 1;
        else if (c == open)
            depth++;
        else if (c == close)
            depth--;
    }
}

static void scan_single(splitter *p)
{
    p->i++; /* the opening quote */
    while (p->i < p->len && p->s[p->i] != '\'')
        add_char(p, p->s[p->i++], true);
    if (p->i < p->len)
        p->i++;
}

static void scan_double(splitter *p)
{
    p->i++;
    while (p->i < p->len && p->s[p->i] != '"') {
        char c = p->s[p->i];
        if (c == '\\' && p->i + 1 < p->len && strchr("\"\\$`\n", p->s[p->i + 1])) {
            if (p->s[p->i + 1] != '\n')
                add_char(p, p->s[p->i + 1], false);
            else
                p->w_exact = false;
            p->i += 2;
        } else if (c == '$' || c == '`') {
            p->w_var = true;
            add_char(p, c, true);
            p->i++;
        } else {
            add_char(p, c, true);
            p->i++;
        }
    }
    if (p->i < p->len)
        p->i++;
}

/* A word that is exactly one quoted string maps 1:1 with a shift of one (the quote). */
static void quoted_word(splitter *p, bool single)
{
    bool fresh = !p->in_word;
    word_begin(p);
    if (!fresh || p->w_quoted)
        p->w_exact = false; /* abc"def" or "a""b": the text no longer maps with one shift */
    if (single)
        scan_single(p);
    else
        scan_double(p);
    if (fresh) {
        p->w_shift = 1;
        p->w_quoted = true;
    }
}

static void split(splitter *p)
{
    while (p->i < p->len) {
        char c = p->s[p->i];
        if (c == '\\' && p->i + 1 < p->len) {
            char n = p->s[p->i + 1];
            if (n == '\n' || (n == '\r' && p->i + 2 < p->len && p->s[p->i + 2] == '\n')) {
                word_end(p); /* continuation: the command goes on */
                p->i += n == '\n' ? 2 : 3;
                continue;
            }
            if (n == ' ' || n == '\t') {
                /* `\ ` at the end of a folded YAML line acts as a continuation too */
                size_t k = p->i + 1;
                while (k < p->len && (p->s[k] == ' ' || p->s[k] == '\t'))
                    k++;
                if (k >= p->len || p->s[k] == '\n' || (p->flags & SH_NEWLINE_IS_SPACE)) {
                    word_end(p);
                    p->i = k;
                    continue;
                }
            }
            word_begin(p);
            p->w_exact = false;
            add_char(p, n, false);
            p->i += 2;
            continue;
        }
        if (is_blank(p, c)) {
            word_end(p);
            p->i++;
            continue;
        }
        if (c == '#' && !p->in_word) {
            while (p->i < p->len && p->s[p->i] != '\n')
                p->i++;
            continue;
        }
        if (c == '\'' || c == '"') {
            quoted_word(p, c == '\'');
            continue;
        }
        if (c == '$' && p->i + 1 < p->len && (p->s[p->i + 1] == '(' || p->s[p->i + 1] == '{')) {
            word_begin(p);
            add_char(p, '$', true);
            p->i++;
            copy_group(p, p->s[p->i], p->s[p->i] == '(' ? ')' : '}');
            continue;
        }
        if (c == '`') {
            word_begin(p);
            copy_group(p, '`', '`');
            continue;
        }
        if (is_sep(c)) {
            cmd_end(p);
            p->i++;
            continue;
        }
        word_begin(p);
        if (c == '$' || (c == '{' && p->i + 1 < p->len && p->s[p->i + 1] == '{'))
            p->w_var = true;
        if (p->w_quoted)
            p->w_exact = false; /* "abc"def */
        add_char(p, c, true);
        p->i++;
    }
    cmd_end(p);
}

static void sh_split_depth(const char *src, size_t len, size_t base, int flags, int depth, kv_arena *a,
                           sh_cmds *out)
{
    splitter p = { .s = src, .len = len, .base = base, .flags = flags, .depth = depth, .a = a, .out = out };
    split(&p);
    sb_release(&p.word);
}

void sh_split(const char *src, size_t len, size_t base, int flags, kv_arena *a, sh_cmds *out)
{
    sh_split_depth(src, len, base, flags, 0, a, out);
}
