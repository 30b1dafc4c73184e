/*
 * numfmt.h: how kvlint writes a binary64 number, everywhere: the shortest decimal that reads back
 * as the same double, an integer as an integer, infinities as inf and -inf. One formatter with two
 * styles, because two readers differ on purpose:
 *   NUMFMT_DATA   JSON values and `kvlint cast` tables (docs/output-formats.md: a number, or the
 *                 strings "inf", "-inf", "nan"): every integer a double holds exactly (below 2^53)
 *                 in full, exponents as printf writes them (1e+20);
 *   NUMFMT_PROSE  messages a person reads: integers below 1e10 in full, larger ones short (-1e12),
 *                 exponents compact (1e-7), NaN spelt as prose spells it.
 * Negative zero is -0 in both.
 */
#ifndef KV_NUMFMT_H
#define KV_NUMFMT_H
#include <stddef.h>

typedef enum numfmt_style { NUMFMT_DATA, NUMFMT_PROSE } numfmt_style;

/* x into buf (n bytes; 32 hold any number). */
void fmt_number(char *buf, size_t n, double x, numfmt_style style);

#endif
