// c10/util/BFloat16.h (kvlint stub): c10::BFloat16 and its numeric_limits specialisation.
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
struct BFloat16 {
    unsigned short x;
    BFloat16() = default;
    C10_HOST_DEVICE BFloat16(float value);
    C10_HOST_DEVICE operator float() const;
};
} // namespace c10
namespace at { using c10::BFloat16; }
namespace std {
template <> class numeric_limits<c10::BFloat16> {
  public:
    static constexpr bool is_specialized = true;
    static C10_HOST_DEVICE c10::BFloat16 infinity();
    static C10_HOST_DEVICE c10::BFloat16 lowest();
    static C10_HOST_DEVICE c10::BFloat16 max();
};
} // namespace std
