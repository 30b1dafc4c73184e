/* changed.c: see changed.h. */
#include "cli/changed.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

bool diff_filter_parse(const char *s, diff_filter *out)
{
    if (!strcmp(s, "added"))
        *out = DIFF_FILTER_ADDED;
    else if (!strcmp(s, "file"))
        *out = DIFF_FILTER_FILE;
    else if (!strcmp(s, "all") || !strcmp(s, "nofilter"))
        *out = DIFF_FILTER_ALL;
    else
        return false;
    return true;
}

bool changed_open(changed_lines *c, const char *start, const char *ref, diff_filter mode, strbuf *why)
{
    memset(c, 0, sizeof *c);
    c->mode = mode;
    if (!(c->top = git_top_of(start))) {
        sb_addf(why, "%s is not in a git work tree (or git is not installed)", start);
        return false;
    }
    if (!git_diff_since(c->top, ref, &c->diff, why)) {
        changed_free(c);
        return false;
    }
    return true;
}

/* path relative to the top (heap), or NULL outside the repository. */
static char *in_repo(const changed_lines *c, const char *path)
{
    char *real = path ? realpath(path, NULL) : NULL;
    if (!real)
        return NULL;
    size_t n = strlen(c->top);
    char *rel = !strncmp(real, c->top, n) && real[n] == '/' ? xstrdup(real + n + 1) : NULL;
    free(real);
    return rel;
}

static bool loc_kept(const changed_lines *c, const kv_loc *l)
{
    char *rel = in_repo(c, l->path);
    if (!rel)
        return false;
    const git_file_diff *f = git_diff_file(&c->diff, rel);
    free(rel);
    if (!f)
        return false;
    if (c->mode == DIFF_FILTER_FILE)
        return true;
    unsigned last = l->end_line > l->line ? l->end_line : l->line;
    for (unsigned line = l->line; line <= last; line++)
        if (git_diff_line_changed(f, line))
            return true;
    return false;
}

static bool kept(const changed_lines *c, const finding *f)
{
    if (c->mode == DIFF_FILTER_ALL || loc_kept(c, &f->loc))
        return true;
    if (f->has_dtype_origin && loc_kept(c, &f->dtype_origin))
        return true;
    for (size_t i = 0; i < f->nrelated; i++)
        if (loc_kept(c, &f->related[i].loc))
            return true;
    for (size_t i = 0; i < f->ndeployments; i++)   /* a site listing a changed deployment */
        if (loc_kept(c, &f->deployments[i].loc))
            return true;
    return false;
}

size_t changed_filter(const changed_lines *c, finding_list *l)
{
    size_t k = 0;
    for (size_t i = 0; i < l->v.n; i++)
        if (kept(c, &l->v.v[i]))
            l->v.v[k++] = l->v.v[i];
    size_t dropped = l->v.n - k;
    l->v.n = k;
    return dropped;
}

void changed_free(changed_lines *c)
{
    git_diff_free(&c->diff);
    free(c->top);
    memset(c, 0, sizeof *c);
}
