// Lab 12 reference: SUMMA on GPUs, the panels broadcast by NCCL on their own
// stream while the previous panels are multiplied - the lesson of the lab.
//
// What changed from the CPU version (summa_mpi.cpp): the same steps, but two
// streams run them. The communication stream packs the owner's A panel and
// runs the two broadcasts of step s; the compute stream multiplies step s's
// panels into C. With two buffers per panel, step s+1's broadcasts land in
// the other buffer while step s is multiplied, so a step costs
// max(communication, product) instead of their sum (models/abg_model.h).
// The events say when a stream may go on:
//   panel_ready[s % 2]   recorded on comm after step s's broadcasts;
//                        the compute stream waits for it before product s;
//   product_done[s % 2]  recorded on compute after product s; step s+2's
//                        broadcasts (into the same buffer) wait for it.
// Without overlap (g.overlap false) step s+1's broadcasts also wait for
// product s: the same code, run one stream at a time.
//
// NCCL broadcasts are collective over the row (or column) communicator: every
// rank of it calls them in the same order, the owner as root. A row or column
// of one process needs no broadcast (its panels are its own blocks) unless
// g.always_broadcast asks for the whole machinery anyway.
#include "solutions/lab12/summa_gpu.h"

#include "gpu/cuda_check.h"

namespace reference::lab12 {

using namespace mml::lab12;

void summa_nccl(const GpuSumma& g) {
    const Layout& L = g.L;
    const std::int64_t m = L.rows(), n = L.cols(), ka = L.a_depth();
    const std::size_t es = g.elem_bytes;
    const char* A = static_cast<const char*>(g.A_loc);
    const char* B = static_cast<const char*>(g.B_loc);
    const cudaStream_t compute = g.gemm->stream();
    const bool bcast_a = L.grid.cols > 1 || g.always_broadcast;
    const bool bcast_b = L.grid.rows > 1 || g.always_broadcast;

    for (std::size_t s = 0; s < g.panels.size(); ++s) {
        const Panel& p = g.panels[s];
        const int buf = static_cast<int>(s % 2);
        const std::int64_t w = p.width();

        // ---- communication stream: step s's panels into buffer `buf`
        if (s >= 2) CUDA_CHECK(cudaStreamWaitEvent(g.comm, g.product_done[buf], 0));  // its last reader is done
        if (!g.overlap && s >= 1) CUDA_CHECK(cudaStreamWaitEvent(g.comm, g.product_done[1 - buf], 0));
        if (g.timer) g.timer->comm_begin(s, g.comm);
        const void* a = nullptr;
        std::int64_t lda = ka;
        if (!bcast_a) {
            a = A + (p.k0 - L.ka0) * es;  // its own columns, row stride ka
        } else {
            if (L.col == p.a_owner && m > 0)  // pack: the w columns, contiguous row after row
                CUDA_CHECK(cudaMemcpy2DAsync(g.a_panel[buf], w * es, A + (p.k0 - L.ka0) * es, ka * es, w * es, m,
                                             cudaMemcpyDeviceToDevice, g.comm));
            nccl_check(ncclBroadcast(g.a_panel[buf], g.a_panel[buf], m * w, g.nccl_type, p.a_owner, g.row_comm, g.comm),
                       "ncclBroadcast (A panel, process row)");
            a = g.a_panel[buf];
            lda = w;
        }
        const bool own_b = L.row == p.b_owner;
        const void* b = own_b ? B + (p.k0 - L.kb0) * n * es : nullptr;  // whole rows of B_loc: contiguous already
        if (bcast_b) {
            const void* send = own_b ? b : g.b_panel[buf];  // read on the root only
            nccl_check(ncclBroadcast(send, g.b_panel[buf], w * n, g.nccl_type, p.b_owner, g.col_comm, g.comm),
                       "ncclBroadcast (B panel, process column)");
            b = g.b_panel[buf];
        }
        if (g.timer) g.timer->comm_end(s, g.comm);
        CUDA_CHECK(cudaEventRecord(g.panel_ready[buf], g.comm));

        // ---- compute stream: C (+)= A panel * B panel
        CUDA_CHECK(cudaStreamWaitEvent(compute, g.panel_ready[buf], 0));
        if (g.timer) g.timer->gemm_begin(s, compute);
        g.gemm->run(a, lda, b, n, g.C_loc, n, m, n, w, s > 0);
        if (g.timer) g.timer->gemm_end(s, compute);
        CUDA_CHECK(cudaEventRecord(g.product_done[buf], compute));
    }
}

}  // namespace reference::lab12
