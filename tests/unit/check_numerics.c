/*
 * check_numerics.c: unit tests of src/numerics against the format definitions themselves:
 * every code of every 8-bit format and of e2m1, all 65536 codes of float16 and bfloat16 (decode
 * then encode is the identity, values are monotone, each midpoint rounds to the even code and
 * its neighbours to the nearer value), the boundaries and both overflow modes, mxfp4 and nvfp4
 * blocks worked by hand from OCP MX v1.0 and vLLM's kernel, dtype names and number parsing.
 * The random-value comparison with an independent rational model is tests/e2e/cast_reference.sh.
 */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numerics/numerics.h"

/* ck_assert marks a checkpoint (a write) on every success; loops over 65536 codes use this. */
#define EXPECT(cond, ...)                 \
    do {                                  \
        if (!(cond))                      \
            ck_abort_msg(__VA_ARGS__);    \
    } while (0)

#define CAST(f, x) kvn_cast((f), (x), KVN_NONSATURATE)
#define SAT(f, x) kvn_cast((f), (x), KVN_SATURATE)

static const kvn_fmt small_formats[] = { KVN_E4M3, KVN_E4M3FNUZ, KVN_E5M2, KVN_E5M2FNUZ, KVN_E2M1, KVN_E8M0 };
static const kvn_fmt all_formats[] = { KVN_F32,  KVN_BF16,     KVN_F16,  KVN_E4M3, KVN_E4M3FNUZ,
                                       KVN_E5M2, KVN_E5M2FNUZ, KVN_E2M1, KVN_E8M0 };
enum { NSMALL = sizeof small_formats / sizeof *small_formats, NALL = sizeof all_formats / sizeof *all_formats };

static bool same(double a, double b)
{
    return (isnan(a) && isnan(b)) || (a == b && signbit(a) == signbit(b));
}

static uint32_t code_count(kvn_fmt f)
{
    return 1u << kvn_fmt_get(f)->bits;
}

/* ---- every code ---- */

/* decode then encode gives the code back (NaN: any NaN code), in both modes. */
static void check_roundtrip(kvn_fmt f)
{
    for (uint32_t c = 0; c < code_count(f); c++) {
        double v = kvn_decode(f, c);
        if (isnan(v)) {
            EXPECT(isnan(kvn_decode(f, kvn_encode(f, v, KVN_NONSATURATE))), "%s NaN", kvn_fmt_get(f)->name);
            continue;
        }
        EXPECT(kvn_encode(f, v, KVN_NONSATURATE) == c, "%s code 0x%x value %a", kvn_fmt_get(f)->name, c, v);
        if (isfinite(v))
            EXPECT(kvn_encode(f, v, KVN_SATURATE) == c, "%s sat code 0x%x", kvn_fmt_get(f)->name, c);
        kvn_result r = CAST(f, v);
        EXPECT(same(r.stored, v) && r.outcome == KVN_EXACT, "%s cast of code 0x%x", kvn_fmt_get(f)->name, c);
    }
}

/* The finite non-negative values of f in increasing order (codes with the sign bit clear, read in
 * code order, must already be increasing). Returns how many; codes[] gets their codes. */
static size_t positive_values(kvn_fmt f, double *vals, uint32_t *codes)
{
    const kvn_fmt_info *info = kvn_fmt_get(f);
    uint32_t half = f == KVN_E8M0 ? 256 : code_count(f) / 2;
    size_t n = 0;
    double last = -1;
    for (uint32_t c = 0; c < half; c++) {
        double v = kvn_decode(f, c);
        if (!isfinite(v))
            continue;
        EXPECT(v > last, "%s not monotone at 0x%x", info->name, c);
        vals[n] = last = v;
        codes[n++] = c;
    }
    EXPECT(last == info->max, "last == info->max");
    return n;
}

/* Negative codes mirror the positive ones (except fnuz's 0x80 and e8m0, which has no sign). */
static void check_mirror(kvn_fmt f)
{
    const kvn_fmt_info *info = kvn_fmt_get(f);
    if (f == KVN_E8M0)
        return;
    uint32_t sign = code_count(f) / 2;
    for (uint32_t c = 0; c < sign; c++) {
        double p = kvn_decode(f, c), m = kvn_decode(f, c | sign);
        if (c == 0 && !info->has_neg_zero) {
            EXPECT(isnan(m), "isnan(m)");
            continue;
        }
        EXPECT(same(m, -p), "%s code 0x%x", info->name, c | sign);
    }
}

/* Between neighbours a < b: the midpoint goes to the even code, one ulp (of binary64) either
 * side to the nearer value; the same for the negatives. */
