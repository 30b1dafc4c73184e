/*
 * store.c: kvn_store_row, what a row of values reads back as after it was written into a cache of
 * a given dtype: element casts, per-tensor scaled fp8 and int8, the block formats (mxfp4, nvfp4,
 * nvfp4_4over6, mxfp8, fp4_mx_block16), the dynamic per-token-head formats and fp8_ds_mla's
 * dynamic tiles.
 *
 * Arithmetic model. The block and scaled recipes are specified in real arithmetic and evaluated
 * exactly: every quantity is rounded once, where the recipe quantizes (the scale to its format,
 * each element to its format). Scales given by the user (k_scale) are binary32, as every engine
 * stores them. Kernels that compute x / scale in binary32 first can differ from this at exact
 * ties (double rounding); docs/dtypes.md lists where. The per-token-head recipes are the
 * exception: vLLM's Triton kernel spells out a binary32 sequence (scale = max(amax / QMAX, 1e-6),
 * q = x * (1 / scale)), and that sequence is reproduced operation by operation.
 *
 * Outcome of an element that became 0: `crushed` if the element alone (a block or row holding
 * only it) would not have become 0, so a larger neighbour set the scale; otherwise
 * `underflow-zero`. A NaN input reads back as NaN in every dtype (formats without a NaN encoding
 * write implementation-defined bits there); a block holding inf or NaN whose recipe cannot form a
 * scale reads back NaN throughout.
 *
 * --calculate-kv-scales (kvn_params.dynamic_div) computes the per-tensor scale from the row itself
 * (dynamic.c); a value it rounds to 0 is `crushed` (alone it would set a scale that keeps it).
 *
 * Deliberately not here: names (dtype.c), element rounding (fmt.c). No allocation.
 */
#include <math.h>
#include <string.h>

#include "numerics/internal.h"

enum { MAX_BLOCK = 128 };

/* A user scale as the engines hold it: binary32, positive and finite, else 1. */
static double scale_of(const kvn_params *p)
{
    double s = p ? kvn__to_f32(p->scale) : 1.0;
    return s > 0 && isfinite(s) ? s : 1.0;
}

static kvn_overflow mode_of(const kvn_params *p)
{
    return p ? p->mode : KVN_NONSATURATE;
}

/* The outcome of reading back `stored` for input x; hint carries what only the cast knows
 * (clamped: saturated; zero: underflow-zero). */
static kvn_outcome classify(double x, double stored, kvn_outcome hint)
{
    if (isnan(x)) /* a NaN clamped to +max (vLLM's CPU writer) is saturated */
        return isnan(stored) ? KVN_EXACT : hint == KVN_SATURATED ? KVN_SATURATED : KVN_ROUNDED;
    if (isnan(stored))
        return KVN_OVERFLOW_NAN;
    if (isinf(stored))
        return stored == x ? KVN_EXACT : KVN_OVERFLOW_INF;
    if (stored == x)
        return KVN_EXACT;
    if (hint == KVN_SATURATED)
        return KVN_SATURATED;
    if (stored == 0)
        return KVN_UNDERFLOW_ZERO;
    return KVN_ROUNDED;
}

static void fill_nan(const double *in, size_t n, kvn_result *out)
{
    for (size_t i = 0; i < n; i++)
        out[i] = (kvn_result){ NAN, isnan(in[i]) ? KVN_EXACT : KVN_OVERFLOW_NAN };
}

static bool all_finite(const double *in, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(in[i]))
            return false;
    return true;
}

/* Largest |x| over the non-NaN values (inf included), 0 for none. */
static double absmax(const double *in, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++)
        if (fabs(in[i]) > m)
            m = fabs(in[i]);
    return m;
}

/* ---- element and per-tensor ---- */

static void store_element(kvn_fmt f, const double *in, size_t n, kvn_overflow mode, kvn_result *out)
{
    for (size_t i = 0; i < n; i++)
        out[i] = kvn_cast(f, in[i], mode);
}

static void store_scaled(kvn_fmt f, const double *in, size_t n, double s, kvn_overflow mode,
                         kvn_result *out)
{
    for (size_t i = 0; i < n; i++) {
        /* vLLM's CPU writer multiplies by 1 / s in binary32; the others divide (exactly here) */
        double q = mode == KVN_TRUNCATE ? kvn__cpu_scaled(in[i], s) : kvn__quot_odd(in[i], s);
        kvn_result r = kvn_cast(f, q, mode);
        double stored = r.stored * s;
        out[i] = (kvn_result){ stored, classify(in[i], stored, r.outcome) };
    }
}

