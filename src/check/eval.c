/*
 * eval.c: the driver of rule evaluation. Runs each enabled rule's condition family (fam_*.c; a
 * family walks the facts it cares about, asks the numerics what the value becomes under each
 * deployment and emits findings for the outcome classes its rule selects), rules with `unless`
 * after the ones they defer to; then matches findings against the front ends' ignore comments,
 * reports stale ones, de-duplicates and sorts.
 *
 * The driver knows no family: it calls each rule's family_def (family.h, registered in
 * families.def). A family never decides severity or wording: those come from the rule file.
 * Not here: conversion paths (paths.c), loading rules (rules.c), printing (report/).
 */
#include "check/family.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"
#include "util/xalloc.h"

/* ---- suppressions ---- */

typedef struct file_ix {
    const char *path;
    size_t fi;
} file_ix;

static int file_ix_cmp(const void *a, const void *b)
{
    return strcmp(((const file_ix *)a)->path, ((const file_ix *)b)->path);
}

static bool suppression_covers(const suppression *s, const rule *r)
{
    if (!s->ids)
        return true;
    for (size_t i = 0; s->ids[i]; i++)
        if (strcasecmp(s->ids[i], r->id) == 0 || strcmp(s->ids[i], r->name) == 0)
            return true;
    return false;
}

/* Mark the suppression on loc's line that covers r as used; true if there is one. */
static bool suppress_at(file_facts *const *files, const file_ix *ix, size_t nix, bool **used,
                        const kv_loc *loc, const rule *r)
{
    if (!loc->path)
        return false;
    file_ix key = { loc->path, 0 };
    const file_ix *hit = bsearch(&key, ix, nix, sizeof *ix, file_ix_cmp);
    if (!hit)
        return false;
    const file_facts *ff = files[hit->fi];
    bool found = false;
    for (size_t k = 0; k < ff->suppressions.n; k++)
        if (ff->suppressions.v[k].line == loc->line && suppression_covers(&ff->suppressions.v[k], r)) {
            used[hit->fi][k] = true;
            found = true;
        }
    return found;
}

static void apply_suppressions(ectx *c, bool **used, const file_ix *ix, size_t nix)
{
    finding_list *l = c->out;
    for (size_t i = 0; i < l->v.n; i++) {
        finding *f = &l->v.v[i];
        bool s = suppress_at(c->files, ix, nix, used, &f->loc, f->rule);
        for (size_t k = 0; k < f->nrelated; k++)
            s = suppress_at(c->files, ix, nix, used, &f->related[k].loc, f->rule) || s;
        f->suppressed = s;
    }
}

/* ---- driver ---- */

static bool in_list(const char *const *list, const rule *r)
{
    for (size_t i = 0; list && list[i]; i++)
        if (strcasecmp(list[i], r->id) == 0 || strcmp(list[i], r->name) == 0)
            return true;
    return false;
}

bool rule_enabled(const rule *r, const eval_options *opt)
{
    if (in_list(opt->ignore, r))
        return false;
    if (r->family->flags & FAMILY_AFTER_SUPPRESSIONS)
        return opt->warn_unused_ignores;
    if (opt->select && opt->select[0])
        return in_list(opt->select, r);
    return !r->default_off;
}

int finding_cmp(const void *pa, const void *pb)
{
    const finding *a = pa, *b = pb;
    int c = strcmp(a->loc.path ? a->loc.path : "", b->loc.path ? b->loc.path : "");
    if (c) return c;
    if (a->loc.line != b->loc.line) return a->loc.line < b->loc.line ? -1 : 1;
    if (a->loc.col != b->loc.col) return a->loc.col < b->loc.col ? -1 : 1;
    if ((c = strcmp(a->rule->id, b->rule->id))) return c;
    if ((c = strcmp(a->message, b->message))) return c;
    size_t ra = a->nrelated ? a->related[0].loc.line : 0, rb = b->nrelated ? b->related[0].loc.line : 0;
    return ra < rb ? -1 : ra > rb;
}

/* Same rule, location, message and fact: the same finding reached twice. */
static bool same_finding(const finding *a, const finding *b)
{
    if (finding_cmp(a, b) != 0)
        return false;
    if (a->nrelated != b->nrelated)
        return false;
    for (size_t i = 0; i < a->nrelated; i++)
        if (a->related[i].loc.line != b->related[i].loc.line || a->related[i].loc.col != b->related[i].loc.col ||
            strcmp(a->related[i].loc.path, b->related[i].loc.path) != 0)
            return false;
    return true;
}

