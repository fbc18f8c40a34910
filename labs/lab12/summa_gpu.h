// Lab 12, task 3: SUMMA on GPUs, one MPI process per GPU, panels broadcast
// with NCCL on one stream while the tensor cores (or CUDA cores) multiply the
// previous panels on another. summa_nccl.cu holds the TODOs; handouts/lab12.md
// explains the double buffering.
//
// The program build/bin/mmlab-nccl sets everything up (labs/common/lab12_nccl.h:
// GpuSumma g - the blocks on the device, the communicators, the two streams,
// two buffers per panel, the events, the tile product) and then calls your
// function on every rank at once; it times from before the call until both
// streams are idle, gathers C and checks it against the float64 product.
#pragma once

#include "labs/common/lab12_nccl.h"

namespace student::lab12 {

// Enqueue the whole product on g.comm (packing, broadcasts) and
// g.gemm->stream() (products) and return without waiting.
void summa_nccl(const mml::lab12::GpuSumma& g);

}  // namespace student::lab12
