/*
 * json.h: a streaming JSON writer with stable, pretty-printed output.
 *
 * Every machine-readable output of kvlint (cast, dtypes, facts, check, matrix, SARIF) goes through
 * this writer so that escaping, number formatting and indentation are the same everywhere.
 * Numbers are printed exactly: integers below 2^53 as integers, others with the shortest %.Ng that
 * reads back as the same binary64 (at most %.17g); non-finite numbers, which JSON cannot
 * hold, are written as the strings "inf", "-inf" and "nan". The writer does not validate nesting
 * beyond an assertion-free depth limit; callers are expected to open and close in order.
 * It writes either to a strbuf the caller prints or stores (json_init), or to a stream
 * (json_init_file): then the text is written out in pieces of about JSON_SPILL_BYTES as it is
 * produced, so a writer's memory does not grow with the document (a report of 100k findings), and
 * json_finish() writes the rest. Write errors are the stream's: its error flag, checked where the
 * caller closes it (util/outfile.h). A file writer points into itself: it must not move in memory.
 */
#ifndef KV_JSON_H
#define KV_JSON_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "util/strbuf.h"

enum { JSON_MAX_DEPTH = 64, JSON_SPILL_BYTES = 64 * 1024 };

typedef struct json_writer {
    strbuf *out;
    FILE *sink;           /* json_init_file: out (= &spill) is written here as it fills */
    strbuf spill;
    int depth;
    bool pretty;
    bool after_key;
    bool has_items[JSON_MAX_DEPTH];
} json_writer;

void json_init(json_writer *w, strbuf *out, bool pretty);
void json_init_file(json_writer *w, FILE *f, bool pretty);
/* A file writer: write what is still buffered and free the buffer. Nothing for a strbuf writer. */
void json_finish(json_writer *w);
void json_object_begin(json_writer *w);
void json_object_end(json_writer *w);
void json_array_begin(json_writer *w);
void json_array_end(json_writer *w);
void json_key(json_writer *w, const char *key);
void json_string(json_writer *w, const char *s);  /* NULL writes null */
void json_number(json_writer *w, double x);
void json_int(json_writer *w, int64_t x);
void json_bool(json_writer *w, bool b);
void json_null(json_writer *w);
/* Shorthands for "key": value. */
void json_kv_string(json_writer *w, const char *key, const char *s);
void json_kv_number(json_writer *w, const char *key, double x);
void json_kv_int(json_writer *w, const char *key, int64_t x);
void json_kv_bool(json_writer *w, const char *key, bool b);
/* Append s as a JSON string literal (quotes included) to sb; invalid UTF-8 becomes U+FFFD. */
void json_escape(strbuf *sb, const char *s);

#endif