/* Same rule, location and message: one value reaching several sinks (a mask passed to two layers,
 * or stored twice) reads as one finding whose notes name every sink. */
static bool same_subject(const finding *a, const finding *b)
{
    return strcmp(a->loc.path ? a->loc.path : "", b->loc.path ? b->loc.path : "") == 0 &&
           a->loc.line == b->loc.line && a->loc.col == b->loc.col && a->rule == b->rule &&
           strcmp(a->message, b->message) == 0;
}

static bool has_related(const finding *f, const related_loc *r)
{
    for (size_t i = 0; i < f->nrelated; i++)
        if (f->related[i].loc.line == r->loc.line && f->related[i].loc.col == r->loc.col &&
            strcmp(f->related[i].loc.path, r->loc.path) == 0 && strcmp(f->related[i].message, r->message) == 0)
            return true;
    return false;
}

enum { MAX_MERGED_RELATED = 8 };

/* Add b's related locations that a lacks (at most MAX_MERGED_RELATED in all). They go after a's
 * first note, which every rule makes the fact's own location (the sink, the construction), so
 * the sinks are listed together before the notes on dtypes and ranges. */
static void merge_related(kv_arena *ar, finding *a, const finding *b)
{
    related_loc *v = arena_alloc(ar, MAX_MERGED_RELATED * sizeof *v);
    size_t n = a->nrelated < MAX_MERGED_RELATED ? a->nrelated : MAX_MERGED_RELATED;
    memcpy(v, a->related, n * sizeof *v);
    a->related = v;
    a->nrelated = n;
    size_t at = n ? 1 : 0;
    for (size_t i = 0; i < b->nrelated && n < MAX_MERGED_RELATED; i++) {
        if (has_related(a, &b->related[i]))
            continue;
        memmove(v + at + 1, v + at, (n - at) * sizeof *v);
        v[at++] = b->related[i];
        a->nrelated = ++n;
    }
}

/* a's deployments plus those of b it lacks, in deployment-set order. */
static void merge_deployments(kv_arena *ar, finding *a, const finding *b)
{
    size_t n = a->ndeployments + b->ndeployments;
    if (!b->ndeployments)
        return;
    finding_deployment *v = arena_alloc(ar, n * sizeof *v);
    size_t i = 0, j = 0, k = 0;
    while (i < a->ndeployments || j < b->ndeployments) {
        const finding_deployment *x = i < a->ndeployments ? &a->deployments[i] : NULL;
        const finding_deployment *y = j < b->ndeployments ? &b->deployments[j] : NULL;
        if (x && y && x->order == y->order) {
            v[k++] = *x, i++, j++;
        } else if (x && (!y || x->order < y->order)) {
            v[k++] = *x, i++;
        } else {
            v[k++] = *y, j++;
        }
    }
    a->deployments = v;
    a->ndeployments = k;
}

/* Same rule at the same primary location (and both suppressed or not): one site. */
static bool same_site(const finding *a, const finding *b)
{
    return a->rule == b->rule && a->loc.line == b->loc.line && a->loc.col == b->loc.col &&
           strcmp(a->loc.path ? a->loc.path : "", b->loc.path ? b->loc.path : "") == 0 &&
           a->suppressed == b->suppressed;
}

/* Whether deployment d is declared in a file named after the code file of f (test_moondream3.py
 * for models/moondream3.py): the script that runs that code, told first. Presentation only: it never
 * decides whether d applies. */
static bool named_after(const finding *f, const finding_deployment *d)
{
    const char *code = f->loc.path ? strrchr(f->loc.path, '/') : NULL;
    code = code ? code + 1 : f->loc.path;
    const char *decl = d->loc.path ? strrchr(d->loc.path, '/') : NULL;
    decl = decl ? decl + 1 : d->loc.path;
    if (!code || !decl)
        return false;
    size_t n = strcspn(code, ".");
    if (n < 4)
        return false;  /* too short to name anything (a.py, ops.py) */
    for (const char *p = decl; *p; p++)
        if (strncmp(p, code, n) == 0)
            return true;
    return false;
}

/* The deployment f's message should speak of: one named after f's file, else the first. */
static size_t lead_rank(const finding *f)
{
    for (size_t i = 0; i < f->ndeployments; i++)
        if (named_after(f, &f->deployments[i]))
            return f->deployments[i].order;
    return f->ndeployments ? SIZE_MAX / 2 + f->deployments[0].order : 0;
}

/* A site reported under several deployments is one finding: the message, value and notes of one
 * deployment (a finding that depends on none first, then a deployment declared in a script named
 * after the code's file, then the first in deployment-set order), with every deployment listed, that
 * one first. l is sorted, so a site's findings are adjacent; the order holds. */
