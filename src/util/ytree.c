/*
 * ytree.c: libyaml events -> positioned tree (see ytree.h).
 *
 * One pass over the event stream with an explicit stack (no recursion, so depth is bounded by
 * YTREE_MAX_DEPTH and not by the C stack). Anchors live in a small open-addressing table in the
 * arena; an alias records the node it names and is never copied. A mapping's merge keys are
 * merged when it ends (its sources ended before it), sharing the sources' nodes.
 */
#include "util/ytree.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"
#include "util/hash.h"

/* ---- source text: UTF-8 repair and the line table ---- */

static size_t utf8_len(const unsigned char *p, size_t avail)
{
    unsigned c = p[0];
    size_t n = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    if (n == 0 || n > avail || (n == 2 && c < 0xC2))
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    return n;
}

/* Replace bytes that are not UTF-8 by '?', keeping every offset. Returns data itself when valid. */
static const char *utf8_repair(const char *data, size_t len, kv_arena *a)
{
    const unsigned char *p = (const unsigned char *)data;
    char *copy = NULL;
    for (size_t i = 0; i < len;) {
        if (p[i] < 0x80) {
            i++;
            continue;
        }
        size_t n = utf8_len(p + i, len - i);
        if (n) {
            i += n;
            continue;
        }
        if (!copy)
            copy = arena_memdup(a, data, len + 1);
        copy[i++] = '?';
    }
    return copy ? copy : data;
}

void ysrc_init(ysrc *s, const char *data, size_t len, kv_arena *a)
{
    s->data = utf8_repair(data, len, a);
    s->len = len;
    const unsigned char *p = (const unsigned char *)s->data;
    s->bom = len >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF ? 3 : 0;
    ARENA_VEC(size_t) lines = {0};
    ARENA_PUSH(a, lines, s->bom);
    for (size_t i = s->bom; i < len; i++) {
        size_t next = 0;
        if (p[i] == '\n')
            next = i + 1;
        else if (p[i] == '\r')
            next = (i + 1 < len && p[i + 1] == '\n') ? i + 2 : i + 1;
        else if (p[i] == 0xC2 && i + 1 < len && p[i + 1] == 0x85)
            next = i + 2; /* NEL: libyaml counts it as a line break */
        else if (p[i] == 0xE2 && i + 2 < len && p[i + 1] == 0x80 && (p[i + 2] == 0xA8 || p[i + 2] == 0xA9))
            next = i + 3; /* LS, PS */
        if (next) {
            ARENA_PUSH(a, lines, next);
            i = next - 1;
        }
    }
    s->lines = lines.v;
    s->nlines = lines.n;
}

ypos ytree_pos(const ysrc *s, yaml_mark_t m)
{
    size_t line = m.line < s->nlines ? m.line : s->nlines - 1;
    size_t off = s->lines[line];
    const unsigned char *p = (const unsigned char *)s->data;
    size_t end = line + 1 < s->nlines ? s->lines[line + 1] : s->len;
    for (size_t c = 0; c < m.column && off < end; c++) {
        size_t n = utf8_len(p + off, s->len - off);
        off += n ? n : 1;
    }
    return (ypos){ (uint32_t)line + 1, (uint32_t)(off - s->lines[line]) + 1, off };
}

ypos ysrc_pos_of(const ysrc *s, size_t off)
{
    size_t lo = 0, hi = s->nlines;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->lines[mid] <= off)
            lo = mid;
        else
            hi = mid;
    }
    size_t base = s->lines[lo];
    return (ypos){ (uint32_t)lo + 1, (uint32_t)(off >= base ? off - base : 0) + 1, off };
}

/* ---- anchors ---- */

typedef struct anchor_slot {
    const char *name;
    ynode *node;
} anchor_slot;

typedef struct anchors {
    anchor_slot *v;
    size_t cap, n;
} anchors;

static size_t hash_str(const char *s)
{
    return (size_t)kv_hash64(s, strlen(s));
}

static void anchors_put(anchors *t, kv_arena *a, const char *name, ynode *node);

static void anchors_grow(anchors *t, kv_arena *a)
{
    anchors old = *t;
    t->cap = old.cap ? old.cap * 2 : 16;
    t->v = arena_zalloc(a, t->cap * sizeof *t->v);
    t->n = 0;
    for (size_t i = 0; i < old.cap; i++)
        if (old.v[i].name)
            anchors_put(t, a, old.v[i].name, old.v[i].node);
}

