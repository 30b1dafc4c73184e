/*
 * pytree.c: how the evaluator reads tree-sitter-python's syntax tree: fields, named children
 * (through a cursor), node kinds, locations, the text of a node as a fact shows it, dotted names,
 * and the per-file evaluation budget.
 * It knows nothing of values or facts.
 */
#include <string.h>

#include "python/grammar.h"

#include "python/pyeval.h"

TSNode pe_fld(const pe_ctx *e, TSNode n, fid f)
{
    return ts_node_child_by_field_id(n, e->fields[f]);
}

/* pe_kids' answers, by node (its subtree and start byte: one node of one tree), so that a body
 * evaluated again (every call of a summarised function, every round of a loop) is not walked and
 * copied again. Open addressing in the evaluator's scratch arena; the arrays are never mutated. */
typedef struct kids_slot {
    const void *id;      /* NULL: empty */
    uint32_t start;
    uint32_t count;
    TSNode *kids;
} kids_slot;

struct pe_kids_memo {
    kids_slot *v;
    size_t cap, n;       /* cap a power of two, n < cap / 2 */
};

static size_t kids_hash(const void *id, uint32_t start, size_t cap)
{
    uint64_t h = (uint64_t)(uintptr_t)id * 0x9E3779B97F4A7C15u ^ start;
    return (size_t)(h ^ (h >> 29)) & (cap - 1);
}

static kids_slot *kids_find(struct pe_kids_memo *m, const void *id, uint32_t start)
{
    size_t i = kids_hash(id, start, m->cap);
    while (m->v[i].id && (m->v[i].id != id || m->v[i].start != start))
        i = (i + 1) & (m->cap - 1);
    return &m->v[i];
}

/* The slot for n (empty if not yet known), making the table on first use and growing it first if needed. */
static kids_slot *kids_slot_for(pe_ctx *e, TSNode n)
{
    struct pe_kids_memo *m = e->kids;
    if (!m) {
        m = e->kids = arena_zalloc(e->s, sizeof *m);
        m->cap = 256;
        m->v = arena_zalloc(e->s, m->cap * sizeof *m->v);
    }
    if (2 * (m->n + 1) >= m->cap) {
        kids_slot *old = m->v;
        size_t oc = m->cap;
        m->cap *= 2;
        m->v = arena_zalloc(e->s, m->cap * sizeof *m->v);
        for (size_t i = 0; i < oc; i++)
            if (old[i].id)
                *kids_find(m, old[i].id, old[i].start) = old[i];
    }
    return kids_find(m, n.id, ts_node_start_byte(n));
}

/* The named children of n except comments, in order (ts_node_named_child(n, i) is linear in i,
 * so loops over long blocks go through a cursor once). *count receives their number. The array
 * is shared by every call for the same node: read it, never write it. */
TSNode *pe_kids(pe_ctx *e, TSNode n, uint32_t *count)
{
    *count = 0;
    if (ts_node_is_null(n))
        return NULL;
    uint32_t cap = ts_node_child_count(n);
    if (cap == 0)
        return NULL;
    kids_slot *slot = kids_slot_for(e, n);
    if (slot->id) {
        *count = slot->count;
        return slot->kids;
    }
    TSNode *out = arena_alloc(e->s, cap * sizeof *out);
    TSTreeCursor c = ts_tree_cursor_new(n);
    for (bool ok = ts_tree_cursor_goto_first_child(&c); ok; ok = ts_tree_cursor_goto_next_sibling(&c)) {
        TSNode k = ts_tree_cursor_current_node(&c);
        if (ts_node_is_named(k) && strcmp(ts_node_type(k), "comment") != 0 && *count < cap)
            out[(*count)++] = k;
    }
    ts_tree_cursor_delete(&c);
    *slot = (kids_slot){ n.id, ts_node_start_byte(n), *count, out };
    e->kids->n++;
    return out;
}

bool pe_is(TSNode n, const char *type)
{
    return strcmp(ts_node_type(n), type) == 0;
}

kv_loc pe_loc_of(const pe_ctx *e, TSNode n)
{
    TSPoint s = ts_node_start_point(n), t = ts_node_end_point(n);
    return kv_loc_make(e->out->path, s.row + 1, s.column + 1, t.row + 1, t.column + 1);
}

/* Length of a valid UTF-8 sequence at p (at most n bytes), or 0. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
    size_t l = p[0] < 0x80 ? 1 : (p[0] & 0xE0) == 0xC0 ? 2 : (p[0] & 0xF0) == 0xE0 ? 3 : (p[0] & 0xF8) == 0xF0 ? 4 : 0;
    if (l == 0 || l > n || (l == 2 && p[0] < 0xC2))
        return 0;
    for (size_t i = 1; i < l; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    return l;
}

/* The source text of a node: newlines and runs of blanks folded to one space, invalid UTF-8
 * replaced by '?', cut at MAX_TEXT bytes. */
