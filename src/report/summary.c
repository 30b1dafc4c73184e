/*
 * summary.c: what every format says about the run as a whole beyond its findings: whether it
 * analysed everything it was given. A run that hit one of kvlint's limits, or skipped every file,
 * must not read as a clean one in any format (docs/limits.md).
 */
#include <stdio.h>

#include "report/report.h"

bool report_complete(const report_input *in)
{
    return in->limits == 0 && !(in->files == 0 && in->skipped > 0);
}

static size_t put(char *buf, size_t n, size_t at, const char *sep, size_t count, const char *what)
{
    if (at >= n)
        return at;
    int w = snprintf(buf + at, n - at, "%s%zu %s", at ? sep : "", count, what);
    return w < 0 ? at : at + (size_t)w;
}

const char *report_incomplete_text(const report_input *in, char *buf, size_t n)
{
    if (report_complete(in) || n == 0)
        return NULL;
    buf[0] = '\0';
    if (in->files == 0 && in->skipped > 0) {
        if (in->skipped == 1)
            snprintf(buf, n, "nothing analysed: the only file was skipped");
        else
            snprintf(buf, n, "nothing analysed: all %zu files were skipped", in->skipped);
        return buf;
    }
    size_t at = 0;
    if (in->skipped)
        at = put(buf, n, at, ", ", in->skipped, in->skipped == 1 ? "file skipped" : "files skipped");
    if (in->limited)
        at = put(buf, n, at, ", ", in->limited, in->limited == 1 ? "file cut short by a limit" : "files cut short by a limit");
    else
        at = put(buf, n, at, ", ", in->limits, in->limits == 1 ? "limit hit" : "limits hit");
    (void)at;
    return buf;
}