static void check_midpoints(kvn_fmt f)
{
    size_t cap = code_count(f);
    double *vals = malloc(cap * sizeof *vals);
    uint32_t *codes = malloc(cap * sizeof *codes);
    size_t n = positive_values(f, vals, codes);
    for (size_t i = 0; i + 1 < n; i++) {
        double a = vals[i], b = vals[i + 1], mid = a + (b - a) / 2;
        double even = (codes[i] & 1) == 0 ? a : b;
        for (int s = 1; s >= -1; s -= 2) {
            double m = s * mid;
            double want_mid = s * even, want_lo = s * a, want_hi = s * b;
            if (f == KVN_E4M3FNUZ || f == KVN_E5M2FNUZ) {
                want_mid = want_mid == 0 ? 0 : want_mid;
                want_lo = want_lo == 0 ? 0 : want_lo;
            }
            EXPECT(same(CAST(f, m).stored, want_mid), "%s midpoint %a", kvn_fmt_get(f)->name, m);
            EXPECT(same(CAST(f, nextafter(m, s * a)).stored, want_lo), "same(CAST(f, nextafter(m, s * a)).stored, want_lo)");
            EXPECT(same(CAST(f, nextafter(m, s * b)).stored, want_hi), "same(CAST(f, nextafter(m, s * b)).stored, want_hi)");
            EXPECT(same(SAT(f, m).stored, want_mid), "same(SAT(f, m).stored, want_mid)");
        }
    }
    free(vals);
    free(codes);
}

START_TEST(every_code_small)
{
    for (int i = 0; i < NSMALL; i++) {
        check_roundtrip(small_formats[i]);
        check_mirror(small_formats[i]);
        if (small_formats[i] != KVN_E8M0)
            check_midpoints(small_formats[i]);
    }
}
END_TEST

START_TEST(every_code_16bit)
{
    check_roundtrip(KVN_F16);
    check_mirror(KVN_F16);
    check_midpoints(KVN_F16);
    check_roundtrip(KVN_BF16);
    check_mirror(KVN_BF16);
    check_midpoints(KVN_BF16);
}
END_TEST

START_TEST(e2m1_values)
{
    static const double want[8] = { 0, 0.5, 1, 1.5, 2, 3, 4, 6 };
    for (uint32_t c = 0; c < 16; c++)
        ck_assert(same(kvn_decode(KVN_E2M1, c), c & 8 ? -want[c & 7] : want[c & 7]));
    /* no inf, no NaN: overflow saturates in both modes */
    ck_assert(same(CAST(KVN_E2M1, 6.5).stored, 6) && CAST(KVN_E2M1, 6.5).outcome == KVN_ROUNDED);
    ck_assert(same(CAST(KVN_E2M1, 7).stored, 6) && CAST(KVN_E2M1, 7).outcome == KVN_SATURATED); /* 7 ties to 8 */
    ck_assert(same(CAST(KVN_E2M1, -INFINITY).stored, -6) && CAST(KVN_E2M1, -INFINITY).outcome == KVN_SATURATED);
    ck_assert(same(CAST(KVN_E2M1, 0.25).stored, 0) && CAST(KVN_E2M1, 0.25).outcome == KVN_UNDERFLOW_ZERO);
    ck_assert(same(CAST(KVN_E2M1, 5).stored, 4));   /* tie 4|6: 4 is even (0x6) */
    ck_assert(same(CAST(KVN_E2M1, 2.5).stored, 2)); /* tie 2|3: 2 is even (0x4) */
    ck_assert(same(CAST(KVN_E2M1, 0.75).stored, 1));
}
END_TEST

START_TEST(e8m0_values)
{
    ck_assert(same(kvn_decode(KVN_E8M0, 127), 1));
    ck_assert(same(kvn_decode(KVN_E8M0, 0), 0x1p-127));
    ck_assert(same(kvn_decode(KVN_E8M0, 254), 0x1p127));
    ck_assert(isnan(kvn_decode(KVN_E8M0, 255)));
    /* nearest power of two in the log domain: sqrt(2) is the boundary */
    ck_assert(same(CAST(KVN_E8M0, 1.4142).stored, 1));
    ck_assert(same(CAST(KVN_E8M0, 1.4143).stored, 2));
    ck_assert(same(CAST(KVN_E8M0, 3).stored, 4));
    ck_assert(same(CAST(KVN_E8M0, 0x1p-140).stored, 0x1p-127));
    ck_assert(CAST(KVN_E8M0, 0).outcome == KVN_OVERFLOW_NAN);
    ck_assert(CAST(KVN_E8M0, -2).outcome == KVN_OVERFLOW_NAN);
    ck_assert(CAST(KVN_E8M0, 0x1p128).outcome == KVN_OVERFLOW_NAN);
    ck_assert(same(SAT(KVN_E8M0, 0x1p128).stored, 0x1p127) && SAT(KVN_E8M0, 0x1p128).outcome == KVN_SATURATED);
    ck_assert(kvn_encode(KVN_E8M0, 0.5, KVN_NONSATURATE) == 126);
}
END_TEST

/* ---- boundaries ---- */