const char *pe_text_of(pe_ctx *e, TSNode n)
{
    uint32_t b = ts_node_start_byte(n), t = ts_node_end_byte(n);
    if (t > e->len)
        t = (uint32_t)e->len;
    char buf[MAX_TEXT + 4];
    size_t k = 0;
    bool space = false;
    for (uint32_t i = b; i < t && k < MAX_TEXT;) {
        unsigned char c = (unsigned char)e->src[i];
        if (c == '\n' || c == '\r' || c == '\t' || c == ' ' || c == '\\') {
            space = k > 0;
            i++;
            continue;
        }
        if (space && buf[k - 1] != '(' && buf[k - 1] != '[' && c != ')' && c != ']')
            buf[k++] = ' ';
        space = false;
        size_t l = utf8_len((const unsigned char *)e->src + i, t - i);
        if (l == 0 || k + l > MAX_TEXT) {
            buf[k++] = '?';
            i++;
            continue;
        }
        memcpy(buf + k, e->src + i, l);
        k += l;
        i += (uint32_t)l;
    }
    if (k >= MAX_TEXT)
        memcpy(buf + k, "...", 3), k += 3;
    return arena_strndup(e->a, buf, k);
}

const char *pe_raw_text(pe_ctx *e, TSNode n)
{
    uint32_t b = ts_node_start_byte(n), t = ts_node_end_byte(n);
    return arena_strndup(e->a, e->src + b, t > b ? t - b : 0);
}

/* Dotted spelling of an identifier/attribute chain ("self.impl.do_kv_cache_update"), else NULL
 * (also for chains longer than MAX_DEPTH). */
static const char *dotted_at(pe_ctx *e, TSNode n, int depth)
{
    if (pe_is(n, "identifier"))
        return pe_raw_text(e, n);
    if (!pe_is(n, "attribute") || depth > MAX_DEPTH)
        return NULL;
    const char *obj = dotted_at(e, pe_fld(e, n, F_object), depth + 1);
    TSNode attr = pe_fld(e, n, F_attribute);
    if (!obj || ts_node_is_null(attr))
        return NULL;
    return arena_join(e->a, obj, '.', pe_raw_text(e, attr));
}

const char *pe_dotted(pe_ctx *e, TSNode n)
{
    return dotted_at(e, n, 0);
}

/* Last identifier of a subscript/attribute chain: self.k_buffer[i][loc] -> k_buffer. */
const char *pe_base_name(pe_ctx *e, TSNode n)
{
    while (pe_is(n, "subscript"))
        n = pe_fld(e, n, F_value);
    if (pe_is(n, "attribute"))
        n = pe_fld(e, n, F_attribute);
    return (!ts_node_is_null(n) && pe_is(n, "identifier")) ? pe_raw_text(e, n) : NULL;
}

bool pe_budget_ok(pe_ctx *e)
{
    if (e->budget == 0 || arena_bytes(e->a) + arena_bytes(e->s) > ARENA_CAP)
        return false;
    e->budget--;
    return true;
}

bool pe_depth_ok(pe_ctx *e)
{
    if (e->depth < MAX_DEPTH)
        return true;
    e->too_deep = true;
    return false;
}

const char *pe_last_dotted(const char *s)
{
    const char *d = strrchr(s, '.');
    return d ? d + 1 : s;
}

/* Whether two nodes spell the same bytes. */
bool pe_same_bytes(const pe_ctx *e, TSNode a, TSNode b)
{
    uint32_t ab = ts_node_start_byte(a), al = ts_node_end_byte(a) - ab;
    uint32_t bb = ts_node_start_byte(b), bl = ts_node_end_byte(b) - bb;
    return al == bl && memcmp(e->src + ab, e->src + bb, al) == 0;
}

const unsigned char *py_node_kinds(kv_arena *a, uint32_t *n)
{
    static const char *const names[NK_COUNT] = {
        NULL,
#define PE_NK_NAME(name) #name,
        PE_NODE_KINDS(PE_NK_NAME)
#undef PE_NK_NAME
    };
    const TSLanguage *lang = tree_sitter_python();
    uint32_t count = ts_language_symbol_count(lang);
    unsigned char *k = arena_alloc(a, count ? count : 1);
    memset(k, NK_OTHER, count ? count : 1);
    /* every symbol of a kind's name (aliases share a name under several ids), named ones only:
     * the keywords `lambda` and `await` are anonymous symbols of the same spelling */
    for (uint32_t s = 0; s < count; s++) {
        if (ts_language_symbol_type(lang, (TSSymbol)s) != TSSymbolTypeRegular)
            continue;
        const char *name = ts_language_symbol_name(lang, (TSSymbol)s);
        for (int i = 1; name && i < NK_COUNT; i++)
            if (strcmp(name, names[i]) == 0)
                k[s] = (unsigned char)i;
    }
    *n = count;
    return k;
}

node_kind pe_kind(const pe_ctx *e, TSNode n)
{
    TSSymbol s = ts_node_symbol(n);
    return s < e->nkinds ? (node_kind)e->kinds[s] : NK_OTHER;
}
