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

        // TODO 3.1-3.4 (lab 12, task 3): step s of SUMMA on the two streams.
        //   Contract: after the last step and both streams, C_loc (on the
        //     device) is this rank's block of C, as in task 2. Step s uses
        //     buffer `buf` of each panel (g.a_panel, g.b_panel); the A panel
        //     needs no broadcast when !bcast_a (your own block, row stride ka),
        //     the B panel none when !bcast_b (whole rows of B_loc, contiguous).
        //     Ordering rules, kept with the events (g.product_done[buf],
        //     g.panel_ready[buf]), never with a host wait:
        //       - a buffer is written only after the product that last read it
        //         (step s-2) has finished;
        //       - step s's product starts only after its panels have arrived;
        //       - without overlap (!g.overlap) step s's communication also waits
        //         for step s-1's product.
        //     Every NCCL call through nccl_check, every CUDA call through
        //     CUDA_CHECK; g.timer->comm_begin/comm_end(s, g.comm) around the
        //     communication, gemm_begin/gemm_end around the product (g.gemm->run,
        //     accumulating after the first step).
        //   Goal: the broadcasts of step s+1 run while step s is multiplied.
        //   Judged: `make lab12` on a GPU machine (one GPU: --always-broadcast);
        //     stuck: handouts/lab12.md, hints 12.3.x.
    }
}

}  // namespace student::lab12
