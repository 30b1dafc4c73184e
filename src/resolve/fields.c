/*
 * fields.c: checkpoint config fields under a deployment: `config.attention_multiplier` in code is
 * the number its checkpoint's config.json holds (a checkpoint_field declaration, or one of the
 * id ranges a checkpoint declares), absent when that config.json has no such numeric field, and
 * unknown when the deployment runs no known checkpoint (none in the tree, several and none named by
 * --model-config). Also: which fields the scanned code reads, and how `facts` shows them.
 * It does not evaluate expressions (facts/expr.c) nor judge values (check/).
 */
#include <stdlib.h>
#include <string.h>

#include "resolve/deploy.h"

kv_field_lookup deployment_field(const deployment *d, const char *name, double *value, const deploy_decl **from)
{
    if (!d || !d->ckpt_dir || !name)
        return KV_FIELD_UNKNOWN;
    for (size_t i = 0; i < d->nckpt_fields; i++) {
        const deploy_decl *x = d->ckpt_fields[i];
        if (x->range_name && !strcmp(x->range_name, name)) {
            *value = x->number;
            if (from)
                *from = x;
            return KV_FIELD_FOUND;
        }
    }
    return KV_FIELD_ABSENT;
}

kv_field_lookup deployment_field_fn(const void *ctx, const char *name, double *value)
{
    return deployment_field(ctx, name, value, NULL);
}

enum { MAX_READ_FIELDS = 256 };

static size_t add_fields(const kv_value *v, const char **names, size_t n)
{
    return v->expr ? kv_expr_fields(v->expr, names, n, MAX_READ_FIELDS) : n;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

const char *const *read_checkpoint_fields(kv_arena *a, file_facts *const *files, size_t nfiles, size_t *n)
{
    const char *names[MAX_READ_FIELDS];
    size_t k = 0;
    for (size_t f = 0; f < nfiles; f++) {
        const file_facts *ff = files[f];
        for (size_t i = 0; i < ff->stores.n; i++)
            for (size_t j = 0; j < ff->stores.v[i].nvalues; j++)
                k = add_fields(&ff->stores.v[i].values[j], names, k);
        for (size_t i = 0; i < ff->constructions.n; i++)
            k = add_fields(&ff->constructions.v[i].value, names, k);
    }
    *n = k;
    if (!k)
        return NULL;
    const char **out = arena_alloc(a, k * sizeof *out);
    memcpy(out, names, k * sizeof *out);
    qsort(out, k, sizeof *out, by_name);
    return out;
}
