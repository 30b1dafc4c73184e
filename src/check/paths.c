/*
 * paths.c: which conversion turns a value into cache bytes, per engine (DOMAIN.md section 2).
 *
 *  - PyTorch tensor cast (SGLang set_kv_buffer, transformers caches): non-saturating, so an fp8
 *    e4m3 cache gets NaN and float16/e5m2 get +-inf.
 *  - vLLM's compiled cache writer, by platform (numerics/path.c): on CUDA (any sm) and ROCm
 *    fp8::scaled_convert saturates (__NV_SATFINITE; on ROCm e4m3fnuz); on the CPU backend the fp8
 *    writer clamps and truncates toward zero.
 *  - vLLM's Triton writer (not on the CPU backend): an implicit cast whose overflow is
 *    backend-dependent. We report both outcomes by modelling the worst one per format: formats
 *    with an infinity keep the overflow (fp8 e5m2 converted through float16 becomes -inf),
 *    formats without one saturate.
 *  - vLLM with a float16 cache on a bfloat16 model copies bf16 bits that are read as float16.
 * When the engine is unknown, both a PyTorch cast and the platform's compiled writer are assumed.
 * The value first becomes a value of the model dtype (the tensors handed to a cache writer are).
 *
 * Not here: deciding whether an outcome is a finding (fam_store.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/eval.h"

kvn_result cast_to_dtype(kvn_dtype d, double x)
{
    const kvn_dtype_info *di = kvn_dtype_get(d);
    if (!di || (di->kind != KVN_KIND_ELEMENT && di->kind != KVN_KIND_SCALED))
        return (kvn_result){ NAN, KVN_OVERFLOW_NAN };
    return kvn_cast(di->elem, x, KVN_NONSATURATE);
}

static bool is_fp8(kvn_fmt f)
{
    return f == KVN_E4M3 || f == KVN_E4M3FNUZ || f == KVN_E5M2 || f == KVN_E5M2FNUZ;
}

/* An fp8 or int8 cache: the formats vLLM's cache writers saturate into. */
static bool saturable_dtype(kvn_dtype kv)
{
    const kvn_dtype_info *di = kvn_dtype_get(kv);
    return di && (di->kind == KVN_KIND_INT8 ||
                  ((di->kind == KVN_KIND_ELEMENT || di->kind == KVN_KIND_SCALED) && is_fp8(di->elem)));
}

bool store_conv_saturates(store_conv conv, kvn_dtype kv)
{
    return conv == CONV_SATURATING || (conv == CONV_SATURATING_FP8 && saturable_dtype(kv));
}

/* Outcome of x -> (model stage) -> kv stage, judged on the final value. */
static int combined_outcome(double x, kvn_result model_stage, kvn_result kv)
{
    if (isnan(kv.stored) && !isnan(x))
        return KVN_OVERFLOW_NAN;
    if (isinf(kv.stored) && !isinf(x))
        return KVN_OVERFLOW_INF;
    if (kv.outcome == KVN_SATURATED || model_stage.outcome == KVN_SATURATED ||
        (isinf(model_stage.stored) && !isinf(x)))
        return KVN_SATURATED;
    if (kv.outcome == KVN_CRUSHED)
        return KVN_CRUSHED;
    if (kv.stored == 0 && x != 0)
        return KVN_UNDERFLOW_ZERO;
    if (kv.stored != x)
        return KVN_ROUNDED;
    return KVN_EXACT;
}

static size_t add_path(path_result *out, size_t n, const char *label, kvn_dtype kv, double x,
                       kvn_result m, kvn_overflow mode)
{
    if (n >= MAX_PATHS)
        return n;
    kvn_params p = { .mode = mode, .scale = 0 };
    kvn_result r;
    if (!kvn_store_row(kv, &m.stored, 1, &p, &r))
        return n;
    out[n] = (path_result){ label, r.stored, combined_outcome(x, m, r) };
    return n + 1;
}

