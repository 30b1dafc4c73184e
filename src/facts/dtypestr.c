/*
 * dtypestr.c: reading grammars/dtype_strings.tsv (its header says what each row means) and the
 * one question asked of it, where a test of a dtype's spelling can come out true and false.
 */
#include "facts/dtypestr.h"

#include <stdlib.h>
#include <string.h>

#include "util/fsutil.h"
#include "util/tsv.h"
#include "util/xalloc.h"

enum { DSTR_MAX_BYTES = 1 << 20, DSTR_FIELDS = 3 };

typedef struct dstr_row {
    dref_kind kind;
    const char *spelling;
    kvn_dtype dtype;
} dstr_row;

struct dtype_strings {
    kv_arena *arena;
    ARENA_VEC(dstr_row) rows;
};

static bool read_row(dtype_strings *t, char **f, size_t nf, const char **why)
{
    dref_kind kind = !strcmp(f[0], "kv") ? DREF_KV : DREF_NONE;
    kvn_dtype d = nf == DSTR_FIELDS ? kvn_dtype_parse(f[2], false) : KVN_DTYPE_INVALID;
    if (nf != DSTR_FIELDS)
        *why = "expected 3 tab-separated columns: kind, spelling, dtype";
    else if (kind == DREF_NONE)
        *why = "kind is kv (the only one)";
    else if (!*f[1])
        *why = "the spelling is empty";
    else if (!strcmp(f[1], "auto"))
        *why = "auto is no row: the string a deployment declaring auto gives code (dtypestr.h)";
    else if (d == KVN_DTYPE_INVALID || !dset_of(d))
        *why = "the dtype is none kvlint knows (kvlint dtypes)";
    if (*why)
        return false;
    dstr_row r = { kind, f[1], d };
    ARENA_PUSH(t->arena, t->rows, r);
    return true;
}

dtype_strings *dtype_strings_read(const char *path, const char *data, size_t len, diag_list *diags)
{
    dtype_strings *t = xcalloc(1, sizeof *t);
    t->arena = arena_new();
    tsv_reader rd;
    tsv_begin(&rd, arena_strndup(t->arena, data, len));
    char *f[DSTR_FIELDS + 1];
    for (size_t nf; (nf = tsv_next(&rd, f, DSTR_FIELDS)) > 0;) {
        const char *why = NULL;
        if (!read_row(t, f, nf, &why))
            diag_add(diags, DIAG_ERROR, path, rd.line, 1, "dtype strings: %s (row ignored)", why);
    }
    return t;
}

dtype_strings *dtype_strings_load(const char *datadir, diag_list *diags)
{
    char *data;
    size_t len;
    char *path = fs_read_data_file(datadir, "grammars/dtype_strings.tsv", DSTR_MAX_BYTES, "the dtype strings", diags,
                                   &data, &len);
    dtype_strings *t = dtype_strings_read(path, data ? data : "", len, diags);
    free(data);
    free(path);
    return t;
}

void dtype_strings_free(dtype_strings *t)
{
    if (!t)
        return;
    arena_free(t->arena);
    free(t);
}

static bool passes(const char *s, dstr_test test, const char *w)
{
    size_t n = strlen(s), m = strlen(w);
    switch (test) {
    case DSTR_EQUALS: return !strcmp(s, w);
    case DSTR_PREFIX: return !strncmp(s, w, m);
    case DSTR_SUFFIX: return m <= n && !strcmp(s + n - m, w);
    case DSTR_CONTAINS: return strstr(s, w) != NULL;
    }
    return false;
}

bool dtype_strings_split(const dtype_strings *t, dref_kind kind, dstr_test test, const char *const *words,
                         size_t nwords, kv_dtype_set *yes, kv_dtype_set *no, bool *auto_passes)
{
    *yes = *no = 0;
    *auto_passes = false;
    for (size_t k = 0; k < nwords; k++)
        *auto_passes = *auto_passes || passes("auto", test, words[k]);
    kv_dtype_set spelled = 0;
    bool any = *auto_passes;
    for (size_t i = 0; t && i < t->rows.n; i++) {
        const dstr_row *r = &t->rows.v[i];
        if (r->kind != kind)
            continue;
        bool pass = false;
        for (size_t k = 0; k < nwords && !pass; k++)
            pass = passes(r->spelling, test, words[k]);
        spelled |= dset_of(r->dtype);
        *(pass ? yes : no) |= dset_of(r->dtype);
        any = any || pass;
    }
    kv_dtype_set unspelled = dset_all() & ~spelled;
    *yes |= unspelled;
    *no |= unspelled;
    return t && any;
}
