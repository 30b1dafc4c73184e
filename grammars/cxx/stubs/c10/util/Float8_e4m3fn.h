// c10/util/Float8_e4m3fn.h (kvlint stub): c10::Float8_e4m3fn. Converting a float does not
// saturate: beyond +-464 it becomes NaN (the format has no infinity).
#pragma once
#include <limits>
#ifndef C10_HOST_DEVICE
#if defined(__CUDA__) || defined(__CUDACC__)
#define C10_HOST_DEVICE __attribute__((host, device))
#else
#define C10_HOST_DEVICE
#endif
#endif
namespace c10 {
struct Float8_e4m3fn {
    unsigned char x;
    Float8_e4m3fn() = default;
    C10_HOST_DEVICE Float8_e4m3fn(float value);
    C10_HOST_DEVICE operator float() const;
};
} // namespace c10
namespace at { using c10::Float8_e4m3fn; }
