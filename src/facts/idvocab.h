/*
 * idvocab.h: the id vocabulary, as data (grammars/ids.tsv): the id classes of integer ids kvlint
 * knows (adapter, expert, position, token, slot), the identifiers code gives them, and the config
 * keys that bound them. The Python front end reads it to name ids and their symbolic bounds, the
 * resolver to give each declared range its id class and meaning; one table, so the two agree.
 *
 * What this does not do: find ids in code (python/) or ranges in configs (config/, resolve/).
 * Loaded once before the threads start; read-only afterwards.
 */
#ifndef KV_IDVOCAB_H
#define KV_IDVOCAB_H
#include <stdbool.h>
#include <stddef.h>

#include "util/arena.h"
#include "util/diag.h"

/* A config key that bounds an id class's ids. */
typedef struct id_bound {
    const char *key;        /* "max_model_len" */
    bool count;             /* the value n is a count (ids 0..n-1), else the largest id itself */
} id_bound;

typedef struct id_class {
    const char *name;                 /* "adapter" */
    ARENA_VEC(const char *) words;    /* name segments that say the id class ("lora", "expert") */
    ARENA_VEC(const char *) names;    /* whole identifiers that hold its ids without a suffix ("positions") */
    ARENA_VEC(id_bound) bounds;       /* preferred first */
    ARENA_VEC(const char *) id_names; /* .kvlint.yaml range names for its largest id ("adapter_id") */
} id_class;

typedef struct id_vocab {
    kv_arena *arena;
    ARENA_VEC(const char *) suffixes; /* segments that mark an identifier as holding ids ("ids", "idx") */
    ARENA_VEC(id_class) classes;    /* in the order identifiers are matched */
    ARENA_VEC(const char *) integer_words; /* last segments that mark a tensor as integers ("tokens") */
} id_vocab;

/* What a range name means to the resolver. */
typedef struct id_range_kind {
    const char *id_class;     /* NULL: no id class knows the name (a .kvlint.yaml name of the user's own) */
    bool count;             /* its value is a count of ids (or, for an id name, its id class's bounds are) */
    bool id_name;           /* an id name: the value is the largest id, not a bound */
} id_range_kind;

/* Read datadir/grammars/ids.tsv. A malformed row is an error with its line and is skipped; a
 * missing file is an error and leaves the vocabulary empty (no ids are named). Never NULL. */
id_vocab *id_vocab_load(const char *datadir, diag_list *diags);
/* The same from a buffer (path only names it in diagnostics). */
id_vocab *id_vocab_read(const char *path, const char *data, size_t len, diag_list *diags);
void id_vocab_free(id_vocab *v);

/* The id class whose ids the identifier name[0..n) holds ("adapter_ids": "adapter"), or NULL. */
const char *id_vocab_name_class(const id_vocab *v, const char *name, size_t n);
/* Does the identifier name[0..n) hold integers: ids of a class, an id suffix without a class
 * (draft_ids, hash_indices_table), or an integer row as its last segment (expected_tokens)? The
 * Python front end gives such a tensor an integer dtype where nothing else is known of it. */
bool id_vocab_name_integer(const id_vocab *v, const char *name, size_t n);
/* The id class called name, or NULL. */
const id_class *id_vocab_class(const id_vocab *v, const char *name);
/* What a declared range called name is. */
id_range_kind id_vocab_range_kind(const id_vocab *v, const char *name);

#endif