static void merge_sites(kv_arena *ar, finding_list *l)
{
    size_t w = 0;
    for (size_t i = 0; i < l->v.n;) {
        size_t j = i + 1, p = i;
        while (j < l->v.n && same_site(&l->v.v[i], &l->v.v[j]))
            j++;
        for (size_t k = i + 1; k < j; k++)
            if (lead_rank(&l->v.v[k]) < lead_rank(&l->v.v[p]))
                p = k;
        finding x = l->v.v[p];
        const finding_deployment *lead = x.ndeployments ? &x.deployments[0] : NULL;
        for (size_t d = 0; d < x.ndeployments; d++)
            if (named_after(&x, &x.deployments[d])) {
                lead = &x.deployments[d];
                break;
            }
        finding_deployment first = lead ? *lead : (finding_deployment){0};
        for (size_t k = i; k < j; k++)
            if (k != p)
                merge_deployments(ar, &x, &l->v.v[k]);
        if (lead) { /* the deployment the message speaks of goes first, the others in set order */
            finding_deployment *v = arena_alloc(ar, x.ndeployments * sizeof *v);
            size_t n = 0;
            v[n++] = first;
            for (size_t d = 0; d < x.ndeployments; d++)
                if (x.deployments[d].order != first.order)
                    v[n++] = x.deployments[d];
            x.deployments = v;
            x.ndeployments = n;
            x.deployment = first.name;
        }
        l->v.v[w++] = x;
        i = j;
    }
    l->v.n = w;
}

finding_list *evaluate(const rule_set *rules, file_facts *const *files, size_t nfiles,
                       const deployment_set *deps, const eval_options *opt)
{
    finding_list *l = xcalloc(1, sizeof *l);
    l->arena = arena_new();
    static const deployment_set none = {0};
    ectx c = { .opt = opt, .files = files, .nfiles = nfiles, .deps = deps ? deps : &none, .out = l };
    /* Rules that defer to others (`unless`) run after them. */
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < rules->rules.n; i++) {
            c.r = &rules->rules.v[i];
            if (rule_enabled(c.r, opt) && !(c.r->family->flags & FAMILY_AFTER_SUPPRESSIONS) &&
                (c.r->unless != NULL) == (pass == 1))
                c.r->family->evaluate(&c);
        }

    file_ix *ix = xcalloc(nfiles ? nfiles : 1, sizeof *ix);
    bool **used = xcalloc(nfiles ? nfiles : 1, sizeof *used);
    for (size_t fi = 0; fi < nfiles; fi++) {
        ix[fi] = (file_ix){ files[fi]->path, fi };
        used[fi] = arena_zalloc(l->arena, files[fi]->suppressions.n + 1);
    }
    qsort(ix, nfiles, sizeof *ix, file_ix_cmp);
    apply_suppressions(&c, used, ix, nfiles);
    c.used = used;
    for (size_t i = 0; i < rules->rules.n; i++) {
        c.r = &rules->rules.v[i];
        if ((c.r->family->flags & FAMILY_AFTER_SUPPRESSIONS) && rule_enabled(c.r, opt))
            c.r->family->evaluate(&c);
    }
    free(ix);
    free(used);
    free(c.seen);

    if (l->v.n)
        qsort(l->v.v, l->v.n, sizeof *l->v.v, finding_cmp);
    size_t w = 0;
    for (size_t i = 0; i < l->v.n; i++) {
        if (opt->keep && !opt->keep(opt->keep_arg, &l->v.v[i]))
            continue;
        if (w && same_finding(&l->v.v[w - 1], &l->v.v[i])) {
            merge_deployments(l->arena, &l->v.v[w - 1], &l->v.v[i]);
            continue;
        }
        if (l->v.v[i].suppressed && !opt->keep_suppressed) {
            l->suppressed++;
            continue;
        }
        if (w && same_subject(&l->v.v[w - 1], &l->v.v[i]) &&
            l->v.v[w - 1].suppressed == l->v.v[i].suppressed) {
            merge_related(l->arena, &l->v.v[w - 1], &l->v.v[i]);
            merge_deployments(l->arena, &l->v.v[w - 1], &l->v.v[i]);
            continue;
        }
        l->v.v[w++] = l->v.v[i];
    }
    l->v.n = w;
    merge_sites(l->arena, l);
    return l;
}

void finding_list_free(finding_list *l)
{
    if (!l)
        return;
    arena_free(l->arena);
    free(l);
}

