/*
 * cxxdata.c: the C/C++/CUDA front end's knowledge, read once before the threads start
 * (grammars/cxx/cxx.tsv, grammars/cxx/sinks.tsv through cxxsinks.c, and the `cache` patterns of
 * grammars/python/sinks.tsv so that both front ends name caches alike). Read-only afterwards. It knows no syntax.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cxx/cxxfe.h"
#include "util/fsutil.h"
#include "util/xalloc.h"

enum { TABLE_MAX_BYTES = 1 << 20, MAX_FIELDS = 9 };

/* The analysis budget per file (docs/limits.md), the Python front end's numbers: the most a real
 * kernel file needs is 0.54 steps per byte (vLLM's csrc/ and SGLang's sgl-kernel/, at most 36,595
 * steps for csrc/rocm/attention.cu: bench/cxx.results.md), at least 24 times below its budget. */
enum { CXX_BUDGET_STEPS = 100000, CXX_BUDGET_STEPS_PER_BYTE = 10 };

static size_t split_tabs(char *line, char **f)
{
    size_t n = 0;
    for (char *p = line; n < MAX_FIELDS;) {
        f[n++] = p;
        char *tab = strchr(p, '\t');
        if (!tab)
            break;
        *tab = '\0';
        p = tab + 1;
    }
    return n;
}

static bool parse_conv(cxx_state *st, char **f, size_t n, bool with_sat, cxx_conv *out)
{
    memset(out, 0, sizeof *out);
    if (n < (with_sat ? 4u : 3u))
        return false;
    out->name = arena_strdup(st->arena, f[1]);
    if (strcmp(f[2], "kv") == 0) {
        out->dt_kind = CXD_KV;
    } else if (strcmp(f[2], "fp8-arg") == 0) {
        out->dt_kind = CXD_FP8_ARG;
    } else {
        out->dtype = kvn_dtype_parse(f[2], false);
        if (out->dtype == KVN_DTYPE_INVALID)
            return false;
    }
    if (!with_sat)
        return true;
    if (strcmp(f[3], "saturating") == 0)
        out->sat = CXS_SAT;
    else if (strcmp(f[3], "non-saturating") == 0)
        out->sat = CXS_NONSAT;
    else if (strcmp(f[3], "satfinite-arg") == 0)
        out->sat = CXS_SATFINITE_ARG;
    else
        return false;
    return true;
}

typedef enum table_kind { TABLE_CXX, TABLE_PYTHON_CACHES, TABLE_SINKS } table_kind;

static bool parse_line(cxx_state *st, char *line, table_kind which)
{
    char *f[MAX_FIELDS];
    size_t n = split_tabs(line, f);
    kv_arena *a = st->arena;
    cxx_conv c;
    if (which == TABLE_SINKS) {
        cxx_sink k;
        if (!cxx_sink_parse(a, f, n, &k))
            return false;
        ARENA_PUSH(a, st->sinks, k);
        return true;
    }
    bool cache_only = which == TABLE_PYTHON_CACHES;
    if (n >= 2 && strcmp(f[0], "cache") == 0) {
        ARENA_PUSH(a, st->cache_names, arena_strdup(a, f[1]));
        return true;
    }
    if (cache_only)
        return true;
    if (n < 2)
        return false;
    if (strcmp(f[0], "type") == 0 && parse_conv(st, f, n, true, &c))
        ARENA_PUSH(a, st->types, c);
    else if (strcmp(f[0], "convert") == 0 && parse_conv(st, f, n, true, &c))
        ARENA_PUSH(a, st->converts, c);
    else if (strcmp(f[0], "bits") == 0 && parse_conv(st, f, n, false, &c))
        ARENA_PUSH(a, st->bits, c);
    else if (strcmp(f[0], "clamp") == 0 && n >= 3 && (!strcmp(f[2], "min") || !strcmp(f[2], "max"))) {
        if (f[2][1] == 'i')
            ARENA_PUSH(a, st->clamp_min, arena_strdup(a, f[1]));
        else
            ARENA_PUSH(a, st->clamp_max, arena_strdup(a, f[1]));
    } else if (strcmp(f[0], "limits") == 0)
        ARENA_PUSH(a, st->limits, arena_strdup(a, f[1]));
    else if (strcmp(f[0], "sentinel") == 0)
        ARENA_PUSH(a, st->sentinels, arena_strdup(a, f[1]));
    else if (strcmp(f[0], "negate") == 0)
        ARENA_PUSH(a, st->negates, arena_strdup(a, f[1]));
    else if (strcmp(f[0], "member") == 0 && n >= 3) {
        static const char *const kinds[] = { "infinity", "lowest", "max" };
        size_t k = 0;
        while (k < 3 && strcmp(f[2], kinds[k]) != 0)
            k++;
        if (k == 3)
            return false;
        cxx_member m = { arena_strdup(a, f[1]), (cxx_limit_kind)k };
        ARENA_PUSH(a, st->members, m);
    } else if (strcmp(f[0], "argword") == 0 && n >= 3) {
        cxx_argword w = { .word = arena_strdup(a, f[1]) };
        if (strcmp(f[2], "saturating") == 0) {
            w.sat = CXS_SAT;
        } else if (strcmp(f[2], "non-saturating") == 0) {
            w.sat = CXS_NONSAT;
        } else {
            w.is_dtype = true;
            w.dtype = kvn_dtype_parse(f[2], false);
            if (w.dtype == KVN_DTYPE_INVALID)
                return false;
        }
        ARENA_PUSH(a, st->argwords, w);
    } else if (strcmp(f[0], "pch") == 0) {
        cxx_pch_header h = { arena_strdup(a, f[1]), arena_strdup(a, n >= 3 && strcmp(f[2], "-") != 0 ? f[2] : "") };
        ARENA_PUSH(a, st->pch_headers, h);
    }
    else
        return false;
    return true;
}

