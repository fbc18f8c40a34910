// The timing loop's side of a version that runs in the grader's runner
// (remote.h): how harness/bench.cpp times one. Each timed run is timed here,
// on inputs the runner cannot know before the clock starts, and its result
// checked (RemoteVersion::timed_run). Header only, like remote.h: the
// harness needs none of the checker's code for it (a normal build never
// makes a remote version).
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <string>

#include "harness/run_stage.h"
#include "harness/runner/remote.h"

namespace mml::runner {

// The iterations of each repetition of a remote version. Each of its timed
// runs costs this process a check of the result besides the run (in float64,
// a pass over A and B: for lab 9's skinny products a thousand times the
// kernel), which the manual time Google Benchmark sizes iterations by does
// not see: sized so, a lab 9 row took minutes. One timed run, on the wall
// clock with its check, sizes them instead: about 0.2 s of wall time a
// repetition, 1 to 50 iterations. A failure is left in `failure` (the timing
// loop then says so).
inline int remote_iterations(RemoteVersion& remote, const Problem& p, const StageParams& params,
                             const ErrorBound& bound, std::string& failure) {
    try {
        remote.load(p.A.data(), p.B.data(), p.shape);
        const auto t0 = std::chrono::steady_clock::now();
        remote.timed_run(p.shape, params, bound);
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return int(std::clamp(0.2 / std::max(wall, 1e-6), 1.0, 50.0));
    } catch (const std::exception& e) {
        failure = e.what();
        return 1;
    }
}

// One Google Benchmark repetition of a remote version: the inputs loaded,
// then each iteration one checked, timed run (manual time). The first
// failure is left in `failure` and ends the repetition with an error.
inline void time_remote(benchmark::State& state, RemoteVersion& remote, const Problem& p,
                        const StageParams& params, const ErrorBound& bound, std::string& failure) {
    try {
        remote.load(p.A.data(), p.B.data(), p.shape);
    } catch (const std::exception& e) {
        failure = e.what();
    }
    for (auto _ : state) {
        if (failure.empty()) {
            try {
                state.SetIterationTime(remote.timed_run(p.shape, params, bound));
                continue;
            } catch (const std::exception& e) {
                failure = e.what();
            }
        }
        state.SkipWithError("a timed run failed (the row says why)");
        break;
    }
}

}  // namespace mml::runner
