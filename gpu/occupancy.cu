// Kernel resources and occupancy from the CUDA runtime (gpu/occupancy.h).
#include <stdexcept>

#include "gpu/cuda_check.h"
#include "gpu/occupancy.h"

namespace mml::gpu {

KernelResources kernel_resources(const KernelHandle& k) {
    if (!k.fn || k.block_threads < 1) throw std::runtime_error("kernel_resources: empty kernel handle");
    cudaFuncAttributes attr{};
    CUDA_CHECK(cudaFuncGetAttributes(&attr, k.fn));
    KernelResources r;
    r.regs_per_thread = attr.numRegs;
    r.static_shared_bytes = int(attr.sharedSizeBytes);
    r.block_threads = k.block_threads;
    int warp = 32, dev = 0, max_threads = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerMultiProcessor, dev));
    r.warps_per_block = (k.block_threads + warp - 1) / warp;
    r.max_warps_per_sm = max_threads / warp;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&r.blocks_per_sm, k.fn, k.block_threads, 0));
    return r;
}

}  // namespace mml::gpu
