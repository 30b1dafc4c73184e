/* numfmt.c: the one number formatter (numfmt.h says what each style is for). */
#include "util/numfmt.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "1e+09" -> "1e9", "1e-07" -> "1e-7" */
static void compact_exponent(char *buf)
{
    char *e = strchr(buf, 'e');
    if (!e)
        return;
    char *d = e + 1, *s = e + 1;
    if (*s == '+')
        s++;
    else if (*s == '-')
        *d++ = *s++;
    while (*s == '0' && s[1])
        s++;
    memmove(d, s, strlen(s) + 1);
}

void fmt_number(char *buf, size_t n, double x, numfmt_style style)
{
    bool prose = style == NUMFMT_PROSE;
    if (isnan(x)) {
        snprintf(buf, n, prose ? "NaN" : "nan");
        return;
    }
    if (isinf(x)) {
        snprintf(buf, n, x < 0 ? "-inf" : "inf");
        return;
    }
    /* Integers print as integers (-1e9 as -1000000000; -0 as -0): in data every one a binary64
     * holds exactly, in prose those short enough to read. */
    if (x == floor(x) && fabs(x) < (prose ? 1e10 : 9007199254740992.0)) {
        snprintf(buf, n, "%.0f", x);
        return;
    }
    /* Otherwise the shortest %.Ng that reads back as the same binary64. */
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, n, "%.*g", prec, x);
        if (strtod(buf, NULL) == x)
            break;
    }
    if (prose)
        compact_exponent(buf);
}
