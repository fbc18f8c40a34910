// Lab 4's stages read --param block_rows (the OpenMP stages) and --param
// cutoff (Strassen on threads). Both versions of a stage get them through the
// wrappers below: the student's (stages.cpp) and the reference's
// (references.cpp).
#pragma once

#include <cstdint>

#include "harness/stage.h"

namespace mml::lab4 {

// The signature of matmul_omp_static / matmul_omp_dynamic (the last argument
// is block_rows) and of matmul_strassen_par (the last is the cutoff).
using OmpMatmul = void (*)(const float*, const float*, float*, std::int64_t, std::int64_t, std::int64_t, int,
                           std::int64_t);
using StrassenParMatmul = void (*)(const float*, const float*, float*, std::int64_t, std::int64_t,
                                   std::int64_t, int, std::int64_t);

// The stages' functions: read the parameter (a value below 1 is a UsageError,
// before `fn` runs; absent, the given default), then call `fn` on --threads.
MatmulFn omp_fn(OmpMatmul fn);
MatmulFn strassen_par_fn(StrassenParMatmul fn);

}  // namespace mml::lab4
