/* diag.c: see diag.h. */
#include "util/diag.h"

#include <stdarg.h>
#include <string.h>

void diag_init(diag_list *d, kv_arena *arena)
{
    memset(d, 0, sizeof *d);
    d->arena = arena;
}

static void vadd(diag_list *d, diag_level level, bool limit, const char *path, uint32_t line, uint32_t col,
                 const char *fmt, va_list ap)
{
    diag x = {
        .level = level,
        .path = path ? arena_strdup(d->arena, path) : NULL,
        .line = line,
        .col = col,
        .msg = arena_vprintf(d->arena, fmt, ap),
        .limit = limit,
    };
    ARENA_PUSH(d->arena, d->items, x);
}

void diag_add(diag_list *d, diag_level level, const char *path, uint32_t line, uint32_t col,
              const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vadd(d, level, false, path, line, col, fmt, ap);
    va_end(ap);
}

void diag_limit(diag_list *d, diag_level level, const char *path, uint32_t line, uint32_t col,
                const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vadd(d, level, true, path, line, col, fmt, ap);
    va_end(ap);
}

bool diag_has_errors(const diag_list *d)
{
    for (size_t i = 0; i < d->items.n; i++)
        if (d->items.v[i].level == DIAG_ERROR)
            return true;
    return false;
}

bool diag_has_limits(const diag_list *d)
{
    for (size_t i = 0; i < d->items.n; i++)
        if (d->items.v[i].limit)
            return true;
    return false;
}

const char *diag_level_name(diag_level level)
{
    switch (level) {
    case DIAG_NOTE: return "note";
    case DIAG_WARNING: return "warning";
    case DIAG_ERROR: return "error";
    }
    return "error";
}

void diag_print(FILE *f, const diag *d)
{
    if (d->path) {
        fputs(d->path, f);
        if (d->line) {
            fprintf(f, ":%u", d->line);
            if (d->col)
                fprintf(f, ":%u", d->col);
        }
        fputs(": ", f);
    } else {
        fputs("kvlint: ", f);
    }
    fprintf(f, "%s: %s\n", diag_level_name(d->level), d->msg);
}

int diag_cmp(const void *pa, const void *pb)
{
    const diag *a = pa, *b = pb;
    int c = strcmp(a->path ? a->path : "", b->path ? b->path : "");
    if (c)
        return c;
    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    if (a->col != b->col)
        return a->col < b->col ? -1 : 1;
    if (a->level != b->level)
        return a->level < b->level ? -1 : 1;
    return strcmp(a->msg, b->msg);
}
