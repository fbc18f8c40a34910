// Lab 12's bindings to earlier labs' kernels: the per-tile products of the
// GPU SUMMA "--tile lab8" (lab 8's stage 4, the reference's double-buffered
// kernel; stages 5 and 6 are faster but not bound) and "--tile lab11" (lab
// 11's wgmma kernel, bf16, sm_90), reached only through
// labs/common/lab12_tile_bindings.h. Built with
// CUDA only (the _gpu.cpp rule), and left out of a build without the
// answers, where those tiles then say they are not in this build.
#include "labs/common/lab12_tile_bindings.h"
#include "solutions/lab11/lab11.h"
#include "solutions/lab8/lab8.h"

namespace {

void lab11_wgmma(const void* A, const void* Bt, std::int64_t ld, float* C, std::int64_t M, std::int64_t N,
                 std::int64_t K) {
    reference::lab11::wgmma(static_cast<const __nv_bfloat16*>(A), static_cast<const __nv_bfloat16*>(Bt), ld, C, M, N, K);
}

struct Bind {
    Bind() {
        mml::lab12::bind_lab8_kernel(reference::lab8::double_buffer, "double_buffer kernel");
        mml::lab12::bind_lab11_kernel(lab11_wgmma, "wgmma kernel");
    }
} bind;

}  // namespace
