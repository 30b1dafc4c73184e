/*
 * suppress.c: the suppression-comment parser shared by the front ends (see suppress.h).
 */
#include "frontend/suppress.h"

#include <ctype.h>
#include <string.h>

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* Skip the prefix's characters and blanks: `## kvlint:`, `/// kvlint:` and `# # kvlint:` all count. */
static const char *skip_prefix(const char *p, const char *end, const char *prefix)
{
    while (p < end && (is_blank(*p) || (*p && strchr(prefix, *p))))
        p++;
    return p;
}

static bool take_word(const char **p, const char *end, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(end - *p) < n || memcmp(*p, word, n) != 0)
        return false;
    *p += n;
    return true;
}

static const char *const *parse_ids(const char *q, const char *close, kv_arena *a)
{
    ARENA_VEC(const char *) ids = {0};
    while (q < close) {
        while (q < close && (*q == ' ' || *q == ','))
            q++;
        const char *s = q;
        while (q < close && *q != ',' && *q != ' ')
            q++;
        if (q > s)
            ARENA_PUSH(a, ids, arena_strndup(a, s, (size_t)(q - s)));
    }
    ARENA_PUSH(a, ids, NULL);
    return ids.v;
}

bool suppress_parse(const char *comment, size_t n, const char *prefix, kv_arena *a, suppression *out)
{
    const char *end = comment + n;
    size_t pn = strlen(prefix);
    if (n < pn || memcmp(comment, prefix, pn) != 0)
        return false;
    const char *p = skip_prefix(comment, end, prefix);
    if (!take_word(&p, end, "kvlint:"))
        return false;
    while (p < end && *p == ' ')
        p++;
    if (!take_word(&p, end, "ignore"))
        return false;
    memset(out, 0, sizeof *out);
    if (p < end && *p == '[') {
        const char *close = memchr(p, ']', (size_t)(end - p));
        if (!close)
            return false;
        out->ids = parse_ids(p + 1, close, a);
        p = close + 1;
    }
    const char *dash = NULL;
    for (const char *q = p; q + 1 < end; q++)
        if (q[0] == '-' && q[1] == '-') {
            dash = q + 2;
            break;
        }
    if (dash) {
        while (dash < end && *dash == ' ')
            dash++;
        const char *e = end;
        while (e > dash && isspace((unsigned char)e[-1]))
            e--;
        if (e > dash)
            out->reason = arena_strndup(a, dash, (size_t)(e - dash));
    }
    return true;
}

void suppress_collect_lines(const char *data, size_t len, const char *prefix, file_facts *out)
{
    size_t pn = strlen(prefix);
    uint32_t line = 1;
    size_t line_start = 0;
    for (size_t i = 0; i < len; i++) {
        if (data[i] == '\n') {
            line++;
            line_start = i + 1;
            continue;
        }
        if (data[i] != prefix[0] || len - i < pn || memcmp(data + i, prefix, pn) != 0)
            continue;
        size_t end = i;
        while (end < len && data[end] != '\n')
            end++;
        suppression s;
        if (suppress_parse(data + i, end - i, prefix, out->arena, &s)) {
            s.line = line;
            s.col = (uint32_t)(i - line_start) + 1;
            ARENA_PUSH(out->arena, out->suppressions, s);
        }
        i = end - 1;  /* the rest of the line is this comment */
    }
}
