/*
 * path.c: the conversion paths that turn a value into cache bytes, per platform, and the one path
 * whose arithmetic is not a plain rounding: vLLM's CPU fp8 writer (KVN_TRUNCATE).
 *
 * Each path fixes an overflow mode per element format (docs/dtypes.md gives the sources):
 *  - torch, rocm-c10: a PyTorch/c10 tensor cast, non-saturating (+-inf, or NaN without inf).
 *  - cuda, cuda-sm75: vLLM's CUDA writer, fp8::scaled_convert -> scaled_vec_conversion, which calls
 *    __nv_cvt_float_to_fp8(x / scale, __NV_SATFINITE, ...) for half, bfloat16 and float inputs on
 *    every architecture (csrc/quantization/w8a8/fp8/nvidia/quant_utils.cuh). The c10 cast that file
 *    uses below sm80 (vec_conversion<c10::Float8_e4m3fn, float>) is only reached through
 *    scaled_fp8_conversion, which clamps to +-448 first: it saturates too. What changes below sm80
 *    is the model dtype (no bfloat16), which the resolver models, not this file.
 *  - rocm: __hip_cvt_float_to_fp8(x / scale, __default_saturation, ...) (amd/quant_utils.cuh).
 *  - cpu: csrc/cpu/cpu_attn_fp8.hpp float_to_fp8e4m3_scalar / float_to_fp8e5m2_scalar: v *= inv_scale
 *    in binary32, v = max(-MAX, min(MAX, v)) (so NaN becomes +MAX), then the top mantissa bits are
 *    taken without rounding. e4m3 goes through v * 2^-120 as a binary32 (rounded to nearest even
 *    where that is subnormal) and keeps bits 20..26; e5m2 keeps bits 21..22 or shifts the subnormal
 *    mantissa right. Both are round-toward-zero on the format's grid: 19 becomes 18 in e4m3 where
 *    round-to-nearest-even gives 20.
 *  - triton: tl.store's implicit cast: formats with an infinity keep the overflow (e5m2 through a
 *    float16 conversion becomes inf), formats without one saturate (cvt.rn.satfinite).
 *
 * Not here: which paths an engine uses (check/paths.c), rounding to nearest (fmt.c).
 */
#include <math.h>
#include <string.h>

#include "numerics/internal.h"

static const kvn_path_info paths[KVN_PATH_COUNT] = {
    [KVN_PATH_TORCH] = { "torch", "a PyTorch cast", false },
    [KVN_PATH_CUDA] = { "cuda", "vLLM's CUDA cache writer", false },
    [KVN_PATH_CUDA_SM75] = { "cuda-sm75", "vLLM's CUDA cache writer (sm < 80)", false },
    [KVN_PATH_ROCM] = { "rocm", "vLLM's ROCm cache writer", true },
    [KVN_PATH_ROCM_C10] = { "rocm-c10", "a PyTorch cast on ROCm", true },
    [KVN_PATH_CPU] = { "cpu", "vLLM's CPU cache writer", false },
    [KVN_PATH_TRITON] = { "triton", "vLLM's Triton cache writer", false },
};

const kvn_path_info *kvn_path_get(kvn_path p)
{
    return (unsigned)p < KVN_PATH_COUNT ? &paths[p] : NULL;
}

bool kvn_path_parse(const char *name, kvn_path *out)
{
    for (int i = 0; name && i < KVN_PATH_COUNT; i++)
        if (strcmp(name, paths[i].name) == 0) {
            *out = (kvn_path)i;
            return true;
        }
    return false;
}

const char *kvn_path_names(void)
{
    return "torch, cuda, cuda-sm75, rocm, rocm-c10, cpu, triton";
}

static const char *const platforms[KVN_PLAT_COUNT] = {
    [KVN_PLAT_CUDA] = "cuda", [KVN_PLAT_CUDA_SM75] = "cuda-sm75", [KVN_PLAT_ROCM] = "rocm", [KVN_PLAT_CPU] = "cpu",
};

