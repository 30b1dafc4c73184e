/*
 * numerics.h: what a value becomes when it is stored in a KV-cache format. Exact.
 *
 * This library is the arithmetic heart of kvlint and depends on nothing else in it (libc and libm
 * only). Every rule ends in one of its questions: what does x become as dtype D along conversion
 * path P, what is the largest integer D holds exactly, how does one large value in a block change
 * its neighbours.
 *
 * Two layers:
 *  - element formats (kvn_fmt): float32, bfloat16, float16, the fp8 family, fp4 e2m1, e8m0.
 *    kvn_cast() rounds a binary64 to nearest even with subnormals, signed zero and each format's
 *    own NaN/inf encodings, under one of two overflow modes.
 *  - storage dtypes (kvn_dtype): what users name in configs and code (`fp8`, `half`, `nvfp4`,
 *    `torch.float8_e4m3fn`, `mxfp4`, `int8_per_token_head`, ...). A dtype is an element format, a
 *    block format (mxfp4, nvfp4, mxfp8), a scaled format (per-tensor / per-token-head fp8, int8), the
 *    symbolic `auto` (resolved by later stages), or "not modelled" (known name, no model: never guessed).
 *
 * Every value of every format here is exactly a binary64, so results are returned as doubles.
 * All functions are pure and thread-safe.
 */
#ifndef KV_NUMERICS_H
#define KV_NUMERICS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- element formats ---- */

typedef enum kvn_fmt {
    KVN_F32,
    KVN_BF16,
    KVN_F16,
    KVN_E4M3,      /* OCP e4m3fn: bias 7, S.1111.111 NaN, no inf, max 448 */
    KVN_E4M3FNUZ,  /* AMD: bias 8, 0x80 NaN, no -0, no inf, max 240 */
    KVN_E5M2,      /* bias 15, IEEE-like inf/NaN, max 57344 */
    KVN_E5M2FNUZ,  /* AMD: bias 16, 0x80 NaN, no -0, no inf, max 57344 */
    KVN_E2M1,      /* fp4: 0 .5 1 1.5 2 3 4 6, no inf, no NaN */
    KVN_E8M0,      /* MX scale: 2^(e-127), e=0xFF NaN, no sign, no zero */
    KVN_FMT_COUNT
} kvn_fmt;

typedef enum kvn_overflow {
    KVN_NONSATURATE, /* PyTorch tensor cast: +-inf where the format has one, NaN otherwise */
    KVN_SATURATE,    /* CUDA __NV_SATFINITE: clamp to +-max (inf too); NaN stays NaN */
    KVN_TRUNCATE     /* vLLM's CPU fp8 writer (e4m3, e5m2 only; other formats: as NONSATURATE):
                      * binary32, clamp to +-max (inf too, and NaN to +max), then round toward
                      * zero (path.c) */
} kvn_overflow;

typedef enum kvn_outcome {
    KVN_EXACT,          /* stored == input (NaN in, NaN out counts as exact) */
    KVN_ROUNDED,        /* finite, nonzero, different */
    KVN_SATURATED,      /* clamped to +-max */
    KVN_OVERFLOW_INF,   /* became +-inf */
    KVN_OVERFLOW_NAN,   /* became NaN */
    KVN_UNDERFLOW_ZERO, /* nonzero became +-0 on its own */
    KVN_CRUSHED,        /* nonzero became 0 because a shared (block/tensor) scale was set by a larger value */
    KVN_OUTCOME_COUNT
} kvn_outcome;

typedef struct kvn_fmt_info {
    const char *name;        /* canonical: "float16", "fp8_e4m3", ... */
    int bits;
    int exp_bits, man_bits, bias;
    double max;              /* largest finite */
    double min_normal;
    double min_subnormal;    /* == min_normal when the format has no subnormals (e8m0) */
    bool has_inf;
    bool has_neg_zero;
    bool has_nan;
    const char *nan_encoding; /* "S.11111.xx (xx!=0)", "S.1111.111", "0x80", "0xFF", "none" */
    double int_exact_max;    /* largest N such that every integer 0..N is exact */
} kvn_fmt_info;

typedef struct kvn_result {
    double stored;
    kvn_outcome outcome;
} kvn_result;

const kvn_fmt_info *kvn_fmt_get(kvn_fmt f);
/* Round x to f (nearest even), under mode. */
kvn_result kvn_cast(kvn_fmt f, double x, kvn_overflow mode);
/* Encode x to f's bit pattern (after rounding as kvn_cast does) and decode a bit pattern. */
uint32_t kvn_encode(kvn_fmt f, double x, kvn_overflow mode);
double kvn_decode(kvn_fmt f, uint32_t bits);
const char *kvn_outcome_name(kvn_outcome o); /* "exact", "rounded", "saturated", "overflow-inf", ... */
/* bf16 bits of x read back as float16 (vLLM --kv-cache-dtype float16 on a bfloat16 model). */
double kvn_bf16_bits_as_f16(double x);

