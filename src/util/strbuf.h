/*
 * strbuf.h: a growable, always NUL-terminated byte string (after git's strbuf).
 *
 * Used to build messages and output without ad-hoc malloc/strcat. A strbuf owns its buffer;
 * sb_release() frees it, sb_detach() hands it to the caller. STRBUF_INIT is a valid empty buffer.
 */
#ifndef KV_STRBUF_H
#define KV_STRBUF_H
#include <stdarg.h>
#include <stddef.h>

typedef struct strbuf {
    char *buf;
    size_t len, cap;
} strbuf;

#define STRBUF_INIT { NULL, 0, 0 }

void sb_grow(strbuf *sb, size_t extra);
void sb_add(strbuf *sb, const void *data, size_t n);
void sb_adds(strbuf *sb, const char *s);
void sb_addc(strbuf *sb, char c);
void sb_addf(strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vaddf(strbuf *sb, const char *fmt, va_list ap);
void sb_reset(strbuf *sb);
void sb_release(strbuf *sb);
char *sb_detach(strbuf *sb);
/* The contents, "" for an empty buffer that never allocated. */
const char *sb_str(const strbuf *sb);

#endif
