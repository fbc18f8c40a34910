// Times GPU work with CUDA events: they are recorded on the stream, so the
// measured interval is the device's, not the host's (launches are asynchronous).
#pragma once

#include "gpu/cuda_check.h"

namespace mml::gpu {

class EventTimer {
public:
    EventTimer() {
        CUDA_CHECK(cudaEventCreate(&start_));
        CUDA_CHECK(cudaEventCreate(&stop_));
    }
    ~EventTimer() {
        cudaEventDestroy(start_);
        cudaEventDestroy(stop_);
    }
    EventTimer(const EventTimer&) = delete;
    EventTimer& operator=(const EventTimer&) = delete;

    void start(cudaStream_t stream = 0) { CUDA_CHECK(cudaEventRecord(start_, stream)); }
    // Records the stop event, waits for it and returns milliseconds.
    float stop_ms(cudaStream_t stream = 0) {
        record_stop(stream);
        return wait_ms();
    }
    // The two halves of stop_ms, for a caller that must act in between
    // (release a held stream: gpu/stream_hold.h).
    void record_stop(cudaStream_t stream = 0) { CUDA_CHECK(cudaEventRecord(stop_, stream)); }
    float wait_ms() {
        CUDA_CHECK(cudaEventSynchronize(stop_));
        float ms = 0;
        CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
        return ms;
    }

private:
    cudaEvent_t start_{}, stop_{};
};

}  // namespace mml::gpu
