/*
 * ytree.h: a YAML/JSON stream read into a small positioned tree (libyaml event API).
 *
 * The config front end and the .kvlint.yaml loader need two things libyaml's document API does
 * not give cheaply: byte-exact positions of every scalar (libyaml marks count characters), and
 * bounded work on hostile input. So this reader builds its own tree in the file's arena:
 *  - every node keeps libyaml's start/end marks; ytree_pos() turns a mark into a 1-based line
 *    and 1-based BYTE column through a line table of the original bytes;
 *  - aliases are NOT expanded: an alias node points at its anchored node. Walkers follow it
 *    through ywalk_deref(), which charges a per-file budget, so a "billion laughs" file costs
 *    at most the budget, never exponential time;
 *  - nesting deeper than YTREE_MAX_DEPTH, or more than YTREE_MAX_NODES nodes (about 100 bytes
 *    each), stops the read with a diagnostic;
 *  - invalid UTF-8 bytes are replaced by '?' in a private copy before parsing (same length, so
 *    every byte offset stays true) and a UTF-8 BOM is skipped.
 *  - merge keys (`<<: *base`, `<<: [*a, *b]`) ARE merged, as PyYAML's SafeLoader merges them: the
 *    mapping's kids become the merged pairs (sharing the source's nodes) and its own, one pair per
 *    key; the merged pairs count against YTREE_MAX_NODES.
 * It deliberately does not resolve tags or YAML 1.1 booleans: callers read the scalar text they
 * care about.
 */
#ifndef KV_YTREE_H
#define KV_YTREE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

#include "util/arena.h"
#include "util/diag.h"

enum { YTREE_MAX_DEPTH = 200, YTREE_MAX_NODES = 1000000 };

typedef enum ynode_kind { YN_SCALAR, YN_SEQ, YN_MAP, YN_ALIAS } ynode_kind;

typedef struct ynode {
    ynode_kind kind;
    const char *val;            /* scalar: decoded value, NUL-terminated */
    size_t len;
    yaml_scalar_style_t style;
    yaml_mark_t start, end;
    struct ynode **kids;        /* seq: items; map: key, value, key, value, ... */
    size_t nkids;
    const struct ynode *target; /* alias: the anchored node, NULL for an unknown anchor */
    uint32_t anchor;            /* 1..ystream.nanchored if the node has an anchor (&name), else 0 */
    bool rewritten;             /* scalar: val is no longer the text at start..end (compose's
                                   variable interpolation filled it in) */
} ynode;

/* Byte-exact positions over the original text. */
typedef struct ysrc {
    const char *data;           /* the text parsed (after UTF-8 repair), NUL-terminated */
    size_t len;
    size_t bom;                 /* 3 if a UTF-8 BOM was skipped */
    size_t *lines;              /* byte offset of each line start (as libyaml counts lines) */
    size_t nlines;
} ysrc;

typedef struct ypos {
    uint32_t line, col;         /* 1-based; col counts bytes */
    size_t off;                 /* byte offset in data */
} ypos;

typedef struct ydoc {
    ynode *root;                /* NULL for an empty document */
    yaml_mark_t start;
} ydoc;

typedef struct ystream {
    ysrc src;
    ydoc *docs;
    size_t ndocs;
    size_t nnodes;
    uint32_t nanchored;         /* nodes with an anchor: walkers read each of them once */
    bool failed;                /* a parse error stopped the read (documents before it are kept) */
} ystream;

/* Parse data (len bytes, NUL-terminated). Problems go to diags at `level` (path names the file).
 * Never fails: on error the stream holds what was read before it. */
ystream *ytree_parse(const char *path, const char *data, size_t len, kv_arena *a, diag_list *diags,
                     diag_level level);
/* Line table and UTF-8 repair only (for shell files and Dockerfiles). */
void ysrc_init(ysrc *s, const char *data, size_t len, kv_arena *a);
ypos ytree_pos(const ysrc *s, yaml_mark_t m);
/* Position of a byte offset. */
ypos ysrc_pos_of(const ysrc *s, size_t off);

/* Bounded traversal: every alias hop or node visit charges the budget. */
typedef struct ywalk {
    size_t budget;
    bool exhausted;
} ywalk;

void ywalk_init(ywalk *w, const ystream *st);
/* Follow aliases (charging the budget); NULL once the budget is spent. */
const ynode *ywalk_deref(ywalk *w, const ynode *n);
/* Value for key in a mapping (alias-followed, charged), or NULL. */
const ynode *ymap_get(ywalk *w, const ynode *map, const char *key);
/* Scalar text or NULL. */
const char *yscalar(const ynode *n);

#endif
