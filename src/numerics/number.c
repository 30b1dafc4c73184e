/*
 * number.c: kvn_parse_number, the numeric literal spellings kvlint meets in Python, C/C++ and
 * config files, turned into the exact binary64 (or binary32) value the program would hold.
 *
 * Accepted: an optional sign; decimal with optional fraction and exponent ("1e9", "-1e+09",
 * ".5", "5."); C hex floats and hex integers ("0x1p-3", "0x1.8p4", "0x10"); Python digit
 * separators between digits ("1_000_000.0"); inf/infinity/nan in any case; and a trailing f or F
 * (a C float literal), which rounds the value to binary32 once, directly from the text (strtof),
 * not through binary64. A hex literal takes the suffix only after a p exponent ("0x1p3f"); in
 * "0x1f" the f is a digit. Rejected: surrounding spaces, empty text, any other suffix or junk.
 *
 * Deliberately not here: integer type suffixes (10u, 5L), expressions, Python's float("...")
 * call syntax (front ends strip it). strtod is locale-dependent; kvlint never calls setlocale.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "numerics/numerics.h"

enum { NUMBER_MAX = 512 };

static bool special_value(const char *s, double *out)
{
    double sign = 1;
    if (*s == '+' || *s == '-')
        sign = *s++ == '-' ? -1 : 1;
    if (strcasecmp(s, "inf") == 0 || strcasecmp(s, "infinity") == 0) {
        *out = sign * INFINITY;
        return true;
    }
    if (strcasecmp(s, "nan") == 0) {
        *out = copysign(NAN, sign);
        return true;
    }
    return false;
}

/* Copy s without the Python '_' separators that sit between two digits; false if too long or an
 * underscore sits anywhere else. */
static bool strip_separators(const char *s, char *buf, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; s[i]; i++) {
        if (s[i] == '_') {
            if (i == 0 || !isxdigit((unsigned char)s[i - 1]) || !isxdigit((unsigned char)s[i + 1]))
                return false;
            continue;
        }
        if (n + 1 >= cap)
            return false;
        buf[n++] = s[i];
    }
    buf[n] = '\0';
    return true;
}

static bool is_hex(const char *s)
{
    if (*s == '+' || *s == '-')
        s++;
    return s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
}

/* Whether a final f/F is a binary32 suffix rather than a hex digit. */
static bool has_f_suffix(const char *s, size_t len)
{
    if (len < 2 || (s[len - 1] != 'f' && s[len - 1] != 'F'))
        return false;
    if (!is_hex(s))
        return true;
    return memchr(s, 'p', len) != NULL || memchr(s, 'P', len) != NULL;
}

bool kvn_parse_number(const char *s, double *out, bool *is_binary32)
{
    char buf[NUMBER_MAX];
    bool b32 = false;
    if (!s || !*s || isspace((unsigned char)*s))
        return false;
    if (special_value(s, out)) {
        if (is_binary32)
            *is_binary32 = false;
        return true;
    }
    if (!strip_separators(s, buf, sizeof buf))
        return false;
    size_t len = strlen(buf);
    if (has_f_suffix(buf, len)) {
        buf[--len] = '\0';
        b32 = true;
    }
    if (len == 0 || isspace((unsigned char)buf[len - 1]))
        return false;
    /* strtod would take these spellings too; only special_value may produce them. */
    const char *body = buf + (buf[0] == '+' || buf[0] == '-');
    if (!isdigit((unsigned char)body[0]) && body[0] != '.')
        return false;
    char *end;
    errno = 0;
    double v = b32 ? (double)strtof(buf, &end) : strtod(buf, &end);
    if (end == buf || *end != '\0')
        return false;
    *out = v;
    if (is_binary32)
        *is_binary32 = b32;
    return true;
}
