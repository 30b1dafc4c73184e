// c10/util/Float8_e5m2.h (kvlint stub): c10::Float8_e5m2 (beyond its range a float becomes inf).
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
struct Float8_e5m2 {
    unsigned char x;
    Float8_e5m2() = default;
    C10_HOST_DEVICE Float8_e5m2(float value);
    C10_HOST_DEVICE operator float() const;
};
} // namespace c10
namespace at { using c10::Float8_e5m2; }
