/*
 * internal.h: helpers shared by the numerics files (fmt.c, dtype.c, store.c). Not public API.
 *
 * Exactness trick used throughout: a quotient of two doubles is first rounded to odd
 * at 53 bits (round toward zero, then set the last bit if anything was lost). Rounding that
 * double again, to nearest even at 51 bits or fewer (every format here has at most 24), gives
 * exactly the result of rounding the real quotient once (Boldo and Melquiond, "Emulation of FMA
 * and correctly rounded sums: proved algorithms using rounding to odd", IEEE TC 57(4), 2008).
 * The odd double is built from the round-to-nearest quotient and its exact remainder (fma).
 * This holds while the quotient stays a normal double, far beyond any value a KV cache holds.
 * Products need no such care here: every product the recipes form fits in 53 bits.
 */
#ifndef KV_NUMERICS_INTERNAL_H
#define KV_NUMERICS_INTERNAL_H
#include "numerics/numerics.h"

/* a / b rounded to odd at binary64 precision (see above). */
double kvn__quot_odd(double a, double b);
/* x rounded to binary32 (nearest even), as a double; +-inf beyond the binary32 range. */
double kvn__to_f32(double x);
/* Smallest integer E with c * 2^E >= a, for finite a > 0 and c > 0 (exact). */
int kvn__ceil_log2_ratio(double a, double c);
/* floor(log2(a)) for finite a > 0 (exact). */
int kvn__floor_log2(double a);

/* kvn_cast under KVN_TRUNCATE (path.c): vLLM's CPU fp8 writer for e4m3/e5m2, x already in
 * binary32. Other formats: the non-saturating cast. */
kvn_result kvn__cast_truncate(kvn_fmt f, double x);
/* The binary32 value vLLM's CPU writer quantizes: f32(f32(x) * f32(1 / s)). */
double kvn__cpu_scaled(double x, double s);

/* binary32(absmax(in) / div), vLLM's --calculate-kv-scales scale; 1 when the row's absmax is 0
 * (dynamic.c). */
double kvn__dynamic_scale(const double *in, size_t n, double div);
/* fp8_ds_mla's scale of one tile of n values: binary32(absmax(binary32(in)) / 448), at least
 * FLT_MIN (store.c, as vLLM's concat_and_cache_ds_mla_kernel computes it). */
double kvn__ds_mla_tile_scale(const double *in, size_t n);

/* How kvn_store_row computes a dtype: one entry per modelled recipe. */
typedef enum kvn_model {
    KVN_M_ELEMENT,       /* kvn_cast per value, no scale */
    KVN_M_SCALED,        /* x / s, kvn_cast, * s; s = per-tensor scale as binary32 */
    KVN_M_INT8,          /* round(x / s) to nearest even, clamp [-128, 127], * s */
    KVN_M_MXFP4,         /* OCP MX v1.0: 32 x e2m1, E8M0 X = 2^(floor(log2 amax) - 2) */
    KVN_M_NVFP4,         /* vLLM: 16 x e2m1, E4M3 SF = e4m3(amax / (6 k)), data e2m1(x / (k SF)) */
    KVN_M_NVFP4_4OVER6,  /* as NVFP4, SF from amax/6 or amax/4, whichever reconstructs better */
    KVN_M_MXFP8,         /* SGLang: 32 x e4m3, E8M0 X = 2^ceil(log2(amax / 448)) */
    KVN_M_FP4_MX16,      /* SGLang fp4_mx_block16: 16 x e2m1, X = 2^ceil(log2(amax / 6)), ties away */
    KVN_M_INT8_PTH,      /* vLLM int8_per_token_head: s = max(amax/127, 1e-6) in binary32, truncate */
    KVN_M_FP8_PTH,       /* vLLM fp8_per_token_head: s = max(amax/448, 1e-6) in binary32, e4m3 */
    KVN_M_FP8_DS_MLA,    /* vLLM fp8_ds_mla NoPE: 128-element tiles, s = max(amax/448, FLT_MIN) in binary32,
                            e4m3(binary32(x / s)) saturating */
    KVN_M_NONE           /* auto, unmodelled */
} kvn_model;

kvn_model kvn__dtype_model(kvn_dtype d);

#endif
