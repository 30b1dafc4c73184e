/*
 * expr.c: values computed from checkpoint config fields (kv_expr, facts.h): evaluation against a
 * field lookup, the text `facts` prints, and the fields an expression reads.
 *
 * Evaluation is binary64 arithmetic, the arithmetic Python does on the config's floats (15 /
 * 0.0078125 is 1920 exactly); a field the lookup does not know, a division by zero, an overflow to
 * infinity or a NaN make the whole value unknown: no partial result, no guess.
 * It does not know where fields come from (resolve/ binds them per deployment).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "facts/facts.h"
#include "util/strbuf.h"

enum { EXPR_MAX_DEPTH = KV_EXPR_MAX_DEPTH };

static bool eval_at(const kv_expr *e, kv_field_fn lookup, const void *ctx, double *out, int depth)
{
    double a = 0, b = 0;
    if (!e || depth > EXPR_MAX_DEPTH)
        return false;
    switch (e->op) {
    case KX_CONST:
        *out = e->num;
        return isfinite(*out);
    case KX_FIELD:
        switch (lookup ? lookup(ctx, e->field, out) : KV_FIELD_UNKNOWN) {
        case KV_FIELD_FOUND: return isfinite(*out);
        case KV_FIELD_ABSENT: /* getattr(cfg, "x", d) on a checkpoint without x: d */
            *out = e->num;
            return e->has_default && isfinite(*out);
        case KV_FIELD_UNKNOWN: return false;
        }
        return false;
    case KX_NEG:
        if (!eval_at(e->a, lookup, ctx, &a, depth + 1))
            return false;
        *out = -a;
        return true;
    default:
        break;
    }
    if (!eval_at(e->a, lookup, ctx, &a, depth + 1) || !eval_at(e->b, lookup, ctx, &b, depth + 1))
        return false;
    switch (e->op) {
    case KX_ADD: *out = a + b; break;
    case KX_SUB: *out = a - b; break;
    case KX_MUL: *out = a * b; break;
    case KX_DIV:
        if (b == 0)
            return false; /* ZeroDivisionError in Python */
        *out = a / b;
        break;
    case KX_POW:
        if (a < 0 && b != floor(b))
            return false; /* a complex number in Python */
        if (a == 0 && b < 0)
            return false; /* ZeroDivisionError */
        *out = pow(a, b);
        break;
    default: return false;
    }
    return isfinite(*out); /* Python raises OverflowError for float ** overflow; inf is no magnitude */
}

bool kv_expr_eval(const kv_expr *e, kv_field_fn lookup, const void *ctx, double *out)
{
    double x;
    if (!eval_at(e, lookup, ctx, &x, 0))
        return false;
    *out = x;
    return true;
}

static const char *op_text(kv_expr_op op)
{
    switch (op) {
    case KX_ADD: return " + ";
    case KX_SUB: return " - ";
    case KX_MUL: return " * ";
    case KX_DIV: return " / ";
    case KX_POW: return " ** ";
    default: return " ? ";
    }
}

static void number(strbuf *sb, double x)
{
    char buf[40];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, x);
        double back;
        if (sscanf(buf, "%lf", &back) == 1 && back == x)
            break;
    }
    sb_adds(sb, buf);
}

static void format_operand(strbuf *sb, const kv_expr *x, int depth);

static void format_at(strbuf *sb, const kv_expr *e, int depth)
{
    if (!e || depth > EXPR_MAX_DEPTH) {
        sb_adds(sb, "...");
        return;
    }
    switch (e->op) {
    case KX_CONST: number(sb, e->num); return;
    case KX_FIELD:
        sb_adds(sb, e->field);
        if (e->has_default) {
            sb_adds(sb, " (default ");
            number(sb, e->num);
            sb_adds(sb, ")");
        }
        return;
    case KX_NEG:
        sb_adds(sb, "-");
        break;
    default:
        break;
    }
    format_operand(sb, e->a, depth + 1);
    if (e->op == KX_NEG)
        return;
    sb_adds(sb, op_text(e->op));
    format_operand(sb, e->b, depth + 1);
}

/* An operand: a constant or field as it is, anything else in parentheses. */
static void format_operand(strbuf *sb, const kv_expr *x, int depth)
{
    bool leaf = x && (x->op == KX_CONST || x->op == KX_FIELD);
    if (!leaf)
        sb_addc(sb, '(');
    format_at(sb, x, depth);
    if (!leaf)
        sb_addc(sb, ')');
}

void kv_expr_format(strbuf *sb, const kv_expr *e)
{
    format_at(sb, e, 0);
}

static size_t fields_at(const kv_expr *e, const char **names, size_t n, size_t cap, int depth)
{
    if (!e || depth > EXPR_MAX_DEPTH)
        return n;
    if (e->op == KX_FIELD) {
        for (size_t i = 0; i < n; i++)
            if (!strcmp(names[i], e->field))
                return n;
        if (n < cap)
            names[n++] = e->field;
        return n;
    }
    n = fields_at(e->a, names, n, cap, depth + 1);
    return fields_at(e->b, names, n, cap, depth + 1);
}

size_t kv_expr_fields(const kv_expr *e, const char **names, size_t n, size_t cap)
{
    return fields_at(e, names, n, cap, 0);
}
