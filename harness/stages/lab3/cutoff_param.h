// Lab 3's Strassen stage reads its recursion cutoff from --param cutoff=N.
// Both versions get it through strassen_fn below: the student's (stages.cpp)
// and the reference's (references.cpp).
#pragma once

#include <cstdint>

#include "harness/stage.h"

namespace mml::lab3 {

// --param cutoff=N (N >= 1), or the given default (labs/common/strassen_plan.h);
// anything below 1 is a UsageError.
std::int64_t cutoff_of(const StageParams& p);

// The signature of matmul_strassen: the product plus the cutoff.
using StrassenMatmul = void (*)(const float*, const float*, float*, std::int64_t, std::int64_t, std::int64_t,
                                std::int64_t);
// The stage's function: reads the cutoff (a bad one is refused before `fn` runs), calls `fn`.
MatmulFn strassen_fn(StrassenMatmul fn);

}  // namespace mml::lab3
