/*
 * dtype.c: the storage dtypes users name (vLLM --kv-cache-dtype / --dtype, SGLang, TensorRT-LLM,
 * torch spellings) and what each one is: an element format, a per-tensor scaled format, a block
 * format, a dynamic per-token-head format, int8, the symbolic `auto`, or a real name kvlint knows
 * but does not model. Every entry says where it comes from; docs/dtypes.md has the long form.
 *
 * Matching is case-insensitive for every name (TensorRT-LLM writes FP8/INT8/NVFP4; no two names
 * here differ only in case). Deliberately not here: the arithmetic (fmt.c, store.c) and any
 * resolution of `auto` (that needs the model's config: src/resolve).
 */
#include <ctype.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "numerics/internal.h"

typedef struct dtype_entry {
    kvn_dtype_info info; /* first member: kvn_dtype_get hands out &entry->info */
    kvn_model model;
    double int_exact_max;
} dtype_entry;

#define ALIASES(...) ((const char *const[]){ __VA_ARGS__, NULL })
#define NO_ALIASES ((const char *const[]){ NULL })

static const dtype_entry table[] = {
    { { "float32", ALIASES("float", "fp32", "torch.float32", "torch.float"), KVN_KIND_ELEMENT, KVN_F32, 0,
        KVN_F32, "IEEE binary32; vLLM --dtype float/float32" },
      KVN_M_ELEMENT, 16777216 },
    { { "bfloat16", ALIASES("bf16", "torch.bfloat16"), KVN_KIND_ELEMENT, KVN_BF16, 0, KVN_F32,
        "bfloat16; vLLM --kv-cache-dtype bfloat16, SGLang bf16" },
      KVN_M_ELEMENT, 256 },
    { { "float16", ALIASES("half", "fp16", "torch.float16", "torch.half"), KVN_KIND_ELEMENT, KVN_F16, 0,
        KVN_F32, "IEEE binary16; vLLM --dtype half/float16" },
      KVN_M_ELEMENT, 2048 },
    { { "fp8_e4m3", ALIASES("fp8", "float8_e4m3fn", "torch.float8_e4m3fn", "e4m3fn"), KVN_KIND_SCALED,
        KVN_E4M3, 0, KVN_F32,
        "OCP e4m3fn, x / k_scale (per-tensor, default 1); vLLM fp8/fp8_e4m3, SGLang fp8_e4m3, TRT-LLM FP8" },
      KVN_M_SCALED, 16 },
    { { "fp8_e4m3fnuz", ALIASES("float8_e4m3fnuz", "torch.float8_e4m3fnuz"), KVN_KIND_SCALED,
        KVN_E4M3FNUZ, 0, KVN_F32, "AMD e4m3fnuz (MI300), x / k_scale; what fp8 means on ROCm" },
      KVN_M_SCALED, 16 },
    { { "fp8_e5m2", ALIASES("float8_e5m2", "torch.float8_e5m2"), KVN_KIND_SCALED, KVN_E5M2, 0, KVN_F32,
        "OCP e5m2, x / k_scale; vLLM/SGLang fp8_e5m2" },
      KVN_M_SCALED, 8 },
    { { "fp8_e5m2fnuz", ALIASES("float8_e5m2fnuz", "torch.float8_e5m2fnuz"), KVN_KIND_SCALED,
        KVN_E5M2FNUZ, 0, KVN_F32, "AMD e5m2fnuz, x / k_scale" },
      KVN_M_SCALED, 8 },
    { { "fp4_e2m1", ALIASES("e2m1", "float4_e2m1fn", "torch.float4_e2m1fn_x2"), KVN_KIND_ELEMENT, KVN_E2M1,
        0, KVN_F32, "fp4 e2m1 element (always saturates); the element of mxfp4/nvfp4" },
      KVN_M_ELEMENT, 4 },
    { { "e8m0", ALIASES("ue8m0", "float8_e8m0fnu", "torch.float8_e8m0fnu"), KVN_KIND_ELEMENT, KVN_E8M0, 0,
        KVN_F32, "OCP MX scale: 2^(e-127), 0xFF NaN; non-powers of two round in the log domain" },
      KVN_M_ELEMENT, -1 },
    { { "int8", NO_ALIASES, KVN_KIND_INT8, KVN_F32, 0, KVN_F32,
        "TensorRT-LLM INT8 KV: round(x / scale) to nearest even, saturate to [-128, 127]" },
      KVN_M_INT8, 127 },
    { { "mxfp4", NO_ALIASES, KVN_KIND_BLOCK, KVN_E2M1, 32, KVN_E8M0,
        "OCP MX v1.0: 32 x e2m1, E8M0 scale 2^(floor(log2 amax) - 2), elements saturate; vllm#64358" },
      KVN_M_MXFP4, 4 },
    { { "nvfp4", NO_ALIASES, KVN_KIND_BLOCK, KVN_E2M1, 16, KVN_E4M3,
        "vLLM/SGLang NVFP4 KV: 16 x e2m1, SF = e4m3(amax / (6 k_scale)), data e2m1(x / (k_scale SF))" },
      KVN_M_NVFP4, 4 },
    { { "nvfp4_4over6", NO_ALIASES, KVN_KIND_BLOCK, KVN_E2M1, 16, KVN_E4M3,
        "vLLM: NVFP4 layout, SF from amax/6 or amax/4, the smaller squared error (ties: amax/6)" },
      KVN_M_NVFP4_4OVER6, 4 },
    { { "mxfp8", NO_ALIASES, KVN_KIND_BLOCK, KVN_E4M3, 32, KVN_E8M0,
        "SGLang mxfp8 KV: 32 x e4m3, E8M0 scale 2^ceil(log2(amax / 448)), elements saturate" },
      KVN_M_MXFP8, 16 },
    { { "fp4_mx_block16", NO_ALIASES, KVN_KIND_BLOCK, KVN_E2M1, 16, KVN_E8M0,
        "SGLang fp4_mx_block16 (was fp4_e2m1): 16 x e2m1, scale 2^ceil(log2(amax / 6)), ties away" },
      KVN_M_FP4_MX16, 4 },
    { { "int8_per_token_head", NO_ALIASES, KVN_KIND_DYNAMIC, KVN_F32, 0, KVN_F32,
        "vLLM: per (token, head) scale max(amax / 127, 1e-6) in binary32, value truncated to int8" },
      KVN_M_INT8_PTH, 0 },
    { { "fp8_per_token_head", NO_ALIASES, KVN_KIND_DYNAMIC, KVN_E4M3, 0, KVN_F32,
        "vLLM: per (token, head) scale max(amax / 448, 1e-6) in binary32, value e4m3" },
      KVN_M_FP8_PTH, 0 },
    { { "auto", NO_ALIASES, KVN_KIND_AUTO, KVN_F32, 0, KVN_F32,
        "the model dtype, or a checkpoint's KV scheme; resolved by later stages" },
      KVN_M_NONE, -1 },
    { { "fp8_inc", NO_ALIASES, KVN_KIND_UNMODELLED, KVN_F32, 0, KVN_F32,
        "vLLM Intel Gaudi fp8 via INC: device-specific e4m3 range and measured scales" },
      KVN_M_NONE, -1 },
    { { "fp8_ds_mla", NO_ALIASES, KVN_KIND_DYNAMIC, KVN_E4M3, 128, KVN_F32,
        "vLLM DeepSeek V3.2 MLA (concat_and_cache_ds_mla_kernel): the 512 NoPE latents in e4m3 tiles of "
        "128, scale max(amax / 448, FLT_MIN) in binary32 per tile; the 64 RoPE values stay bfloat16" },
      KVN_M_FP8_DS_MLA, 0 },
    { { "nvfp4_ds_mla", NO_ALIASES, KVN_KIND_UNMODELLED, KVN_F32, 0, KVN_F32,
        "vLLM DeepSeek sparse MLA in NVFP4: packed layout not modelled" },
      KVN_M_NONE, -1 },
    { { "int4_per_token_head", NO_ALIASES, KVN_KIND_UNMODELLED, KVN_F32, 0, KVN_F32,
        "vLLM: Hadamard-rotated asymmetric int4 with zero point" },
      KVN_M_NONE, -1 },
    { { "turboquant_k8v4", NO_ALIASES, KVN_KIND_UNMODELLED, KVN_F32, 0, KVN_F32, "vLLM TurboQuant" },
      KVN_M_NONE, -1 },
    { { "turboquant_4bit_nc", NO_ALIASES, KVN_KIND_UNMODELLED, KVN_F32, 0, KVN_F32, "vLLM TurboQuant" },
      KVN_M_NONE, -1 },
    { { "turboquant_k3v4_nc", NO_ALIASES, KVN_KIND_UNMODELLED, KVN_F32, 0, KVN_F32, "vLLM TurboQuant" },
      KVN_M_NONE, -1 },
    { { "turboquant_3bit_nc", NO_ALIASES, KVN_KIND_UNMODELLED, KVN_F32, 0, KVN_F32, "vLLM TurboQuant" },
      KVN_M_NONE, -1 },
    { { "turboquant_*", NO_ALIASES, KVN_KIND_UNMODELLED, KVN_F32, 0, KVN_F32,
        "any other vLLM turboquant_* recipe" },
      KVN_M_NONE, -1 },
    { { "int8_g64", NO_ALIASES, KVN_KIND_UNMODELLED, KVN_F32, 0, KVN_F32, "SGLang group-64 int8" },
      KVN_M_NONE, -1 },
    { { "int4_g32", NO_ALIASES, KVN_KIND_UNMODELLED, KVN_F32, 0, KVN_F32, "SGLang group-32 int4" },
      KVN_M_NONE, -1 },
    { { "int8ring_int4", NO_ALIASES, KVN_KIND_UNMODELLED, KVN_F32, 0, KVN_F32,
        "SGLang tiered int4 rows with an int8 ring" },
      KVN_M_NONE, -1 },
};

