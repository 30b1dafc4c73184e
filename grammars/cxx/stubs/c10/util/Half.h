// c10/util/Half.h (kvlint stub): c10::Half (IEEE float16; a float outside its range becomes inf)
// and its numeric_limits specialisation. Declarations only.
#pragma once
#include <limits>
namespace c10 {
struct Half {
    unsigned short x;
    Half() = default;
    Half(float value);
    operator float() const;
};
} // namespace c10
namespace at { using c10::Half; }
namespace std {
template <> class numeric_limits<c10::Half> {
  public:
    static constexpr bool is_specialized = true;
    static c10::Half infinity();
    static c10::Half lowest();
    static c10::Half max();
};
} // namespace std
