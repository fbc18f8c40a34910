// What changed from stage 2: the same register tile, but now fed from packed
// copies that fit the caches, so the micro-kernel reads everything from L1
// and L2 at unit stride. The loops, outermost first (BLIS's names):
//   loop 5, jc: N in steps of NC   - one KC x NC panel of B at a time (L3)
//   loop 4, pc: K in steps of KC   - pack that panel of B
//   loop 3, ic: M in steps of MC   - pack an MC x KC block of A (L2)
//   loop 2, jr: NC in steps of NR  - a KC x NR micro-panel of B (L1)       } macro_kernel.cpp
//   loop 1, ir: MC in steps of MR  - the micro-kernel: an MR x NR tile of C }
// Packing costs O(MK + KN) copies per pass against O(MNK) FMAs, and buys
// sequential, cache-resident, zero-padded operands for every FMA.
//
// Threads: loop 3 is parallel, as in BLIS. Each thread owns a contiguous
// range of rows of C (whole MR micro-panels) and packs its own blocks of A;
// the B panel of each KC step is packed by all threads together (each takes
// a share of its micro-panels) and read by all. There are two B panel
// buffers, used by turns (KC step s packs into buffer s % 2), so one barrier
// per KC step is enough: after it, every thread has finished step s - 1,
// the last reader of the buffer that step s + 1 will overwrite. Each C
// element is written by exactly one thread. (The starter's simpler variant
// gives every thread its own copy of the B panel and needs no barrier, at
// the price of packing B once per thread: about 1% more work at n = 2048 on
// 2 threads.)
//
// A thread's rows are cut into blocks of equal size, at most MC: 1028 rows
// with MC = 1020 become 2 x 516, not 1020 + 8 (a block of 8 rows would
// stream the whole B panel through the cache for less than one micro-panel
// of work, and leave that thread last at every barrier).
#include "solutions/lab5/blis_gemm.h"

#include <omp.h>

#include <algorithm>

#include "cpu/matrix.h"
#include "solutions/lab5/macro_kernel.h"
#include "solutions/lab5/packing.h"

namespace reference::lab5 {

namespace {
std::int64_t round_up(std::int64_t x, std::int64_t m) { return (x + m - 1) / m * m; }

// A 64-byte aligned buffer that only grows. (Plain 4 KiB pages: asking for
// 2 MiB huge pages with madvise made this code about 2 % slower on the Zen 3
// here - probably because 4 KiB pages scatter the packed buffers over the
// physical cache sets and one huge page does not.)
struct Workspace {
    mml::Matrix buffer;
    float* get(std::int64_t floats) {
        if (buffer.size() < floats) buffer = mml::Matrix(1, floats);
        return buffer.data();
    }
};
}  // namespace

void matmul_blis(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K,
                 const KernelSet& kernels, BlockSizes requested, int threads) {
    const BlockSizes bs = blocks_for_product(requested, kernels, N, K);
    const int MR = kernels.MR, NR = kernels.NR;
    const std::int64_t MC = bs.MC, KC = bs.KC, NC = bs.NC;
    const int nthreads = static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(threads, panels(M, MR))));

    // 64-byte aligned buffers: the two packed B panels, shared by all threads,
    // then per thread a packed A block and an edge tile (each part starts on
    // a 64-byte boundary, so no cache line is shared by two threads' parts).
    // Kept from one call to the next (per calling thread), so that a call
    // does not pay for fresh pages: 2+ MiB at n = 2048 would otherwise cost
    // about 1% of the time in page faults (on the 2-core Zen 3 dev machine).
    static thread_local Workspace ws;
    const std::int64_t b_floats = round_up(KC * NC, 16);  // 16 floats = 64 bytes
    const std::int64_t per_thread = round_up(MC * KC + std::int64_t(MR) * NR, 16);
    float* workspace = ws.get(2 * b_floats + nthreads * per_thread);

    // Loop 3 is parallel: thread t takes a contiguous range of rows of C
    // (whole MR micro-panels).
    const std::int64_t m_panels = panels(M, MR);

#pragma omp parallel num_threads(nthreads)
    {
        // OpenMP may give fewer threads than asked (OMP_THREAD_LIMIT, a nested
        // region, a ThreadSanitizer build): split the work by the team we got,
        // or some rows of C would never be computed.
        const int team = omp_get_num_threads();
        const int t = omp_get_thread_num();
        const std::int64_t m_begin = std::min(M, m_panels * t / team * MR);
        const std::int64_t m_end = std::min(M, m_panels * (t + 1) / team * MR);
        float* a_packed = workspace + 2 * b_floats + t * per_thread;
        float* c_tile = a_packed + MC * KC;
        // Equal blocks of whole micro-panels, at most MC rows each (see the top).
        const std::int64_t my_panels = panels(m_end - m_begin, MR);
        const std::int64_t blocks = std::max<std::int64_t>(1, panels(my_panels * MR, MC));
        const std::int64_t mc_equal = panels(my_panels, blocks) * MR;

        std::int64_t step = 0;  // KC steps so far: picks the B buffer
        for (std::int64_t jc = 0; jc < N; jc += NC) {              // loop 5
            const std::int64_t nc = std::min(NC, N - jc);
            for (std::int64_t pc = 0; pc < K; pc += KC, ++step) {  // loop 4
                const std::int64_t kc = std::min(KC, K - pc);
                float* b_packed = workspace + (step % 2) * b_floats;
                // Every thread packs its share of the B panel's micro-panels...
                const std::int64_t n_panels = panels(nc, NR);
                pack_b_panels(B + pc * N + jc, N, kc, nc, NR, n_panels * t / team,
                              n_panels * (t + 1) / team, b_packed);
#pragma omp barrier  // ... and all of it is packed before anyone reads it.
                for (std::int64_t ic = m_begin; ic < m_end; ic += mc_equal) {  // loop 3
                    const std::int64_t mc = std::min(mc_equal, m_end - ic);
                    pack_a(A + ic * K + pc, K, mc, kc, MR, a_packed);
                    // The first pc step writes C (it holds garbage until then), later ones add.
                    macro_kernel(kernels, mc, nc, kc, a_packed, b_packed, C + ic * N + jc, N, pc > 0, c_tile);
                }
                // No second barrier: the next step packs the other buffer.
            }
        }
    }
}

}  // namespace reference::lab5
