/*
 * idvocab.c: reading grammars/ids.tsv (its header says what each row means) and the two questions
 * asked of it: which id class an identifier's ids belong to, and what a declared range name means.
 */
#include "facts/idvocab.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/fsutil.h"
#include "util/tsv.h"
#include "util/xalloc.h"

enum { IDS_MAX_BYTES = 1 << 20, IDS_MAX_FIELDS = 4 };

/* The id class called name, added (in file order) if it is new. */
static id_class *class_named(id_vocab *v, const char *name)
{
    for (size_t i = 0; i < v->classes.n; i++)
        if (strcmp(v->classes.v[i].name, name) == 0)
            return &v->classes.v[i];
    id_class f = { .name = name };
    ARENA_PUSH(v->arena, v->classes, f);
    return &v->classes.v[v->classes.n - 1];
}

/* One row (fields already split); false when it is malformed. */
static bool read_row(id_vocab *v, char **f, size_t nf, const char **why)
{
    static const char *const kinds[] = { "suffix", "word", "name", "bound", "id", "integer", NULL };
    size_t kind = 0;
    while (kinds[kind] && strcmp(kinds[kind], f[0]) != 0)
        kind++;
    bool is_bound = kind == 3;
    if (!kinds[kind])
        *why = "kind is suffix, word, name, bound, id or integer";
    else if (nf < 3 || nf > IDS_MAX_FIELDS)
        *why = "expected 3 or 4 tab-separated columns";
    else if (is_bound != (nf == 4))
        *why = is_bound ? "a bound row needs a fourth column: count or largest" : "only bound rows have a fourth column";
    else if (is_bound && strcmp(f[3], "count") != 0 && strcmp(f[3], "largest") != 0)
        *why = "the fourth column is count or largest";
    else if ((kind == 0 || kind == 5) != (strcmp(f[1], "-") == 0))
        *why = kind == 0 || kind == 5 ? "a suffix or integer row has no id class (-)" : "the row needs an id class";
    if (*why)
        return false;
    if (kind == 0 || kind == 5) {
        if (kind == 0)
            ARENA_PUSH(v->arena, v->suffixes, f[2]);
        else
            ARENA_PUSH(v->arena, v->integer_words, f[2]);
        return true;
    }
    id_class *idc = class_named(v, f[1]);
    if (kind == 1)
        ARENA_PUSH(v->arena, idc->words, f[2]);
    else if (kind == 2)
        ARENA_PUSH(v->arena, idc->names, f[2]);
    else if (kind == 4)
        ARENA_PUSH(v->arena, idc->id_names, f[2]);
    else {
        id_bound b = { f[2], strcmp(f[3], "count") == 0 };
        ARENA_PUSH(v->arena, idc->bounds, b);
    }
    return true;
}

id_vocab *id_vocab_read(const char *path, const char *data, size_t len, diag_list *diags)
{
    id_vocab *v = xcalloc(1, sizeof *v);
    v->arena = arena_new();
    tsv_reader rd;
    tsv_begin(&rd, arena_strndup(v->arena, data, len));
    char *f[IDS_MAX_FIELDS + 1];
    for (size_t nf; (nf = tsv_next(&rd, f, IDS_MAX_FIELDS)) > 0;) {
        const char *why = NULL;
        if (!read_row(v, f, nf, &why))
            diag_add(diags, DIAG_ERROR, path, rd.line, 1, "id vocabulary: %s (row ignored)", why);
    }
    return v;
}

id_vocab *id_vocab_load(const char *datadir, diag_list *diags)
{
    char *data;
    size_t len;
    char *path = fs_read_data_file(datadir, "grammars/ids.tsv", IDS_MAX_BYTES, "the id vocabulary", diags, &data, &len);
    id_vocab *v = id_vocab_read(path, data ? data : "", len, diags);
    free(data);
    free(path);
    return v;
}

void id_vocab_free(id_vocab *v)
{
    if (!v)
        return;
    arena_free(v->arena);
    free(v);
}

/* Whether one of name's underscore-separated segments is in segs (case-insensitively). */
static bool has_segment(const char *name, size_t n, const char *const *segs, size_t nsegs)
{
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && name[j] != '_')
            j++;
        for (size_t k = 0; k < nsegs; k++)
            if ((j == i || (segs[k][0] | 0x20) == (name[i] | 0x20)) && strlen(segs[k]) == j - i
                && strncasecmp(segs[k], name + i, j - i) == 0)
                return true;
        i = j + 1;
    }
    return false;
}

const char *id_vocab_name_class(const id_vocab *v, const char *name, size_t n)
{
    if (!v)
        return NULL;
    for (size_t i = 0; i < v->classes.n; i++)
        for (size_t k = 0; k < v->classes.v[i].names.n; k++)
            if ((n == 0 || v->classes.v[i].names.v[k][0] == name[0]) && strlen(v->classes.v[i].names.v[k]) == n
                && memcmp(v->classes.v[i].names.v[k], name, n) == 0)
                return v->classes.v[i].name;
    if (!has_segment(name, n, v->suffixes.v, v->suffixes.n))
        return NULL;
    for (size_t i = 0; i < v->classes.n; i++)
        if (has_segment(name, n, v->classes.v[i].words.v, v->classes.v[i].words.n))
            return v->classes.v[i].name;
    return NULL;
}

bool id_vocab_name_integer(const id_vocab *v, const char *name, size_t n)
{
    if (!v || n == 0)
        return false;
    if (id_vocab_name_class(v, name, n) || has_segment(name, n, v->suffixes.v, v->suffixes.n))
        return true;
    size_t last = n;
    while (last > 0 && name[last - 1] != '_')
        last--;
    for (size_t k = 0; k < v->integer_words.n; k++)
        if (strlen(v->integer_words.v[k]) == n - last && strncasecmp(v->integer_words.v[k], name + last, n - last) == 0)
            return true;
    return false;
}

const id_class *id_vocab_class(const id_vocab *v, const char *name)
{
    for (size_t i = 0; v && name && i < v->classes.n; i++)
        if (strcmp(v->classes.v[i].name, name) == 0)
            return &v->classes.v[i];
    return NULL;
}

id_range_kind id_vocab_range_kind(const id_vocab *v, const char *name)
{
    for (size_t i = 0; v && i < v->classes.n; i++) {
        const id_class *f = &v->classes.v[i];
        for (size_t k = 0; k < f->bounds.n; k++)
            if (strcmp(f->bounds.v[k].key, name) == 0)
                return (id_range_kind){ f->name, f->bounds.v[k].count, false };
    }
    for (size_t i = 0; v && i < v->classes.n; i++) {
        const id_class *f = &v->classes.v[i];
        for (size_t k = 0; k < f->id_names.n; k++)
            if (strcmp(f->id_names.v[k], name) == 0)
                return (id_range_kind){ f->name, f->bounds.n && f->bounds.v[0].count, true };
    }
    return (id_range_kind){ NULL, false, false };
}
