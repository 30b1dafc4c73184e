// c10/util/Float8_e4m3fn.h (kvlint stub): c10::Float8_e4m3fn. Converting a float does not
// saturate: beyond +-464 it becomes NaN (the format has no infinity).
#pragma once
#include <limits>
namespace c10 {
struct Float8_e4m3fn {
    unsigned char x;
    Float8_e4m3fn() = default;
    Float8_e4m3fn(float value);
    operator float() const;
};
} // namespace c10
namespace at { using c10::Float8_e4m3fn; }
