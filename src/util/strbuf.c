/* strbuf.c: see strbuf.h. */
#include "util/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

void sb_grow(strbuf *sb, size_t extra)
{
    if (sb->len + extra + 1 > sb->cap) {
        sb->buf = xgrow(sb->buf, &sb->cap, sb->len + extra + 1, 1);
    }
}

void sb_add(strbuf *sb, const void *data, size_t n)
{
    sb_grow(sb, n);
    if (n)
        memcpy(sb->buf + sb->len, data, n);
    sb->len += n;
    sb->buf[sb->len] = '\0';
}

void sb_adds(strbuf *sb, const char *s)
{
    sb_add(sb, s, strlen(s));
}

void sb_addc(strbuf *sb, char c)
{
    sb_add(sb, &c, 1);
}

void sb_vaddf(strbuf *sb, const char *fmt, va_list ap)
{
    va_list cp;
    va_copy(cp, ap);
    int n = vsnprintf(NULL, 0, fmt, cp);
    va_end(cp);
    if (n <= 0) {
        sb_grow(sb, 0);
        return;
    }
    sb_grow(sb, (size_t)n);
    vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
    sb->len += (size_t)n;
}

void sb_addf(strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_vaddf(sb, fmt, ap);
    va_end(ap);
}

void sb_reset(strbuf *sb)
{
    sb->len = 0;
    if (sb->buf)
        sb->buf[0] = '\0';
}

void sb_release(strbuf *sb)
{
    free(sb->buf);
    sb->buf = NULL;
    sb->len = sb->cap = 0;
}

char *sb_detach(strbuf *sb)
{
    char *s = sb->buf ? sb->buf : xstrdup("");
    sb->buf = NULL;
    sb->len = sb->cap = 0;
    return s;
}

const char *sb_str(const strbuf *sb)
{
    return sb->buf ? sb->buf : "";
}
