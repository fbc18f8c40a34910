// How fast the tensor cores go through Ampere's instruction, mma.sync
// (m16n8k16, bf16 in, FP32 sums), when nothing else is in the way: operands
// already in registers, no loads, no ldmatrix, several independent
// accumulators per warp so that no product waits for the one before. No
// kernel built on mma.sync runs faster on this GPU; lab 11 compares it with
// what wgmma (operands from shared memory) reaches. Plain C++ header.
#pragma once

#include <string>

namespace mml::gpu {

struct MmaRate {
    int warps_per_sm = 0;
    double ms = 0;      // median kernel time (CUDA events) of the repetitions
    double tflops = 0;  // 2 * 16 * 8 * 16 FLOPs an instruction
    std::string why_not;  // not measured: no GPU, or one below sm_80 (no bf16 mma.sync)
};

// `warps_per_sm` warps on every SM (a multiple of 8), each issuing `chains`
// independent mma.sync in turn, `iterations` times; the median of `reps`
// timed launches after one untimed. About 0.1 s at the defaults on an H100.
// Never throws for a missing GPU (why_not says so); throws std::runtime_error
// for a failing CUDA call.
MmaRate measure_mma_sync_rate(int warps_per_sm, int iterations = 2048, int reps = 5);

}  // namespace mml::gpu
