// What a compiled kernel uses (registers, shared memory) and how many of its
// blocks an SM holds at once, read from the CUDA runtime
// (cudaFuncGetAttributes, cudaOccupancyMaxActiveBlocksPerMultiprocessor).
// Lab 10's latency-hidden model takes TLP and BLP from here. Plain C++ header.
#pragma once

namespace mml::gpu {

// A kernel's address (the __global__ function, cast to const void*) and the
// block size its launcher uses. Solutions that lab 10 models export one
// (reference::lab6::naive_coalesced_handle(), reference::lab7::tiled16_handle()...),
// which harness/stages/lab10/references_gpu.cpp hands to lab 10.
struct KernelHandle {
    const void* fn = nullptr;
    int block_threads = 0;
};

struct KernelResources {
    int regs_per_thread = 0;
    int static_shared_bytes = 0;
    int block_threads = 0;
    int warps_per_block = 0;    // TLP
    int blocks_per_sm = 0;      // BLP: resident blocks an SM holds (registers, shared memory, hardware limits)
    int max_warps_per_sm = 0;   // the hardware's limit
};

// Throws std::runtime_error without a GPU or for an empty handle.
KernelResources kernel_resources(const KernelHandle& k);

}  // namespace mml::gpu
