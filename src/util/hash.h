/*
 * hash.h: the one string hash of kvlint's hash tables, FNV-1a (32 and 64 bits).
 *
 * Every table keyed by names or paths (the Python evaluator's environments, the import index, the
 * prefilter's word memo, the module cache, the torch API table, YAML anchors) hashes with these, so
 * there is one definition to trust. FNV-1a is fast on short keys and good enough for tables that
 * compare the key on every hit; it is no defence against chosen collisions (a table must stay
 * correct, if slower, when every key collides). Iteration order must never depend on a hash.
 * The _add forms continue a hash over further bytes (a key made of several parts).
 */
#ifndef KV_HASH_H
#define KV_HASH_H
#include <stddef.h>
#include <stdint.h>

#define KV_HASH32_INIT 2166136261u
#define KV_HASH32_PRIME 16777619u
#define KV_HASH64_INIT 14695981039346656037u
#define KV_HASH64_PRIME 1099511628211u

static inline uint32_t kv_hash32_add(uint32_t h, const void *data, size_t n)
{
    const unsigned char *s = data;
    for (size_t i = 0; i < n; i++)
        h = (h ^ s[i]) * KV_HASH32_PRIME;
    return h;
}

static inline uint32_t kv_hash32(const void *data, size_t n)
{
    return kv_hash32_add(KV_HASH32_INIT, data, n);
}

static inline uint64_t kv_hash64_add(uint64_t h, const void *data, size_t n)
{
    const unsigned char *s = data;
    for (size_t i = 0; i < n; i++)
        h = (h ^ s[i]) * KV_HASH64_PRIME;
    return h;
}

static inline uint64_t kv_hash64(const void *data, size_t n)
{
    return kv_hash64_add(KV_HASH64_INIT, data, n);
}

#endif
