/*
 * pytorch_api.c: load grammars/python/torch.tsv into a read-only table (see pytorch_api.h).
 *
 * Rows are kept sorted by name and hashed by name: the prefilter asks about every word of every
 * file, so a word costs one FNV-1a hash and one compare (a linear scan of ~200 names would cost
 * more than the lexing). Several
 * rows may share a name when they differ in `on` (torch.where and x.where take their arguments
 * differently). Parsing validates every column against its vocabulary and rejects the line with a
 * diagnostic otherwise; nothing here guesses.
 * This file does not know what the rows mean to the evaluator (pytorch.c) or the prefilter.
 */
#include "python/pytorch_api.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fsutil.h"
#include "util/xalloc.h"
#include "util/hash.h"

enum { TORCH_MAX_BYTES = 1 << 20, NCOLS = 9 };

/* A word's slot in the hash: its first row (rows of one name are adjacent) and the prefilter's
 * view of all of them, so that a word costs one hash and one compare. */
typedef struct slot {
    const char *name;   /* NULL: empty */
    size_t len;
    size_t first;       /* index of the first row with this name */
    pt_word word;
} slot;

struct pt_api {
    kv_arena *arena;
    pt_entry *v;   /* sorted by name */
    size_t n;
    slot *slots;   /* open addressing, a power of two at least twice the number of names */
    size_t nslots;
};

static const slot *find_slot(const pt_api *api, const char *s, size_t n)
{
    if (!api || !api->nslots)
        return NULL;
    for (size_t i = kv_hash32(s, n) & (api->nslots - 1);; i = (i + 1) & (api->nslots - 1)) {
        const slot *sl = &api->slots[i];
        if (!sl->name)
            return NULL;
        if (sl->len == n && memcmp(sl->name, s, n) == 0)
            return sl;
    }
}

static void build_slots(pt_api *api)
{
    api->nslots = 16;
    while (api->nslots < 2 * api->n)
        api->nslots *= 2;
    api->slots = arena_zalloc(api->arena, api->nslots * sizeof *api->slots);
    for (size_t i = 0; i < api->n; i++) {
        const pt_entry *e = &api->v[i];
        size_t len = strlen(e->name);
        size_t k = kv_hash32(e->name, len) & (api->nslots - 1);
        while (api->slots[k].name && strcmp(api->slots[k].name, e->name) != 0)
            k = (k + 1) & (api->nslots - 1);
        slot *sl = &api->slots[k];
        if (!sl->name)
            *sl = (slot){ e->name, len, i, { false, false, false, false } };
        sl->word.tensor_ctx |= e->tensor_ctx;
        sl->word.int_source |= e->int_source;
        sl->word.cast |= e->cast_ctx;
        /* as pytorch.c apply_inplace stores: an in-place method whose values are not its input's */
        sl->word.writes |= e->on == PT_METHOD && e->returns == PTR_INPLACE && e->values != PTV_SAME;
    }
}

typedef struct word { const char *s; unsigned x; } word;

static bool pick(const char *s, const word *t, size_t n, unsigned *out)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(s, t[i].s) == 0) {
            *out = t[i].x;
            return true;
        }
    return false;
}
#define PICK(s, t, out) pick((s), (t), sizeof(t) / sizeof *(t), (out))

static const word on_words[] = {
    { "fn", PT_FN }, { "method", PT_METHOD }, { "both", PT_FN | PT_METHOD },
    { "module", PT_MODULE }, { "dtype", PT_DTYPE },
};
static const word returns_words[] = {
    { "new", PTR_NEW }, { "view", PTR_VIEW }, { "inplace", PTR_INPLACE }, { "cast", PTR_CAST },
    { "reinterpret", PTR_REINTERPRET }, { "object", PTR_OBJECT },
};
static const word dtype_words[] = {
    { "-", PTD_NONE }, { "kw", PTD_KW }, { "kw|input", PTD_KW_OR_INPUT }, { "kw|int", PTD_KW_OR_INT },
    { "input", PTD_INPUT }, { "int", PTD_INT }, { "bool", PTD_BOOL }, { "target", PTD_TARGET },
    { "promote", PTD_PROMOTE }, { "like", PTD_LIKE }, { "unknown", PTD_UNKNOWN }, { "float16", PTD_CONCRETE }, { "bfloat16", PTD_CONCRETE },
    { "float32", PTD_CONCRETE }, { "float64", PTD_CONCRETE },
};
static const word values_words[] = {
    { "unknown", PTV_UNKNOWN }, { "fill", PTV_FILL }, { "zeros", PTV_ZEROS }, { "ones", PTV_ONES },
    { "literal", PTV_LITERAL }, { "same", PTV_SAME }, { "join", PTV_JOIN }, { "where", PTV_WHERE },
    { "cat", PTV_CAT }, { "arange", PTV_ARANGE }, { "index", PTV_INDEX }, { "finfo", PTV_FINFO },
    { "iinfo", PTV_IINFO }, { "default-dtype", PTV_DEFAULT_DTYPE }, { "clamp", PTV_CLAMP },
    { "bool", PTV_BOOL }, { "cast", PTV_CAST },
};
static const word bits_words[] = {
    { "-", PTB_NEVER }, { "dtype-arg", PTB_DTYPE_ARG }, { "bitcast-kw", PTB_BITCAST_KW },
};
static const word class_words[] = {
    { "int", PTC_INT }, { "bool", PTC_BOOL }, { "float", PTC_FLOAT }, { "wide", PTC_WIDE },
};
static const word module_words[] = { { "torch", 0 }, { "math", 1 }, { "numpy", 2 } };

