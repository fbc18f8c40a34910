// Lab 12's SUMMA with the panels moved by the copy engines (mmlab-nccl gemm
// --transport copy): the steps, buffers and events of summa_nccl, with each
// step's panels fetched by copy_step (labs/common/lab12_copy.h) instead of
// broadcast. It is an answer (the stream and event order is task 3's), so it
// lives here and reaches the NCCL program through references_nccl.cu.
#include "solutions/lab12/summa_copy.h"

#include "gpu/cuda_check.h"

namespace reference::lab12 {

using namespace mml::lab12;

void summa_copy(const GpuSumma& g, const PeerBlocks& peers) {
    const cudaStream_t compute = g.gemm->stream();
    const std::int64_t m = g.L.rows(), n = g.L.cols();
    for (std::size_t s = 0; s < g.panels.size(); ++s) {
        const int buf = static_cast<int>(s % 2);
        // ---- communication stream: step s's panels into buffer `buf`
        if (s >= 2) CUDA_CHECK(cudaStreamWaitEvent(g.comm, g.product_done[buf], 0));  // its last reader is done
        if (!g.overlap && s >= 1) CUDA_CHECK(cudaStreamWaitEvent(g.comm, g.product_done[1 - buf], 0));
        if (g.timer) g.timer->comm_begin(s, g.comm);
        const StepOperands op = copy_step(g, peers, s, g.comm);
        if (g.timer) g.timer->comm_end(s, g.comm);
        CUDA_CHECK(cudaEventRecord(g.panel_ready[buf], g.comm));
        // ---- compute stream: C (+)= A panel * B panel
        CUDA_CHECK(cudaStreamWaitEvent(compute, g.panel_ready[buf], 0));
        if (g.timer) g.timer->gemm_begin(s, compute);
        g.gemm->run(op.a, op.lda, op.b, n, g.C_loc, n, m, n, g.panels[s].width(), s > 0);
        if (g.timer) g.timer->gemm_end(s, compute);
        CUDA_CHECK(cudaEventRecord(g.product_done[buf], compute));
    }
}

}  // namespace reference::lab12