/* TensorRT-LLM INT8 KV: cvt.rni.sat.s8.f32 of x / scale. */
static void store_int8(const double *in, size_t n, double s, kvn_result *out)
{
    for (size_t i = 0; i < n; i++) {
        double x = in[i];
        if (isnan(x)) {
            out[i] = (kvn_result){ NAN, KVN_EXACT };
            continue;
        }
        double q = nearbyint(kvn__quot_odd(x, s));
        kvn_outcome hint = KVN_ROUNDED;
        if (q > 127 || q < -128) {
            q = q > 0 ? 127 : -128;
            hint = KVN_SATURATED;
        }
        double stored = q == 0 ? 0.0 : q * s;
        out[i] = (kvn_result){ stored, classify(x, stored, hint) };
    }
}

/* ---- blocks ---- */

/* Each element of a block stored as elem (saturating) under the block scale 2^e (MX formats). */
static void store_pow2_scaled(const double *in, size_t n, kvn_fmt elem, int e, kvn_result *out)
{
    for (size_t i = 0; i < n; i++) {
        kvn_result r = kvn_cast(elem, ldexp(in[i], -e), KVN_SATURATE);
        double stored = ldexp(r.stored, e);
        out[i] = (kvn_result){ stored, classify(in[i], stored, r.outcome) };
    }
}

/* OCP MX v1.0 section 6.3: X = 2^(floor(log2(amax)) - emax_elem), P_i = e2m1(V_i / X), saturating.
 * A block holding inf or NaN, or needing X > 2^127, has X = NaN. X below 2^-127 is 2^-127. */
static void block_mxfp4(const double *in, size_t n, kvn_result *out)
{
    double amax = absmax(in, n);
    if (!all_finite(in, n)) {
        fill_nan(in, n, out);
        return;
    }
    int e = amax > 0 ? kvn__floor_log2(amax) - 2 : -127;
    if (e > 127) {
        fill_nan(in, n, out);
        return;
    }
    store_pow2_scaled(in, n, KVN_E2M1, e < -127 ? -127 : e, out);
}

/* vLLM NVFP4 KV (csrc reshape_and_cache_flash nvfp4 writer): SF = e4m3_satfinite(g amax / 6),
 * data = e2m1_satfinite(x g / SF), read back data SF / g, with g = 1 / k_scale. `div` is 6, or 4
 * for the 4-over-6 candidate. Returns the sum of squared errors (for 4-over-6). */
static double block_nvfp4_with(const double *in, size_t n, double k, double div, kvn_result *out)
{
    double amax = absmax(in, n);
    double sf = kvn_cast(KVN_E4M3, kvn__quot_odd(amax, div * k), KVN_SATURATE).stored;
    double err = 0;
    for (size_t i = 0; i < n; i++) {
        double x = in[i];
        kvn_result r;
        if (sf == 0)
            r = (kvn_result){ x * 0.0, KVN_UNDERFLOW_ZERO }; /* the kernel's out_scale is 0 */
        else
            r = kvn_cast(KVN_E2M1, kvn__quot_odd(x, k * sf), KVN_SATURATE);
        double stored = r.stored * sf * k;
        out[i] = (kvn_result){ stored, classify(x, stored, r.outcome) };
        if (isfinite(x))
            err += (x - stored) * (x - stored);
    }
    return err;
}

static void block_nvfp4(const double *in, size_t n, double k, kvn_result *out)
{
    block_nvfp4_with(in, n, k, 6.0, out);
}

static void block_nvfp4_4over6(const double *in, size_t n, double k, kvn_result *out)
{
    kvn_result four[MAX_BLOCK];
    double e6 = block_nvfp4_with(in, n, k, 6.0, out);
    double e4 = block_nvfp4_with(in, n, k, 4.0, four);
    if (e4 < e6)
        memcpy(out, four, n * sizeof *out);
}

/* SGLang to_mxfp8 (sglang/kernels/ops/quantization/mxfp8_quant.py): biased exponent
 * clamp(ceil(log2(max(amax, 1e-30) / 448)) + 127, 0, 254), x / 2^(e-127) clamped to +-448, e4m3. */
