// Lab 5 - your code, task 5: the five loops around the micro-kernel.
// Read handouts/lab5.md ("Feeding the tile: packing and the five loops") first.
#include <omp.h>

#include <algorithm>
#include <vector>

#include "cpu/matrix.h"
#include "labs/lab5/gemm.h"

namespace student::lab5 {

// Loops 2 and 1: packed A block (mc x kc) times packed B panel (kc x nc)
// into C (row stride ldc): C = (accumulate = false) or += (true) the product.
void macro_kernel(const KernelSet& kernels, std::int64_t mc, std::int64_t nc, std::int64_t kc,
                  const float* a_packed, const float* b_packed, float* C, std::int64_t ldc, bool accumulate) {
    // TODO(lab5, task 5a): loops 2 and 1 of BLIS.
    //   Contract: as the comment above; any mc, nc >= 1, not only multiples of
    //     MR and NR: the packed panels are padded with zeros to whole
    //     micro-panels, but C has only mc x nc elements here, and nothing
    //     outside them may be written.
    //   Goal: one micro-kernel call per MR x NR tile of C, reading the packed
    //     micro-panels in place; the ragged tiles at the right and bottom edges
    //     cost a little extra, never a wrong or out-of-bounds write.
    //   Judged: the tests with odd block sizes (ragged blocks in every loop),
    //     then lab5.blis (with task 5b). Stuck: handouts/lab5.md, hints 5.5.x.
    (void)kernels; (void)mc; (void)nc; (void)kc; (void)a_packed; (void)b_packed; (void)C; (void)ldc;
    (void)accumulate;
}

void matmul_blis(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K,
                 const KernelSet& kernels, BlockSizes requested, int threads) {
    // Given: the block sizes (0 = default; MC a multiple of MR, NC of NR) and
    // 64-byte aligned buffers, one packed B panel and one packed A block per thread.
    const BlockSizes d = default_block_sizes(MR, NR);
    const std::int64_t MC = panels(requested.MC > 0 ? requested.MC : d.MC, MR) * MR;
    const std::int64_t KC = std::min(requested.KC > 0 ? requested.KC : d.KC, K);
    const std::int64_t NC = std::min(panels(requested.NC > 0 ? requested.NC : d.NC, NR), panels(N, NR)) * NR;
    const int nthreads = int(std::max<std::int64_t>(1, std::min<std::int64_t>(threads, panels(M, MR))));
    mml::Matrix b_packed(nthreads, KC * NC), a_packed(nthreads, MC * KC);

    // Given: loop 3 runs in parallel. Thread t takes the rows [m_begin, m_end)
    // of C (whole micro-panels) and runs loops 5, 4, 3 on them by itself, with
    // its own packed copies: no thread ever waits for another until the end.
#pragma omp parallel num_threads(nthreads)
    {
        // OpenMP may give fewer threads than asked: split by the team we got.
        const int team = omp_get_num_threads();
        const int t = omp_get_thread_num();
        const std::int64_t m_panels = panels(M, MR);
        const std::int64_t m_begin = std::min(M, m_panels * t / team * MR);
        const std::int64_t m_end = std::min(M, m_panels * (t + 1) / team * MR);
        float* b_buf = b_packed.data() + t * KC * NC;
        float* a_buf = a_packed.data() + t * MC * KC;
        (void)m_begin; (void)m_end; (void)b_buf; (void)a_buf; (void)A; (void)B; (void)C; (void)kernels;

        // TODO(lab5, task 5b): loops 5, 4, 3 for this thread's rows [m_begin, m_end).
        //   Contract: C = A*B on those rows (C holds garbage on entry), for any
        //     M, N, K and block sizes MC, KC, NC (ragged last blocks everywhere);
        //     this thread uses only its own buffers b_buf (KC x NC) and a_buf
        //     (MC x KC).
        //   Goal: BLIS's loop order (handouts/lab5.md, "Feeding the tile"): a
        //     KC x NC block of B packed once and reused by every MC x KC block
        //     of A, each packed once and swept by the macro-kernel (task 5a).
        //   Judged: the tests, then lab 5's target: your fastest stage at least
        //     75 % of OpenBLAS's speed on the same threads. Stuck: hints 5.5.x.
    }
}

}  // namespace student::lab5
