/*
 * cfg_groups.c: one deployment per distinct set of declarations in a config file.
 *
 * A YAML merge key (`<<: *serve`) shares its source's nodes with every mapping that merges it
 * (util/ytree.c), so three GitLab jobs or compose services merging one template each declare the
 * same values at the same places: as deployments they cannot be told apart, and a finding would
 * list the same deployment three times. A group (cfg_ctx.next_group) whose declarations are all
 * equal to an earlier group's, place by place, is dropped here; a group that adds or overrides one
 * value (a service with its own `command:`) is another deployment and stays. This file does not
 * read configs: it only compares what the readers recorded.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config/cfg.h"
#include "util/xalloc.h"

typedef struct member {
    int group;
    size_t index;                 /* in out->decls */
    const deploy_decl *d;
} member;

static int cmp_str(const char *a, const char *b)
{
    if (!a || !b)
        return (a != NULL) - (b != NULL);
    return strcmp(a, b);
}

static int cmp_u32(uint32_t a, uint32_t b)
{
    return a < b ? -1 : a > b;
}

/* An order on declarations that is equality where two declare the same thing at the same place. */
static int cmp_decl(const deploy_decl *a, const deploy_decl *b)
{
    int c = cmp_u32(a->loc.line, b->loc.line);
    if (!c)
        c = cmp_u32(a->loc.col, b->loc.col);
    if (!c)
        c = cmp_u32(a->key, b->key);
    if (!c)
        c = cmp_u32(a->engine, b->engine);
    if (!c)
        c = cmp_u32(a->carrier, b->carrier);
    if (!c)
        c = cmp_u32(a->dtype, b->dtype);
    if (!c)
        c = cmp_u32(a->implicit, b->implicit);
    if (!c && a->number != b->number)
        c = a->number < b->number ? -1 : 1;
    if (!c)
        c = cmp_str(a->raw, b->raw);
    if (!c)
        c = cmp_str(a->range_name, b->range_name);
    if (!c)
        c = cmp_str(a->unresolved, b->unresolved);
    return c ? c : cmp_str(a->config_file, b->config_file);
}

static int cmp_member(const void *pa, const void *pb)
{
    const member *a = pa, *b = pb;
    if (a->group != b->group)
        return a->group < b->group ? -1 : 1;
    int c = cmp_decl(a->d, b->d);
    return c ? c : (a->index < b->index ? -1 : a->index > b->index);
}

/* One group's declarations, in cmp_decl order. */
typedef struct span {
    const member *m;
    size_t n;
    int group;
} span;

static int cmp_content(const span *a, const span *b)
{
    if (a->n != b->n)
        return a->n < b->n ? -1 : 1;
    for (size_t i = 0; i < a->n; i++) {
        int c = cmp_decl(a->m[i].d, b->m[i].d);
        if (c)
            return c;
    }
    return 0;
}

static int cmp_span(const void *pa, const void *pb)
{
    const span *a = pa, *b = pb;
    int c = cmp_content(a, b);
    return c ? c : (a->group < b->group ? -1 : a->group > b->group);
}

static int cmp_int(const void *pa, const void *pb)
{
    int a = *(const int *)pa, b = *(const int *)pb;
    return a < b ? -1 : a > b;
}

void cfg_drop_twin_groups(file_facts *out)
{
    size_t n = out->decls.n;
    if (n < 2)
        return;
    member *m = xmalloc(n * sizeof *m);
    for (size_t i = 0; i < n; i++)
        m[i] = (member){ out->decls.v[i].group, i, &out->decls.v[i] };
    qsort(m, n, sizeof *m, cmp_member);
    span *g = xmalloc(n * sizeof *g);
    size_t ng = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || m[i].group != m[i - 1].group)
            g[ng++] = (span){ &m[i], 1, m[i].group };
        else
            g[ng - 1].n++;
    qsort(g, ng, sizeof *g, cmp_span);
    int *twins = xmalloc((ng ? ng : 1) * sizeof *twins);   /* groups equal to one with a smaller id */
    size_t nt = 0;
    for (size_t i = 1; i < ng; i++)
        if (cmp_content(&g[i], &g[i - 1]) == 0)
            twins[nt++] = g[i].group;   /* sorted by group within equal content: the first stays */
    if (nt) {
        qsort(twins, nt, sizeof *twins, cmp_int);
        size_t w = 0;
        for (size_t i = 0; i < n; i++) {
            int grp = out->decls.v[i].group;
            if (!bsearch(&grp, twins, nt, sizeof *twins, cmp_int))
                out->decls.v[w++] = out->decls.v[i];
        }
        out->decls.n = w;
    }
    free(twins);
    free(g);
    free(m);
}
