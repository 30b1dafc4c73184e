/*
 * pymodcache.c: the parsed parts of imported modules, shared by every file of a run.
 *
 * A call of a function imported from another scanned file makes pymodule.c read that module and
 * parse the parts the function needs (its prologue, the function, the functions it calls). Many
 * files import the same helpers (vLLM's model files all call into the same layers), so the parse
 * is kept here once per (module, function) for the whole run, and each analysed file gets its own
 * copy of the tree (ts_tree_copy: cheap, and what tree-sitter requires for use on several threads).
 * What is cached is only bytes and syntax: the evaluation of the module stays per analysed file, so
 * the output cannot depend on which file asked first or on the number of threads.
 *
 * Keys are the module's path and the function's name and byte extent (not pointers: the cache
 * lives as long as the front end's state, which may see several runs' indexes).
 *
 * A module file's bytes are read once and shared by all its parts.
 *
 * Bounded: at most MAX_CACHED_BYTES (source plus estimated trees) are kept; past it, parts are parsed per file as
 * before (the caller keeps ownership). A failed load (unreadable, nothing to parse) is cached too.
 * Thread-safe: one mutex; a miss is parsed outside the lock, and if two threads parse the same part
 * at once the second one's copy is dropped.
 *
 * This file does not read files or choose ranges (pymodule.c does), and knows nothing of values.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "python/pymodcache.h"
#include "util/xalloc.h"
#include "util/hash.h"

/* What the cache may hold: file bytes, plus an estimate of the trees' memory (tree-sitter's nodes
 * take about this many bytes per byte of parsed source, measured on vLLM). 8 MiB: on vLLM, 16 MiB
 * cost 4-5 MB more of peak memory for no measurable time (bench/python.results.md). */
enum { MAX_CACHED_BYTES = 8 << 20, TREE_BYTES_PER_SOURCE_BYTE = 24 };

typedef struct entry {
    char *path;              /* NULL: an empty slot */
    char *fn;
    uint32_t start, end;     /* the function's bytes in the module, as the index saw them */
    uint64_t hash;
    py_modpart part;         /* part.tree NULL: the load failed (or a file's entry: fn "") */
    bool owns_data;          /* a file's entry owns the bytes; its parts point to them */
} entry;

struct py_modcache {
    pthread_mutex_t mu;
    entry *v;                /* open addressing, cap a power of two */
    size_t n, cap;
    size_t bytes;            /* source bytes held */
};

py_modcache *py_modcache_new(void)
{
    py_modcache *c = xcalloc(1, sizeof *c);
    if (pthread_mutex_init(&c->mu, NULL) != 0) {
        free(c);
        return NULL;
    }
    return c;
}

void py_modcache_free(py_modcache *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->cap; i++)
        if (c->v[i].path) {
            if (c->v[i].part.tree)
                ts_tree_delete(c->v[i].part.tree);
            if (c->v[i].owns_data)
                free(c->v[i].part.data);
            free(c->v[i].path);
            free(c->v[i].fn);
        }
    free(c->v);
    pthread_mutex_destroy(&c->mu);
    free(c);
}

static uint64_t key_hash(const py_modkey *k)
{
    uint64_t h = kv_hash64(k->path, strlen(k->path));
    h = kv_hash64_add(h, "\xff", 1);   /* no path ends in this byte: path and function stay apart */
    h = kv_hash64_add(h, k->fn, strlen(k->fn));
    return (h ^ ((uint64_t)k->start << 32 | k->end)) * KV_HASH64_PRIME;
}

static bool key_is(const entry *e, uint64_t h, const py_modkey *k)
{
    return e->hash == h && e->start == k->start && e->end == k->end && strcmp(e->path, k->path) == 0
           && strcmp(e->fn, k->fn) == 0;
}

static size_t slot_of(const entry *v, size_t cap, uint64_t h, const py_modkey *k)
{
    size_t i = (size_t)(h >> 7) & (cap - 1);
    while (v[i].path && !(k && key_is(&v[i], h, k)))
        i = (i + 1) & (cap - 1);
    return i;
}

static bool grow(py_modcache *c)
{
    size_t cap = c->cap ? c->cap * 2 : 256;
    entry *v = calloc(cap, sizeof *v);
    if (!v)
        return false;
    for (size_t i = 0; i < c->cap; i++)
        if (c->v[i].path)
            v[slot_of(v, cap, c->v[i].hash, NULL)] = c->v[i];   /* keys are distinct: the first free slot */
    free(c->v);
    c->v = v;
    c->cap = cap;
    return true;
}

/* The caller's view of a cached part: the same bytes, its own tree (ts_tree_copy cannot fail:
 * tree-sitter's allocator aborts on exhaustion). */
static void give(const entry *e, py_modpart *out)
{
    *out = e->part;
    out->tree = e->part.tree ? ts_tree_copy(e->part.tree) : NULL;
}

bool py_modcache_get(py_modcache *c, const py_modkey *k, py_modpart *out)
{
    if (!c)
        return false;
    bool hit = false;
    uint64_t h = key_hash(k);
    pthread_mutex_lock(&c->mu);
    if (c->cap) {
        const entry *e = &c->v[slot_of(c->v, c->cap, h, k)];
        if ((hit = e->path != NULL))
            give(e, out);
    }
    pthread_mutex_unlock(&c->mu);
    return hit;
}

bool py_modcache_put(py_modcache *c, const py_modkey *k, py_modpart *part, py_modpart *out)
{
    if (!c)
        return false;
    bool kept = false;
    uint64_t h = key_hash(k);
    py_modkey fk = { k->path, "", 0, 0 };   /* the file's bytes, shared by its parts */
    uint64_t fh = key_hash(&fk);
    pthread_mutex_lock(&c->mu);
    if ((c->n + 2) * 2 > c->cap && !grow(c)) {
        pthread_mutex_unlock(&c->mu);
        return false;
    }
    entry *e = &c->v[slot_of(c->v, c->cap, h, k)];
    entry *fe = &c->v[slot_of(c->v, c->cap, fh, &fk)];
    bool need_file = part->data && !(fe->path && fe->part.len == part->len);
    size_t cost = part->bytes * TREE_BYTES_PER_SOURCE_BYTE + (need_file ? part->len : 0);
    if (e->path) {
        /* another thread parsed it meanwhile: drop ours, use the cached one */
        if (part->tree)
            ts_tree_delete(part->tree);
        free(part->data);
        *part = (py_modpart){ 0 };
        give(e, out);
        kept = true;
    } else if (c->bytes + cost <= MAX_CACHED_BYTES) {
        if (need_file) {
            *fe = (entry){ xstrdup(k->path), xstrdup(""), 0, 0, fh, { part->data, part->len, NULL, 0 }, true };
            c->n++;
            /* e and fe may have been the same free slot: the part takes the next one */
            e = &c->v[slot_of(c->v, c->cap, h, k)];
        } else if (part->data) {
            free(part->data);   /* the same file as cached: its parts share one copy */
        }
        *e = (entry){ xstrdup(k->path), xstrdup(k->fn), k->start, k->end, h, *part, false };
        e->part.data = part->data ? fe->part.data : NULL;
        c->n++;
        c->bytes += cost;
        *part = (py_modpart){ 0 };
        give(e, out);
        kept = true;
    }
    pthread_mutex_unlock(&c->mu);
    return kept;
}
