// Lab 12 (given code, not a TODO): everything one rank's GPU SUMMA gets from
// the program build/bin/mmlab-nccl, which sets it up before the timed run.
// Only NCCL code includes this (files named *_nccl.cu).
#pragma once

#include <nccl.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "labs/common/lab12_gpu.h"
#include "labs/common/lab12_grid.h"

namespace mml::lab12 {

// Throws std::runtime_error naming the call and NCCL's own text.
inline void nccl_check(ncclResult_t r, const char* what) {
    if (r != ncclSuccess) throw std::runtime_error(std::string(what) + " failed: " + ncclGetErrorString(r));
}

struct GpuSumma {
    Layout L;                    // this rank's blocks (labs/common/lab12_grid.h)
    std::vector<Panel> panels;   // the K steps, in order
    // One communicator per process row (ranked by grid column) and per
    // process column (ranked by grid row), split from all ranks' by the program.
    ncclComm_t row_comm = nullptr, col_comm = nullptr;
    cudaStream_t comm = nullptr;       // non-blocking stream for packing and broadcasts
    TileGemm* gemm = nullptr;          // the tile product; it runs on gemm->stream()
    Precision precision = Precision::Fp32;
    ncclDataType_t nccl_type = ncclFloat32;
    std::size_t elem_bytes = 4;        // of A, B and the panels
    const void* A_loc = nullptr;       // device, row-major, L.rows() x L.a_depth()
    const void* B_loc = nullptr;       // device, row-major, L.b_depth() x L.cols() (the copy
                                       // transport with lab 11's tile: transposed, lab12_copy.h)
    float* C_loc = nullptr;            // device, row-major, L.rows() x L.cols(): yours to write, all of it
    // Two buffers each for the A panel (L.rows() x the widest panel) and the
    // B panel (the widest panel x L.cols()): step s uses buffer s % 2.
    void* a_panel[2] = {nullptr, nullptr};
    void* b_panel[2] = {nullptr, nullptr};
    // Events without timing, for the streams to wait on each other:
    // panel_ready[b] - the panels in buffer b have arrived (record on comm);
    // product_done[b] - the product that read buffer b has finished (record on gemm->stream()).
    cudaEvent_t panel_ready[2] = {nullptr, nullptr};
    cudaEvent_t product_done[2] = {nullptr, nullptr};
    bool overlap = true;               // false: step s+1's broadcasts wait for step s's product
    // Broadcast even where a process row (or column) is one process: a 1 x 1
    // grid then runs every copy and NCCL call of a larger one (tests, and
    // the cost of the machinery on one GPU).
    bool always_broadcast = false;
    StepTimer* timer = nullptr;        // comm_begin/end on comm, gemm_begin/end on the product's stream
};

}  // namespace mml::lab12