const char *kvn_platform_name(kvn_platform p)
{
    return (unsigned)p < KVN_PLAT_COUNT ? platforms[p] : "?";
}

bool kvn_platform_parse(const char *name, kvn_platform *out)
{
    for (int i = 0; name && i < KVN_PLAT_COUNT; i++)
        if (strcmp(name, platforms[i]) == 0) {
            *out = (kvn_platform)i;
            return true;
        }
    return false;
}

kvn_path kvn_platform_writer(kvn_platform p)
{
    switch (p) {
    case KVN_PLAT_CUDA_SM75: return KVN_PATH_CUDA_SM75;
    case KVN_PLAT_ROCM: return KVN_PATH_ROCM;
    case KVN_PLAT_CPU: return KVN_PATH_CPU;
    default: return KVN_PATH_CUDA;
    }
}

static bool is_fp8(kvn_fmt f)
{
    return f == KVN_E4M3 || f == KVN_E4M3FNUZ || f == KVN_E5M2 || f == KVN_E5M2FNUZ;
}

kvn_overflow kvn_path_mode(kvn_path p, kvn_fmt f)
{
    const kvn_fmt_info *fi = kvn_fmt_get(f);
    switch (p) {
    case KVN_PATH_CUDA:
    case KVN_PATH_CUDA_SM75:
    case KVN_PATH_ROCM:
        return is_fp8(f) ? KVN_SATURATE : KVN_NONSATURATE;
    case KVN_PATH_CPU:
        return f == KVN_E4M3 || f == KVN_E5M2 ? KVN_TRUNCATE : KVN_NONSATURATE;
    case KVN_PATH_TRITON:
        return is_fp8(f) && fi && !fi->has_inf ? KVN_SATURATE : KVN_NONSATURATE;
    default:
        return KVN_NONSATURATE;
    }
}

/* Round a > 0 toward zero on the grid of man_bits fraction bits with minimum exponent emin. Exact:
 * the scaled value is an integer plus a fraction below 2^25, and floor of a double is exact. */
static double truncate_grid(double a, int man_bits, int emin)
{
    int e = kvn__floor_log2(a);
    if (e < emin)
        e = emin;
    int qexp = e - man_bits;
    return ldexp(floor(ldexp(a, -qexp)), qexp);
}

double kvn__cpu_scaled(double x, double s)
{
    double inv = kvn__to_f32(kvn__quot_odd(1.0, s));
    return kvn__to_f32(kvn__to_f32(x) * inv); /* two 24-bit significands: the product is exact */
}

kvn_result kvn__cast_truncate(kvn_fmt f, double x)
{
    if (f != KVN_E4M3 && f != KVN_E5M2)
        return kvn_cast(f, x, KVN_NONSATURATE);
    const kvn_fmt_info *fi = kvn_fmt_get(f);
    double v = kvn__to_f32(x);
    bool clamped = !(fabs(v) <= fi->max); /* NaN too: min(MAX, NaN) is MAX */
    if (clamped)
        v = isnan(v) || v > 0 ? fi->max : -fi->max;
    if (v == 0) /* `if (v == 0.0f) return 0;`: +0, also for -0 */
        return (kvn_result){ 0.0, x == 0 ? KVN_EXACT : KVN_UNDERFLOW_ZERO };
    double a = fabs(v);
    if (f == KVN_E4M3) /* v * 0x1p-120f is a binary32: rounded where it is subnormal there */
        a = ldexp(kvn__to_f32(ldexp(a, -120)), 120);
    double r = a == 0 ? 0 : truncate_grid(a, fi->man_bits, f == KVN_E4M3 ? -6 : -14);
    double stored = signbit(v) ? -r : r;
    if (clamped)
        return (kvn_result){ stored, KVN_SATURATED };
    if (r == 0)
        return (kvn_result){ stored, KVN_UNDERFLOW_ZERO };
    return (kvn_result){ stored, stored == x ? KVN_EXACT : KVN_ROUNDED };
}
