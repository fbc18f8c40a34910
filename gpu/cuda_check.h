// Every CUDA call and every launch is checked; a failure names the call, the
// file and the line, and throws (so the harness can report it and exit cleanly).
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace mml::gpu {

// What a student should do next, for the errors a kernel's own bug causes:
// they surface at a later call (the next synchronisation), so the call named
// in the message is rarely where the mistake is.
inline const char* cuda_hint(cudaError_t err) {
    switch (err) {
        case cudaErrorIllegalAddress:
        case cudaErrorMisalignedAddress:
        case cudaErrorInvalidAddressSpace:
        case cudaErrorIllegalInstruction:
        case cudaErrorLaunchFailure:
            return "; a kernel read or wrote outside its arrays (check every index against M, N, K); "
                   "compute-sanitizer build/bin/mmlab run --stage STAGE --size 64 names the kernel and the line";
        case cudaErrorLaunchTimeout:
            return "; a kernel ran too long (an endless loop?)";
        default:
            return "";
    }
}

[[noreturn]] inline void cuda_fail(cudaError_t err, const char* what, const char* file, int line) {
    throw std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + what +
                             " failed: " + cudaGetErrorName(err) + " (" +
                             cudaGetErrorString(err) + ")" + cuda_hint(err));
}

}  // namespace mml::gpu

// Wrap every runtime call: CUDA_CHECK(cudaMalloc(&p, bytes));
#define CUDA_CHECK(call)                                                          \
    do {                                                                          \
        cudaError_t err_ = (call);                                                \
        if (err_ != cudaSuccess) ::mml::gpu::cuda_fail(err_, #call, __FILE__, __LINE__); \
    } while (0)

// Right after every kernel<<<...>>>: catches bad launch configurations at once.
// Errors raised while the kernel runs surface at the next synchronisation,
// which the harness checks with CUDA_CHECK(cudaEventSynchronize(...)).
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())
