/* json.c: see json.h. */
#include "util/json.h"
#include "util/numfmt.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void json_init(json_writer *w, strbuf *out, bool pretty)
{
    memset(w, 0, sizeof *w);
    w->out = out;
    w->pretty = pretty;
}

void json_init_file(json_writer *w, FILE *f, bool pretty)
{
    json_init(w, NULL, pretty);
    w->sink = f;
    w->out = &w->spill;
}

static void spill(json_writer *w)
{
    if (w->out->len)
        fwrite(w->out->buf, 1, w->out->len, w->sink);
    sb_reset(w->out);
}

/* Called between items: a file writer keeps at most about JSON_SPILL_BYTES (plus one item). */
static void maybe_spill(json_writer *w)
{
    if (w->sink && w->out->len >= JSON_SPILL_BYTES)
        spill(w);
}

void json_finish(json_writer *w)
{
    if (!w->sink)
        return;
    spill(w);
    sb_release(&w->spill);
    w->out = &w->spill;
}

static void newline(json_writer *w)
{
    if (!w->pretty)
        return;
    sb_addc(w->out, '\n');
    for (int i = 0; i < w->depth; i++)
        sb_adds(w->out, "  ");
}

/* Separator and indentation before a value or a key. */
static void before_item(json_writer *w)
{
    maybe_spill(w);
    if (w->after_key) {
        w->after_key = false;
        return;
    }
    if (w->depth > 0) {
        if (w->has_items[w->depth - 1])
            sb_addc(w->out, ',');
        w->has_items[w->depth - 1] = true;
        newline(w);
    }
}

static void open(json_writer *w, char c)
{
    before_item(w);
    sb_addc(w->out, c);
    if (w->depth < JSON_MAX_DEPTH) {
        w->has_items[w->depth] = false;
    }
    w->depth++;
}

static void close(json_writer *w, char c)
{
    w->depth--;
    bool had = w->depth < JSON_MAX_DEPTH && w->has_items[w->depth];
    if (had)
        newline(w);
    sb_addc(w->out, c);
    if (w->depth == 0 && w->pretty)
        sb_addc(w->out, '\n');
}

void json_object_begin(json_writer *w) { open(w, '{'); }
void json_object_end(json_writer *w) { close(w, '}'); }
void json_array_begin(json_writer *w) { open(w, '['); }
void json_array_end(json_writer *w) { close(w, ']'); }

void json_key(json_writer *w, const char *key)
{
    before_item(w);
    json_escape(w->out, key);
    sb_adds(w->out, w->pretty ? ": " : ":");
    w->after_key = true;
}

/* Length of the valid UTF-8 sequence at s, or 0 if it is not one. */
static size_t utf8_len(const unsigned char *s)
{
    if (s[0] < 0x80)
        return 1;
    size_t n;
    uint32_t cp;
    if ((s[0] & 0xE0) == 0xC0) { n = 2; cp = s[0] & 0x1F; }
    else if ((s[0] & 0xF0) == 0xE0) { n = 3; cp = s[0] & 0x0F; }
    else if ((s[0] & 0xF8) == 0xF0) { n = 4; cp = s[0] & 0x07; }
    else return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
        cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

void json_escape(strbuf *sb, const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    sb_addc(sb, '"');
    while (*s) {
        unsigned char c = *s;
        switch (c) {
        case '"': sb_adds(sb, "\\\""); s++; continue;
        case '\\': sb_adds(sb, "\\\\"); s++; continue;
        case '\n': sb_adds(sb, "\\n"); s++; continue;
        case '\r': sb_adds(sb, "\\r"); s++; continue;
        case '\t': sb_adds(sb, "\\t"); s++; continue;
        default: break;
        }
        if (c < 0x20 || c == 0x7F) {
            sb_addf(sb, "\\u%04x", c);
            s++;
            continue;
        }
        size_t n = utf8_len(s);
        if (n == 0) {
            sb_adds(sb, "\\ufffd");
            s++;
            continue;
        }
        sb_add(sb, s, n);
        s += n;
    }
    sb_addc(sb, '"');
}

void json_string(json_writer *w, const char *s)
{
    before_item(w);
    if (!s)
        sb_adds(w->out, "null");
    else
        json_escape(w->out, s);
}

void json_number(json_writer *w, double x)
{
    char buf[40];
    fmt_number(buf, sizeof buf, x, NUMFMT_DATA);
    before_item(w);
    if (isfinite(x))
        sb_adds(w->out, buf);
    else
        sb_addf(w->out, "\"%s\"", buf);
}

void json_int(json_writer *w, int64_t x)
{
    before_item(w);
    sb_addf(w->out, "%" PRId64, x);
}

void json_bool(json_writer *w, bool b)
{
    before_item(w);
    sb_adds(w->out, b ? "true" : "false");
}

void json_null(json_writer *w)
{
    before_item(w);
    sb_adds(w->out, "null");
}

void json_kv_string(json_writer *w, const char *key, const char *s) { json_key(w, key); json_string(w, s); }
void json_kv_number(json_writer *w, const char *key, double x) { json_key(w, key); json_number(w, x); }
void json_kv_int(json_writer *w, const char *key, int64_t x) { json_key(w, key); json_int(w, x); }
void json_kv_bool(json_writer *w, const char *key, bool b) { json_key(w, key); json_bool(w, b); }
