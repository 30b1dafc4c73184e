/*
 * arena.c: chunked bump allocation. Chunks grow geometrically (512 bytes up to 1 MiB: most files
 * leave an arena holding little more than their path); a request larger
 * than a chunk gets a chunk of its own. Freed all at once.
 */
#include "util/arena.h"

#include <stdalign.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

struct chunk {
    struct chunk *next;
    size_t size, used;
    alignas(max_align_t) unsigned char data[];
};

struct kv_arena {
    struct chunk *head;
    size_t next_size;
    size_t total;
};

enum { ALIGN = alignof(max_align_t), MIN_CHUNK = 512, MAX_CHUNK = 1 << 20 };

kv_arena *arena_new(void)
{
    kv_arena *a = xcalloc(1, sizeof *a);
    a->next_size = MIN_CHUNK;
    return a;
}

void arena_free(kv_arena *a)
{
    if (!a)
        return;
    struct chunk *c = a->head;
    while (c) {
        struct chunk *next = c->next;
        free(c);
        c = next;
    }
    free(a);
}

void *arena_alloc(kv_arena *a, size_t n)
{
    if (n > SIZE_MAX - ALIGN)
        kv_out_of_memory();
    n = (n + ALIGN - 1) & ~(size_t)(ALIGN - 1);
    if (n == 0)
        n = ALIGN;
    struct chunk *c = a->head;
    if (!c || c->size - c->used < n) {
        size_t size = a->next_size;
        if (size < n)
            size = n;
        if (size > SIZE_MAX - sizeof *c)
            kv_out_of_memory();
        c = xmalloc(sizeof *c + size);
        c->size = size;
        c->used = 0;
        c->next = a->head;
        a->head = c;
        a->total += size;
        if (a->next_size < MAX_CHUNK)
            a->next_size *= 2;
    }
    void *p = c->data + c->used;
    c->used += n;
    return p;
}

void *arena_zalloc(kv_arena *a, size_t n)
{
    void *p = arena_alloc(a, n);
    memset(p, 0, n);
    return p;
}

void *arena_memdup(kv_arena *a, const void *p, size_t n)
{
    void *d = arena_alloc(a, n);
    if (n)
        memcpy(d, p, n);
    return d;
}

char *arena_strndup(kv_arena *a, const char *s, size_t n)
{
    char *d = arena_alloc(a, n + 1);
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

char *arena_strdup(kv_arena *a, const char *s)
{
    return arena_strndup(a, s, strlen(s));
}

char *arena_vprintf(kv_arena *a, const char *fmt, va_list ap)
{
    va_list cp;
    va_copy(cp, ap);
    int n = vsnprintf(NULL, 0, fmt, cp);
    va_end(cp);
    if (n < 0)
        return arena_strdup(a, "");
    char *d = arena_alloc(a, (size_t)n + 1);
    vsnprintf(d, (size_t)n + 1, fmt, ap);
    return d;
}

char *arena_printf(kv_arena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *d = arena_vprintf(a, fmt, ap);
    va_end(ap);
    return d;
}

char *arena_join(kv_arena *a, const char *x, char sep, const char *y)
{
    size_t nx = strlen(x), ny = strlen(y);
    if (nx > SIZE_MAX - ny - 2)
        kv_out_of_memory();
    char *d = arena_alloc(a, nx + ny + 2);
    memcpy(d, x, nx);
    d[nx] = sep;
    memcpy(d + nx + 1, y, ny + 1);
    return d;
}

size_t arena_bytes(const kv_arena *a)
{
    return a->total;
}

void *arena_grow(kv_arena *a, void *p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return p;
    size_t c = *cap ? *cap * 2 : 8;
    while (c < need)
        c *= 2;
    if (c > SIZE_MAX / elem)
        kv_out_of_memory();
    void *q = arena_alloc(a, c * elem);
    if (p && *cap)
        memcpy(q, p, *cap * elem);
    *cap = c;
    return q;
}
