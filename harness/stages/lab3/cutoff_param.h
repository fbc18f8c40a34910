// Which cutoff lab 3's Strassen stage runs at, decided in one place
// (cutoff_of below); both versions get it through strassen_fn: the student's
// (stages.cpp) and the reference's (references.cpp).
#pragma once

#include <cstdint>

#include "harness/stage.h"

namespace mml::lab3 {

// The cutoff a run uses: --param cutoff=N where given (N >= 1; anything else
// is a UsageError); else the version's own choice, `choice` (its kYourCutoff:
// labs/lab3/strassen.h, the reference's beside its answers); else, while that
// is 0 (task 3 not done yet), the reference's choice, common::lab3::kDefaultCutoff
// (labs/common/strassen_plan.h), so that tasks 1 and 2 are still timed.
std::int64_t cutoff_of(const StageParams& p, std::int64_t choice);

// The student's kYourCutoff (labs/lab3/strassen.h; 0: not chosen yet), asked
// from the student's side (harness/student_side.h): in one process the value
// compiled here; in the grader's checker, which is built with the starter's
// header, the answer of the runner that holds the student's. Asked once.
std::int64_t your_cutoff();

// The signature of matmul_strassen: the product plus the cutoff.
using StrassenMatmul = void (*)(const float*, const float*, float*, std::int64_t, std::int64_t, std::int64_t,
                                std::int64_t);
// The stage's function: reads the cutoff (cutoff_of with `choice`: a bad one
// is refused before `fn` runs), calls `fn`.
MatmulFn strassen_fn(StrassenMatmul fn, std::int64_t choice);

}  // namespace mml::lab3
