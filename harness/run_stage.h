// Run one stage once on fresh random inputs and verify it: the one
// run-and-verify path of the project. The tests (run_and_check), the timing
// loop (harness/bench.cpp) and the labs' own commands (lab 9's phvm, lab 10's
// measured kernels...) all go through run_once_and_verify: inputs U(-1,1)
// from a seed, C poisoned first (on the device too), GPU stages run through
// harness/gpu_backend.h, the result checked against the float64 product
// under the stage's error bound.
#pragma once

#include <cstdint>
#include <memory>

#include "cpu/verify.h"
#include "harness/gpu_backend.h"
#include "harness/stage.h"

namespace mml {

// Why a reference row is missing in a build without the answers.
constexpr const char* kNoReference =
    "the reference is not in this build (built without the solutions, as the grader builds submissions)";

// The function of one version of a stage; throws std::invalid_argument when
// the stage has no such version (peer rows have no student version).
const MatmulFn& version_of(const Stage& stage, Impl impl);
// The failure of a version that wrote no element of C (CheckResult::never_written):
// "not written yet: task N in handouts/labN.md", and what showed it.
std::string not_written_message(const Stage& stage);

// The inputs of one shape, shared by every run at that shape: A and B filled
// from `seed`, C on the host, and a device copy made on first use.
struct Problem {
    Problem(Shape s, std::uint64_t seed);
    explicit Problem(Shape s) : Problem(s, fresh_seed()) {}
    gpu::DeviceProblem& device();

    Shape shape;
    Matrix A, B, C;
    std::uint64_t check_seed;  // the seed of a randomized check (seed + 1)
    std::unique_ptr<gpu::DeviceProblem> dev;
};

struct CheckedRun {
    CheckResult check;
    double seconds = 0;  // CPU: wall clock of the call; GPU: the kernel between CUDA events
};

// Poisons C, runs `fn` once on the problem (on the stage's device), brings C
// back and verifies it.
CheckedRun run_once_and_verify(const Stage& stage, const MatmulFn& fn, Problem& problem, const StageParams& params,
                               VerifyMethod method = VerifyMethod::Auto);

// The same on fresh inputs of one shape (the tests' entry point). Throws
// std::runtime_error for a GPU stage when no GPU is usable.
CheckResult run_and_check(const Stage& stage, Impl impl, Shape shape, const StageParams& params,
                          std::uint64_t seed, VerifyMethod method = VerifyMethod::Auto);

}  // namespace mml