typedef struct boundary {
    kvn_fmt f;
    double tie_above_max;   /* max + half an ulp: rounds to even, which is past max here */
    bool tie_goes_down;     /* e4m3fn: 448 is even, so 464 stays 448 */
    double overflow_nonsat; /* what an overflow gives without saturation */
} boundary;

START_TEST(max_and_half_ulp)
{
    static const boundary b[] = {
        { KVN_F32, 0x1.ffffffp127, false, INFINITY },
        { KVN_BF16, 0x1.ffp127, false, INFINITY },
        { KVN_F16, 65520, false, INFINITY },
        { KVN_E4M3, 464, true, NAN },
        { KVN_E4M3FNUZ, 248, false, NAN },
        { KVN_E5M2, 61440, false, INFINITY },
        { KVN_E5M2FNUZ, 61440, false, NAN },
    };
    for (size_t i = 0; i < sizeof b / sizeof *b; i++) {
        kvn_fmt f = b[i].f;
        double max = kvn_fmt_get(f)->max;
        const char *name = kvn_fmt_get(f)->name;
        ck_assert_msg(CAST(f, max).outcome == KVN_EXACT, "%s max", name);
        ck_assert_msg(same(CAST(f, nextafter(b[i].tie_above_max, 0)).stored, max), "%s below tie", name);
        kvn_result t = CAST(f, b[i].tie_above_max);
        if (b[i].tie_goes_down) {
            ck_assert(same(t.stored, max) && t.outcome == KVN_ROUNDED);
            t = CAST(f, nextafter(b[i].tie_above_max, INFINITY));
        }
        ck_assert_msg(same(t.stored, b[i].overflow_nonsat), "%s overflow", name);
        ck_assert(t.outcome == (isnan(b[i].overflow_nonsat) ? KVN_OVERFLOW_NAN : KVN_OVERFLOW_INF));
        kvn_result s = SAT(f, -1e300);
        ck_assert_msg(same(s.stored, -max) && s.outcome == KVN_SATURATED, "%s saturate", name);
        s = SAT(f, INFINITY);
        ck_assert(same(s.stored, max) && s.outcome == KVN_SATURATED);
        kvn_result inf = CAST(f, -INFINITY);
        ck_assert(kvn_fmt_get(f)->has_inf ? same(inf.stored, -INFINITY) && inf.outcome == KVN_EXACT
                                          : isnan(inf.stored) && inf.outcome == KVN_OVERFLOW_NAN);
        ck_assert(isnan(CAST(f, NAN).stored) && CAST(f, NAN).outcome == KVN_EXACT);
        ck_assert(isnan(SAT(f, NAN).stored));
    }
}
END_TEST

START_TEST(subnormals)
{
    for (int i = 0; i < NALL; i++) {
        kvn_fmt f = all_formats[i];
        const kvn_fmt_info *info = kvn_fmt_get(f);
        if (f == KVN_E8M0 || f == KVN_E2M1)
            continue;
        double tiny = info->min_subnormal;
        ck_assert_msg(CAST(f, tiny).outcome == KVN_EXACT, "%s min subnormal", info->name);
        ck_assert(same(CAST(f, 2 * tiny).stored, 2 * tiny));
        ck_assert(same(CAST(f, 1.5 * tiny).stored, 2 * tiny)); /* tie 1|2 ulps: 2 is even */
        kvn_result half = CAST(f, -tiny / 2);                    /* tie 0|tiny: 0 is even */
        ck_assert(half.stored == 0 && half.outcome == KVN_UNDERFLOW_ZERO);
        ck_assert_msg(signbit(half.stored) == info->has_neg_zero, "%s signed zero", info->name);
        ck_assert(same(CAST(f, nextafter(tiny / 2, 1)).stored, tiny));
        ck_assert(same(CAST(f, info->min_normal).stored, info->min_normal));
        ck_assert(same(CAST(f, info->min_normal - tiny).stored, info->min_normal - tiny));
    }
    ck_assert(same(CAST(KVN_E4M3FNUZ, -0.0).stored, 0.0));
    ck_assert(kvn_encode(KVN_E4M3FNUZ, -0.0, KVN_NONSATURATE) == 0);
    ck_assert(kvn_encode(KVN_E4M3, -0.0, KVN_NONSATURATE) == 0x80);
}
END_TEST