enum { DTYPE_COUNT = sizeof table / sizeof *table };

/* Kept by hand next to the table; check_numerics verifies it names every modelled dtype. */
static const char valid_names[] =
    "float32, bfloat16, float16, fp8_e4m3, fp8_e4m3fnuz, fp8_e5m2, fp8_e5m2fnuz, fp4_e2m1, e8m0, int8, "
    "mxfp4, nvfp4, nvfp4_4over6, mxfp8, fp4_mx_block16, int8_per_token_head, fp8_per_token_head, fp8_ds_mla, "
    "auto "
    "(and their aliases: see 'kvlint dtypes')";

size_t kvn_dtype_count(void)
{
    return DTYPE_COUNT;
}

const kvn_dtype_info *kvn_dtype_get(kvn_dtype d)
{
    if (d < 0 || d >= DTYPE_COUNT)
        return NULL;
    return &table[d].info;
}

const char *kvn_dtype_name(kvn_dtype d)
{
    const kvn_dtype_info *i = kvn_dtype_get(d);
    return i ? i->name : "invalid";
}

kvn_model kvn__dtype_model(kvn_dtype d)
{
    if (d < 0 || d >= DTYPE_COUNT)
        return KVN_M_NONE;
    return table[d].model;
}

static kvn_dtype find_canonical(const char *name)
{
    for (int i = 0; i < DTYPE_COUNT; i++)
        if (strcasecmp(table[i].info.name, name) == 0)
            return i;
    return KVN_DTYPE_INVALID;
}

