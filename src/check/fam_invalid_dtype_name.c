/*
 * fam_invalid_dtype_name.c: the family `invalid-dtype-name` (KV009): a KV-cache or model dtype
 * name in a config that no engine accepts (fp8e4m3). A name the config does not spell out (a shell
 * variable, a template) is not one: its deployment stays unresolved (fam_unresolved_dtype.c).
 */
#include <stddef.h>

#include "check/family.h"

static const char *const placeholders[] = { "raw", "value", "dtype", "declared", "valid", "suggestion", NULL };

static void run(ectx *c)
{
    kv_arena *a = c->out->arena;
    for (size_t fi = 0; fi < c->nfiles; fi++) {
        const file_facts *ff = c->files[fi];
        for (size_t k = 0; k < ff->decls.n; k++) {
            const deploy_decl *dd = &ff->decls.v[k];
            if ((dd->key != DECL_KV_CACHE_DTYPE && dd->key != DECL_MODEL_DTYPE) || dd->dtype != KVN_DTYPE_INVALID)
                continue;
            /* A shell variable or template (`${{ matrix.dtype }}`) is not a name anyone wrote wrong:
             * its deployment stays unresolved (KV010), and an implicit default has no spelling. */
            if (dd->unresolved || dd->implicit)
                continue;
            vars vs = {0};
            ev_var(&vs, "raw", dd->raw ? dd->raw : "");
            ev_var(&vs, "value", dd->raw ? dd->raw : "");
            ev_var(&vs, "dtype", dd->key == DECL_KV_CACHE_DTYPE ? "KV-cache dtype" : "model dtype");
            const char *engine = engine_name(dd->engine);
            ev_var(&vs, "declared", arena_printf(a, "%s%s%s", engine ? engine : "", engine ? " " : "",
                                                  carrier_name(dd->carrier)));
            ev_var(&vs, "valid", kvn_dtype_valid_names());
            char near[64];
            kvn_dtype_nearest(dd->raw, near, sizeof near);
            /* "did you mean 'fp8_e4m3'? " for a near miss, nothing otherwise */
            ev_var(&vs, "suggestion", *near ? arena_printf(a, "did you mean '%s'? ", near) : "");
            draft f = { .loc = dd->loc, .value = dd->raw };
            f.key = ev_subject(a, &dd->loc, &dd->loc, NULL);
            ev_emit(c, &f, &vs);
        }
    }
}

/* vLLM on the command line given the example's name (fp8e4m3 unless it says). */
static void example(const rule *r, file_facts *f, deployment *d)
{
    (void)d;
    const char *raw = r->example.value ? r->example.value : "fp8e4m3";
    deploy_decl dd = { .key = DECL_KV_CACHE_DTYPE, .engine = ENGINE_VLLM, .dtype = kvn_dtype_parse(raw, false),
                      .raw = raw, .carrier = CARRIER_CLI, .loc = ex_loc() };
    ARENA_PUSH(f->arena, f->decls, dd);
}

const family_def family_invalid_dtype_name = {
    .name = "invalid-dtype-name",
    .placeholders = placeholders,
    .evaluate = run,
    .example = example,
};
