/*
 * fmt.c: the element formats (float32 ... e8m0): their parameters, kvn_cast (round a binary64 to
 * nearest even), bit-level encode/decode, and the exact-rounding helpers of internal.h.
 *
 * Rounding model, one rule for every binary format here: round |x| to nearest even on the grid
 * of the format's precision with its minimum exponent (so subnormals come out right) and NO upper
 * exponent bound; only then compare with the largest finite value. This is IEEE 754's definition
 * of overflow, and it is exactly what PyTorch's c10 conversions do: e4m3fn values in (464, 480)
 * round to 480, which is past 448, so they are NaN, while 464 ties to 448 (c10/util/Float8_e4m3fn.h
 * compares the float bits with 480.0f); e5m2 and float16 give +-inf from 61440 and 65520 on.
 * Saturating mode then clamps to +-max (CUDA __NV_SATFINITE). fp4 e2m1 has neither inf nor NaN, so
 * it always saturates (the only conversions that exist, PTX cvt.rn.satfinite.e2m1x2.f32, do).
 *
 * Deliberately not here: anything with a scale (store.c), names (dtype.c). No allocation; every
 * function is O(1) and pure.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "numerics/internal.h"

enum layout {
    L_IEEE,  /* all-ones exponent is inf (mantissa 0) or NaN */
    L_FN,    /* e4m3fn: only S.1111.111 is NaN, no inf */
    L_FNUZ,  /* 0x80 is the only NaN, no -0, no inf */
    L_E2M1,  /* no inf, no NaN */
    L_E8M0   /* unsigned exponent only, 0xFF NaN */
};

typedef struct fmt_params {
    kvn_fmt_info info;
    enum layout layout;
    int emin;           /* exponent of the smallest normal */
    uint32_t nan_bits;  /* canonical NaN written by kvn_encode */
} fmt_params;

static const fmt_params formats[KVN_FMT_COUNT] = {
    [KVN_F32] = { { "float32", 32, 8, 23, 127, 0x1.fffffep127, 0x1p-126, 0x1p-149, true, true, true,
                    "S.11111111.m (m!=0)", 16777216 },
                  L_IEEE, -126, 0x7FC00000u },
    [KVN_BF16] = { { "bfloat16", 16, 8, 7, 127, 0x1.fep127, 0x1p-126, 0x1p-133, true, true, true,
                     "S.11111111.m (m!=0)", 256 },
                   L_IEEE, -126, 0x7FC0u },
    [KVN_F16] = { { "float16", 16, 5, 10, 15, 65504, 0x1p-14, 0x1p-24, true, true, true,
                    "S.11111.m (m!=0)", 2048 },
                  L_IEEE, -14, 0x7E00u },
    [KVN_E4M3] = { { "fp8_e4m3", 8, 4, 3, 7, 448, 0x1p-6, 0x1p-9, false, true, true, "S.1111.111", 16 },
                   L_FN, -6, 0x7Fu },
    [KVN_E4M3FNUZ] = { { "fp8_e4m3fnuz", 8, 4, 3, 8, 240, 0x1p-7, 0x1p-10, false, false, true, "0x80",
                         16 },
                       L_FNUZ, -7, 0x80u },
    [KVN_E5M2] = { { "fp8_e5m2", 8, 5, 2, 15, 57344, 0x1p-14, 0x1p-16, true, true, true,
                     "S.11111.m (m!=0)", 8 },
                   L_IEEE, -14, 0x7Eu },
    [KVN_E5M2FNUZ] = { { "fp8_e5m2fnuz", 8, 5, 2, 16, 57344, 0x1p-15, 0x1p-17, false, false, true,
                         "0x80", 8 },
                       L_FNUZ, -15, 0x80u },
    [KVN_E2M1] = { { "fp4_e2m1", 4, 2, 1, 1, 6, 1, 0.5, false, true, false, "none", 4 },
                   L_E2M1, 0, 0x0u },
    /* e8m0 holds no integer 0, so no range 0..N is exact: int_exact_max is -1. */
    [KVN_E8M0] = { { "e8m0", 8, 8, 0, 127, 0x1p127, 0x1p-127, 0x1p-127, false, false, true, "0xFF", -1 },
                   L_E8M0, -127, 0xFFu },
};

const kvn_fmt_info *kvn_fmt_get(kvn_fmt f)
{
    if ((unsigned)f >= KVN_FMT_COUNT)
        return NULL;
    return &formats[f].info;
}