START_TEST(integers)
{
    for (int i = 0; i < NALL; i++) {
        kvn_fmt f = all_formats[i];
        double n = kvn_fmt_get(f)->int_exact_max;
        if (n < 0) {
            ck_assert(CAST(f, 0).outcome != KVN_EXACT);
            continue;
        }
        double step = n > 70000 ? 4099 : 1; /* float32: sample the range, then its ends */
        for (double k = 0; k <= n; k += step)
            ck_assert_msg(CAST(f, k).outcome == KVN_EXACT, "%s %g", kvn_fmt_get(f)->name, k);
        ck_assert(CAST(f, n).outcome == KVN_EXACT && CAST(f, n - 1).outcome == KVN_EXACT);
        ck_assert_msg(CAST(f, n + 1).outcome != KVN_EXACT, "%s %g", kvn_fmt_get(f)->name, n + 1);
    }
    ck_assert(same(CAST(KVN_E4M3, 17).stored, 16));      /* adapter id 17 in e4m3 */
    ck_assert(same(CAST(KVN_BF16, 15962).stored, 15936)); /* transformers#29285 */
    ck_assert(kvn_dtype_int_exact_max(kvn_dtype_parse("fp8", false)) == 16);
    ck_assert(kvn_dtype_int_exact_max(kvn_dtype_parse("nvfp4", false)) == 4);
    ck_assert(kvn_dtype_int_exact_max(kvn_dtype_parse("auto", false)) == -1);
}
END_TEST

START_TEST(sentinels)
{
    ck_assert(isnan(CAST(KVN_E4M3, -1e9).stored));
    ck_assert(same(SAT(KVN_E4M3, -1e9).stored, -448));
    ck_assert(same(SAT(KVN_E5M2, -1e9).stored, -57344));
    ck_assert(same(CAST(KVN_E5M2, -1e9).stored, -INFINITY));
    ck_assert(same(CAST(KVN_F16, -1e9).stored, -INFINITY));
    ck_assert(same(CAST(KVN_F16, -10000).stored, -10000));
    ck_assert(same(CAST(KVN_F16, -FLT_MAX).stored, -INFINITY));
    ck_assert(same(CAST(KVN_BF16, -FLT_MAX).stored, -INFINITY)); /* finfo(float32).min in bf16 */
    ck_assert(CAST(KVN_BF16, -1e9).outcome == KVN_ROUNDED);
    ck_assert(same(kvn_bf16_bits_as_f16(-1e9), -25.71875)); /* vllm#54338 */
    ck_assert_str_eq(kvn_outcome_name(KVN_OVERFLOW_NAN), "overflow-nan");
    ck_assert_str_eq(kvn_outcome_name(KVN_CRUSHED), "crushed");
}
END_TEST

/* ---- rows ---- */

static void row(const char *dtype, const double *in, size_t n, double scale, kvn_result *out)
{
    kvn_params p = { KVN_NONSATURATE, scale, 0 };
    ck_assert(kvn_store_row(kvn_dtype_parse(dtype, false), in, n, &p, out));
}

/* OCP MX v1.0 section 6.3: X = 2^(floor(log2(max|V|)) - emax_elem), emax_elem(e2m1) = 2. */
START_TEST(mxfp4_blocks)
{
    kvn_result r[40];
    /* amax 6: X = 2^(2 - 2) = 1, every e2m1 value exact */
    double exact[8] = { 0, 0.5, -1, 1.5, 2, -3, 4, 6 };
    row("mxfp4", exact, 8, 0, r);
    for (int i = 0; i < 8; i++)
        ck_assert(same(r[i].stored, exact[i]) && r[i].outcome == KVN_EXACT);
    /* amax 7: X = 1, 7 saturates to 6 */
    double sat[2] = { 7.5, 1 };
    row("mxfp4", sat, 2, 0, r);
    ck_assert(same(r[0].stored, 6) && r[0].outcome == KVN_SATURATED);
    /* amax 8: X = 2; 1 -> 0.5 * 2; 0.3 / 2 = 0.15 -> 0: crushed (alone it has X = 2^-4) */
    double big[3] = { 8, 1, 0.3 };
    row("mxfp4", big, 3, 0, r);
    ck_assert(same(r[0].stored, 8) && same(r[1].stored, 1) && same(r[2].stored, 0));
    ck_assert(r[2].outcome == KVN_CRUSHED);
    /* the sentinel: X = 2^(29 - 2), -1e9 / X = -7.45 saturates to -6, ids 0..4 crushed */
    double mask[6] = { -1e9, 0, 1, 2, 3, 4 };
    row("mxfp4", mask, 6, 0, r);
    ck_assert(same(r[0].stored, -6 * 0x1p27) && r[0].outcome == KVN_SATURATED);
    ck_assert(r[1].outcome == KVN_EXACT);
    for (int i = 2; i < 6; i++)
        ck_assert(r[i].outcome == KVN_CRUSHED);
    /* blocks are independent: the sentinel in block 0 leaves block 1 (element 32..) alone */
    double two[34] = { -1e9 };
    two[32] = 3;
    two[33] = 5;
    row("mxfp4", two, 34, 0, r);
    ck_assert(same(r[32].stored, 3) && r[32].outcome == KVN_EXACT);   /* X = 2^(2 - 2) */
    ck_assert(same(r[33].stored, 4) && r[33].outcome == KVN_ROUNDED); /* 5 ties to 4 (even) */
    double ids[2] = { 17, 3 };                                        /* X = 2^(4 - 2) = 4 */
    row("mxfp4", ids, 2, 0, r);
    ck_assert(same(r[0].stored, 16) && same(r[1].stored, 4)); /* 3/4 ties to 1.0 (even code) */
    /* inf in a block: X is NaN, the whole block reads NaN */
    double inf[2] = { INFINITY, 1 };
    row("mxfp4", inf, 2, 0, r);
    ck_assert(isnan(r[1].stored) && r[1].outcome == KVN_OVERFLOW_NAN);
    /* all tiny: X clamps at 2^-127; an element under a quarter of it is zero on its own */
    double tiny[1] = { 0x1p-130 };
    row("mxfp4", tiny, 1, 0, r);
    ck_assert(r[0].stored == 0 && r[0].outcome == KVN_UNDERFLOW_ZERO);
}
END_TEST