static void load_table(cxx_state *st, const char *datadir, const char *rel, table_kind which, diag_list *diags)
{
    char *data;
    size_t len;
    char *path = fs_read_data_file(datadir, rel, TABLE_MAX_BYTES, "the C/C++ front end's table", diags, &data, &len);
    uint32_t lineno = 0;
    for (char *p = data, *nl; p && *p; p = nl ? nl + 1 : NULL) {
        nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        lineno++;
        size_t l = strlen(p);
        if (l && p[l - 1] == '\r')
            p[l - 1] = '\0';
        if (*p == '#' || *p == '\0')
            continue;
        if (!parse_line(st, p, which))
            diag_add(diags, DIAG_WARNING, path, lineno, 1, "malformed line ignored");
    }
    free(data);
    free(path);
}

cxx_state *cxx_state_load(const char *datadir, diag_list *diags)
{
    cxx_state *st = xcalloc(1, sizeof *st);
    st->arena = arena_new();
    char *stubs = fs_join(datadir ? datadir : ".", "grammars/cxx/stubs");
    st->stubs = arena_strdup(st->arena, stubs);
    load_table(st, datadir, "grammars/cxx/cxx.tsv", TABLE_CXX, diags);
    load_table(st, datadir, "grammars/python/sinks.tsv", TABLE_PYTHON_CACHES, diags);
    load_table(st, datadir, "grammars/cxx/sinks.tsv", TABLE_SINKS, diags);
    st->ids = id_vocab_load(datadir ? datadir : ".", diags);
    st->budget_steps = CXX_BUDGET_STEPS;
    st->budget_steps_per_byte = CXX_BUDGET_STEPS_PER_BYTE;
    st->budget_bytes = (size_t)1 << 30;
    st->pch = cxx_pch_new();
    free(stubs);
    return st;
}

void cxx_state_free(cxx_state *st)
{
    if (!st)
        return;
    cxx_pch_free(st->pch);
    id_vocab_free(st->ids);
    arena_free(st->arena);
    free(st);
}

const cxx_conv *cxx_find(const cxx_conv *v, size_t n, const char *name)
{
    for (size_t i = 0; name && i < n; i++)
        if (strcmp(v[i].name, name) == 0)
            return &v[i];
    return NULL;
}

/* `*x*` contains, `x*` starts with, `*x` ends with, else exact (as grammars/python/sinks.tsv). */
static bool pattern_match(const char *pat, const char *s, size_t n)
{
    size_t pl = strlen(pat);
    bool lead = pl && pat[0] == '*', trail = pl > 1 && pat[pl - 1] == '*';
    const char *core = pat + lead;
    size_t cl = pl - lead - trail;
    if (cl > n)
        return false;
    if (lead && trail) {
        for (size_t i = 0; i + cl <= n; i++)
            if (memcmp(s + i, core, cl) == 0)
                return true;
        return false;
    }
    if (lead)
        return memcmp(s + n - cl, core, cl) == 0;
    if (trail)
        return memcmp(s, core, cl) == 0;
    return cl == n && memcmp(s, core, cl) == 0;
}

bool cxx_is_cache_name(const cxx_state *st, const char *name, size_t n)
{
    for (size_t i = 0; i < st->cache_names.n; i++)
        if (pattern_match(st->cache_names.v[i], name, n))
            return true;
    return false;
}

const cxx_member *cxx_find_member(const cxx_state *st, const char *name)
{
    for (size_t i = 0; name && i < st->members.n; i++)
        if (strcmp(st->members.v[i].name, name) == 0)
            return &st->members.v[i];
    return NULL;
}

cxx_budget cxx_budget_for(const cxx_state *st, size_t len)
{
    size_t per = st->budget_steps_per_byte, total = st->budget_steps;
    total = per && len > (SIZE_MAX - total) / per ? SIZE_MAX : total + per * len;
    return (cxx_budget){ .left = total, .total = total, .spent = total == 0 };
}

bool cxx_charge(cxx_budget *b, size_t n)
{
    if (b->spent || b->left < n) {
        b->left = 0;
        b->spent = true;
        return false;
    }
    b->left -= n;
    return true;
}