const char *kvn_outcome_name(kvn_outcome o)
{
    static const char *const names[KVN_OUTCOME_COUNT] = {
        "exact", "rounded", "saturated", "overflow-inf", "overflow-nan", "underflow-zero", "crushed",
    };
    if ((unsigned)o >= KVN_OUTCOME_COUNT)
        return "?";
    return names[o];
}

/* ---- exact helpers (internal.h) ---- */

/* q = RN(t) for a real t on the side dir (sign of t - q) of q: the round-to-odd value of t. */
static double odd_from_nearest(double q, double dir)
{
    if (dir == 0 || !isfinite(q))
        return q;
    uint64_t bits;
    memcpy(&bits, &q, sizeof bits);
    if (bits & 1)
        return q;
    return nextafter(q, dir > 0 ? INFINITY : -INFINITY);
}

double kvn__quot_odd(double a, double b)
{
    double q = a / b;
    if (!isfinite(q) || q == 0)
        return q;
    double r = fma(-q, b, a); /* exact remainder: a = q*b + r */
    return odd_from_nearest(q, b > 0 ? r : -r);
}

double kvn__to_f32(double x)
{
    return kvn_cast(KVN_F32, x, KVN_NONSATURATE).stored;
}

int kvn__floor_log2(double a)
{
    uint64_t bits;
    memcpy(&bits, &a, sizeof bits);
    int field = (int)((bits >> 52) & 0x7FF);
    if (field == 0) { /* binary64 subnormal */
        int e;
        frexp(a, &e);
        return e - 1;
    }
    return field - 1023;
}

