/*
 * git.c: see git.h. `git` runs through proc_run (util/process.h): no shell, so no quoting.
 */
#include "cli/git.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/process.h"
#include "util/xalloc.h"

int git_run(const char *dir, const char *const *argv, strbuf *out, strbuf *err)
{
    return proc_run(dir, argv, out, err);
}

static void chomp(strbuf *sb)
{
    while (sb->len && (sb->buf[sb->len - 1] == '\n' || sb->buf[sb->len - 1] == '\r'))
        sb->buf[--sb->len] = '\0';
}

char *git_toplevel(const char *dir)
{
    static const char *const argv[] = { "git", "rev-parse", "--show-toplevel", NULL };
    strbuf out = STRBUF_INIT;
    int st = git_run(dir, argv, &out, NULL);
    chomp(&out);
    if (st != 0 || out.len == 0) {
        sb_release(&out);
        return NULL;
    }
    return sb_detach(&out);
}

char *git_top_of(const char *path)
{
    struct stat st;
    char *dir;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        dir = xstrdup(path);
    } else {
        const char *slash = strrchr(path, '/');
        dir = slash ? xstrndup(path, slash == path ? 1 : (size_t)(slash - path)) : xstrdup(".");
    }
    char *top = git_toplevel(dir);
    free(dir);
    if (!top)
        return NULL;
    char *real = realpath(top, NULL);
    if (!real)
        return top;
    free(top);
    return real;
}

/* ---- diff ---- */

/* A path as git prints it: plain, or C-quoted ("a\tb") when it holds special bytes. */
static char *unquote_path(const char *s, size_t n)
{
    if (n < 2 || s[0] != '"' || s[n - 1] != '"')
        return xstrndup(s, n);
    strbuf sb = STRBUF_INIT;
    for (size_t i = 1; i + 1 < n; i++) {
        char c = s[i];
        if (c != '\\' || i + 2 >= n) {
            sb_addc(&sb, c);
            continue;
        }
        c = s[++i];
        if (c >= '0' && c <= '7' && i + 2 < n - 1) {
            int v = (c - '0') * 64 + (s[i + 1] - '0') * 8 + (s[i + 2] - '0');
            sb_addc(&sb, (char)v);
            i += 2;
        } else {
            sb_addc(&sb, c == 'n' ? '\n' : c == 't' ? '\t' : c);
        }
    }
    return sb_detach(&sb);
}

static git_file_diff *add_file(git_diff *d, char *path)
{
    d->files = xgrow(d->files, &d->cap, d->n + 1, sizeof *d->files);
    git_file_diff *f = &d->files[d->n++];
    memset(f, 0, sizeof *f);
    f->path = path;
    return f;
}

/* "@@ -a[,b] +c[,d] @@": the new side's first line and count. */
static bool parse_hunk(const char *line, unsigned *first, unsigned *count)
{
    const char *plus = strstr(line, " +");
    if (!plus)
        return false;
    char *end;
    unsigned long c = strtoul(plus + 2, &end, 10);
    unsigned long k = 1;
    if (*end == ',')
        k = strtoul(end + 1, &end, 10);
    if (*end != ' ')
        return false;
    *first = (unsigned)c;
    *count = (unsigned)k;
    return true;
}

bool git_diff_parse(const char *text, git_diff *d)
{
    git_file_diff *cur = NULL;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (len > 6 && !strncmp(p, "+++ b/", 6)) {
            cur = add_file(d, unquote_path(p + 6, len - 6));
        } else if (len > 7 && !strncmp(p, "+++ \"b/", 7)) {
            char *q = unquote_path(p + 4, len - 4);     /* "b/..." quoted as a whole */
            memmove(q, q + 2, strlen(q + 2) + 1);
            cur = add_file(d, q);
        } else if (len >= 4 && !strncmp(p, "+++ ", 4)) {
            cur = NULL;                                 /* +++ /dev/null: a deleted file */
        } else if (len > 3 && !strncmp(p, "@@ ", 3) && cur) {
            char *hdr = xstrndup(p, len);
            unsigned first, count;
            bool ok = parse_hunk(hdr, &first, &count);
            free(hdr);
            if (!ok)
                return false;
            if (count > 0) {
                cur->hunks = xgrow(cur->hunks, &cur->cap, cur->n + 1, sizeof *cur->hunks);
                cur->hunks[cur->n++] = (git_hunk){ first, first + count - 1 };
            }
        }
        p += len + (nl ? 1 : 0);
    }
    return true;
}

static int cmp_file(const void *a, const void *b)
{
    return strcmp(((const git_file_diff *)a)->path, ((const git_file_diff *)b)->path);
}

bool git_diff_since(const char *top, const char *ref, git_diff *d, strbuf *why)
{
    strbuf spec = STRBUF_INIT, out = STRBUF_INIT, err = STRBUF_INIT;
    sb_addf(&spec, "%s^{commit}", ref);
    const char *verify[] = { "git", "rev-parse", "--verify", "--quiet", sb_str(&spec), NULL };
    bool ok = false;
    int st = git_run(top, verify, &out, &err);
    if (st < 0) {
        sb_adds(why, "cannot run git (is it installed and on PATH?)");
        goto done;
    }
    if (st != 0) {
        sb_addf(why, "'%s' is not a commit in this repository; in a shallow CI clone fetch it first "
                     "(git fetch --depth=50 origin BRANCH, or actions/checkout with fetch-depth: 0)", ref);
        goto done;
    }
    sb_reset(&out);
    sb_reset(&err);
    const char *mb[] = { "git", "merge-base", ref, "HEAD", NULL };
    if (git_run(top, mb, &out, &err) != 0) {
        sb_addf(why, "no merge base of '%s' and HEAD (a shallow clone cuts the history: fetch more of it, "
                     "e.g. git fetch --deepen=100, or actions/checkout with fetch-depth: 0)", ref);
        goto done;
    }
    chomp(&out);
    char *base = sb_detach(&out);
    sb_reset(&err);
    const char *diff[] = { "git", "-c", "core.quotePath=false", "diff", "-U0", "--no-color", "--no-ext-diff",
                           "--src-prefix=a/", "--dst-prefix=b/", base, "--", NULL };
    st = git_run(top, diff, &out, &err);
    free(base);
    if (st != 0) {
        chomp(&err);
        sb_addf(why, "git diff failed: %s", sb_str(&err));
        goto done;
    }
    if (!git_diff_parse(sb_str(&out), d)) {
        sb_adds(why, "cannot read the output of git diff -U0");
        goto done;
    }
    if (d->n)
        qsort(d->files, d->n, sizeof *d->files, cmp_file);
    ok = true;
done:
    sb_release(&spec);
    sb_release(&out);
    sb_release(&err);
    return ok;
}

const git_file_diff *git_diff_file(const git_diff *d, const char *path)
{
    size_t lo = 0, hi = d->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(d->files[mid].path, path);
        if (c == 0)
            return &d->files[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

bool git_diff_line_changed(const git_file_diff *f, unsigned line)
{
    for (size_t i = 0; f && i < f->n; i++)
        if (line >= f->hunks[i].first && line <= f->hunks[i].last)
            return true;
    return false;
}

void git_diff_free(git_diff *d)
{
    for (size_t i = 0; i < d->n; i++) {
        free(d->files[i].path);
        free(d->files[i].hunks);
    }
    free(d->files);
    memset(d, 0, sizeof *d);
}
