/*
 * dynamic.c: scales a stored row sets for its neighbours: vLLM's --calculate-kv-scales per-tensor
 * scale, the per-token-head scale, fp8_ds_mla's per-tile scale, and the flush threshold (the magnitude below which a value
 * stored next to a large one reads back 0).
 *
 * --calculate-kv-scales (vLLM Attention.calc_kv_scales): k_scale = abs(key).max() / K_SCALE_CONSTANT
 * (200), v_scale = abs(value).max() / V_SCALE_CONSTANT (100), in float32 (vllm/envs.py). One large
 * stored value sets the scale of the whole tensor: -30000 gives a K scale of 150, and an e4m3 key
 * then needs |x| / 150 >= 2^-10 (half the smallest subnormal) to read back nonzero, so every key
 * below 0.146 becomes 0. A row whose absmax is 0 keeps scale 1; an infinity makes the scale inf
 * and every value reads back NaN.
 *
 * The flush threshold (the largest magnitude that reads back 0) is found by bisection over the ordered binary64 values between 0 and |big|
 * with kvn_store_row itself, so it is exact for every recipe whose storage is monotone in the
 * magnitude (all of them except possibly nvfp4_4over6's choice between two scales).
 *
 * Not here: the recipes (store.c).
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "numerics/internal.h"

double kvn__dynamic_scale(const double *in, size_t n, double div)
{
    double amax = 0;
    for (size_t i = 0; i < n; i++)
        if (fabs(in[i]) > amax) /* a NaN compares false and is left out */
            amax = fabs(in[i]);
    if (amax == 0)
        return 1.0;
    return kvn__to_f32(kvn__quot_odd(kvn__to_f32(amax), div));
}

double kvn_row_scale(kvn_dtype d, const double *in, size_t n, const kvn_params *p)
{
    switch (kvn__dtype_model(d)) {
    case KVN_M_SCALED:
        if (p && p->dynamic_div > 0)
            return kvn__dynamic_scale(in, n, p->dynamic_div);
        /* fall through */
    case KVN_M_INT8: {
        double s = p ? kvn__to_f32(p->scale) : 1.0;
        return s > 0 && isfinite(s) ? s : 1.0;
    }
    case KVN_M_INT8_PTH:
    case KVN_M_FP8_PTH: {
        /* max(amax / QMAX, 1e-6) in binary32, as the kernel computes it */
        float qmax = kvn__dtype_model(d) == KVN_M_FP8_PTH ? 448.0f : 127.0f, amax = 0.0f;
        for (size_t i = 0; i < n; i++) {
            float a = fabsf((float)kvn__to_f32(in[i]));
            if (a > amax)
                amax = a;
        }
        float s = amax / qmax;
        return s >= 1e-6f ? (double)s : (double)1e-6f;
    }
    case KVN_M_FP8_DS_MLA: {
        /* the tiles' largest scale: the one of the tile that holds the row's absmax */
        return kvn__ds_mla_tile_scale(in, n);
    }
    default:
        return NAN;
    }
}

/* Whether y, stored in one row with big, reads back nonzero. */
static bool survives(kvn_dtype d, double big, double y, const kvn_params *p)
{
    double row[2] = { big, y };
    kvn_result out[2];
    if (!kvn_store_row(d, row, 2, p, out))
        return false;
    return out[1].stored != 0 && !isnan(out[1].stored);
}

static uint64_t bits_of(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

static double of_bits(uint64_t b)
{
    double x;
    memcpy(&x, &b, sizeof x);
    return x;
}

double kvn_flush_up_to(kvn_dtype d, double big, const kvn_params *p)
{
    double a = fabs(big);
    if (!isfinite(a) || a == 0 || !survives(d, big, a, p))
        return NAN;
    /* positive doubles are ordered as their bit patterns: lo never survives, hi always does */
    uint64_t lo = 0, hi = bits_of(a);
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (survives(d, big, of_bits(mid), p))
            hi = mid;
        else
            lo = mid;
    }
    return of_bits(lo);
}
