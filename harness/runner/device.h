// The runner's GPU side (harness/runner/runner_main.cpp): A, B and C of one
// shape on the device, and one run of a GPU stage there. Implemented with
// CUDA in device_cuda.cu; device_none.cpp stands in for a build without CUDA
// (every GPU request is then an error that says so).
//
// Like DeviceProblem (harness/gpu_backend.h), which the harness uses in one
// process, C is poisoned before each run and has a guard band behind it (a
// kernel that stores past the end of C is named); unlike it, a run may use
// B' = diag(d) * B, formed on the device from the factors' seed (the checker's
// timed runs, protocol.h; scale_factors.h).
#pragma once

#include <cstdint>
#include <memory>

#include "harness/stage.h"

namespace mml::runner {

class DeviceSide {
public:
    DeviceSide();
    ~DeviceSide();
    DeviceSide(const DeviceSide&) = delete;
    DeviceSide& operator=(const DeviceSide&) = delete;

    // Device buffers for this shape (freed and made again when it changes);
    // A and B copied from the host. Throws std::runtime_error.
    void load(Shape s, const float* A, const float* B);
    bool loaded(Shape s) const;
    // Poisons C, runs fn on the device's A and B (B scaled by the K factors
    // of `seed` first when `scaled`; the stage's `prepare`, Stage::prepare,
    // first when it has one), synchronises, checks for errors and the guard
    // band, copies C to the host. Throws std::runtime_error.
    void run(const MatmulFn& fn, const MatmulFn& prepare, const StageParams& p, bool scaled, std::uint64_t seed,
             float* C);
    // Frees everything (a new shared memory, another shape).
    void reset();

private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace mml::runner