/* vLLM NVFP4 KV writer: SF = e4m3_satfinite(g * amax / 6), data = e2m1(x * g / SF), g = 1/k. */
START_TEST(nvfp4_blocks)
{
    kvn_result r[16];
    double exact[4] = { 6, -3, 0.5, 1 }; /* SF = e4m3(1) = 1 */
    row("nvfp4", exact, 4, 0, r);
    for (int i = 0; i < 4; i++)
        ck_assert(same(r[i].stored, exact[i]) && r[i].outcome == KVN_EXACT);
    row("nvfp4", exact, 4, 2, r); /* k = 2: SF = e4m3(0.5), data = x / (2 * 0.5) */
    for (int i = 0; i < 4; i++)
        ck_assert(same(r[i].stored, exact[i]));
    double ids[5] = { 17, 1, 2, 3, 4 }; /* SF = e4m3(17/6 = 2.83) = 2.75 */
    row("nvfp4", ids, 5, 0, r);
    ck_assert(same(r[0].stored, 16.5) && same(r[1].stored, 1.375) && same(r[4].stored, 4.125));
    double mask[3] = { -1e9, 5, 100 }; /* SF saturates at 448; -1e9 -> -6 * 448 */
    row("nvfp4", mask, 3, 0, r);
    ck_assert(same(r[0].stored, -2688) && r[0].outcome == KVN_SATURATED);
    ck_assert(r[1].outcome == KVN_CRUSHED);                         /* 5/448 < 0.25 */
    ck_assert(same(r[2].stored, 0) && r[2].outcome == KVN_CRUSHED); /* 100/448 = 0.22; alone SF = 16 */
}
END_TEST

START_TEST(other_rows)
{
    kvn_result r[4];
    double v[3] = { -1e9, 1, 100 };
    row("fp8", v, 3, 0, r);
    ck_assert(isnan(r[0].stored) && r[0].outcome == KVN_OVERFLOW_NAN);
    row("fp8", v, 3, 1e7, r); /* k_scale 1e7 (binary32 10000000): -1e9 / 1e7 = -100 -> -96 */
    ck_assert(same(r[0].stored, -96 * 1e7) && same(r[1].stored, 0) && r[1].outcome == KVN_UNDERFLOW_ZERO);
    row("int8", v, 3, 0, r);
    ck_assert(same(r[0].stored, -128) && r[0].outcome == KVN_SATURATED && same(r[2].stored, 100));
    row("int8_per_token_head", v, 3, 0, r);
    ck_assert(r[1].outcome == KVN_CRUSHED && r[0].outcome == KVN_ROUNDED);
    double ids[2] = { 100, 3 };
    row("int8_per_token_head", ids, 2, 0, r); /* s = 100/127 in binary32; 3/s = 3.81 truncates to 3 */
    ck_assert(r[1].stored < 3 && r[1].outcome == KVN_ROUNDED);
    row("mxfp8", v, 3, 0, r);
    ck_assert(same(r[0].stored, -240 * 0x1p22) && r[1].outcome == KVN_CRUSHED);
    row("fp4_mx_block16", v, 3, 0, r);
    ck_assert(same(r[0].stored, -4 * 0x1p28) && r[2].outcome == KVN_CRUSHED);
    double ties[2] = { 6, 0.25 }; /* scale 1; 0.25 rounds away from zero to 0.5 */
    row("fp4_mx_block16", ties, 2, 0, r);
    ck_assert(same(r[1].stored, 0.5));
    kvn_params p = { KVN_NONSATURATE, 0, 0 };
    ck_assert(!kvn_store_row(kvn_dtype_parse("auto", false), v, 3, &p, r));
    ck_assert(!kvn_store_row(kvn_dtype_parse("turboquant_k8v4", false), v, 3, &p, r));
    ck_assert(!kvn_store_row(KVN_DTYPE_INVALID, v, 3, &p, r));
}
END_TEST

/* ---- names ---- */

static const char *canonical(const char *name, bool rocm)
{
    const kvn_dtype_info *info = kvn_dtype_get(kvn_dtype_parse(name, rocm));
    return info ? info->name : "(invalid)";
}

