// c10/util/Half.h (kvlint stub): c10::Half (IEEE float16; a float outside its range becomes inf)
// and its numeric_limits specialisation. Declarations only.
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
struct Half {
    unsigned short x;
    Half() = default;
    C10_HOST_DEVICE Half(float value);
    C10_HOST_DEVICE operator float() const;
};
} // namespace c10
namespace at { using c10::Half; }
namespace std {
template <> class numeric_limits<c10::Half> {
  public:
    static constexpr bool is_specialized = true;
    static C10_HOST_DEVICE c10::Half infinity();
    static C10_HOST_DEVICE c10::Half lowest();
    static C10_HOST_DEVICE c10::Half max();
};
} // namespace std