static void block_mxfp8(const double *in, size_t n, kvn_result *out)
{
    double amax = absmax(in, n);
    if (amax < 1e-30)
        amax = 1e-30;
    int e = isinf(amax) ? 127 : kvn__ceil_log2_ratio(amax, 448);
    store_pow2_scaled(in, n, KVN_E4M3, e > 127 ? 127 : e < -127 ? -127 : e, out);
}

/* SGLang KVFP4QuantizeUtil (fp4_mx_block16): scale_exp = ceil(log2(max(amax / 6, 1e-10))),
 * magnitude = number of the bounds 0.25 0.75 1.25 1.75 2.5 3.5 5 that are <= |x| / 2^scale_exp,
 * so ties round away from zero. A block holding inf or NaN has no usable scale (NaN). */
static void block_fp4_mx16(const double *in, size_t n, kvn_result *out)
{
    static const double bounds[7] = { 0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5 };
    static const double values[8] = { 0, 0.5, 1, 1.5, 2, 3, 4, 6 };
    if (!all_finite(in, n)) {
        fill_nan(in, n, out);
        return;
    }
    double amax = absmax(in, n);
    int e = amax > 0 ? kvn__ceil_log2_ratio(amax, 6) : -33;
    if (e < -33) /* 1e-10 lies in (2^-34, 2^-33] */
        e = -33;
    if (e > 127)
        e = 127;
    for (size_t i = 0; i < n; i++) {
        double v = ldexp(fabs(in[i]), -e);
        int m = 0;
        while (m < 7 && bounds[m] <= v)
            m++;
        double stored = ldexp(values[m], e);
        if (in[i] < 0)
            stored = -stored;
        out[i] = (kvn_result){ stored, classify(in[i], stored, m == 7 && v > 6 ? KVN_SATURATED : KVN_ROUNDED) };
    }
}

/* ---- dynamic per (token, head): vLLM triton_quant_kv _reshape_cache_per_token_head_kernel ---- */

static void row_per_token_head(const double *in, size_t n, bool fp8, kvn_result *out)
{
    const float qmax = fp8 ? 448.0f : 127.0f, qmin = fp8 ? -448.0f : -128.0f;
    float amax = 0.0f;
    for (size_t i = 0; i < n; i++) {
        float a = fabsf((float)kvn__to_f32(in[i]));
        if (a > amax)
            amax = a;
    }
    float s = amax / qmax;
    if (!(s >= 1e-6f))
        s = 1e-6f;
    float inv = 1.0f / s;
    for (size_t i = 0; i < n; i++) {
        if (isnan(in[i])) {
            out[i] = (kvn_result){ NAN, KVN_EXACT };
            continue;
        }
        float q = (float)kvn__to_f32(in[i]) * inv;
        if (q > qmax)
            q = qmax;
        if (q < qmin)
            q = qmin;
        double code = fp8 ? kvn_cast(KVN_E4M3, q, KVN_SATURATE).stored : trunc((double)q);
        double stored = code * (double)s;
        if (stored == 0)
            stored = fp8 ? stored : 0.0;
        out[i] = (kvn_result){ stored, classify(in[i], stored, KVN_ROUNDED) };
    }
}

/* ---- dynamic per tile: vLLM concat_and_cache_ds_mla_kernel (csrc/libtorch_stable/cache_kernels.cu) ----
 *
 * One tile of 128 NoPE latents: tile_scale = fmaxf(max_abs / 448.f, FLT_MIN) (fmaxf leaves NaN out
 * of max_abs), each element __nv_cvt_float_to_fp8(x / tile_scale, __NV_SATFINITE, E4M3), read
 * back as code * tile_scale. Every step is one binary32 operation, reproduced exactly (the file is
 * built without fast math). An infinity makes the scale inf: finite values then quantize to 0 and
 * read back 0 * inf, and inf / inf is NaN, so the whole tile reads NaN. */
double kvn__ds_mla_tile_scale(const double *in, size_t n)
{
    double amax = 0;
    for (size_t i = 0; i < n; i++) {
        double a = fabs(kvn__to_f32(in[i]));
        if (a > amax)
            amax = a;
    }
    double s = kvn__to_f32(kvn__quot_odd(amax, 448.0));
    return s >= 0x1p-126 ? s : 0x1p-126; /* FLT_MIN */
}

