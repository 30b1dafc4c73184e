/* cuda_fp8.h (kvlint stub): the fp8 types and __nv_cvt_float_to_fp8. Constructing __nv_fp8_e4m3 /
 * __nv_fp8_e5m2 from a float saturates to the largest finite value, as does
 * __nv_cvt_float_to_fp8(x, __NV_SATFINITE, ...); __NV_NOSAT does not. Declarations only. */
#pragma once
#include "kvlint_cuda_prelude.h"
#include "cuda_fp16.h"
#include "cuda_bf16.h"
typedef unsigned char __nv_fp8_storage_t;
typedef unsigned short __nv_fp8x2_storage_t;
typedef enum __nv_saturation_t { __NV_NOSAT, __NV_SATFINITE } __nv_saturation_t;
typedef enum __nv_fp8_interpretation_t { __NV_E4M3, __NV_E5M2 } __nv_fp8_interpretation_t;
__host__ __device__ __nv_fp8_storage_t __nv_cvt_float_to_fp8(float, __nv_saturation_t, __nv_fp8_interpretation_t);
__host__ __device__ __nv_fp8_storage_t __nv_cvt_halfraw_to_fp8(__half, __nv_saturation_t, __nv_fp8_interpretation_t);
__host__ __device__ __nv_fp8_storage_t __nv_cvt_bfloat16raw_to_fp8(__nv_bfloat16, __nv_saturation_t, __nv_fp8_interpretation_t);
__host__ __device__ __nv_fp8x2_storage_t __nv_cvt_float2_to_fp8x2(float2, __nv_saturation_t, __nv_fp8_interpretation_t);
struct __nv_fp8_e4m3 {
    __nv_fp8_storage_t __x;
    __nv_fp8_e4m3() = default;
    __host__ __device__ explicit __nv_fp8_e4m3(float f);
    __host__ __device__ explicit __nv_fp8_e4m3(__half f);
    __host__ __device__ explicit __nv_fp8_e4m3(__nv_bfloat16 f);
    __host__ __device__ operator float() const;
};
struct __nv_fp8_e5m2 {
    __nv_fp8_storage_t __x;
    __nv_fp8_e5m2() = default;
    __host__ __device__ explicit __nv_fp8_e5m2(float f);
    __host__ __device__ explicit __nv_fp8_e5m2(__half f);
    __host__ __device__ explicit __nv_fp8_e5m2(__nv_bfloat16 f);
    __host__ __device__ operator float() const;
};
