/* kvlint_cuda_prelude.h: what nvcc makes visible in every .cu file without an #include, for parsing
 * without the CUDA SDK (kvlint passes -nocudainc and force-includes this file). Declarations
 * only: kvlint never compiles or runs this code. See docs/cxx.md. */
#pragma once
#ifndef __CUDACC__
#define __CUDACC__ 1 /* nvcc defines it in every CUDA compilation; clang's SDK wrapper would */
#endif
#ifndef __global__
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#endif
#include "cuda_runtime.h"
