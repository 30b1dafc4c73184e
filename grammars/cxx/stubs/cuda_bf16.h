/* cuda_bf16.h (kvlint stub): bfloat16 and its conversions. __float2bfloat16 rounds to nearest and
 * overflows to inf; CUDART_INF_BF16 is the bit pattern 0x7F80. Declarations only. */
#pragma once
#include "kvlint_cuda_prelude.h"
#include "cuda_fp16.h"
struct __nv_bfloat16 {
    unsigned short __x;
    __nv_bfloat16() = default;
    __host__ __device__ __nv_bfloat16(float f);
    __host__ __device__ __nv_bfloat16(double f);
    __host__ __device__ operator float() const;
};
struct __nv_bfloat162 { __nv_bfloat16 x, y; };
typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;
__host__ __device__ __nv_bfloat16 __float2bfloat16(float);
__host__ __device__ __nv_bfloat16 __float2bfloat16_rn(float);
__host__ __device__ __nv_bfloat16 __float2bfloat16_rz(float);
__host__ __device__ __nv_bfloat162 __float2bfloat162_rn(float);
__host__ __device__ __nv_bfloat162 __floats2bfloat162_rn(float, float);
__host__ __device__ __nv_bfloat162 __float22bfloat162_rn(float2);
__host__ __device__ float __bfloat162float(__nv_bfloat16);
__host__ __device__ float2 __bfloat1622float2(__nv_bfloat162);
__host__ __device__ __nv_bfloat16 __ushort_as_bfloat16(unsigned short);
__host__ __device__ __nv_bfloat16 operator-(const __nv_bfloat16 &);
#define CUDART_INF_BF16 __ushort_as_bfloat16((unsigned short)0x7F80U)
#define CUDART_MAX_NORMAL_BF16 __ushort_as_bfloat16((unsigned short)0x7F7FU)