static void anchors_put(anchors *t, kv_arena *a, const char *name, ynode *node)
{
    if ((t->n + 1) * 2 > t->cap)
        anchors_grow(t, a);
    size_t i = hash_str(name) & (t->cap - 1);
    while (t->v[i].name && strcmp(t->v[i].name, name) != 0)
        i = (i + 1) & (t->cap - 1);
    if (!t->v[i].name) {
        t->v[i].name = arena_strdup(a, name);
        t->n++;
    }
    t->v[i].node = node; /* a redefined anchor names the latest node, as YAML says */
}

static ynode *anchors_get(const anchors *t, const char *name)
{
    if (!t->cap)
        return NULL;
    size_t i = hash_str(name) & (t->cap - 1);
    while (t->v[i].name) {
        if (strcmp(t->v[i].name, name) == 0)
            return t->v[i].node;
        i = (i + 1) & (t->cap - 1);
    }
    return NULL;
}

/* ---- the event loop ---- */

typedef struct frame {
    ynode *node;
    ARENA_VEC(ynode *) kids;
} frame;

typedef struct builder {
    kv_arena *a;
    ystream *st;
    frame stack[YTREE_MAX_DEPTH + 1];
    size_t depth;
    ydoc doc;
    bool in_doc;
    ARENA_VEC(ydoc) docs;
    anchors anchors;
    bool merge_limited;         /* merge keys hit YTREE_MAX_NODES: no more merging in this file */
} builder;

static ynode *new_node(builder *b, ynode_kind kind, const yaml_event_t *e)
{
    ynode *n = arena_zalloc(b->a, sizeof *n);
    n->kind = kind;
    n->start = e->start_mark;
    n->end = e->end_mark;
    b->st->nnodes++;
    return n;
}

static void attach(builder *b, ynode *n)
{
    if (b->depth == 0) {
        if (!b->doc.root)
            b->doc.root = n;
        return;
    }
    frame *f = &b->stack[b->depth - 1];
    ARENA_PUSH(b->a, f->kids, n);
}

static void pop_frame(builder *b, const yaml_mark_t *end)
{
    frame *f = &b->stack[--b->depth];
    f->node->kids = f->kids.v;
    f->node->nkids = f->kids.n;
    if (end)
        f->node->end = *end;
}

typedef struct key_ref {
    const char *val;
    size_t pair;               /* index of the key/value pair in the map */
} key_ref;

static int cmp_key_ref(const void *pa, const void *pb)
{
    const key_ref *a = pa, *b = pb;
    int c = strcmp(a->val, b->val);
    return c ? c : a->pair < b->pair ? -1 : a->pair > b->pair;
}

/* A key given twice in one mapping: the last one wins, as Python's json and PyYAML (and so Hugging
 * Face and the engines) read it. The earlier pairs are dropped from the tree, so that no walker can
 * see a value the engine never uses, and each is named in a warning. Sorting makes this
 * O(k log k) for k keys. */
static void drop_duplicate_keys(builder *b, ynode *map, const char *path, diag_list *diags)
{
    size_t npairs = map->nkids / 2;
    if (npairs < 2)
        return;
    key_ref *keys = xmalloc(npairs * sizeof *keys);
    size_t nk = 0;
    for (size_t i = 0; i < npairs; i++) {
        const ynode *k = map->kids[2 * i];
        /* `<<: *a` then `<<: *b` is no duplicate: PyYAML merges both (vllm-ascend's nightly model
         * configs). A merge key is a plain `<<`; a quoted "<<" is an ordinary key. */
        if (k->kind == YN_SCALAR && !(k->style == YAML_PLAIN_SCALAR_STYLE && !strcmp(k->val, "<<")))
            keys[nk++] = (key_ref){ k->val, i };
    }
    qsort(keys, nk, sizeof *keys, cmp_key_ref);
    bool *drop = NULL;
    for (size_t k = 1; k < nk; k++) {
        if (strcmp(keys[k].val, keys[k - 1].val) != 0)
            continue;
        if (!drop)
            drop = xcalloc(npairs, sizeof *drop);
        drop[keys[k - 1].pair] = true;
        ypos first = ytree_pos(&b->st->src, map->kids[2 * keys[k - 1].pair]->start);
        ypos last = ytree_pos(&b->st->src, map->kids[2 * keys[k].pair]->start);
        diag_add(diags, DIAG_WARNING, path, first.line, first.col,
                 "duplicate key '%s': the later one at %s:%u:%u is used (the last wins, as in Python's json "
                 "and PyYAML)", keys[k].val, path, last.line, last.col);
    }
    if (drop) {
        size_t w = 0;
        for (size_t i = 0; i < npairs; i++)
            if (!drop[i]) {
                map->kids[w++] = map->kids[2 * i];
                map->kids[w++] = map->kids[2 * i + 1];
            }
        if (map->nkids % 2)
            map->kids[w++] = map->kids[map->nkids - 1];
        map->nkids = w;
    }
    free(drop);
    free(keys);
}

