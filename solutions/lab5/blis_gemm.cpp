// Lab 5 reference, stage 4 (lab5.blis): the answer to labs/lab5/blis_gemm.cpp
// (task 5), the five loops around the micro-kernel, for any register tile.
//
// What changed from stage 2: the same register tile, but now fed from packed
// copies that fit the caches, so the micro-kernel reads everything from L1
// and L2 at unit stride. The loops, outermost first (BLIS's names):
//   loop 5, jc: N in steps of NC   - one KC x NC panel of B at a time (L3)
//   loop 4, pc: K in steps of KC   - pack that panel of B
//   loop 3, ic: M in steps of MC   - pack an MC x KC block of A (L2)
//   loop 2, jr: NC in steps of NR  - a KC x NR micro-panel of B (L1)       } macro_kernel
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
#include <omp.h>

#include <algorithm>

#include "cpu/matrix.h"
#include "labs/common/block_sizes.h"
#include "solutions/lab5/gemm.h"

namespace reference::lab5 {

using common::lab5::panels;

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

// --------------------------------------------------------------------------
// The block sizes (gemm.h says what each rule is for).

BlockSizes resolve_block_sizes(BlockSizes requested, const KernelSet& kernels) {
    const BlockSizes d = common::lab5::default_block_sizes(kernels.MR, kernels.NR);
    BlockSizes b;
    b.MC = round_up(requested.MC > 0 ? requested.MC : d.MC, kernels.MR);
    b.KC = requested.KC > 0 ? requested.KC : d.KC;
    b.NC = round_up(requested.NC > 0 ? requested.NC : d.NC, kernels.NR);
    return b;
}

BlockSizes blocks_for_product(BlockSizes requested, const KernelSet& kernels, std::int64_t N, std::int64_t K) {
    BlockSizes b = resolve_block_sizes(requested, kernels);
    const std::int64_t k_steps = (K + b.KC - 1) / b.KC;
    b.KC = (K + k_steps - 1) / k_steps;
    b.NC = std::min(b.NC, round_up(N, kernels.NR));
    return b;
}

// --------------------------------------------------------------------------
// Loops 2 and 1 (task 5a).
//
// The two innermost loops around the micro-kernel. Loop 2 (jr) walks the
// micro-panels of the packed B panel (NR columns each); loop 1 (ir) those of
// the packed A block (MR rows each). A B micro-panel (kc x NR) is reused by
// all mc/MR micro-panels of A while it sits in L1; the A block (mc x kc) is
// reused by every jr step from L2.
//
// Two software prefetches, one per operand that is not already close:
// - B: while the micro-panels of A pass by, the NEXT micro-panel of B is
//   fetched into L2, a few cache lines per micro-kernel call. The B panel
//   (KC x NC, 2.7 MiB at n = 2048) lives in L3, or in another core's cache
//   when another thread packed it. Without this prefetch the whole product
//   ran 1.6 % slower on the Zen 3 we measured.
// - C: loop 1 walks DOWN C, MR rows at a time, and the MR rows of a tile are
//   ldc floats apart - at n = 2048, 8 KiB, so every row of every tile is on a
//   page of its own and the hardware prefetcher, which follows sequential
//   streams, cannot guess them. So before each call we ask for the C tile of
//   the NEXT call: its lines arrive while this call does its kc x MR x NR FMAs
//   (about 2000 cycles), long enough even from DRAM. (The micro-kernel also
//   prefetches its own tile when it starts, for the first call and for
//   callers that do not do this.)
//
// Full tiles go straight to C. Edge tiles (the last rows or columns when mc or
// nc is not a multiple of MR or NR) are computed in full into c_tile - the
// packed zeros make the extra rows and columns 0 - and only the valid part is
// written back, so nothing outside C is ever touched.

void macro_kernel(const KernelSet& kernels, std::int64_t mc, std::int64_t nc, std::int64_t kc,
                  const float* a_packed, const float* b_packed, float* C, std::int64_t ldc, bool accumulate,
                  float* c_tile) {
    const std::int64_t MR = kernels.MR, NR = kernels.NR;
    constexpr std::int64_t kLine = 16;                         // floats per 64-byte cache line
    const std::int64_t b_lines = kc * NR / kLine;              // cache lines per B micro-panel
    const std::int64_t calls = (mc + MR - 1) / MR;             // micro-kernel calls per jr step
    const std::int64_t lines_per_call = (b_lines + calls - 1) / calls;
    for (std::int64_t jr = 0; jr < nc; jr += NR) {             // loop 2
        const float* b = b_packed + jr * kc;                   // micro-panel jr/NR of B
        const float* b_next = jr + NR < nc ? b + NR * kc : nullptr;
        const std::int64_t cols = std::min(NR, nc - jr);
        for (std::int64_t ir = 0, line = 0; ir < mc; ir += MR) {  // loop 1
            const float* a = a_packed + ir * kc;                  // micro-panel ir/MR of A
            const std::int64_t rows = std::min(MR, mc - ir);
            // The next call's tile: one tile further down, or the top of the
            // next column of tiles. A prefetch never faults, but its address
            // must still be inside C: only valid rows, only if there is one.
            const bool down = ir + MR < mc;
            const std::int64_t next_ir = down ? ir + MR : 0, next_jr = down ? jr : jr + NR;
            if (next_jr < nc)
                for (std::int64_t r = 0; r < std::min(MR, mc - next_ir); ++r)
                    for (std::int64_t j = 0; j < std::min(NR, nc - next_jr); j += kLine)  // each line of the row
                        __builtin_prefetch(C + (next_ir + r) * ldc + next_jr + j, 1, 3);
            for (std::int64_t l = 0; b_next && l < lines_per_call && line < b_lines; ++l, ++line)
                __builtin_prefetch(b_next + line * kLine, 0, 2);  // 2: into L2, not L1
            float* c = C + ir * ldc + jr;
            if (rows == MR && cols == NR) {
                kernels.micro(kc, a, b, c, ldc, accumulate);
                continue;
            }
            kernels.micro(kc, a, b, c_tile, NR, false);
            for (std::int64_t r = 0; r < rows; ++r)
                for (std::int64_t j = 0; j < cols; ++j)
                    c[r * ldc + j] = accumulate ? c[r * ldc + j] + c_tile[r * NR + j] : c_tile[r * NR + j];
        }
    }
}

// --------------------------------------------------------------------------
// Loops 5, 4 and 3 (task 5b), threads over loop 3 (see the top of the file).

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
