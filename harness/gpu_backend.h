// What the harness and the tests need from a GPU, in plain C++ so that they
// build with or without CUDA. harness/gpu_backend_cuda.cu implements it with CUDA;
// harness/gpu_backend_none.cpp stands in when nvcc is absent and says so.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "gpu/device_info.h"
#include "harness/stage.h"

namespace mml::gpu {


bool built_with_cuda();
DeviceInfo probe();  // never throws
// Throws UsageError "<what> needs a CUDA GPU, but <why>" when no GPU is
// usable: the one capability check of commands and stages (device_check.cpp).
void require_gpu(const std::string& what);

// Whether each timed GPU run starts with a cold L2 (mmlab's --l2 flush): then
// run_timed_ms writes a buffer of twice the L2's size just before its first
// event - outside the timed region - as nvbench does between its runs, so the
// kernel reads A and B from device memory. Default: warm (false), the inputs
// of the previous run (or of Stage::prepare) left in L2 as far as they fit.
// Process-wide: set once by the command line before any timing.
void set_flush_l2(bool flush);
bool flush_l2();

// Host <-> device cost of one product, step by step (lab 6, Fig. 9 of Cao's survey).
struct CostBreakdown {
    double alloc_ms = 0, copy_in_ms = 0, kernel_ms = 0, copy_out_ms = 0, free_ms = 0;
    double total_ms() const { return alloc_ms + copy_in_ms + kernel_ms + copy_out_ms + free_ms; }
};

// A, B and C of one shape held on the device, for timing and checking.
class DeviceProblem {
public:
    explicit DeviceProblem(Shape s);  // throws std::runtime_error naming the problem
    ~DeviceProblem();
    DeviceProblem(const DeviceProblem&) = delete;
    DeviceProblem& operator=(const DeviceProblem&) = delete;

    void upload(const float* A, const float* B);
    void poison_c();
    // Launches fn between two CUDA events, synchronises, checks for launch and
    // execution errors (throws std::runtime_error), returns the kernel time.
    // `untimed_first` (Stage::prepare), when given, runs before on the same
    // pointers, outside the events, and is synchronised and checked the same way;
    // then, under set_flush_l2(true), the L2 flush (also outside the events).
    // The GPU is held until fn has been launched (gpu/stream_hold.h), so the
    // time is the GPU's work alone, not the host's launch of it. A run whose
    // hold lapsed (a kernel's first launch) is run once more; `who` (the
    // stage's name) is held no longer once that second run lapses too, and
    // the one-line note names it.
    double run_timed_ms(const MatmulFn& fn, const StageParams& p, const MatmulFn& untimed_first = {},
                        const std::string& who = {});
    void download_c(float* C);

private:
    double timed_once(const MatmulFn& fn, const StageParams& p, const MatmulFn& untimed_first, bool held,
                      bool& lapsed);
    struct State;
    std::unique_ptr<State> state_;
};

// Allocation, copies in, kernel, copy out and free, each timed on its own.
// The whole sequence runs once as a warm-up (CUDA loads a kernel's code at its
// first launch), then `repetitions` times; each step's median is returned.
// C receives the last run's result.
CostBreakdown measure_breakdown(const MatmulFn& fn, const float* A, const float* B, float* C,
                                Shape s, const StageParams& p, int repetitions = 3);

}  // namespace mml::gpu
