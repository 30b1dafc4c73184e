/* cuda_runtime.h (kvlint stub): built-in variables, vector types and the launch API kernels use.
 * Declarations only, for parsing without the CUDA SDK; a real SDK on the include path wins. */
#pragma once
#include "kvlint_cuda_prelude.h"
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
struct dim3 {
    unsigned int x, y, z;
    __host__ __device__ dim3(unsigned int a = 1, unsigned int b = 1, unsigned int c = 1) : x(a), y(b), z(c) {}
};
struct uint3 { unsigned int x, y, z; };
extern const __device__ uint3 threadIdx;
extern const __device__ uint3 blockIdx;
extern const __device__ dim3 blockDim;
extern const __device__ dim3 gridDim;
extern const __device__ int warpSize;
struct float2 { float x, y; };
struct float4 { float x, y, z, w; };
struct int4 { int x, y, z, w; };
struct uint4 { unsigned int x, y, z, w; };
struct uint2 { unsigned int x, y; };
typedef struct CUstream_st *cudaStream_t;
/* What clang's host side calls for a kernel launch `k<<<grid, block, shmem, stream>>>(...)`
 * (CUDA >= 9.2; the SDK's crt/host_runtime.h declares it): without it every launch is an error. */
extern "C" unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem = 0,
                                                struct CUstream_st *stream = 0);
typedef int cudaError_t;
__device__ void __syncthreads(void);
__device__ float __int_as_float(int);
__device__ int __float_as_int(float);
__device__ unsigned int __float_as_uint(float);
__device__ float __uint_as_float(unsigned int);
__device__ float __shfl_xor_sync(unsigned int, float, int, int = 32);
__device__ float __expf(float);
__device__ float __fdividef(float, float);
#include "cuda_fp16.h"
#include "cuda_bf16.h"
/* Device overloads of the math kernels call (clang keeps host and device overloads apart). */
__device__ float fminf(float, float);
__device__ float fmaxf(float, float);
__device__ double fmin(double, double);
__device__ double fmax(double, double);
__device__ float fabsf(float);
__device__ float expf(float);
__device__ float logf(float);
__device__ float sqrtf(float);
__device__ float rsqrtf(float);
__device__ float min(float, float);
__device__ float max(float, float);
__device__ int min(int, int);
__device__ int max(int, int);
