// Shared by every lab's tests: the list of test shapes and the check of one
// stage on all of them. Which version is tested comes from the environment:
// MML_IMPL=student (make labN) or reference (make test, the default).
#pragma once

#include <doctest/doctest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "harness/format.h"
#include "harness/run_stage.h"
#include "harness/runner/remote.h"

namespace mml::testing {

// Odd, tiny, degenerate and rectangular shapes (M x N x K): non-multiples of
// every tile size the labs use (4, 8, 16, 32, 64, 128...), plus a few exact
// multiples so that the fast paths are exercised too.
inline const std::vector<Shape>& test_shapes() {
    static const std::vector<Shape> shapes = {
        {1, 1, 1},     {1, 1, 1000},  {37, 29, 1},   {1, 64, 33},    {64, 1, 33},
        {17, 31, 63},  {2, 3, 5},     {13, 97, 7},   {257, 3, 129},  {3, 257, 129},
        {127, 129, 131}, {255, 257, 65}, {512, 8, 8}, {8, 8, 512},   {64, 64, 64},
        {100, 100, 100}, {96, 160, 200}, {33, 65, 129}, {300, 200, 100}, {128, 128, 128},
    };
    return shapes;
}

inline Impl impl_under_test() {
    const char* v = std::getenv("MML_IMPL");
    return v && std::string(v) == "student" ? Impl::Student : Impl::Reference;
}

// " with 2 threads, --param kc=5,mc=7" (empty for the defaults): a failure
// message says which run failed, so that it can be repeated with mmlab.
inline std::string params_text(const StageParams& p) {
    std::string out;
    if (p.threads != 1) out += " with " + std::to_string(p.threads) + " threads";
    if (!p.values.empty()) {
        out += out.empty() ? " with --param " : ", --param ";
        bool first = true;
        for (const auto& [name, value] : p.values) {
            out += (first ? "" : ",") + name + "=" + std::to_string(value);
            first = false;
        }
    }
    return out;
}

// Runs `stage_name` on fresh random inputs at every shape and CHECKs each
// result; the failure message says which shape and what is wrong. Stops at
// the first wrong shape; returns whether every shape passed.
// " (ran the AVX2+FMA kernels)" where the stage has several code paths
// (Stage::kernel_set: lab 5's kernel sets): --param simd=16 runs the AVX2 set
// in a build without an AVX-512 one, and the label must say what ran.
inline std::string kernel_set_text(const Stage& stage, Impl impl, const StageParams& p) {
    if (!stage.kernel_set) return "";
    try {
        const std::string set =
            stage.kernel_set(impl, p, !runner::remote_version(version_of(stage, impl)));
        return set.empty() || set == "widest" ? "" : " (ran the " + set + " kernels)";
    } catch (const std::exception&) {
        return "";
    }
}

inline bool check_stage_on(const std::string& stage_name, const std::vector<Shape>& shapes,
                           StageParams params = {}) {
    const Stage* stage = Registry::instance().find(stage_name);
    REQUIRE_MESSAGE(stage != nullptr, "stage " << stage_name << " is not registered");
    REQUIRE_MESSAGE(!shapes.empty(), "no shapes to check " << stage_name << " on");  // else nothing is checked
    Impl impl = impl_under_test();
    if (impl == Impl::Student && !stage->student) impl = Impl::Reference;  // peer rows
    for (Shape s : shapes) {
        const CheckResult r = run_and_check(*stage, impl, s, params, fresh_seed());
        // Wrong on several threads: is it right on one? Then the threads
        // interfere, and the message says so.
        bool right_on_one_thread = false;
        if (!r.passed && params.threads > 1) {
            StageParams one = params;
            one.threads = 1;
            right_on_one_thread = run_and_check(*stage, impl, s, one, fresh_seed()).passed;
        }
        CHECK_MESSAGE(r.passed, stage_name << " (" << std::string(impl_name(impl))
                                           << std::string(r.never_written ? ") at M x N x K = " : ") is wrong at M x N x K = ")
                                           << shape_text(s)
                                           << params_text(params) << kernel_set_text(*stage, impl, params)
                                           << ": " << r.failure
                                           << (right_on_one_thread
                                                   ? " [with 1 thread it is right at this shape: the threads get "
                                                     "each other's work or write the same memory (a shared task "
                                                     "struct, buffer, counter, or overlapping rows of C); make "
                                                     "sanitize LAB=" + std::to_string(stage->lab) +
                                                         " checks your threads for races]"
                                                   : std::string()));
        if (!r.passed) return false;  // one clear failure per stage is enough to start from
    }
    return true;
}

inline bool check_stage(const std::string& stage_name, StageParams params = {}) {
    return check_stage_on(stage_name, test_shapes(), params);
}

}  // namespace mml::testing
