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
                   "MML_IMPL=student compute-sanitizer build/bin/mmlab-tests --test-suite=gpu-labN (your code; "
                   "without MML_IMPL it checks the reference) names the kernel and the line. The GPU is unusable "
                   "for the rest of this process: fix this first failure, later GPU failures follow from it";
        case cudaErrorLaunchTimeout:
            return "; a kernel ran too long (an endless loop?)";
        default:
            return "";
    }
}

// hint: what to do next (cuda_hint for a runtime call, cuda_launch_hint for a launch).
[[noreturn]] inline void cuda_fail(cudaError_t err, const char* what, const char* file, int line,
                                   const char* hint) {
    throw std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + what +
                             " failed: " + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")" + hint);
}

// The errors a launch itself is refused with (the kernel never ran): the
// configuration at the <<<...>>> named by file:line is what to check.
inline const char* cuda_launch_hint(cudaError_t err) {
    switch (err) {
        case cudaErrorInvalidValue:
        case cudaErrorInvalidConfiguration:
            return "; the launch was refused: more than 1024 threads a block (blockDim.x * y * z), a block or "
                   "grid side over its limit (block z <= 64; grid y, z <= 65535), or more shared memory than a "
                   "block may have (48 KB static)";
        case cudaErrorLaunchOutOfResources:
            return "; the launch was refused: threads a block x registers a thread exceed the SM's 65536 "
                   "registers (fewer threads a block, or __launch_bounds__ on the kernel)";
        case cudaErrorNoKernelImageForDevice:
        case cudaErrorInvalidDeviceFunction:
            return "; the build has no code for this GPU: make clean, then build on this machine (or CUDA_ARCH=XY "
                   "for its compute capability X.Y)";
        default:
            return cuda_hint(err);
    }
}

}  // namespace mml::gpu

// Wrap every runtime call: CUDA_CHECK(cudaMalloc(&p, bytes));
#define CUDA_CHECK(call)                                                          \
    do {                                                                          \
        cudaError_t err_ = (call);                                                \
        if (err_ != cudaSuccess) ::mml::gpu::cuda_fail(err_, #call, __FILE__, __LINE__, ::mml::gpu::cuda_hint(err_)); \
    } while (0)

// Right after every kernel<<<...>>>: catches bad launch configurations at once.
// Errors raised while the kernel runs surface at the next synchronisation,
// which the harness checks with CUDA_CHECK(cudaEventSynchronize(...)).
#define CUDA_CHECK_LAUNCH()                                                             \
    do {                                                                                \
        cudaError_t err_ = cudaGetLastError();                                          \
        if (err_ != cudaSuccess)                                                        \
            ::mml::gpu::cuda_fail(err_, "kernel launch (cudaGetLastError())", __FILE__, __LINE__, \
                                  ::mml::gpu::cuda_launch_hint(err_));                 \
    } while (0)