/* POS:KW[=DEFAULT][,...] */
static bool parse_fill(kv_arena *a, char *s, pt_entry *e)
{
    if (strcmp(s, "-") == 0)
        return true;
    for (char *item = s, *next; item; item = next) {
        next = strchr(item, ',');
        if (next)
            *next++ = '\0';
        if (e->nfill == PT_MAX_FILL)
            return false;
        pt_arg *g = &e->fill[e->nfill++];
        char *colon = strchr(item, ':');
        if (!colon || colon == item)
            return false;
        *colon = '\0';
        char *end;
        long pos = strtol(item, &end, 10);
        if (*end || pos < -1 || pos > 16)
            return false;
        g->pos = (int)pos;
        char *eq = strchr(colon + 1, '=');
        if (eq) {
            *eq = '\0';
            g->def = strtod(eq + 1, &end);
            if (*end || end == eq + 1)
                return false;
            g->has_default = true;
        }
        g->kw = colon[1] ? arena_strdup(a, colon + 1) : NULL;
    }
    return true;
}

static bool parse_context(const char *s, pt_entry *e)
{
    e->int_source = strcmp(s, "int-source") == 0;
    e->cast_ctx = strcmp(s, "cast") == 0;
    e->tensor_ctx = e->int_source || strcmp(s, "tensor") == 0;
    return e->tensor_ctx || e->cast_ctx || strcmp(s, "-") == 0;
}

static bool parse_api_row(kv_arena *a, char **f, pt_entry *e)
{
    unsigned x;
    if (!PICK(f[2], returns_words, &x))
        return false;
    e->returns = (pt_returns)x;
    if (!PICK(f[3], dtype_words, &x))
        return false;
    e->dtype = (pt_dtype_rule)x;
    if (e->dtype == PTD_CONCRETE)
        e->dtype_name = arena_strdup(a, f[3]);
    if (!PICK(f[4], values_words, &x))
        return false;
    e->values = (pt_values)x;
    if (!PICK(f[7], bits_words, &x))
        return false;
    e->bits = (pt_bits)x;
    if (strcmp(f[8], "-") == 0)
        return false;
    e->api = arena_strdup(a, f[8]);
    return parse_fill(a, f[5], e) && parse_context(f[6], e);
}

static bool parse_row(kv_arena *a, char **f, pt_entry *e)
{
    unsigned x;
    if (!PICK(f[0], on_words, &e->on))
        return false;
    e->name = arena_strdup(a, f[1]);
    if (e->on == PT_MODULE) {
        if (!PICK(f[2], module_words, &x))
            return false;
        e->module = arena_strdup(a, f[2]);
        return parse_context(f[6], e);
    }
    if (e->on == PT_DTYPE) {
        if (!PICK(f[2], class_words, &x))
            return false;
        e->cls = (pt_dtype_class)x;
        e->dtype_name = strcmp(f[3], "-") == 0 ? NULL : arena_strdup(a, f[3]);
        if (e->cls == PTC_INT)
            return e->dtype_name && pt_int_bits(e, NULL);
        return (e->cls == PTC_BOOL) == (e->dtype_name == NULL);
    }
    return parse_api_row(a, f, e);
}

static size_t split_tabs(char *line, char **f, size_t max)
{
    size_t n = 0;
    for (char *p = line; n < max;) {
        f[n++] = p;
        char *tab = strchr(p, '\t');
        if (!tab)
            break;
        *tab = '\0';
        p = tab + 1;
        if (n == max && *p)
            return max + 1;  /* too many columns */
    }
    return n;
}

