// c10/util/BFloat16.h (kvlint stub): c10::BFloat16 and its numeric_limits specialisation.
#pragma once
#include <limits>
namespace c10 {
struct BFloat16 {
    unsigned short x;
    BFloat16() = default;
    BFloat16(float value);
    operator float() const;
};
} // namespace c10
namespace at { using c10::BFloat16; }
namespace std {
template <> class numeric_limits<c10::BFloat16> {
  public:
    static constexpr bool is_specialized = true;
    static c10::BFloat16 infinity();
    static c10::BFloat16 lowest();
    static c10::BFloat16 max();
};
} // namespace std
