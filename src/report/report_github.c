/*
 * report_github.c: GitHub Actions workflow commands, one per finding:
 *     ::error file=src/m.py,line=3,col=12,endLine=3,endColumn=16,title=KV001 sentinel-overflow::message
 * Related locations are appended to the message as "note:" lines. Escaping follows the runner
 * (actions/toolkit command.ts): %, CR, LF in data; also ':' and ',' in properties.
 */
#include "report/report.h"

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

void report_github(FILE *out, const report_input *in)
{
    char why[160];
    if (report_incomplete_text(in, why, sizeof why)) {
        fputs("::warning title=kvlint incomplete run::", out);
        escape(out, why, false);
        fputs(" (see the log; limits: docs/limits.md)\n", out);
    }
    for (size_t i = 0; i < in->findings->v.n; i++) {
        const finding *f = &in->findings->v.v[i];
        fprintf(out, "::%s file=", command(f->severity));
        escape(out, report_path(f->loc.path), true);
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
            escape(out, report_path(f->related[k].loc.path), false);
            fprintf(out, ":%u:%u: ", f->related[k].loc.line, f->related[k].loc.col);
            escape(out, f->related[k].message, false);
        }
        fputc('\n', out);
    }
}
