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
// work that waits on the GPU from the host (a cudaDeviceSynchronize inside the
// timed function) cannot deadlock: that run is timed as before, launch
// included, and after kLapsesToStop such runs in a row holding stops for good
// (each lapse costs the timeout) and settle() says so once.
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
    // Returns true the one time holding stops: the caller tells the user why.
    bool settle();

    static constexpr unsigned long long kTimeoutNs = 1'000'000;  // 1 ms: far above a launch (~10 us)
    static constexpr int kLapsesToStop = 3;

private:
    struct Flags {
        int released;
        int timed_out;
    };
    Flags* host_ = nullptr;    // page-locked, mapped
    Flags* device_ = nullptr;  // the same memory as the GPU sees it
    bool holding_ = false, stopped_ = false;
    int lapses_in_a_row_ = 0;
};

}  // namespace mml::gpu
