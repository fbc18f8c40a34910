// Run one stage once on fresh random inputs and verify it: the check that the
// tests and the harness share. Inputs are U(-1,1) from `seed`, C is poisoned
// first, GPU stages run through harness/gpu_backend.h.
#pragma once

#include <cstdint>

#include "cpu/verify.h"
#include "harness/stage.h"

namespace mml {

// The function of one version of a stage; throws std::invalid_argument when
// the stage has no such version (peer rows have no student version).
const MatmulFn& version_of(const Stage& stage, Impl impl);

// Throws std::runtime_error for a GPU stage when no GPU is usable.
CheckResult run_and_check(const Stage& stage, Impl impl, Shape shape, const StageParams& params,
                          std::uint64_t seed, VerifyMethod method = VerifyMethod::Auto);

}  // namespace mml
