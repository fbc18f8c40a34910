// The GPU side of build/bin/mmlab-nccl's set-up, shared by its parts
// (program_nccl.cu: options and the timed run; labs/common/lab12_copy_nccl.cu: the
// copy-engine transport; model_inputs_nccl.cu: the model's inputs measured in
// the same launch): one GPU per process, NCCL's communicators, and small
// owners of streams and events. Only *_nccl.cu files include it.
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include <cstdint>
#include <string>

#include "gpu/cuda_check.h"
#include "gpu/device_buffer.h"
#include "labs/common/lab12_gpu.h"
#include "labs/common/lab12_grid.h"

namespace mml::lab12 {

// Set by set_up_gpu: this process's place among those of its node (local
// rank i takes GPU i), the GPUs the node has, all ranks' communicator.
extern int g_local_rank, g_local_size, g_devices;
extern ncclComm_t g_world_comm;

std::string nccl_version();  // "2.28.3"
std::string device_name();   // this process's GPU
// This process's GPU (a Usage error where there is none, or too few for the
// processes of this node), then all ranks' NCCL communicator.
void set_up_gpu();
// The ranks of g_world_comm with the same color, ordered by key.
ncclComm_t split_world(int color, int key);
// This rank's process-row and process-column communicators on grid g (row:
// ranked by grid column; column: by grid row), split from g_world_comm the
// first time a grid is asked for and kept until free_grid_comms: a split is
// collective and costs about a second on 4 GPUs, and a launch runs many
// shapes on the same grid. Every rank asks for the same grids in the same order.
struct GridComms {
    ncclComm_t row = nullptr, col = nullptr;
};
GridComms grid_comms(const Grid& g, int row, int col);
void free_grid_comms();
// Whether every rank runs on this node (CUDA IPC needs it).
bool one_node();

struct Stream {
    cudaStream_t s = nullptr;
    Stream() { CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); }
    ~Stream() {
        if (s) cudaStreamDestroy(s);
    }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
};
struct Event {
    cudaEvent_t e = nullptr;
    explicit Event(bool timing = false) {
        CUDA_CHECK(cudaEventCreateWithFlags(&e, timing ? cudaEventDefault : cudaEventDisableTiming));
    }
    ~Event() {
        if (e) cudaEventDestroy(e);
    }
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
};
// Bytes to allocate for `bytes` that NCCL may read or write: rounded up to
// 16, at least 16. NCCL's LL protocol reads whole 4-byte words, so a bf16
// broadcast of an odd count reads 2 bytes past a buffer of exactly its size
// (memcheck: "Invalid __global__ read of size 4" in
// ncclDevKernel_Broadcast_RING_LL; without memcheck, harmless).
std::size_t nccl_bytes(std::size_t bytes);
// A block of host floats on the device, as float or as bfloat16 (nccl_bytes
// allocated: the root's B rows are broadcast from it where they lie).
gpu::DeviceBuffer<char> to_device(const float* host, std::int64_t count, Precision p);

}  // namespace mml::lab12
