// Holds a stream still while the host enqueues timed work behind it, so that
// a start event fires when the GPU reaches the work rather than while the host
// is still launching it (nvbench's "blocking kernel").
//
// Without it, the start event is recorded on an idle GPU, and the time between
// the two events includes the host's launch work (a few microseconds for a
// kernel, about 9 us for a cuBLAS call on the H100): at 1000^3 on the H100
// that was 10-50 % of a tensor-core product, and made the cold-L2 runs look
// faster than the warm ones (the L2 flush kept the GPU busy during the launch).
//
// hold() launches one thread that spins on a flag in mapped host memory;
// release() sets the flag. The spin gives up after kTimeoutNs so that timed
// work that waits on the GPU from the host cannot deadlock: that run is timed
// as before, launch included, and settle() reports the lapse. What to do
// about a lapse (run again, stop holding a function) is the caller's policy
// (DeviceProblem::run_timed_ms): a lapse can be a one-off - a kernel's first
// launch, whose code CUDA's lazy loading loads then, waiting for the GPU - or
// come with every run of a function that synchronises inside.
#pragma once

#include <cuda_runtime.h>

namespace mml::gpu {

class StreamHold {
public:
    StreamHold();
    ~StreamHold();
    StreamHold(const StreamHold&) = delete;
    StreamHold& operator=(const StreamHold&) = delete;

    // Enqueue the spinning kernel on `stream` (nothing once holding has stopped).
    void hold(cudaStream_t stream = 0);
    // Let the held work go.
    void release();
    // Call once the stream has passed the hold (after the stop event's wait).
    // Returns true when the hold gave up before release(): the host had not
    // enqueued the work within kTimeoutNs, so its launch was timed.
    bool settle();

    static constexpr unsigned long long kTimeoutNs = 1'000'000;  // 1 ms: far above a launch (~10 us)

private:
    struct Flags {
        int released;
        int timed_out;
    };
    Flags* host_ = nullptr;    // page-locked, mapped
    Flags* device_ = nullptr;  // the same memory as the GPU sees it
    bool holding_ = false;
};

}  // namespace mml::gpu
