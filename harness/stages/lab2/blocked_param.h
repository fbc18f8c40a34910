// Lab 2's stage lab2.blocked reads its block sizes from --param (kc, nc, or
// block for both). Both versions of the stage get them through blocked()
// below: the student's (stages.cpp) and the reference's (references.cpp).
#pragma once

#include <cstdint>

#include "harness/stage.h"

namespace mml::lab2 {

// The signature of matmul_blocked: the product plus the block sizes KC, NC.
using BlockedMatmul = void (*)(const float*, const float*, float*, std::int64_t, std::int64_t, std::int64_t,
                               std::int64_t, std::int64_t);

// The stage's function: reads and checks the block sizes (a bad one is a
// UsageError, before `fn` is called), then calls `fn` with them. So the
// student's code is only ever called with valid block sizes.
MatmulFn blocked(BlockedMatmul fn);

}  // namespace mml::lab2