/* x through path p (its overflow mode for kv's element format). */
static size_t add_named(path_result *out, size_t n, kvn_path p, const char *label, kvn_dtype kv, double x,
                        kvn_result m)
{
    const kvn_dtype_info *di = kvn_dtype_get(kv);
    kvn_overflow mode = di->kind == KVN_KIND_INT8 ? KVN_SATURATE : kvn_path_mode(p, di->elem); /* int8 clamps */
    return add_path(out, n, label ? label : kvn_path_get(p)->label, kv, x, m, mode);
}

size_t store_paths(kv_engine engine, kvn_dtype kv, kvn_dtype model, kvn_platform platform, double x,
                   path_result out[MAX_PATHS])
{
    const kvn_dtype_info *di = kvn_dtype_get(kv);
    if (!di || di->kind == KVN_KIND_AUTO || di->kind == KVN_KIND_UNMODELLED)
        return 0;
    kvn_result m = { x, KVN_EXACT };
    const kvn_dtype_info *mi = kvn_dtype_get(model);
    if (mi && (mi->kind == KVN_KIND_ELEMENT || mi->kind == KVN_KIND_SCALED))
        m = kvn_cast(mi->elem, x, KVN_NONSATURATE);

    if (di->kind == KVN_KIND_ELEMENT && di->elem == KVN_F16 && mi && mi->kind == KVN_KIND_ELEMENT &&
        mi->elem == KVN_BF16 && engine == ENGINE_VLLM) {
        double rb = kvn_bf16_bits_as_f16(m.stored);
        out[0] = (path_result){ "vLLM's cache writer, which copies bfloat16 bits into the float16 cache", rb,
                                rb == x ? KVN_EXACT : OUTC_REINTERPRETED };
        return 1;
    }
    bool saturable = saturable_dtype(kv);
    if (di->kind == KVN_KIND_BLOCK || di->kind == KVN_KIND_DYNAMIC)
        return add_path(out, 0, "the quantizing cache writer", kv, x, m, KVN_SATURATE);
    if (!saturable)
        return add_path(out, 0, "a PyTorch cast", kv, x, m, KVN_NONSATURATE);

    size_t n = 0;
    kvn_path writer = kvn_platform_writer(platform);
    /* below sm80 the writer is the same code and saturates the same way: labelled as on sm >= 80 */
    const char *wlabel = writer == KVN_PATH_CUDA_SM75 ? kvn_path_get(KVN_PATH_CUDA)->label : NULL;
    if (engine == ENGINE_VLLM) {
        n = add_named(out, n, writer, wlabel, kv, x, m);
        if (platform != KVN_PLAT_CPU) /* the CPU backend has no Triton writer */
            n = add_named(out, n, KVN_PATH_TRITON, NULL, kv, x, m);
    } else if (engine == ENGINE_SGLANG || engine == ENGINE_TRANSFORMERS) {
        n = add_named(out, n, KVN_PATH_TORCH, engine == ENGINE_SGLANG ? "a PyTorch cast (SGLang set_kv_buffer)" : NULL,
                      kv, x, m);
    } else {
        n = add_named(out, n, KVN_PATH_TORCH, NULL, kv, x, m);
        n = add_named(out, n, writer, platform == KVN_PLAT_CPU ? NULL : "a saturating cache kernel", kv, x, m);
    }
    return n;
}

size_t store_path_coded(const char *api, bool saturating, kvn_dtype kv, double x, kv_arena *a,
                        path_result out[MAX_PATHS])
{
    const kvn_dtype_info *di = kvn_dtype_get(kv);
    if (!di || di->kind == KVN_KIND_AUTO || di->kind == KVN_KIND_UNMODELLED)
        return 0;
    const char *label = arena_printf(a, "%s (%s)", api ? api : "the kernel's conversion",
                                     saturating ? "saturating" : "non-saturating");
    return add_path(out, 0, label, kv, x, (kvn_result){ x, KVN_EXACT }, saturating ? KVN_SATURATE : KVN_NONSATURATE);
}
