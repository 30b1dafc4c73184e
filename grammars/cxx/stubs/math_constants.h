/* math_constants.h (kvlint stub): CUDA's float constants. Declarations only. */
#pragma once
#include <math.h>
#define CUDART_INF_F __builtin_huge_valf()
#define CUDART_INF __builtin_huge_val()
#define CUDART_NAN_F __builtin_nanf("")
#define CUDART_MAX_NORMAL_F 3.40282347e+38f
