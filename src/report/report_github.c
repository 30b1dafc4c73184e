/*
 * report_github.c: GitHub Actions workflow commands, one per finding:
 *     ::error file=src/m.py,line=3,col=12,endLine=3,endColumn=16,title=KV001 sentinel-overflow::message
 * Related locations, and the deployments of a site reported under several, are appended to the
 * message as "note:" lines. Escaping follows the runner
 * (actions/toolkit command.ts): %, CR, LF in data; also ':' and ',' in properties. Paths are relative
 * to the repository's top (in->repo_root), as annotations need, whatever folder kvlint ran from.
 *
 * GitHub shows at most 10 error, 10 warning and 10 notice annotations per step and drops the rest
 * silently, so errors come first, each kind stops at its cap, the findings beyond it are printed as
 * plain log lines, and one ::notice says how many were not annotated.
 * report_github_summary() writes the Markdown for $GITHUB_STEP_SUMMARY (the CLI appends it).
 */
#include <stdlib.h>

#include "report/report.h"

enum { GITHUB_CAP = 10, GITHUB_DEPLOYMENTS_SHOWN = 4 };

static void escape(FILE *out, const char *s, bool property)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '%': fputs("%25", out); break;
        case '\r': fputs("%0D", out); break;
        case '\n': fputs("%0A", out); break;
        case ':': fputs(property ? "%3A" : ":", out); break;
        case ',': fputs(property ? "%2C" : ",", out); break;
        default: fputc(*s, out);
        }
    }
}

static const char *command(kv_severity s)
{
    return s == SEV_ERROR ? "error" : s == SEV_WARNING ? "warning" : "notice";
}

static void annotation(FILE *out, const report_input *in, const finding *f)
{
    char buf[4096];
    fprintf(out, "::%s file=", command(f->severity));
    escape(out, report_repo_path(in, f->loc.path, buf, sizeof buf), true);
    fprintf(out, ",line=%u,col=%u", f->loc.line, f->loc.col);
    if (f->loc.end_line)
        fprintf(out, ",endLine=%u,endColumn=%u", f->loc.end_line, f->loc.end_col);
    fputs(",title=", out);
    escape(out, f->rule->id, true);
    fputc(' ', out);
    escape(out, f->rule->name, true);
    fputs("::", out);
    escape(out, f->message, false);
    for (size_t k = 0; k < f->nrelated; k++) {
        fputs("%0Anote: ", out);
        escape(out, report_repo_path(in, f->related[k].loc.path, buf, sizeof buf), false);
        fprintf(out, ":%u:%u: ", f->related[k].loc.line, f->related[k].loc.col);
        escape(out, f->related[k].message, false);
    }
    char *deps = report_deployments_text(f, GITHUB_DEPLOYMENTS_SHOWN);
    if (deps) {
        fputs("%0Anote: ", out);
        escape(out, deps, false);
    }
    free(deps);
    fputc('\n', out);
}

/* A finding past the cap: a plain log line (no command, so nothing for the runner to drop). */
static void log_line(FILE *out, const report_input *in, const finding *f)
{
    char buf[4096];
    fprintf(out, "%s:%u:%u: %s: %s [%s]\n", report_repo_path(in, f->loc.path, buf, sizeof buf), f->loc.line,
            f->loc.col, severity_name(f->severity), f->message, f->rule->id);
}

/* An error of the run itself (a config kvlint could not read): annotated, so the run never looks clean. */
static void diag_annotation(FILE *out, const report_input *in, const diag *d)
{
    char buf[4096];
    fputs("::error ", out);
    if (d->path) {
        fputs("file=", out);
        escape(out, report_repo_path(in, d->path, buf, sizeof buf), true);
        if (d->line)
            fprintf(out, ",line=%u,col=%u", d->line, d->col);
        fputc(',', out);
    }
    fputs("title=kvlint::", out);
    escape(out, d->msg, false);
    fputc('\n', out);
}

