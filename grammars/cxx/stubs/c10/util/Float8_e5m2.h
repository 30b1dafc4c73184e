// c10/util/Float8_e5m2.h (kvlint stub): c10::Float8_e5m2 (beyond its range a float becomes inf).
#pragma once
#include <limits>
namespace c10 {
struct Float8_e5m2 {
    unsigned char x;
    Float8_e5m2() = default;
    Float8_e5m2(float value);
    operator float() const;
};
} // namespace c10
namespace at { using c10::Float8_e5m2; }