kvn_dtype kvn_dtype_parse(const char *name, bool rocm)
{
    if (!name || !*name)
        return KVN_DTYPE_INVALID;
    /* ROCm builds of vLLM (and SGLang on HIP) store fp8 / fp8_e4m3 as e4m3fnuz on MI300. */
    if (rocm && (strcasecmp(name, "fp8") == 0 || strcasecmp(name, "fp8_e4m3") == 0))
        return find_canonical("fp8_e4m3fnuz");
    kvn_dtype d = find_canonical(name);
    if (d != KVN_DTYPE_INVALID)
        return d;
    for (int i = 0; i < DTYPE_COUNT; i++)
        for (const char *const *a = table[i].info.aliases; *a; a++)
            if (strcasecmp(*a, name) == 0)
                return i;
    if (strncasecmp(name, "turboquant_", 11) == 0)
        return find_canonical("turboquant_*");
    return KVN_DTYPE_INVALID;
}

kvn_dtype kvn_dtype_by_fmt(kvn_fmt f)
{
    for (int i = 0; i < DTYPE_COUNT; i++) {
        kvn_kind k = table[i].info.kind;
        if ((k == KVN_KIND_ELEMENT || k == KVN_KIND_SCALED) && table[i].info.elem == f)
            return i;
    }
    return KVN_DTYPE_INVALID;
}

const char *kvn_dtype_valid_names(void)
{
    return valid_names;
}

/* Edit distance of a and b, '-' read as '_' and case ignored (bounded: names are short). */
static size_t distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return SIZE_MAX;
    size_t row[64], prev[64];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            char x = (char)tolower((unsigned char)(a[i - 1] == '-' ? '_' : a[i - 1]));
            char y = (char)tolower((unsigned char)(b[j - 1] == '-' ? '_' : b[j - 1]));
            size_t best = prev[j - 1] + (x != y);
            if (prev[j] + 1 < best)
                best = prev[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
        }
        memcpy(prev, row, (lb + 1) * sizeof *row);
    }
    return prev[lb];
}

const char *kvn_dtype_nearest(const char *name, char *buf, size_t n)
{
    if (n)
        buf[0] = '\0';
    size_t best = 3;
    for (const char *p = valid_names; name && *p;) {
        size_t len = strcspn(p, ", ");
        char cand[64];
        if (len && len < sizeof cand) {
            memcpy(cand, p, len);
            cand[len] = '\0';
            size_t d = distance(name, cand);
            if (d < best && len < n) {
                best = d;
                memcpy(buf, cand, len + 1);
            }
        }
        p += len;
        p += strspn(p, ", ");
    }
    return buf;
}

double kvn_dtype_int_exact_max(kvn_dtype d)
{
    if (d < 0 || d >= DTYPE_COUNT)
        return -1;
    return table[d].int_exact_max;
}

bool kvn_dtype_nope_only(kvn_dtype d)
{
    return kvn__dtype_model(d) == KVN_M_FP8_DS_MLA;
}

bool kvn_dtype_takes_scale(kvn_dtype d)
{
    switch (kvn__dtype_model(d)) {
    case KVN_M_SCALED:
    case KVN_M_INT8:
    case KVN_M_NVFP4:
    case KVN_M_NVFP4_4OVER6:
        return true;
    default:
        return false;
    }
}