static bool is_merge_key(const ynode *k)
{
    return k->kind == YN_SCALAR && k->style == YAML_PLAIN_SCALAR_STYLE && !strcmp(k->val, "<<");
}

typedef ARENA_VEC(ynode *) node_vec;

/* Append the pairs of source (a merged mapping) to out, its own merge keys left out (they are
 * only still there when a mapping merges itself: `&a {<<: *a}`). */
static void merge_from(builder *b, const ynode *map, const ynode *src, node_vec *out)
{
    if (src == map)
        return;
    for (size_t i = 0; i + 1 < src->nkids; i += 2)
        if (!is_merge_key(src->kids[i])) {
            ARENA_PUSH(b->a, *out, src->kids[i]);
            ARENA_PUSH(b->a, *out, src->kids[i + 1]);
        }
}

static const ynode *merge_source(const ynode *n)
{
    if (n && n->kind == YN_ALIAS)
        n = n->target;   /* an anchored node is never an alias itself */
    return n;
}

/* The mappings one `<<` value names, in PyYAML's order (SafeLoader's flatten_mapping, which vLLM
 * and SGLang read their YAML configs with): a mapping, or a sequence of mappings whose earlier
 * items win, so they come last. Anything else is a warning and merges nothing. */
static void merge_value(builder *b, const ynode *map, const ynode *v, node_vec *out, const char *path,
                        diag_list *diags, diag_level level)
{
    const ynode *src = merge_source(v);
    if (src && src->kind == YN_MAP) {
        merge_from(b, map, src, out);
        return;
    }
    bool ok = src && src->kind == YN_SEQ;
    for (size_t i = ok ? src->nkids : 0; i-- > 0;) {
        const ynode *item = merge_source(src->kids[i]);
        if (item && item->kind == YN_MAP)
            merge_from(b, map, item, out);
        else
            ok = false;
    }
    if (!ok) {
        ypos p = ytree_pos(&b->st->src, v->start);
        if (!src)
            diag_add(diags, level, path, p.line, p.col, "merge key '<<' names an undefined anchor; ignored");
        else
            diag_add(diags, level, path, p.line, p.col,
                     "merge key '<<' takes a mapping or a list of mappings; %s ignored",
                     src->kind == YN_SEQ ? "the items that are none are" : "this value is");
    }
}

/* How many nodes merging v would add (two per pair), without copying anything. */
static size_t merge_size(const ynode *v)
{
    const ynode *src = merge_source(v);
    if (src && src->kind == YN_MAP)
        return src->nkids;
    size_t n = 0;
    for (size_t i = 0; src && src->kind == YN_SEQ && i < src->nkids; i++) {
        const ynode *item = merge_source(src->kids[i]);
        n += item && item->kind == YN_MAP ? item->nkids : 0;
    }
    return n;
}

/* YAML merge keys, as PyYAML reads them: the pairs of every `<<` source first (a later `<<` over
 * an earlier one), then the mapping's own pairs, the last pair of each key winning silently (an
 * own key overrides a merged one: that is what merging is for). The merged pairs share the
 * source's nodes, so a value keeps the position it is written at, and count as nodes against
 * YTREE_MAX_NODES: a chain of mappings each merging the one before stays bounded. Past that
 * limit (said once) the file's later mappings keep their `<<` pairs unmerged, and walkers follow
 * them as ordinary aliases. */
