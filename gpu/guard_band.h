// The guard band: floats right after C on the device, poisoned before a run.
// A kernel that stores past the end of C overwrites one. The harness
// (harness/gpu_backend_cuda.cu) and the grader's runner
// (harness/runner/device_cuda.cu) both check it after a run, with this.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpu/matrix.h"
#include "gpu/cuda_check.h"

namespace mml::gpu {

// Copies the `count` floats after the c_count of C (device memory, an M x N
// matrix) back and throws std::runtime_error, with the fix, if a kernel
// overwrote one.
inline void check_guard_band(const float* C, std::size_t c_count, std::size_t count, std::int64_t M, std::int64_t N) {
    std::vector<float> guard(count);
    CUDA_CHECK(cudaMemcpy(guard.data(), C + c_count, count * sizeof(float), cudaMemcpyDeviceToHost));
    for (std::size_t g = 0; g < count; ++g)
        if (!is_poison(guard[g]))
            throw std::runtime_error(
                "the kernel wrote past the end of C (" + std::to_string(g) + " floats after C[M-1][N-1], M x N = " +
                std::to_string(M) + " x " + std::to_string(N) +
                "): a thread outside C stored its result. Every store needs the check row < M (and col < N); "
                "MML_IMPL=student compute-sanitizer --tool memcheck build/bin/mmlab-tests --test-suite=gpu-labN "
                "names the line");
}

}  // namespace mml::gpu
