// A version of a stage that runs in another process: in the grader's checker
// (harness/runner/checker.cpp), every student version is one, and so is
// every reference version when a reference runner is given. The harness's
// run-and-verify path (harness/run_stage.cpp) and its timing loop
// (harness/bench.cpp) recognise it with remote_version() and give it host
// pointers on every device: the runner moves the data to its GPU itself.
//
// Header only, so that the harness needs none of the checker's code to
// recognise one (a normal build never makes one).
#pragma once

#include <memory>

#include "cpu/error_bound.h"
#include "harness/stage.h"

namespace mml::runner {

class RemoteVersion {
public:
    virtual ~RemoteVersion() = default;
    // The MatmulFn contract on HOST pointers, for CPU and GPU stages alike:
    // A and B are copied to the runner, C comes back. Throws what the
    // version threw there (UsageError, std::invalid_argument, std::runtime_error),
    // and std::runtime_error naming what went wrong with the runner itself.
    virtual void call(const float* A, const float* B, float* C, Shape s, const StageParams& p) = 0;
    // Hands A and B to the runner for the timed runs that follow (not timed).
    virtual void load(const float* A, const float* B, Shape s) = 0;
    // One timed run on the loaded inputs, with B scaled by K secret factors
    // made from a seed sent after the clock starts (harness/runner/protocol.h,
    // scale_factors.h), so that nothing computed before can answer it. Returns the seconds between
    // the request and the answer on this process's steady clock, after
    // checking the result against the bound; throws std::runtime_error when it
    // is wrong or the runner failed.
    virtual double timed_run(Shape s, const StageParams& p, const ErrorBound& bound) = 0;
};

// What a remote version's MatmulFn holds.
struct RemoteFn {
    std::shared_ptr<RemoteVersion> impl;
    void operator()(const float* A, const float* B, float* C, Shape s, const StageParams& p) const {
        impl->call(A, B, C, s, p);
    }
};

// The remote version behind fn, or nullptr when fn runs in this process.
inline RemoteVersion* remote_version(const MatmulFn& fn) {
    const RemoteFn* r = fn.target<RemoteFn>();
    return r ? r->impl.get() : nullptr;
}

}  // namespace mml::runner