static void merge_keys(builder *b, ynode *map, const char *path, diag_list *diags, diag_level level)
{
    size_t need = 0;
    bool any = false;
    for (size_t i = 0; i + 1 < map->nkids; i += 2)
        if (is_merge_key(map->kids[i])) {
            any = true;
            need += merge_size(map->kids[i + 1]);
        }
    if (!any || b->merge_limited)
        return;
    if (b->st->nnodes + need > YTREE_MAX_NODES) {
        ypos p = ytree_pos(&b->st->src, map->start);
        diag_limit(diags, level, path, p.line, p.col,
                   "merge keys expand past %d YAML nodes; from here on they are read as plain aliases", YTREE_MAX_NODES);
        b->merge_limited = true;
        return;
    }
    node_vec l = { 0 };
    for (size_t i = 0; i + 1 < map->nkids; i += 2)
        if (is_merge_key(map->kids[i]))
            merge_value(b, map, map->kids[i + 1], &l, path, diags, level);
    b->st->nnodes += l.n;
    for (size_t i = 0; i + 1 < map->nkids; i += 2)
        if (!is_merge_key(map->kids[i])) {
            ARENA_PUSH(b->a, l, map->kids[i]);
            ARENA_PUSH(b->a, l, map->kids[i + 1]);
        }
    size_t npairs = l.n / 2;
    key_ref *keys = npairs ? xmalloc(npairs * sizeof *keys) : NULL;
    size_t nk = 0;
    for (size_t i = 0; i < npairs; i++)
        if (l.v[2 * i]->kind == YN_SCALAR)
            keys[nk++] = (key_ref){ l.v[2 * i]->val, i };
    if (nk)
        qsort(keys, nk, sizeof *keys, cmp_key_ref);
    bool *drop = npairs ? xcalloc(npairs, sizeof *drop) : NULL;
    for (size_t k = 1; k < nk; k++)
        if (strcmp(keys[k].val, keys[k - 1].val) == 0)
            drop[keys[k - 1].pair] = true;
    size_t w = 0;
    for (size_t i = 0; i < npairs; i++)
        if (!drop[i]) {
            l.v[w++] = l.v[2 * i];
            l.v[w++] = l.v[2 * i + 1];
        }
    free(drop);
    free(keys);
    map->kids = l.v;
    map->nkids = w;
}

static void end_doc(builder *b)
{
    while (b->depth)
        pop_frame(b, NULL);
    if (b->in_doc)
        ARENA_PUSH(b->a, b->docs, b->doc);
    b->in_doc = false;
    memset(&b->doc, 0, sizeof b->doc);
}

static void note_anchor(builder *b, const yaml_char_t *anchor, ynode *n)
{
    if (!anchor)
        return;
    anchors_put(&b->anchors, b->a, (const char *)anchor, n);
    n->anchor = ++b->st->nanchored;
}

/* Returns false to stop (depth limit). */
static bool makes_node(yaml_event_type_t t)
{
    return t == YAML_SEQUENCE_START_EVENT || t == YAML_MAPPING_START_EVENT || t == YAML_SCALAR_EVENT ||
           t == YAML_ALIAS_EVENT;
}

static bool on_event(builder *b, const yaml_event_t *e, const char *path, diag_list *diags, diag_level level)
{
    ynode *n;
    if (makes_node(e->type) && b->st->nnodes >= YTREE_MAX_NODES) {
        ypos p = ytree_pos(&b->st->src, e->start_mark);
        diag_limit(diags, level, path, p.line, p.col, "more than %d YAML nodes; the rest of the file is ignored",
                 YTREE_MAX_NODES);
        return false;
    }
    switch (e->type) {
    case YAML_DOCUMENT_START_EVENT:
        b->in_doc = true;
        b->doc.root = NULL;
        b->doc.start = e->start_mark;
        break;
    case YAML_DOCUMENT_END_EVENT:
        end_doc(b);
        break;
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT:
        if (b->depth >= YTREE_MAX_DEPTH) {
            ypos p = ytree_pos(&b->st->src, e->start_mark);
            diag_limit(diags, level, path, p.line, p.col,
                       "YAML nested deeper than %d levels; the rest of the file is ignored", YTREE_MAX_DEPTH);
            return false;
        }
        n = new_node(b, e->type == YAML_SEQUENCE_START_EVENT ? YN_SEQ : YN_MAP, e);
        note_anchor(b, e->type == YAML_SEQUENCE_START_EVENT ? e->data.sequence_start.anchor
                                                             : e->data.mapping_start.anchor, n);
        attach(b, n);
        b->stack[b->depth].node = n;
        memset(&b->stack[b->depth].kids, 0, sizeof b->stack[b->depth].kids);
        b->depth++;
        break;
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
        if (b->depth) {
            ynode *done = b->stack[b->depth - 1].node;
            pop_frame(b, &e->end_mark);
            if (done->kind == YN_MAP) {
                drop_duplicate_keys(b, done, path, diags);
                merge_keys(b, done, path, diags, level);
            }
        }
        break;
    case YAML_SCALAR_EVENT:
        n = new_node(b, YN_SCALAR, e);
        n->val = arena_strndup(b->a, (const char *)e->data.scalar.value, e->data.scalar.length);
        n->len = strlen(n->val); /* an escaped NUL ends the text we look at */
        n->style = e->data.scalar.style;
        note_anchor(b, e->data.scalar.anchor, n);
        attach(b, n);
        break;
    case YAML_ALIAS_EVENT:
        n = new_node(b, YN_ALIAS, e);
        n->target = anchors_get(&b->anchors, (const char *)e->data.alias.anchor);
        attach(b, n);
        break;
    default:
        break;
    }
    return true;
}