static int by_name(const void *x, const void *y)
{
    const pt_entry *a = x, *b = y;
    int c = strcmp(a->name, b->name);
    return c ? c : (a->on > b->on) - (a->on < b->on);
}

/* Rows are sorted by name: a row whose `on` overlaps an earlier row of the same name is dropped
 * (the first one in the file wins, so the order of the sort does not matter). */
static void drop_duplicates(pt_api *api, const char *path, diag_list *diags)
{
    size_t k = 0;
    for (size_t i = 0; i < api->n; i++) {
        bool dup = false;
        for (size_t j = k; j-- > 0 && strcmp(api->v[j].name, api->v[i].name) == 0;)
            if (api->v[j].on & api->v[i].on) {
                const pt_entry *later = api->v[j].line > api->v[i].line ? &api->v[j] : &api->v[i];
                diag_add(diags, DIAG_WARNING, path, later->line, 1, "second torch API row for %s ignored", later->name);
                if (later == &api->v[j])
                    api->v[j] = api->v[i];
                dup = true;
                break;
            }
        if (!dup)
            api->v[k++] = api->v[i];
    }
    api->n = k;
}

pt_api *pt_api_parse(const char *text, size_t len, const char *path, diag_list *diags)
{
    pt_api *api = xcalloc(1, sizeof *api);
    api->arena = arena_new();
    ARENA_VEC(pt_entry) rows = {0};
    char *buf = arena_strndup(api->arena, text, len);
    uint32_t lineno = 0;
    for (char *line = buf; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        lineno++;
        size_t l = strlen(line);
        if (l && line[l - 1] == '\r')
            line[--l] = '\0';
        if (l && line[0] != '#') {
            char *f[NCOLS];
            pt_entry e = {0};
            if (split_tabs(line, f, NCOLS) != NCOLS || !parse_row(api->arena, f, &e))
                diag_add(diags, DIAG_WARNING, path, lineno, 1,
                         "malformed torch API line ignored (want 9 tab-separated fields, see the table's header)");
            else {
                e.line = lineno;
                ARENA_PUSH(api->arena, rows, e);
            }
        }
        line = nl ? nl + 1 : NULL;
    }
    api->v = rows.v;
    api->n = rows.n;
    if (api->n)
        qsort(api->v, api->n, sizeof *api->v, by_name);
    drop_duplicates(api, path, diags);
    build_slots(api);
    return api;
}

pt_api *pt_api_load(const char *datadir, diag_list *diags)
{
    char *data;
    size_t len;
    char *path = fs_read_data_file(datadir, "grammars/python/torch.tsv", TORCH_MAX_BYTES, "the torch API table", diags,
                                   &data, &len);
    pt_api *api = pt_api_parse(data ? data : "", len, path, diags);
    free(data);
    free(path);
    return api;
}

void pt_api_free(pt_api *api)
{
    if (!api)
        return;
    arena_free(api->arena);
    free(api);
}

const pt_entry *pt_lookup(const pt_api *api, unsigned on, const char *name, size_t n)
{
    const slot *sl = name ? find_slot(api, name, n) : NULL;
    for (size_t i = sl ? sl->first : 0; sl && i < api->n && strcmp(api->v[i].name, sl->name) == 0; i++)
        if (api->v[i].on & on)
            return &api->v[i];
    return NULL;
}

pt_word pt_word_of(const pt_api *api, const char *s, size_t n)
{
    const slot *sl = find_slot(api, s, n);
    return sl ? sl->word : (pt_word){ false, false, false, false };
}

int pt_int_bits(const pt_entry *e, bool *is_unsigned)
{
    if (!e || e->on != PT_DTYPE || !e->dtype_name)
        return 0;
    const char *s = e->dtype_name;
    bool u = s[0] == 'u';
    if (strncmp(s + u, "int", 3) != 0)
        return 0;
    int bits = atoi(s + u + 3);
    if (bits != 8 && bits != 16 && bits != 32 && bits != 64)
        return 0;
    if (is_unsigned)
        *is_unsigned = u;
    return bits;
}

const pt_arg *pt_fill(const pt_entry *e, size_t i)
{
    return e && i < e->nfill ? &e->fill[i] : NULL;
}

const pt_arg *pt_fill_kw(const pt_entry *e, const char *kw)
{
    for (size_t i = 0; e && i < e->nfill; i++)
        if (e->fill[i].kw && strcmp(e->fill[i].kw, kw) == 0)
            return &e->fill[i];
    return NULL;
}
