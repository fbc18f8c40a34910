// Lab 12 reference: SUMMA on GPUs with NCCL, communication overlapped with
// computation (see labs/lab12/summa_gpu.h for the contract).
#pragma once

#include "labs/common/lab12_nccl.h"

namespace reference::lab12 {

// Enqueues the whole product on g.comm and g.gemm->stream() and returns
// without waiting (the program synchronises and times it).
void summa_nccl(const mml::lab12::GpuSumma& g);

}  // namespace reference::lab12
