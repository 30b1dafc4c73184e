/* cuda_fp16.h (kvlint stub): the IEEE half type and its conversions. __float2half rounds to nearest
 * and overflows to inf; CUDART_INF_FP16 is the bit pattern 0x7C00 (kvlint decodes
 * __ushort_as_half). Declarations only, for parsing without the CUDA SDK. */
#pragma once
#include "kvlint_cuda_prelude.h"
struct __half {
    unsigned short __x;
    __half() = default;
    __host__ __device__ __half(float f);
    __host__ __device__ __half(double f);
    __host__ __device__ __half(int i);
    __host__ __device__ operator float() const;
};
struct __half2 { __half x, y; };
typedef __half half;
typedef __half2 half2;
__host__ __device__ __half __float2half(float);
__host__ __device__ __half __float2half_rn(float);
__host__ __device__ __half __float2half_rz(float);
__host__ __device__ __half __float2half_rd(float);
__host__ __device__ __half __float2half_ru(float);
__host__ __device__ __half2 __float2half2_rn(float);
__host__ __device__ __half2 __floats2half2_rn(float, float);
__host__ __device__ __half2 __float22half2_rn(float2);
__host__ __device__ float __half2float(__half);
__host__ __device__ float2 __half22float2(__half2);
__host__ __device__ __half __ushort_as_half(unsigned short);
__host__ __device__ unsigned short __half_as_ushort(__half);
__host__ __device__ __half __hneg(__half);
__host__ __device__ __half operator-(const __half &);
__host__ __device__ __half operator+(const __half &, const __half &);
__host__ __device__ __half operator*(const __half &, const __half &);
__host__ __device__ bool operator<(const __half &, const __half &);
__host__ __device__ bool operator>(const __half &, const __half &);
#define CUDART_INF_FP16 __ushort_as_half((unsigned short)0x7C00U)
#define CUDART_MAX_NORMAL_FP16 __ushort_as_half((unsigned short)0x7BFFU)
#define CUDART_ZERO_FP16 __ushort_as_half((unsigned short)0x0000U)
