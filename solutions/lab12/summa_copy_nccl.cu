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

// The first step in kFirstStepParts pieces (splits_first_step, lab12_copy.h):
// piece j brings rows [r_j, r_j+1) of A's panel and columns [c_j, c_j+1) of
// B's; once it is in (peers.piece(j)), C is multiplied over the rows and
// columns all pieces so far have brought, less what was multiplied before:
// rows [r_j, r_j+1) by columns [0, c_j+1), and rows [0, r_j) by columns
// [c_j, c_j+1). A panel that does not move is all there from the start (its
// rows or columns: all of them), so one that moves alone gives strips.
void first_step_split(const GpuSumma& g, const PeerBlocks& peers) {
    const cudaStream_t compute = g.gemm->stream();
    const std::int64_t m = g.L.rows(), n = g.L.cols(), w = g.panels[0].width();
    const bool rows_move = copy_step_bytes(g, 0, kMoveA) > 0, cols_move = copy_step_bytes(g, 0, kMoveB) > 0;
    constexpr int parts = kFirstStepParts;
    auto row = [&](int j) { return rows_move ? m * j / parts : (j > 0 ? m : 0); };  // rows in after j pieces
    auto col = [&](int j) { return cols_move ? n * j / parts : (j > 0 ? n : 0); };
    if (g.timer) g.timer->comm_begin(0, g.comm);
    StepOperands op;
    for (int j = 0; j < parts; ++j) {
        op = copy_step_part(g, peers, 0, g.comm, m * j / parts, m * (j + 1) / parts, n * j / parts, n * (j + 1) / parts);
        CUDA_CHECK(cudaEventRecord(peers.piece(j), g.comm));
    }
    if (g.timer) g.timer->comm_end(0, g.comm);
    CUDA_CHECK(cudaEventRecord(g.panel_ready[0], g.comm));
    const std::size_t es = g.elem_bytes;
    auto block = [&](std::int64_t r0, std::int64_t r1, std::int64_t c0, std::int64_t c1) {
        if (r1 > r0 && c1 > c0)
            g.gemm->run(static_cast<const char*>(op.a) + r0 * op.lda * es, op.lda,
                        static_cast<const char*>(op.b) + c0 * es, op.ldb, g.C_loc + r0 * n + c0, n, r1 - r0, c1 - c0, w,
                        false);
    };
    if (g.timer) g.timer->gemm_begin(0, compute);
    for (int j = 0; j < parts; ++j) {
        CUDA_CHECK(cudaStreamWaitEvent(compute, peers.piece(j), 0));
        block(row(j), row(j + 1), 0, col(j + 1));
        block(0, row(j), col(j), col(j + 1));
    }
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
