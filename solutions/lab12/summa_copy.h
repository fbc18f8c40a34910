// Lab 12's reference SUMMA over the copy engines (summa_copy_nccl.cu).
#pragma once

#include "labs/common/lab12_copy.h"

namespace reference::lab12 {

// The whole product, enqueued on g.comm and g.gemm->stream(); returns
// without waiting (as summa_nccl).
void summa_copy(const mml::lab12::GpuSumma& g, const mml::lab12::PeerBlocks& peers);

}  // namespace reference::lab12