START_TEST(dtype_names)
{
    static const char *const pairs[][2] = {
        { "fp8", "fp8_e4m3" }, { "FP8", "fp8_e4m3" }, { "fp8_e4m3", "fp8_e4m3" }, { "fp8_e5m2", "fp8_e5m2" },
        { "half", "float16" }, { "float", "float32" }, { "float16", "float16" }, { "bfloat16", "bfloat16" },
        { "bf16", "bfloat16" }, { "float32", "float32" }, { "nvfp4", "nvfp4" }, { "NVFP4", "nvfp4" },
        { "INT8", "int8" }, { "mxfp8", "mxfp8" }, { "fp4_mx_block16", "fp4_mx_block16" },
        { "torch.float16", "float16" }, { "torch.half", "float16" }, { "torch.bfloat16", "bfloat16" },
        { "torch.float32", "float32" }, { "torch.float", "float32" }, { "torch.float8_e4m3fn", "fp8_e4m3" },
        { "torch.float8_e4m3fnuz", "fp8_e4m3fnuz" }, { "torch.float8_e5m2", "fp8_e5m2" },
        { "torch.float8_e5m2fnuz", "fp8_e5m2fnuz" }, { "float8_e4m3fn", "fp8_e4m3" },
        { "nvfp4_4over6", "nvfp4_4over6" }, { "int8_per_token_head", "int8_per_token_head" },
        { "fp8_per_token_head", "fp8_per_token_head" }, { "auto", "auto" }, { "mxfp4", "mxfp4" },
        { "fp8_inc", "fp8_inc" }, { "fp8_ds_mla", "fp8_ds_mla" }, { "turboquant_k8v4", "turboquant_k8v4" },
        { "turboquant_2bit_future", "turboquant_*" }, { "bogus", "(invalid)" }, { "", "(invalid)" },
        { "fp8e4m3", "(invalid)" },
    };
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++)
        ck_assert_msg(strcmp(canonical(pairs[i][0], false), pairs[i][1]) == 0, "%s -> %s", pairs[i][0],
                      canonical(pairs[i][0], false));
    ck_assert_str_eq(canonical("fp8", true), "fp8_e4m3fnuz");
    ck_assert_str_eq(canonical("fp8_e4m3", true), "fp8_e4m3fnuz");
    ck_assert_str_eq(canonical("torch.float8_e4m3fn", true), "fp8_e4m3");
    ck_assert_str_eq(canonical("fp8_e5m2", true), "fp8_e5m2");
    ck_assert(kvn_dtype_get(kvn_dtype_parse("turboquant_4bit_nc", false))->kind == KVN_KIND_UNMODELLED);
    ck_assert(kvn_dtype_get(kvn_dtype_parse("auto", false))->kind == KVN_KIND_AUTO);
    ck_assert(kvn_dtype_get(kvn_dtype_parse("mxfp4", false))->block == 32);
    ck_assert(kvn_dtype_get(kvn_dtype_parse("nvfp4", false))->scale_fmt == KVN_E4M3);
    ck_assert(kvn_dtype_parse(NULL, false) == KVN_DTYPE_INVALID);
    ck_assert(kvn_dtype_get(KVN_DTYPE_INVALID) == NULL);
}
END_TEST

/* Every modelled canonical name is in the error message list, and every name maps to itself. */
/* The suggestion for a mistyped dtype name (CLI what-ifs and KV009 share it). */
START_TEST(dtype_nearest)
{
    char b[64];
    ck_assert_str_eq(kvn_dtype_nearest("fp8_e4m4", b, sizeof b), "fp8_e4m3");
    ck_assert_str_eq(kvn_dtype_nearest("fp8e5m2", b, sizeof b), "fp8_e5m2");
    ck_assert_str_eq(kvn_dtype_nearest("FP8-E4M3", b, sizeof b), "fp8_e4m3");  /* case, '-' as '_' */
    ck_assert_str_eq(kvn_dtype_nearest("bfloat61", b, sizeof b), "bfloat16");
    ck_assert_str_eq(kvn_dtype_nearest("banana", b, sizeof b), "");             /* too far: no guess */
    ck_assert_str_eq(kvn_dtype_nearest("", b, sizeof b), "");
    ck_assert_str_eq(kvn_dtype_nearest("fp8_e4m4", b, 4), "");                  /* does not fit */
    char tiny[1];
    ck_assert_str_eq(kvn_dtype_nearest("fp8_e4m4", tiny, sizeof tiny), "");
}
END_TEST