/* ---- conversion paths (path.c) ---- */

/* The writers that turn a value into cache bytes, by platform (docs/dtypes.md, with sources).
 * A path fixes the overflow mode per element format; which paths an engine uses on a platform is
 * the checker's business (check/paths.c). */
typedef enum kvn_path {
    KVN_PATH_TORCH,     /* PyTorch tensor cast (c10): SGLang set_kv_buffer, transformers caches */
    KVN_PATH_CUDA,      /* vLLM's CUDA cache writer (fp8::scaled_convert, __NV_SATFINITE), sm >= 80 */
    KVN_PATH_CUDA_SM75, /* the same writer on sm < 80 (T4, V100): it saturates there too */
    KVN_PATH_ROCM,      /* vLLM's ROCm writer (__hip_cvt_float_to_fp8, __default_saturation) */
    KVN_PATH_ROCM_C10,  /* a c10 cast to Float8_e4m3fnuz on ROCm (torch .to()): non-saturating */
    KVN_PATH_CPU,       /* vLLM's CPU fp8 writer (cpu_attn_fp8.hpp): clamp and truncate */
    KVN_PATH_TRITON,    /* vLLM's Triton writer (tl.store): formats with inf overflow, others saturate */
    KVN_PATH_COUNT
} kvn_path;

typedef struct kvn_path_info {
    const char *name;     /* "torch", "cuda", "cuda-sm75", "rocm", "rocm-c10", "cpu", "triton" */
    const char *label;    /* as a finding names it: "vLLM's CPU cache writer" */
    bool rocm;            /* fp8 means fp8_e4m3fnuz on this path's platform */
} kvn_path_info;

/* The platform a deployment runs on: which writers exist and what `fp8` means there. */
typedef enum kvn_platform {
    KVN_PLAT_CUDA,       /* NVIDIA sm >= 80 (the default) */
    KVN_PLAT_CUDA_SM75,  /* NVIDIA below sm80 (T4, V100): no bfloat16, auto model dtypes run as float16 */
    KVN_PLAT_ROCM,       /* AMD MI300 class: fp8 means fp8_e4m3fnuz */
    KVN_PLAT_CPU,        /* vLLM's CPU backend: its own fp8 writer */
    KVN_PLAT_COUNT
} kvn_platform;

/* "cuda", "cuda-sm75", "rocm", "cpu"; parse returns false for any other name. */
const char *kvn_platform_name(kvn_platform p);
bool kvn_platform_parse(const char *name, kvn_platform *out);
/* The path of vLLM's compiled (non-Triton) cache writer on platform p. */
kvn_path kvn_platform_writer(kvn_platform p);

const kvn_path_info *kvn_path_get(kvn_path p);
/* Find a path by name; false if none. */
bool kvn_path_parse(const char *name, kvn_path *out);
/* Comma-separated path names (static storage). */
const char *kvn_path_names(void);
/* The overflow mode the path applies to element format f. */
kvn_overflow kvn_path_mode(kvn_path p, kvn_fmt f);

/* ---- storage dtypes ---- */

typedef enum kvn_kind {
    KVN_KIND_ELEMENT,   /* one element format, no scale */
    KVN_KIND_SCALED,    /* element format after x / scale (per-tensor k_scale/v_scale), read back * scale */
    KVN_KIND_DYNAMIC,   /* scaled by absmax at write time: per token-head (fp8/int8_per_token_head, block
                           0: the whole row), or per tile of `block` elements (fp8_ds_mla) */
    KVN_KIND_BLOCK,     /* block of `block` elements sharing one scale of `scale_fmt` (mxfp4, nvfp4, mxfp8) */
    KVN_KIND_INT8,      /* symmetric int8 with a scale, saturating */
    KVN_KIND_AUTO,      /* "auto": resolved by later stages to the model dtype or a checkpoint scheme */
    KVN_KIND_UNMODELLED /* a real dtype name the numerics do not model (e.g. turboquant_*) */
} kvn_kind;

typedef int kvn_dtype; /* index into the dtype table; KVN_DTYPE_INVALID when unknown */
#define KVN_DTYPE_INVALID (-1)

