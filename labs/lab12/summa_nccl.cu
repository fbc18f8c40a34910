// Lab 12, task 3: SUMMA on GPUs with NCCL, communication overlapped with the
// products. Same steps as summa_mpi.cpp, now on two CUDA streams:
//   g.comm              packs the owner's A panel and runs step s's two broadcasts
//   g.gemm->stream()    multiplies step s's panels into C
// With two buffers per panel (step s uses buffer s % 2), the broadcasts of
// step s+1 can run while step s is multiplied. Events tell each stream when
// it may go on (handouts/lab12.md draws the timeline).
//
// Test:  make lab12 on a GPU machine, or
//        mpirun -np 1 build/bin/mmlab-nccl gemm --impl student --size 300x200x100 --always-broadcast
#include "labs/lab12/summa_gpu.h"

#include "gpu/cuda_check.h"

namespace student::lab12 {

using namespace mml::lab12;

void summa_nccl(const GpuSumma& g) {
    const Layout& L = g.L;
    [[maybe_unused]] const std::int64_t m = L.rows(), n = L.cols(), ka = L.a_depth();
    [[maybe_unused]] const std::size_t es = g.elem_bytes;  // bytes per element of A, B and the panels
    [[maybe_unused]] const char* A = static_cast<const char*>(g.A_loc);
    [[maybe_unused]] const char* B = static_cast<const char*>(g.B_loc);
    [[maybe_unused]] const cudaStream_t compute = g.gemm->stream();
    [[maybe_unused]] const bool bcast_a = L.grid.cols > 1 || g.always_broadcast;
    [[maybe_unused]] const bool bcast_b = L.grid.rows > 1 || g.always_broadcast;

    for (std::size_t s = 0; s < g.panels.size(); ++s) {
        [[maybe_unused]] const Panel& p = g.panels[s];
        [[maybe_unused]] const int buf = static_cast<int>(s % 2);

        // TODO 3.1 (comm stream): buffer `buf` was last read by the product of
        //   step s-2: make g.comm wait for it (cudaStreamWaitEvent on
        //   g.product_done[buf], from s >= 2). Without overlap (!g.overlap),
        //   also wait for step s-1's product (the other buffer's event).
        // TODO 3.2 (comm stream): the A panel. Without bcast_a it is your own
        //   block: A + (p.k0 - L.ka0) * es with row stride ka. Otherwise the
        //   owner (L.col == p.a_owner) packs the w = p.width() columns into
        //   g.a_panel[buf] (cudaMemcpy2DAsync, row stride w * es, on g.comm) and
        //   every rank of the row calls
        //       ncclBroadcast(g.a_panel[buf], g.a_panel[buf], m * w, g.nccl_type, p.a_owner, g.row_comm, g.comm)
        //   (wrap NCCL calls in nccl_check, CUDA calls in CUDA_CHECK).
        // TODO 3.3 (comm stream): the B panel: whole rows of B_loc, so on the
        //   owner (L.row == p.b_owner) already contiguous at B + (p.k0 - L.kb0) * n * es.
        //   With bcast_b, broadcast it along the column into g.b_panel[buf]
        //   (the root sends from its block; the others' send pointer is not read).
        //   Put g.timer->comm_begin(s, g.comm) / comm_end(s, g.comm) around 3.2-3.3.
        // TODO 3.4: record g.panel_ready[buf] on g.comm; make the compute stream
        //   wait for it; then, between g.timer->gemm_begin/gemm_end on compute,
        //       g.gemm->run(a, lda, b, n, g.C_loc, n, m, n, w, /*accumulate=*/s > 0);
        //   and record g.product_done[buf] on compute.
    }
}

}  // namespace student::lab12
