/*
 * deployments.c: how the human-readable reports (text, GitHub annotations, SARIF messages) name the
 * deployments of a finding. A site reported under several deployments is one finding (eval.h); its
 * message speaks of the first, and this line lists them all, so a reviewer sees at once whether a
 * problem is one configuration's or every configuration's. JSON lists them in full instead.
 */
#include "report/report.h"
#include "util/strbuf.h"

char *report_deployments_text(const finding *f, size_t shown)
{
    if (f->ndeployments < 2)
        return NULL;
    strbuf sb = STRBUF_INIT;
    sb_addf(&sb, "under %zu deployments: ", f->ndeployments);
    size_t n = f->ndeployments < shown ? f->ndeployments : shown;
    for (size_t i = 0; i < n; i++) {
        const finding_deployment *d = &f->deployments[i];
        const char *sep = i == 0 ? "" : (i + 1 == n && n == f->ndeployments) ? " and " : ", ";
        sb_addf(&sb, "%s%s", sep, d->name);
        if (d->dtype)
            sb_addf(&sb, " (%s)", d->dtype);
    }
    if (n < f->ndeployments)
        sb_addf(&sb, " and %zu more", f->ndeployments - n);
    return sb_detach(&sb);
}