typedef struct kvn_dtype_info {
    const char *name;             /* canonical */
    const char *const *aliases;   /* NULL-terminated, spellings users write */
    kvn_kind kind;
    kvn_fmt elem;                 /* element format (for INT8: unused) */
    int block;                    /* elements per shared scale, 0 if none */
    kvn_fmt scale_fmt;            /* for BLOCK */
    const char *note;             /* one line: where the name comes from / what is assumed */
} kvn_dtype_info;

size_t kvn_dtype_count(void);
const kvn_dtype_info *kvn_dtype_get(kvn_dtype d);
/* d's canonical name ("fp8_e4m3"), or "invalid" when d is no dtype (KVN_DTYPE_INVALID). */
const char *kvn_dtype_name(kvn_dtype d);
/* Find a dtype by canonical name or alias (case-insensitive for TensorRT-LLM's FP8/INT8/NVFP4,
 * torch.* spellings accepted). rocm: `fp8` means fp8_e4m3fnuz as on ROCm builds of vLLM. */
kvn_dtype kvn_dtype_parse(const char *name, bool rocm);
kvn_dtype kvn_dtype_by_fmt(kvn_fmt f);
/* Comma-separated list of valid names for an error message (static storage). */
const char *kvn_dtype_valid_names(void);
/* The valid name closest to name (at most 2 edits away, '-' read as '_', case ignored) in buf, or
 * "" if none is that close; returns buf. */
const char *kvn_dtype_nearest(const char *name, char *buf, size_t n);
/* Largest N with 0..N all exact in d (block formats: of the element format at scale 1).
 * -1 when no such N exists or d is not modelled (e8m0, auto, unmodelled). For the dynamic
 * per-token-head dtypes it is 0: a real row is rescaled by its own absmax in binary32, which
 * moves the ids themselves (0 1 2 3 in int8_per_token_head read back 0, 0.992, 1.98,
 * 2.99999999), so no id above 0 is guaranteed; kvn_store_row gives a given row's values. */
double kvn_dtype_int_exact_max(kvn_dtype d);
/* Whether d's recipe covers only the first latent part of an MLA row: fp8_ds_mla quantizes the
 * NoPE latents (kv_c) in tiles and keeps the RoPE part (k_pe) in the model's bfloat16, so a value
 * stored as another part, or as a part not known, is not stored by d's recipe. */
bool kvn_dtype_nope_only(kvn_dtype d);
/* Whether kvn_params.scale means anything for d (per-tensor scaled fp8, int8, nvfp4's k_scale). */
bool kvn_dtype_takes_scale(kvn_dtype d);

typedef struct kvn_params {
    kvn_overflow mode;
    double scale;     /* per-tensor scale (k_scale), rounded to binary32 as engines store it; 0 (or
                       * anything not a positive finite binary32) means 1. See kvn_dtype_takes_scale. */
    double dynamic_div; /* vLLM --calculate-kv-scales for the scaled fp8 dtypes: the scale is computed
                       * from the row, binary32(absmax / dynamic_div) (K_SCALE_CONSTANT 200 for keys,
                       * V_SCALE_CONSTANT 100 for values), replacing `scale`; 0: a static scale */
} kvn_params;

/* Store a row of n values as dtype d: element dtypes cast each value; block dtypes cut the row
 * into consecutive blocks (the last padded with zeros); scaled dtypes divide by the scale, cast,
 * and multiply back; dynamic dtypes compute the scale from the row's absmax. out[i].stored is what
 * reading the cache back gives. Returns false for AUTO/UNMODELLED dtypes (out untouched). */
bool kvn_store_row(kvn_dtype d, const double *in, size_t n, const kvn_params *p, kvn_result *out);

/* ---- shared scales (dynamic.c) ---- */

/* The scale a row forces when it is stored as d: the per-tensor scale (static, or computed by
 * --calculate-kv-scales from the row's absmax), or the per-token-head scale. NaN for dtypes without
 * one shared scale per row (element and block dtypes: blocks have one each). */
double kvn_row_scale(kvn_dtype d, const double *in, size_t n, const kvn_params *p);
/* The flush threshold: the largest magnitude that reads back 0 when it is stored next to `big` (in
 * the same row, block or tensor); every larger one reads back nonzero. 0 when nothing is flushed,
 * NaN when d is not modelled or big itself does not read back finite and nonzero. Exact (a search
 * over the binary64 values, assuming storage is monotone in the magnitude). */
double kvn_flush_up_to(kvn_dtype d, double big, const kvn_params *p);

/* Parse a number as Python or a C float literal would (decimal, hex float, inf, nan, with an
 * optional f/F suffix meaning binary32). Returns false if s is not a number. */
bool kvn_parse_number(const char *s, double *out, bool *is_binary32);

#endif
