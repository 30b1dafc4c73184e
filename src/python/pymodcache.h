/*
 * pymodcache.h: the run-wide cache of parsed module parts (pymodcache.c), used by pymodule.c.
 * Keys are the module's path and the function the part was parsed for. Not a cache of values:
 * only bytes and trees.
 */
#ifndef KV_PYMODCACHE_H
#define KV_PYMODCACHE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <tree_sitter/api.h>

typedef struct py_modcache py_modcache;

/* The part of a module parsed for one function: its bytes (the whole file, as read), the tree of
 * the included ranges, and the bytes those ranges cover. tree NULL: the load failed. */
typedef struct py_modpart {
    char *data;
    size_t len;
    TSTree *tree;
    size_t bytes;
} py_modpart;

typedef struct py_modkey {
    const char *path;   /* the module file */
    const char *fn;     /* the function the part is for */
    uint32_t start, end;
} py_modkey;

py_modcache *py_modcache_new(void);  /* NULL if no mutex could be made (then nothing is cached) */
void py_modcache_free(py_modcache *c);

/* A cached part for k: true with out->data owned by the cache (valid until it is freed) and
 * out->tree a copy the caller deletes. */
bool py_modcache_get(py_modcache *c, const py_modkey *k, py_modpart *out);

/* Keep a part the caller parsed: true if the cache took it (or already had one: then the caller's
 * is freed), with out as py_modcache_get gives it, and *part emptied; false if the cache is full,
 * with *part still the caller's. */
bool py_modcache_put(py_modcache *c, const py_modkey *k, py_modpart *part, py_modpart *out);

#endif