static bool looks_templated(const char *data)
{
    return strstr(data, "{{") != NULL || strstr(data, "{%") != NULL;
}

ystream *ytree_parse(const char *path, const char *data, size_t len, kv_arena *a, diag_list *diags,
                     diag_level level)
{
    ystream *st = arena_zalloc(a, sizeof *st);
    ysrc_init(&st->src, data, len, a);
    builder *b = arena_zalloc(a, sizeof *b);
    b->a = a;
    b->st = st;

    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) {
        diag_add(diags, DIAG_ERROR, path, 0, 0, "cannot initialise the YAML parser");
        st->failed = true;
        return st;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)st->src.data, len);
    for (;;) {
        yaml_event_t e;
        if (!yaml_parser_parse(&parser, &e)) {
            ypos p = ytree_pos(&st->src, parser.problem_mark);
            if (looks_templated(st->src.data))
                diag_add(diags, DIAG_NOTE, path, p.line, p.col,
                         "not plain YAML (a template?): %s; read up to here", parser.problem ? parser.problem : "syntax error");
            else
                diag_add(diags, level, path, p.line, p.col, "malformed YAML: %s%s%s",
                         parser.problem ? parser.problem : "syntax error", parser.context ? " " : "",
                         parser.context ? parser.context : "");
            st->failed = true;
            b->in_doc = false; /* a document cut by an error says nothing reliable: drop it */
            end_doc(b);
            break;
        }
        yaml_event_type_t t = e.type;
        bool go = on_event(b, &e, path, diags, level);
        yaml_event_delete(&e);
        if (!go) {
            st->failed = true;
            end_doc(b);
            break;
        }
        if (t == YAML_STREAM_END_EVENT)
            break;
    }
    yaml_parser_delete(&parser);
    st->docs = b->docs.v;
    st->ndocs = b->docs.n;
    return st;
}

/* ---- bounded traversal ---- */

void ywalk_init(ywalk *w, const ystream *st)
{
    w->budget = 64 * st->nnodes + 100000;
    w->exhausted = false;
}

static bool charge(ywalk *w)
{
    if (w->budget == 0) {
        w->exhausted = true;
        return false;
    }
    w->budget--;
    return true;
}

const ynode *ywalk_deref(ywalk *w, const ynode *n)
{
    for (int hops = 0; n; hops++) {
        if (!charge(w) || hops > 64)
            return NULL;
        if (n->kind != YN_ALIAS)
            return n;
        n = n->target;
    }
    return NULL;
}

const ynode *ymap_get(ywalk *w, const ynode *map, const char *key)
{
    map = ywalk_deref(w, map);
    if (!map || map->kind != YN_MAP)
        return NULL;
    for (size_t i = 0; i + 1 < map->nkids; i += 2) {
        const ynode *k = map->kids[i];
        if (k->kind == YN_SCALAR && strcmp(k->val, key) == 0)
            return ywalk_deref(w, map->kids[i + 1]);
    }
    return NULL;
}

const char *yscalar(const ynode *n)
{
    return n && n->kind == YN_SCALAR ? n->val : NULL;
}
