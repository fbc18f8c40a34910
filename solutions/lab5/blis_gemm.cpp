// What changed from stage 2: the same register tile, but now fed from packed
// copies that fit the caches, so the micro-kernel reads everything from L1
// and L2 at unit stride. The loops, outermost first (BLIS's names):
//   loop 5, jc: N in steps of NC   - one KC x NC panel of B at a time (L3)
//   loop 4, pc: K in steps of KC   - pack that panel of B (all threads share it)
//   loop 3, ic: M in steps of MC   - pack an MC x KC block of A (each thread its own, L2)
//   loop 2, jr: NC in steps of NR  - a KC x NR micro-panel of B (L1)       } macro_kernel.cpp
//   loop 1, ir: MC in steps of MR  - the micro-kernel: an MR x NR tile of C }
// Packing costs O(MK + KN) copies per pass against O(MNK) FMAs, and buys
// sequential, cache-resident, zero-padded operands for every FMA.
//
// Threads: the rows of C are split into one contiguous range per thread
// (whole MR micro-panels), i.e. loop 3 is parallel; the threads first pack
// the shared B panel together (its micro-panels divided among them), wait
// for each other, and each then works on its own rows. Each C element is
// written by exactly one thread.
#include "solutions/lab5/blis_gemm.h"

#include <omp.h>

#include <algorithm>
#include <vector>

#include "cpu/matrix.h"
#include "solutions/lab5/macro_kernel.h"
#include "solutions/lab5/packing.h"

namespace reference::lab5 {

void matmul_blis(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K,
                 const KernelSet& kernels, BlockSizes requested, int threads) {
    const BlockSizes bs = resolve_block_sizes(requested, kernels);
    const int MR = kernels.MR, NR = kernels.NR;
    const std::int64_t MC = bs.MC, KC = std::min(bs.KC, K), NC = std::min(bs.NC, panels(N, NR) * NR);
    const int nthreads = static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(threads, panels(M, MR))));

    // 64-byte aligned buffers (mml::Matrix): packed B shared, packed A and an
    // edge tile per thread.
    mml::Matrix b_packed(KC, NC);
    mml::Matrix a_packed(nthreads, MC * KC);
    mml::Matrix c_tiles(nthreads, std::int64_t(MR) * NR);

#pragma omp parallel num_threads(nthreads)
    {
        const int t = omp_get_thread_num();
        // This thread's rows of C: whole micro-panels of MR rows.
        const std::int64_t m_panels = panels(M, MR);
        const std::int64_t m_begin = std::min(M, m_panels * t / nthreads * MR);
        const std::int64_t m_end = std::min(M, m_panels * (t + 1) / nthreads * MR);
        float* a_buf = a_packed.data() + t * MC * KC;
        float* c_tile = c_tiles.data() + std::int64_t(t) * MR * NR;

        for (std::int64_t jc = 0; jc < N; jc += NC) {              // loop 5
            const std::int64_t nc = std::min(NC, N - jc);
            for (std::int64_t pc = 0; pc < K; pc += KC) {          // loop 4
                const std::int64_t kc = std::min(KC, K - pc);
                // Pack B's kc x nc panel, micro-panels shared out among the threads.
                const std::int64_t n_panels = panels(nc, NR);
                pack_b_panels(B + pc * N + jc, N, kc, nc, NR, n_panels * t / nthreads,
                              n_panels * (t + 1) / nthreads, b_packed.data());
#pragma omp barrier
                for (std::int64_t ic = m_begin; ic < m_end; ic += MC) {  // loop 3
                    const std::int64_t mc = std::min(MC, m_end - ic);
                    pack_a(A + ic * K + pc, K, mc, kc, MR, a_buf);
                    // The first pc step writes C (it holds garbage until then), later ones add.
                    macro_kernel(kernels, mc, nc, kc, a_buf, b_packed.data(), C + ic * N + jc, N, pc > 0, c_tile);
                }
#pragma omp barrier  // everyone is done with this B panel before it is overwritten
            }
        }
    }
}

}  // namespace reference::lab5