void report_github(FILE *out, const report_input *in)
{
    const finding_list *l = in->findings;
    char why[160];
    bool incomplete = report_incomplete_text(in, why, sizeof why) != NULL;
    if (incomplete) {
        fputs("::warning title=kvlint incomplete run::", out);
        escape(out, why, false);
        fputs(" (see the log; limits: docs/limits.md)\n", out);
    }
    size_t diag_errors = 0;
    for (size_t i = 0; i < in->ndiags; i++)
        if (in->diags[i]->level == DIAG_ERROR && diag_errors < GITHUB_CAP) {
            diag_annotation(out, in, in->diags[i]);
            diag_errors++;
        }
    size_t total[3] = { 0, 0, 0 };
    for (size_t i = 0; i < l->v.n; i++)
        total[l->v.v[i].severity]++;
    /* Keep one notice slot for the "not annotated" notice when notes overflow too. */
    size_t over = 0;
    for (int sev = SEV_ERROR; sev >= SEV_NOTE; sev--)
        over += total[sev] > GITHUB_CAP ? total[sev] - GITHUB_CAP : 0;
    size_t cap[3] = { GITHUB_CAP - (over ? 1 : 0), GITHUB_CAP - (incomplete ? 1 : 0), GITHUB_CAP - diag_errors };
    size_t shown[3] = { 0, 0, 0 }, logged = 0;
    for (int sev = SEV_ERROR; sev >= SEV_NOTE; sev--)
        for (size_t i = 0; i < l->v.n; i++) {
            const finding *f = &l->v.v[i];
            if ((int)f->severity != sev)
                continue;
            if (shown[sev] < cap[sev]) {
                annotation(out, in, f);
                shown[sev]++;
            } else {
                log_line(out, in, f);
                logged++;
            }
        }
    if (logged)
        fprintf(out, "::notice title=kvlint::%zu more finding%s not annotated (GitHub shows %d errors, %d warnings "
                     "and %d notices per step); they are listed in this log above\n",
                logged, logged == 1 ? " is" : "s are", GITHUB_CAP, GITHUB_CAP, GITHUB_CAP);
}

static void md_cell(FILE *out, const char *s)
{
    for (; s && *s; s++) {
        if (*s == '|')
            fputs("\\|", out);
        else if (*s == '\n' || *s == '\r')
            fputc(' ', out);
        else
            fputc(*s, out);
    }
}

void report_github_summary(FILE *out, const report_input *in)
{
    const finding_list *l = in->findings;
    size_t total[3] = { 0, 0, 0 }, errors = 0;
    for (size_t i = 0; i < l->v.n; i++)
        total[l->v.v[i].severity]++;
    for (size_t i = 0; i < in->ndiags; i++)
        errors += in->diags[i]->level == DIAG_ERROR;
    fputs("## kvlint\n\n", out);
    fprintf(out, "%zu error%s, %zu warning%s, %zu note%s in %zu file%s, %zu deployment%s", total[SEV_ERROR],
            total[SEV_ERROR] == 1 ? "" : "s", total[SEV_WARNING], total[SEV_WARNING] == 1 ? "" : "s", total[SEV_NOTE],
            total[SEV_NOTE] == 1 ? "" : "s", in->files, in->files == 1 ? "" : "s", in->deployments,
            in->deployments == 1 ? "" : "s");
    if (in->with_baseline)
        fprintf(out, "; %zu in the baseline", in->baselined);
    if (in->with_diff)
        fprintf(out, "; %zu outside the diff", in->outside_diff);
    if (in->per_file_ignored)
        fprintf(out, "; %zu ignored in their files (rules.per_file_ignores)", in->per_file_ignored);
    fputs(".\n", out);
    if (errors)
        fprintf(out, "\n**The run failed**: %zu configuration or I/O error%s (see the log).\n", errors,
                errors == 1 ? "" : "s");
    if (!l->v.n)
        return;
    fputs("\n| severity | rule | location | finding |\n|---|---|---|---|\n", out);
    char buf[4096];
    for (int sev = SEV_ERROR; sev >= SEV_NOTE; sev--)
        for (size_t i = 0; i < l->v.n; i++) {
            const finding *f = &l->v.v[i];
            if ((int)f->severity != sev)
                continue;
            fprintf(out, "| %s | %s %s | `", severity_name(f->severity), f->rule->id, f->rule->name);
            md_cell(out, report_repo_path(in, f->loc.path, buf, sizeof buf));
            fprintf(out, ":%u` | ", f->loc.line);
            md_cell(out, f->message);
            fputs(" |\n", out);
        }
}