START_TEST(dtype_table)
{
    const char *valid = kvn_dtype_valid_names();
    for (size_t i = 0; i < kvn_dtype_count(); i++) {
        const kvn_dtype_info *info = kvn_dtype_get((kvn_dtype)i);
        ck_assert(kvn_dtype_parse(info->name, false) == (kvn_dtype)i);
        for (const char *const *a = info->aliases; *a; a++)
            ck_assert_msg(kvn_dtype_parse(*a, false) == (kvn_dtype)i, "alias %s", *a);
        ck_assert(info->note && *info->note);
        if (info->kind == KVN_KIND_UNMODELLED)
            continue;
        char comma[64], paren[64];
        snprintf(comma, sizeof comma, "%s,", info->name);
        snprintf(paren, sizeof paren, "%s (", info->name);
        ck_assert_msg(strstr(valid, comma) || strstr(valid, paren), "%s not in valid names", info->name);
    }
    for (int i = 0; i < NALL; i++) {
        kvn_dtype d = kvn_dtype_by_fmt(all_formats[i]);
        ck_assert_str_eq(kvn_dtype_get(d)->name, kvn_fmt_get(all_formats[i])->name);
    }
    ck_assert(kvn_dtype_takes_scale(kvn_dtype_parse("fp8", false)));
    ck_assert(kvn_dtype_takes_scale(kvn_dtype_parse("nvfp4", false)));
    ck_assert(!kvn_dtype_takes_scale(kvn_dtype_parse("bf16", false)));
    ck_assert(!kvn_dtype_takes_scale(kvn_dtype_parse("mxfp4", false)));
}
END_TEST

/* ---- numbers ---- */

START_TEST(numbers)
{
    static const struct {
        const char *s;
        double v;
        bool b32;
    } ok[] = {
        { "1e9", 1e9, false },         { "-1e9", -1e9, false },    { "-10000.0", -10000, false },
        { "+5", 5, false },            { ".5", 0.5, false },       { "5.", 5, false },
        { "0x1p-3", 0.125, false },    { "0x10", 16, false },      { "0x1f", 31, false },
        { "0x1p3f", 8, true },         { "1e9f", 1e9, true },      { "0.1f", (double)0.1f, true },
        { "0.1", 0.1, false },         { "-3.4028235e38F", -FLT_MAX, true },
        { "1_000_000.5", 1000000.5, false }, { "inf", INFINITY, false }, { "-inf", -INFINITY, false },
        { "-Infinity", -INFINITY, false },   { "1e400", INFINITY, false }, { "-0.0", -0.0, false },
        { "1e-400", 0, false },        { "1e39f", INFINITY, true },
    };
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        double v;
        bool b32 = !ok[i].b32;
        ck_assert_msg(kvn_parse_number(ok[i].s, &v, &b32), "%s", ok[i].s);
        ck_assert_msg(same(v, ok[i].v) && b32 == ok[i].b32, "%s -> %a", ok[i].s, v);
    }
    double v;
    ck_assert(kvn_parse_number("nan", &v, NULL) && isnan(v));
    ck_assert(kvn_parse_number("-NaN", &v, NULL) && isnan(v));
    static const char *const bad[] = { "", " 1", "1 ", "abc", "1e", "--1", "1_", "_1", "1__0", "1x", "f",
                                       "inff", "0x", "1.0L", "10u", "nan1", "-", "." };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        ck_assert_msg(!kvn_parse_number(bad[i], &v, NULL), "accepted '%s'", bad[i]);
}
END_TEST

/* vLLM's CPU fp8 writer (csrc/cpu/cpu_attn_fp8.hpp) clamps and truncates; every path fixes a mode
 * per format (docs/dtypes.md). */
