// Lab 9 helpers shared by its stage registration (stages.cpp), the binding of
// its reference (references.cpp), its commands (phvm.cpp, phvm_sweep.cpp...)
// and its tests: the default PHVM configuration, the checks of --param
// values, the adapters from the launch functions to stage versions, and the
// bytes a skinny product must move.
#pragma once

#include <cstdint>

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

// The --param checks of the stages, made before anything runs (UsageError).
void check_gs_bs(const StageParams& p);
void check_kstep(const StageParams& p);  // kstep: 1 or 4 (lab9.one_pass)

// BasicMM's and PHVM's launch function (labs/lab9/phvm.h, solutions/lab9/phvm.h),
// as a stage version that launches it with phvm_config's GS and BS.
using PerElementFn = void (*)(const float* E, const float* F, float* R, std::int64_t M, std::int64_t N,
                              std::int64_t K, int gs, int bs);
MatmulFn per_element(PerElementFn fn);

// The one-pass launch function (labs/lab9/one_pass.h, solutions/lab9/one_pass.h)
// as a stage version: --param kstep=1 turns its 16-byte loads off.
using OnePassFn = void (*)(const float* E, const float* F, float* R, std::int64_t M, std::int64_t N,
                           std::int64_t K, bool use_vector_loads);
MatmulFn with_kstep(OnePassFn fn);

// The fewest bytes any kernel must move: E and F read once, R written once.
double min_bytes(Shape s);

}  // namespace mml::lab9
