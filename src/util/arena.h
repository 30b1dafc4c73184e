/*
 * arena.h: a bump allocator for everything that lives as long as one file's analysis (or one run).
 *
 * Front ends allocate their syntax-derived facts, strings and value sets here and free the whole
 * arena at once, so ownership is obvious: a fact points into the arena of the file that produced it.
 * There is no per-object free. Allocation never fails (out of memory exits, see xalloc.h).
 * arena_bytes() reports the total reserved, which front ends use to bound memory per file.
 * An arena is not thread-safe; each worker thread uses its own.
 */
#ifndef KV_ARENA_H
#define KV_ARENA_H
#include <stdarg.h>
#include <stddef.h>

typedef struct kv_arena kv_arena;

kv_arena *arena_new(void);
void arena_free(kv_arena *a);
void *arena_alloc(kv_arena *a, size_t n);      /* aligned for any type, uninitialised */
void *arena_zalloc(kv_arena *a, size_t n);     /* zeroed */
void *arena_memdup(kv_arena *a, const void *p, size_t n);
char *arena_strdup(kv_arena *a, const char *s);
char *arena_strndup(kv_arena *a, const char *s, size_t n);
char *arena_printf(kv_arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
char *arena_vprintf(kv_arena *a, const char *fmt, va_list ap);
/* x, the character sep, then y, as one string: the dotted names of the analysis, without printf. */
char *arena_join(kv_arena *a, const char *x, char sep, const char *y);
size_t arena_bytes(const kv_arena *a);

/* Grow an arena-backed array: returns a block of at least need elements holding the old *n ones. */
void *arena_grow(kv_arena *a, void *p, size_t *cap, size_t need, size_t elem);

/* Typed array in an arena: ARENA_VEC(int) v = {0}; ARENA_PUSH(a, v, 3); */
#define ARENA_VEC(T) struct { T *v; size_t n, cap; }
#define ARENA_PUSH(arena, vec, item)                                                          \
    do {                                                                                  \
        (vec).v = arena_grow((arena), (vec).v, &(vec).cap, (vec).n + 1, sizeof *(vec).v);   \
        (vec).v[(vec).n++] = (item);                                                      \
    } while (0)

#endif
