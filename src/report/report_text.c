/*
 * report_text.c: gcc-style findings for a terminal:
 *     path:line:col: error: message [KV001]
 *        12 |     k = torch.full((T, 1, 32), _NEG_INF, dtype=model_dtype)
 *           |                                ^~~~~~~~
 *     path:line:col: note: stored into the KV cache ...
 *     path:line:col: note: under 3 deployments: a (fp8_e4m3), b (fp8_e4m3) and c (fp8_e5m2)
 * then a one-line summary. Color only when asked (report_use_color decides: tty, NO_COLOR).
 */
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

enum { TEXT_DEPLOYMENTS_SHOWN = 4 };   /* names on the "under N deployments" line; JSON lists all */

typedef struct palette {
    const char *bold, *error, *warning, *note, *caret, *reset;
} palette;

static const palette plain = { "", "", "", "", "", "" };
static const palette ansi = { "\033[1m", "\033[1;31m", "\033[1;35m", "\033[1;36m", "\033[1;32m", "\033[0m" };

static const char *level_color(const palette *p, kv_severity s)
{
    return s == SEV_ERROR ? p->error : s == SEV_WARNING ? p->warning : p->note;
}

/* Text from the scanned files (a config's value in a message, a source line) written so that
 * it cannot break the report's lines or drive the terminal: control bytes other than a tab as
 * \n, \r or \xNN. */
static void put_text(FILE *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\n')
            fputs("\\n", out);
        else if (c == '\r')
            fputs("\\r", out);
        else if ((c < 0x20 && c != '\t') || c == 0x7f)
            fprintf(out, "\\x%02x", c);
        else
            fputc(c, out);
    }
}

static void put_message(FILE *out, const char *s)
{
    put_text(out, s, strlen(s));
}

static void print_snippet(FILE *out, source_cache *sc, const palette *p, const kv_loc *l)
{
    size_t len;
    const char *line = source_line(sc, l->path, l->line, &len);
    if (!line)
        return;
    fprintf(out, "%5u | ", l->line);
    put_text(out, line, len);
    fputc('\n', out);
    fputs("      | ", out);
    size_t col = l->col ? l->col - 1 : 0;
    for (size_t i = 0; i < col && i < len; i++)
        fputc(line[i] == '\t' ? '\t' : ' ', out);
    size_t width = l->end_line == l->line && l->end_col > l->col ? l->end_col - l->col : 1;
    fputs(p->caret, out);
    fputc('^', out);
    for (size_t i = 1; i < width; i++)
        fputc('~', out);
    fprintf(out, "%s\n", p->reset);
}

static void print_finding(FILE *out, source_cache *sc, const palette *p, const finding *f)
{
    fprintf(out, "%s%s:%u:%u:%s %s%s:%s ", p->bold, report_path(f->loc.path), f->loc.line, f->loc.col,
            p->reset, level_color(p, f->severity), severity_name(f->severity), p->reset);
    put_message(out, f->message);
    fprintf(out, " [%s]\n", f->rule->id);
    print_snippet(out, sc, p, &f->loc);
    for (size_t i = 0; i < f->nrelated; i++) {
        const related_loc *r = &f->related[i];
        fprintf(out, "%s%s:%u:%u:%s %snote:%s ", p->bold, report_path(r->loc.path), r->loc.line, r->loc.col,
                p->reset, p->note, p->reset);
        put_message(out, r->message);
        fputc('\n', out);
    }
    char *deps = report_deployments_text(f, TEXT_DEPLOYMENTS_SHOWN);
    if (deps) {
        fprintf(out, "%s%s:%u:%u:%s %snote:%s ", p->bold, report_path(f->loc.path), f->loc.line, f->loc.col,
                p->reset, p->note, p->reset);
        put_message(out, deps);
        fputc('\n', out);
    }
    free(deps);
}

static void plural(FILE *out, size_t n, const char *what, bool *first)
{
    if (!n)
        return;
    fprintf(out, "%s%zu %s%s", *first ? "" : ", ", n, what, n == 1 ? "" : "s");
    *first = false;
}

/* " (2 suppressed, 5 in the baseline, 1 outside the diff, 3 ignored in their files)": what the run
 * found but does not show. */
static void hidden_counts(FILE *out, const report_input *in)
{
    const struct {
        size_t n;
        const char *what;
    } hidden[] = {
        { in->findings->suppressed, "suppressed" },
        { in->baselined, "in the baseline" },
        { in->outside_diff, "outside the diff" },
        { in->per_file_ignored, "ignored in their files" },
    };
    bool first = true;
    for (size_t i = 0; i < sizeof hidden / sizeof *hidden; i++) {
        if (!hidden[i].n)
            continue;
        fprintf(out, "%s%zu %s", first ? " (" : ", ", hidden[i].n, hidden[i].what);
        first = false;
    }
    if (!first)
        fputc(')', out);
}

void report_text(FILE *out, const report_input *in)
{
    const palette *p = in->color ? &ansi : &plain;
    source_cache *sc = report_source_cache(in);
    size_t count[3] = { 0, 0, 0 };
    for (size_t i = 0; i < in->findings->v.n; i++) {
        const finding *f = &in->findings->v.v[i];
        print_finding(out, sc, p, f);
        count[f->severity]++;
    }
    source_cache_free(sc);
    if (in->quiet && report_complete(in))
        return;   /* --quiet: the findings only (an incomplete run still says so) */
    fputs("kvlint: ", out);
    bool first = true;
    plural(out, count[SEV_ERROR], "error", &first);
    plural(out, count[SEV_WARNING], "warning", &first);
    plural(out, count[SEV_NOTE], "note", &first);
    if (first)
        fputs("no findings", out);
    hidden_counts(out, in);
    fprintf(out, " in %zu file%s, %zu deployment%s\n", in->files, in->files == 1 ? "" : "s", in->deployments,
            in->deployments == 1 ? "" : "s");
    char why[160];
    if (report_incomplete_text(in, why, sizeof why))
        fprintf(out, "kvlint: incomplete run: %s (see the diagnostics; limits: docs/limits.md)\n", why);
}
