/*
 * report_junit.c: JUnit XML, the test report format CI services show (GitLab `reports: junit:`,
 * Jenkins, Azure Pipelines, GitHub test-report actions):
 *     <testsuites name="kvlint" tests="3" failures="2" errors="0">
 *       <testsuite name="src/m.py" tests="2" failures="2" errors="0" skipped="0">
 *         <testcase classname="KV001" name="src/m.py:14:12 KV001 sentinel-overflow" file="src/m.py" line="14">
 *           <failure type="KV001" message="...">message, then one line per note</failure>
 *         </testcase>
 * One testsuite per file with findings, one testcase per finding; errors and warnings are
 * <failure>s, notes pass with the text in <system-out>. Run diagnostics of error level are a
 * testsuite "kvlint" whose testcases carry <error> (a run that failed never looks green), and a run
 * with nothing to report is one passing testcase, so the suite is never empty.
 * Text is escaped for XML 1.0: the five entities, and control bytes it cannot hold become '?'.
 */
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

static void xml(FILE *out, const char *s)
{
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&apos;", out); break;
        default: fputc(c < 0x20 && c != '\t' && c != '\n' && c != '\r' ? '?' : c, out);
        }
    }
}

static bool same_path(const char *a, const char *b)
{
    return a == b || (a && b && !strcmp(a, b));
}

static bool fails(const finding *f)
{
    return f->severity != SEV_NOTE;
}

static void testcase(FILE *out, const finding *f)
{
    const char *path = report_path(f->loc.path);
    fputs("    <testcase classname=\"", out);
    xml(out, f->rule->id);
    fputs("\" name=\"", out);
    xml(out, path);
    fprintf(out, ":%u:%u ", f->loc.line, f->loc.col);
    xml(out, f->rule->id);
    fputc(' ', out);
    xml(out, f->rule->name);
    fputs("\" file=\"", out);
    xml(out, path);
    fprintf(out, "\" line=\"%u\">\n", f->loc.line);
    fputs(fails(f) ? "      <failure type=\"" : "      <system-out>", out);
    if (fails(f)) {
        xml(out, f->rule->id);
        fputs("\" message=\"", out);
        xml(out, f->message);
        fputs("\">", out);
    }
    fprintf(out, "%s:%u:%u: %s: ", path, f->loc.line, f->loc.col, severity_name(f->severity));
    xml(out, f->message);
    for (size_t k = 0; k < f->nrelated; k++) {
        fputc('\n', out);
        xml(out, report_path(f->related[k].loc.path));
        fprintf(out, ":%u:%u: note: ", f->related[k].loc.line, f->related[k].loc.col);
        xml(out, f->related[k].message);
    }
    char *deps = report_deployments_text(f, 8);
    if (deps) {
        fprintf(out, "\n%s:%u:%u: note: ", path, f->loc.line, f->loc.col);
        xml(out, deps);
        free(deps);
    }
    fputs(fails(f) ? "</failure>\n" : "</system-out>\n", out);
    fputs("    </testcase>\n", out);
}

static size_t count_errors(const report_input *in)
{
    size_t n = 0;
    for (size_t i = 0; i < in->ndiags; i++)
        n += in->diags[i]->level == DIAG_ERROR;
    return n;
}

static void diagnostics_suite(FILE *out, const report_input *in, size_t nerr)
{
    fprintf(out, "  <testsuite name=\"kvlint\" tests=\"%zu\" failures=\"0\" errors=\"%zu\" skipped=\"0\">\n",
            nerr, nerr);
    for (size_t i = 0; i < in->ndiags; i++) {
        const diag *d = in->diags[i];
        if (d->level != DIAG_ERROR)
            continue;
        fputs("    <testcase classname=\"kvlint\" name=\"", out);
        xml(out, d->path ? report_path(d->path) : "run");
        fprintf(out, ":%u:%u\">\n      <error type=\"diagnostic\" message=\"", d->line, d->col);
        xml(out, d->msg);
        fputs("\"/>\n    </testcase>\n", out);
    }
    fputs("  </testsuite>\n", out);
}

void report_junit(FILE *out, const report_input *in)
{
    const finding_list *l = in->findings;
    size_t failures = 0, nerr = count_errors(in);
    for (size_t i = 0; i < l->v.n; i++)
        failures += fails(&l->v.v[i]);
    size_t tests = l->v.n + nerr;
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
    fprintf(out, "<testsuites name=\"kvlint\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\">\n",
            tests ? tests : 1, failures, nerr);
    /* Findings are sorted by path: one suite per run of equal paths. */
    for (size_t i = 0; i < l->v.n;) {
        size_t j = i, nfail = 0;
        while (j < l->v.n && same_path(l->v.v[j].loc.path, l->v.v[i].loc.path))
            nfail += fails(&l->v.v[j++]);
        fputs("  <testsuite name=\"", out);
        xml(out, report_path(l->v.v[i].loc.path));
        fprintf(out, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"0\">\n", j - i, nfail);
        for (; i < j; i++)
            testcase(out, &l->v.v[i]);
        fputs("  </testsuite>\n", out);
    }
    if (nerr)
        diagnostics_suite(out, in, nerr);
    if (!tests)
        fprintf(out, "  <testsuite name=\"kvlint\" tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"0\">\n"
                     "    <testcase classname=\"kvlint\" name=\"kvlint check: no findings in %zu files\"/>\n"
                     "  </testsuite>\n", in->files);
    fputs("</testsuites>\n", out);
}
