/*
 * fam_unused_suppression.c: the family `unused-suppression` (KV011, with --warn-unused-ignores):
 * a `kvlint: ignore[...]` comment that suppressed no finding. It runs after every other rule, once
 * the driver has matched findings to comments (ectx.used). Parsing the comments is the front ends'
 * (frontend/suppress.c).
 */
#include <stddef.h>

#include "check/family.h"

static const char *const placeholders[] = { "ids", "reason", NULL };

static void run(ectx *c)
{
    kv_arena *a = c->out->arena;
    for (size_t fi = 0; fi < c->nfiles; fi++) {
        const file_facts *ff = c->files[fi];
        for (size_t k = 0; k < ff->suppressions.n; k++) {
            if (c->used[fi][k])
                continue;
            const suppression *s = &ff->suppressions.v[k];
            strbuf sb = STRBUF_INIT;
            for (size_t i = 0; s->ids && s->ids[i]; i++)
                sb_addf(&sb, "%s%s", i ? "," : "", s->ids[i]);
            vars vs = {0};
            ev_var(&vs, "ids", arena_strdup(a, s->ids ? sb_str(&sb) : "*"));
            ev_var(&vs, "reason", s->reason ? s->reason : "");
            sb_release(&sb);
            draft f = { .loc = kv_loc_make(ff->path, s->line, s->col, 0, 0) };
            f.key = ev_subject(a, &f.loc, &f.loc, NULL);
            ev_emit(c, &f, &vs);
        }
    }
}

/* A comment on the example's line that names KV001, which finds nothing there. */
static void example(const rule *r, file_facts *f, deployment *d)
{
    static const char *const ids[] = { "KV001", NULL };
    (void)r, (void)d;
    suppression sp = { .line = 2, .col = 20, .ids = ids, .reason = "mask is never stored" };
    ARENA_PUSH(f->arena, f->suppressions, sp);
}

const family_def family_unused_suppression = {
    .name = "unused-suppression",
    .flags = FAMILY_AFTER_SUPPRESSIONS,
    .placeholders = placeholders,
    .evaluate = run,
    .example = example,
};