static void tile_ds_mla(const double *in, size_t n, kvn_result *out)
{
    double s = kvn__ds_mla_tile_scale(in, n);
    for (size_t i = 0; i < n; i++) {
        double x = kvn__to_f32(in[i]);
        if (isnan(x) || isinf(s)) {
            out[i] = (kvn_result){ NAN, isnan(in[i]) ? KVN_EXACT : KVN_OVERFLOW_NAN };
            continue;
        }
        double q = kvn__to_f32(kvn__quot_odd(x, s));
        double stored = kvn_cast(KVN_E4M3, q, KVN_SATURATE).stored * s;
        out[i] = (kvn_result){ stored, classify(in[i], stored, KVN_ROUNDED) };
    }
}

/* ---- dispatch ---- */

static void store_chunk(kvn_model m, const double *in, size_t n, const kvn_params *p, kvn_result *out)
{
    switch (m) {
    case KVN_M_MXFP4:
        block_mxfp4(in, n, out);
        break;
    case KVN_M_NVFP4:
        block_nvfp4(in, n, scale_of(p), out);
        break;
    case KVN_M_NVFP4_4OVER6:
        block_nvfp4_4over6(in, n, scale_of(p), out);
        break;
    case KVN_M_MXFP8:
        block_mxfp8(in, n, out);
        break;
    case KVN_M_FP4_MX16:
        block_fp4_mx16(in, n, out);
        break;
    case KVN_M_INT8_PTH:
        row_per_token_head(in, n, false, out);
        break;
    case KVN_M_FP8_PTH:
        row_per_token_head(in, n, true, out);
        break;
    case KVN_M_FP8_DS_MLA:
        tile_ds_mla(in, n, out);
        break;
    default:
        break;
    }
}

/* An element that became 0 while it would not have on its own was crushed by the shared scale. */
static void mark_crushed(kvn_model m, const double *in, size_t n, const kvn_params *p, kvn_result *out)
{
    for (size_t i = 0; i < n; i++) {
        if (out[i].outcome != KVN_UNDERFLOW_ZERO)
            continue;
        kvn_result alone;
        store_chunk(m, &in[i], 1, p, &alone);
        if (alone.stored != 0)
            out[i].outcome = KVN_CRUSHED;
    }
}

/* Cut the row into blocks of `block`; the last one is padded with zeros (which change no scale:
 * every recipe here takes the absolute maximum). */
static void store_blocks(kvn_model m, int block, const double *in, size_t n, const kvn_params *p,
                         kvn_result *out)
{
    double pad[MAX_BLOCK];
    kvn_result res[MAX_BLOCK];
    for (size_t start = 0; start < n; start += (size_t)block) {
        size_t len = n - start < (size_t)block ? n - start : (size_t)block;
        memset(pad, 0, sizeof pad);
        memcpy(pad, &in[start], len * sizeof *pad);
        store_chunk(m, pad, (size_t)block, p, res);
        mark_crushed(m, pad, len, p, res);
        memcpy(&out[start], res, len * sizeof *res);
    }
}

bool kvn_store_row(kvn_dtype d, const double *in, size_t n, const kvn_params *p, kvn_result *out)
{
    const kvn_dtype_info *info = kvn_dtype_get(d);
    kvn_model m = kvn__dtype_model(d);
    if (!info || m == KVN_M_NONE)
        return false;
    switch (m) {
    case KVN_M_ELEMENT:
        store_element(info->elem, in, n, mode_of(p), out);
        break;
    case KVN_M_SCALED:
        if (p && p->dynamic_div > 0) { /* every nonzero value alone would set its own scale: never 0 */
            store_scaled(info->elem, in, n, kvn__dynamic_scale(in, n, p->dynamic_div), mode_of(p), out);
            for (size_t i = 0; i < n; i++)
                if (out[i].outcome == KVN_UNDERFLOW_ZERO)
                    out[i].outcome = KVN_CRUSHED;
        } else {
            store_scaled(info->elem, in, n, scale_of(p), mode_of(p), out);
        }
        break;
    case KVN_M_INT8:
        store_int8(in, n, scale_of(p), out);
        break;
    case KVN_M_INT8_PTH:
    case KVN_M_FP8_PTH:
        store_chunk(m, in, n, p, out);
        mark_crushed(m, in, n, p, out);
        break;
    default:
        if (info->block <= 0 || info->block > MAX_BLOCK)
            return false; /* a table entry this file cannot hold: refuse rather than overrun */
        store_blocks(m, info->block, in, n, p, out);
        break;
    }
    return true;
}
