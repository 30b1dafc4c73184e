/*
 * repo_path.c: paths as CI services want them, relative to the repository's top (GitHub
 * annotations, GitLab Code Quality), whatever folder kvlint ran from. The caller (the CLI) finds
 * the top; reporters never run git.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

const char *report_repo_path(const report_input *in, const char *path, char *buf, size_t n)
{
    if (!in->repo_root || !path)
        return report_path(path);
    char *real = realpath(path, NULL);
    if (!real)
        return report_path(path);
    size_t k = strlen(in->repo_root);
    const char *rel = !strncmp(real, in->repo_root, k) && real[k] == '/' ? real + k + 1 : NULL;
    if (rel && strlen(rel) < n) {
        memcpy(buf, rel, strlen(rel) + 1);
        free(real);
        return buf;
    }
    free(real);
    return report_path(path);
}
