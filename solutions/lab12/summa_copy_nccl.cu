// Lab 12's SUMMA with the panels moved by the copy engines (mmlab-nccl gemm
// --transport copy): the steps, buffers and events of summa_nccl, with each
// step's panels fetched by copy_step (labs/common/lab12_copy.h) instead of
// broadcast. It is an answer (the stream and event order is task 3's), so it
// lives here and reaches the NCCL program through references_nccl.cu.
#include "solutions/lab12/summa_copy.h"

#include "gpu/cuda_check.h"

namespace reference::lab12 {

using namespace mml::lab12;

namespace {

// The first step in two halves (splits_first_step, lab12_copy.h): the top
// rows of A's panel and the left columns of B's, then the rest; C's top-left
// quarter is multiplied once the first half is in (panel_ready[1], not yet
// used: step 1 records it again), the other three once all of it is.
void first_step_split(const GpuSumma& g, const PeerBlocks& peers) {
    const cudaStream_t compute = g.gemm->stream();
    const std::int64_t m = g.L.rows(), n = g.L.cols(), m0 = m / 2, n0 = n / 2, w = g.panels[0].width();
    if (g.timer) g.timer->comm_begin(0, g.comm);
    const StepOperands op = copy_step_part(g, peers, 0, g.comm, 0, m0, 0, n0);
    CUDA_CHECK(cudaEventRecord(g.panel_ready[1], g.comm));
    copy_step_part(g, peers, 0, g.comm, m0, m, n0, n);
    if (g.timer) g.timer->comm_end(0, g.comm);
    CUDA_CHECK(cudaEventRecord(g.panel_ready[0], g.comm));
    const std::size_t es = g.elem_bytes;
    auto quarter = [&](std::int64_t r0, std::int64_t r1, std::int64_t c0, std::int64_t c1) {
        if (r1 > r0 && c1 > c0)
            g.gemm->run(static_cast<const char*>(op.a) + r0 * op.lda * es, op.lda,
                        static_cast<const char*>(op.b) + c0 * es, op.ldb, g.C_loc + r0 * n + c0, n, r1 - r0, c1 - c0, w,
                        false);
    };
    CUDA_CHECK(cudaStreamWaitEvent(compute, g.panel_ready[1], 0));
    if (g.timer) g.timer->gemm_begin(0, compute);
    quarter(0, m0, 0, n0);
    CUDA_CHECK(cudaStreamWaitEvent(compute, g.panel_ready[0], 0));
    quarter(0, m0, n0, n);
    quarter(m0, m, 0, n);
    if (g.timer) g.timer->gemm_end(0, compute);
    CUDA_CHECK(cudaEventRecord(g.product_done[0], compute));
}

}  // namespace

void summa_copy(const GpuSumma& g, const PeerBlocks& peers) {
    const cudaStream_t compute = g.gemm->stream();
    const std::int64_t m = g.L.rows(), n = g.L.cols();
    const bool split = splits_first_step(g);
    if (split) first_step_split(g, peers);
    for (std::size_t s = split ? 1 : 0; s < g.panels.size(); ++s) {
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
        g.gemm->run(op.a, op.lda, op.b, op.ldb, g.C_loc, n, m, n, g.panels[s].width(), s > 0);
        if (g.timer) g.timer->gemm_end(s, compute);
        CUDA_CHECK(cudaEventRecord(g.product_done[buf], compute));
    }
}

}  // namespace reference::lab12
