/*
 * tsv.h: the rows of a tab-separated data file (grammars/ids.tsv, dtype_strings.tsv,
 * python/sinks.tsv): lines split at '\n' (a '\r' before it dropped), blank lines and lines
 * starting with '#' skipped, each row split at tabs. The text is split in place; fields point
 * into it. What a row's fields mean, and the diagnostics for a malformed one, are the loader's.
 */
#ifndef KV_TSV_H
#define KV_TSV_H
#include <stddef.h>

typedef struct tsv_reader {
    char *next;      /* the rest of the text, NULL at its end */
    unsigned line;   /* the line number of the row tsv_next returned last (from 1) */
} tsv_reader;

/* Read the rows of text (NUL-terminated, modified in place). */
void tsv_begin(tsv_reader *r, char *text);
/* The next row's fields into f (room for max + 1): their count, max + 1 when the row has more
 * than max; 0 at the end of the text. */
size_t tsv_next(tsv_reader *r, char **f, size_t max);

#endif