/* 2^k for -1022 <= k <= 1023, built from its bits (ldexp is a libm call on the hot path). */
static double pow2(int k)
{
    uint64_t bits = (uint64_t)(k + 1023) << 52;
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

int kvn__ceil_log2_ratio(double a, double c)
{
    int ea, ec;
    frexp(a, &ea);
    double cf = frexp(c, &ec); /* c = cf * 2^ec, cf in [0.5, 1) */
    /* c * 2^(ea-ec) = cf * 2^ea >= a holds or fails; one step lower is below 2^(ea-1) <= a. */
    return a <= ldexp(cf, ea) ? ea - ec : ea - ec + 1;
}

/* ---- rounding ---- */

/* Round a > 0 (finite) to nearest even with man_bits fraction bits, minimum exponent emin and
 * no maximum exponent. Exact: scaling by a power of two loses nothing, and the scaled value is
 * below 2^25, where adding and removing 2^52 rounds it to an integer, ties to even (the default
 * rounding mode; kvlint never changes it and is not built with -ffast-math). Every format here
 * has emin - man_bits >= -149 and man_bits <= 23, so both powers of two are normal doubles. */
static double round_grid(double a, int man_bits, int emin)
{
    int e = kvn__floor_log2(a);
    if (e < emin)
        e = emin;
    int qexp = e - man_bits;
    volatile double shifted = a * pow2(-qexp) + 0x1p52; /* volatile: keep the rounding step */
    return (shifted - 0x1p52) * pow2(qexp);
}

static kvn_result overflowed(const fmt_params *p, bool neg, kvn_overflow mode)
{
    if (mode == KVN_SATURATE || p->layout == L_E2M1)
        return (kvn_result){ neg ? -p->info.max : p->info.max, KVN_SATURATED };
    if (p->info.has_inf)
        return (kvn_result){ neg ? -INFINITY : INFINITY, KVN_OVERFLOW_INF };
    return (kvn_result){ NAN, KVN_OVERFLOW_NAN };
}

/* e8m0: powers of two 2^-127..2^127, no sign, no zero. A value that is not a power of two is
 * rounded to the nearest power in the log domain (|x| >= 2^(k+1/2) goes up), which never ties. */
static kvn_result cast_e8m0(double x, kvn_overflow mode)
{
    if (isnan(x))
        return (kvn_result){ NAN, KVN_EXACT };
    if (!(x > 0))
        return (kvn_result){ NAN, KVN_OVERFLOW_NAN };
    if (isinf(x))
        return mode == KVN_SATURATE ? (kvn_result){ 0x1p127, KVN_SATURATED }
                                    : (kvn_result){ NAN, KVN_OVERFLOW_NAN };
    int k = kvn__floor_log2(x);
    double m = ldexp(x, -k); /* [1, 2) */
    if (fma(m, m, -2.0) >= 0)
        k++;
    if (k > 127)
        return mode == KVN_SATURATE ? (kvn_result){ 0x1p127, KVN_SATURATED }
                                    : (kvn_result){ NAN, KVN_OVERFLOW_NAN };
    if (k < -127)
        k = -127;
    double r = ldexp(1.0, k);
    return (kvn_result){ r, r == x ? KVN_EXACT : KVN_ROUNDED };
}

kvn_result kvn_cast(kvn_fmt f, double x, kvn_overflow mode)
{
    if ((unsigned)f >= KVN_FMT_COUNT)
        return (kvn_result){ NAN, KVN_OVERFLOW_NAN };
    if (mode == KVN_TRUNCATE)
        return kvn__cast_truncate(f, x);
    const fmt_params *p = &formats[f];
    if (p->layout == L_E8M0)
        return cast_e8m0(x, mode);
    if (isnan(x))
        return (kvn_result){ NAN, KVN_EXACT };
    bool neg = signbit(x);
    if (isinf(x)) {
        if (p->info.has_inf && mode == KVN_NONSATURATE)
            return (kvn_result){ x, KVN_EXACT };
        return overflowed(p, neg, mode);
    }
    double zero = neg && p->info.has_neg_zero ? -0.0 : 0.0;
    if (x == 0)
        return (kvn_result){ zero, KVN_EXACT };
    double a = fabs(x);
    double r = round_grid(a, p->info.man_bits, p->emin);
    if (r > p->info.max)
        return overflowed(p, neg, mode);
    if (r == 0)
        return (kvn_result){ zero, KVN_UNDERFLOW_ZERO };
    return (kvn_result){ neg ? -r : r, r == a ? KVN_EXACT : KVN_ROUNDED };
}

/* ---- bits ---- */

static uint32_t encode_value(const fmt_params *p, double v)
{
    int eb = p->info.exp_bits, mb = p->info.man_bits;
    uint32_t sign = signbit(v) ? 1u << (eb + mb) : 0;
    if (isnan(v))
        return p->nan_bits;
    if (isinf(v))
        return sign | (((1u << eb) - 1) << mb);
    double a = fabs(v);
    if (a == 0)
        return p->layout == L_FNUZ ? 0 : sign;
    int e = kvn__floor_log2(a);
    int field = e + p->info.bias;
    if (field <= 0) /* subnormal: a = mant * 2^(1 - bias - mb) */
        return sign | (uint32_t)ldexp(a, mb - (1 - p->info.bias));
    uint32_t mant = (uint32_t)ldexp(ldexp(a, -e) - 1.0, mb);
    return sign | ((uint32_t)field << mb) | mant;
}

uint32_t kvn_encode(kvn_fmt f, double x, kvn_overflow mode)
{
    if ((unsigned)f >= KVN_FMT_COUNT)
        return 0;
    const fmt_params *p = &formats[f];
    double v = kvn_cast(f, x, mode).stored;
    if (p->layout == L_E8M0)
        return isnan(v) ? 0xFFu : (uint32_t)(kvn__floor_log2(v) + 127);
    return encode_value(p, v);
}

double kvn_decode(kvn_fmt f, uint32_t bits)
{
    if ((unsigned)f >= KVN_FMT_COUNT)
        return NAN;
    const fmt_params *p = &formats[f];
    int eb = p->info.exp_bits, mb = p->info.man_bits;
    if (p->info.bits < 32)
        bits &= (1u << p->info.bits) - 1;
    if (p->layout == L_E8M0)
        return bits == 0xFF ? NAN : ldexp(1.0, (int)bits - 127);
    if (p->layout == L_FNUZ && bits == 0x80)
        return NAN;
    bool neg = (bits >> (eb + mb)) & 1;
    uint32_t field = (bits >> mb) & ((1u << eb) - 1);
    uint32_t mant = bits & ((1u << mb) - 1);
    uint32_t top = (1u << eb) - 1;
    if (p->layout == L_IEEE && field == top)
        return mant ? NAN : (neg ? -INFINITY : INFINITY);
    if (p->layout == L_FN && field == top && mant == (1u << mb) - 1)
        return NAN;
    double v = field == 0 ? ldexp((double)mant, 1 - p->info.bias - mb)
                          : ldexp((double)((1u << mb) + mant), (int)field - p->info.bias - mb);
    return neg ? -v : v;
}

double kvn_bf16_bits_as_f16(double x)
{
    return kvn_decode(KVN_F16, kvn_encode(KVN_BF16, x, KVN_NONSATURATE));
}
