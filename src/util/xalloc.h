/*
 * xalloc.h: allocation that never returns NULL.
 *
 * kvlint treats running out of memory as fatal: every allocation goes through these wrappers, which
 * print "kvlint: out of memory" and exit with status 2 (an I/O-class error, never a clean 0).
 * Per-file work should prefer an arena (arena.h); these are for long-lived, run-wide objects.
 */
#ifndef KV_XALLOC_H
#define KV_XALLOC_H
#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* Grow *cap geometrically until it holds need elements; returns the (re)allocated block. */
void *xgrow(void *p, size_t *cap, size_t need, size_t elem);
_Noreturn void kv_out_of_memory(void);

#endif
