/*
 * tsv.c: rows of a tab-separated data file (see tsv.h).
 */
#include "util/tsv.h"

#include <string.h>

void tsv_begin(tsv_reader *r, char *text)
{
    r->next = text;
    r->line = 0;
}

size_t tsv_next(tsv_reader *r, char **f, size_t max)
{
    while (r->next && *r->next) {
        char *line = r->next, *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        r->next = nl ? nl + 1 : NULL;
        r->line++;
        size_t l = strlen(line);
        if (l && line[l - 1] == '\r')
            line[--l] = '\0';
        if (!l || line[0] == '#')
            continue;
        size_t n = 0;
        for (char *q = line; q && n <= max; n++) {
            f[n] = q;
            q = strchr(q, '\t');
            if (q)
                *q++ = '\0';
        }
        return n;
    }
    return 0;
}
