// gpu/stream_hold.h: the spinning kernel and its flag.
#include <atomic>

#include "gpu/cuda_check.h"
#include "gpu/stream_hold.h"

namespace mml::gpu {

namespace {

__device__ unsigned long long global_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// One thread: reads the host's flag through the mapped page until it is set
// or the bound has passed (globaltimer is in nanoseconds on every GPU since sm_30).
__global__ void spin_until_released(volatile int* released, int* timed_out, unsigned long long timeout_ns) {
    const unsigned long long t0 = global_ns();
    while (*released == 0) {
        if (global_ns() - t0 > timeout_ns) {
            *timed_out = 1;
            return;
        }
    }
}

}  // namespace

StreamHold::StreamHold() {
    CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&host_), sizeof(Flags), cudaHostAllocMapped));
    CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_), host_, 0));
    *host_ = Flags{1, 0};
}

StreamHold::~StreamHold() {
    release();
    cudaFreeHost(host_);  // no check: a destructor must not throw
}

void StreamHold::hold(cudaStream_t stream) {
    if (holding_) release();
    host_->timed_out = 0;
    reinterpret_cast<volatile int&>(host_->released) = 0;
    std::atomic_thread_fence(std::memory_order_seq_cst);
    spin_until_released<<<1, 1, 0, stream>>>(&device_->released, &device_->timed_out, kTimeoutNs);
    CUDA_CHECK_LAUNCH();
    holding_ = true;
}

void StreamHold::release() {
    if (!holding_) return;
    std::atomic_thread_fence(std::memory_order_seq_cst);
    reinterpret_cast<volatile int&>(host_->released) = 1;
    std::atomic_thread_fence(std::memory_order_seq_cst);
}

bool StreamHold::settle() {
    if (!holding_) return false;
    holding_ = false;
    return reinterpret_cast<volatile int&>(host_->timed_out) != 0;
}

}  // namespace mml::gpu