START_TEST(conversion_paths)
{
    kvn_result r = kvn_cast(KVN_E4M3, 19, KVN_TRUNCATE);
    ck_assert(r.stored == 18 && r.outcome == KVN_ROUNDED);
    ck_assert(SAT(KVN_E4M3, 19).stored == 20);
    r = kvn_cast(KVN_E4M3, 1920, KVN_TRUNCATE);
    ck_assert(r.stored == 448 && r.outcome == KVN_SATURATED);
    r = kvn_cast(KVN_E4M3, NAN, KVN_TRUNCATE); /* std::min(448.0f, NaN) is 448 */
    ck_assert(r.stored == 448 && r.outcome == KVN_SATURATED);
    r = kvn_cast(KVN_E5M2, -INFINITY, KVN_TRUNCATE);
    ck_assert(r.stored == -57344 && r.outcome == KVN_SATURATED);
    ck_assert(kvn_cast(KVN_E5M2, 57343, KVN_TRUNCATE).stored == 49152);
    ck_assert(kvn_cast(KVN_E4M3, 0x1.fp-7, KVN_TRUNCATE).stored == 0x1.cp-7); /* subnormal: 7 * 2^-9 */
    r = kvn_cast(KVN_E4M3, -0x1p-10, KVN_TRUNCATE);
    ck_assert(r.stored == 0 && signbit(r.stored) && r.outcome == KVN_UNDERFLOW_ZERO);
    ck_assert(!signbit(kvn_cast(KVN_E4M3, -0.0, KVN_TRUNCATE).stored)); /* `return 0` for v == 0 */
    ck_assert(same(kvn_cast(KVN_F16, 1e9, KVN_TRUNCATE).stored, INFINITY)); /* not an fp8 writer */
    ck_assert(kvn_cast(KVN_E4M3, 3.5, KVN_TRUNCATE).outcome == KVN_EXACT);

    kvn_path p;
    ck_assert(kvn_path_parse("cpu", &p) && p == KVN_PATH_CPU);
    ck_assert(!kvn_path_parse("cuda-sm70", &p));
    ck_assert(kvn_path_mode(KVN_PATH_CPU, KVN_E4M3) == KVN_TRUNCATE);
    ck_assert(kvn_path_mode(KVN_PATH_CPU, KVN_BF16) == KVN_NONSATURATE);
    ck_assert(kvn_path_mode(KVN_PATH_CUDA_SM75, KVN_E4M3) == KVN_SATURATE);
    ck_assert(kvn_path_mode(KVN_PATH_ROCM_C10, KVN_E4M3FNUZ) == KVN_NONSATURATE);
    ck_assert(kvn_path_mode(KVN_PATH_TRITON, KVN_E5M2) == KVN_NONSATURATE);
    ck_assert(kvn_path_mode(KVN_PATH_TRITON, KVN_E4M3FNUZ) == KVN_SATURATE);
    ck_assert(kvn_path_get(KVN_PATH_ROCM)->rocm && !kvn_path_get(KVN_PATH_CPU)->rocm);
    ck_assert(kvn_path_get(KVN_PATH_COUNT) == NULL);

    /* the scaled CPU writer multiplies by 1 / k_scale in binary32 */
    kvn_dtype d = kvn_dtype_parse("fp8_e4m3", false);
    double in[2] = { 19 * 0.5, 1e9 };
    kvn_result out[2];
    kvn_params prm = { KVN_TRUNCATE, 0.5, 0 };
    ck_assert(kvn_store_row(d, in, 2, &prm, out));
    ck_assert(out[0].stored == 9 && out[1].stored == 224 && out[1].outcome == KVN_SATURATED);
}
END_TEST

/* --calculate-kv-scales: the row's absmax / 200 sets the scale; the flush threshold follows it. */
START_TEST(dynamic_scales)
{
    kvn_dtype d = kvn_dtype_parse("fp8_e4m3", false);
    double in[3] = { -30000, 1.0, 0.1 };
    kvn_result out[3];
    kvn_params p = { KVN_SATURATE, 0, 200 };
    ck_assert(kvn_store_row(d, in, 3, &p, out));
    ck_assert(kvn_row_scale(d, in, 3, &p) == 150);
    ck_assert(out[1].stored == 0.87890625 && out[2].stored == 0 && out[2].outcome == KVN_CRUSHED);
    ck_assert(kvn_flush_up_to(d, -30000, &p) == 150 * 0x1p-10); /* the tie at half a subnormal is 0 */
    p.dynamic_div = 100;
    ck_assert(kvn_flush_up_to(d, -30000, &p) == 300 * 0x1p-10);
    kvn_params st = { KVN_SATURATE, 0, 0 }; /* static scale 1: half the smallest subnormal */
    ck_assert(kvn_flush_up_to(d, -30000, &st) == 0x1p-10);
    ck_assert(isnan(kvn_flush_up_to(d, INFINITY, &p)));
    kvn_dtype pth = kvn_dtype_parse("int8_per_token_head", false);
    double s = kvn_row_scale(pth, in, 3, &st);
    ck_assert(s == (double)(30000.0f / 127.0f));
    ck_assert(kvn_flush_up_to(pth, -30000, &st) < s && kvn_flush_up_to(pth, -30000, &st) > s * 0.999);
}
END_TEST

static Suite *numerics_suite(void)
{
    Suite *s = suite_create("numerics");
    TCase *codes = tcase_create("codes");
    tcase_set_timeout(codes, 120);
    tcase_add_test(codes, every_code_small);
    tcase_add_test(codes, every_code_16bit);
    tcase_add_test(codes, e2m1_values);
    tcase_add_test(codes, e8m0_values);
    suite_add_tcase(s, codes);
    TCase *edges = tcase_create("boundaries");
    tcase_add_test(edges, max_and_half_ulp);
    tcase_add_test(edges, subnormals);
    tcase_add_test(edges, integers);
    tcase_add_test(edges, sentinels);
    tcase_add_test(edges, conversion_paths);
    tcase_add_test(edges, dynamic_scales);
    suite_add_tcase(s, edges);
    TCase *rows = tcase_create("rows");
    tcase_add_test(rows, mxfp4_blocks);
    tcase_add_test(rows, nvfp4_blocks);
    tcase_add_test(rows, other_rows);
    suite_add_tcase(s, rows);
    TCase *names = tcase_create("names");
    tcase_add_test(names, dtype_names);
    tcase_add_test(names, dtype_table);
    tcase_add_test(names, dtype_nearest);
    tcase_add_test(names, numbers);
    suite_add_tcase(s, names);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(numerics_suite());
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
