// Lab 9 helpers shared by its stage registration (lab9.cpp) and its commands
// (lab9_commands.cpp): the default PHVM configuration, the bytes a skinny
// product must read, and the device's thread limits for the model.
#pragma once

#include "cpu/matrix.h"
#include "harness/stage.h"

namespace mml::lab9 {

struct PhvmConfig {
    long long gs = 0, bs = 0;
};
// BS = 256 (the paper's best on the A100) and GS = SM count * (max resident
// threads per SM) / BS, so that GS*BS fills the GPU (Eq. 2); --param gs=,bs=
// override. Throws UsageError for a BS that is not a multiple of 32 in
// [32, 1024] or a GS outside [1, 2^31 - 1].
PhvmConfig phvm_config(const StageParams& p);

// The fewest bytes any kernel must move: E and F read once, R written once.
double min_bytes(Shape s);

}  // namespace mml::lab9
