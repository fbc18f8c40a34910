// Lab 5 reference, stage 4 (lab5.blis), task 5: the five loops around the
// micro-kernel, inside the given threads of labs/common/blis_loops.h, for
// every kernel set (any register tile MR x NR) and the reference's packing
// (packing.cpp).
//
// The loops, outermost first, on one thread's block of C:
//   loop 5, ic: M in steps of MC   - one MC x KC panel of A at a time (L3)
//   loop 4, pc: K in steps of KC   - pack that panel of A
//   loop 3, jc: N in steps of NC   - pack a KC x NC block of B (L2)
//   loop 2, ir: MC in steps of MR  - one MR x KC sliver of A (L1)             } macro_kernel
//   loop 1, jr: NC in steps of NR  - the micro-kernel: an MR x NR tile of C    }
// Packing costs O(MK + KN) copies per pass against O(MNK) FMAs, and buys
// sequential, cache-resident, zero-padded operands for every FMA.
//
// The order. These are BLIS's five loops with the parts of A and B
// exchanged. BLIS's own order is jc, pc (pack a B panel, L3), ic (pack an
// A block, L2), jr (a B micro-panel in L1), ir (A micro-panels streaming
// from L2), so successive micro-kernel calls walk DOWN a column of C
// tiles. Here the A sliver sits in L1 and the B micro-panels stream past it
// from L2, so successive calls walk ALONG the rows of C: the same MR rows,
// the next NR columns. (BLIS itself ends up in this order when its
// micro-kernel prefers to access C by columns and C is row-major: it then
// computes C^T = B^T A^T, in which our B plays the part of its A.) Why it is
// faster on the AVX-512 Xeon: the MR = 12 rows of a C tile are ldc floats
// apart, at n = 2048 8 KiB, so all 24 lines of a tile fall into the same 2
// of L1's 64 sets (12 ways), and its rows on 12 pages; the column walk
// brings such a tile every call, the row walk the next lines of rows it is
// already reading: padding C's rows sped the column walk up and made no
// difference to this order, which beat the column walk against OpenBLAS;
// the AVX2 kernels lose nothing by it (the numbers:
// handouts/data/lab5-blis-xeon.txt, handouts/lab5.md).
//
// Packing A on the fly. When a thread's columns fit in one B block (N <=
// NC = 1024 on 1 thread at the Xeon's 2 MiB L2, N <= 2048 on 2; every
// narrow C), loop 3 runs once, and each sliver of A serves only that one
// block: packing the whole A panel first (into L3, at MC = 2048 rows 2 MiB)
// and reading it back sliver by sliver buys nothing. Then each sliver is
// packed just before loop 1 uses it, into a one-sliver buffer that stays in
// L1 (macro_kernel_packing_a). That is what a narrow C needed: with N <= 192
// a sliver serves N/32 <= 6 micro-kernel calls after its round trip through
// L3, which made narrow products slower than BLIS's order and than
// OpenBLAS; packed on the fly they ran faster (handouts/data/lab5-blis-xeon.txt,
// handouts/lab5.md, "Narrow C, small products, ...").
#include <algorithm>

#include "labs/common/blis_loops.h"
#include "solutions/lab5/gemm.h"

namespace reference::lab5 {

namespace {

constexpr std::int64_t kLine = 16;  // floats per 64-byte cache line

// Loop 1 (jr) for one sliver of A: the micro-panels of the packed B block
// (NR columns each) stream past the sliver, and the C tile moves along its
// `rows` rows. Spread over the calls, the `next_lines` cache lines at `next`
// (the next packed sliver, or none) are prefetched into L2.
//
// Why that one software prefetch: the A panel (2-4 MiB at n = 2048-4096)
// lives in L3, and the first call on a new sliver would otherwise wait for
// its lines from there; the hardware prefetcher only starts once that call
// is reading them. Into L2, not L1: L1 holds the current sliver and the B
// micro-panels (block_sizes.cpp), and from L2 the hardware prefetcher keeps
// up. Measured on the AVX-512 Xeon, 1 thread, interleaved with and without:
// +2-3 % at n = 2048 and 4096.
void loop1(const KernelSet& kernels, int rows, std::int64_t nc, std::int64_t kc, const float* a, const float* b_packed,
           float* C, std::int64_t ldc, bool accumulate, const float* next, std::int64_t next_lines) {
    const std::int64_t NR = kernels.NR;
    const std::int64_t calls = (nc + NR - 1) / NR;
    const std::int64_t lines_per_call = (next_lines + calls - 1) / calls;
    for (std::int64_t jr = 0, line = 0; jr < nc; jr += NR) {
        for (std::int64_t l = 0; l < lines_per_call && line < next_lines; ++l, ++line)
            __builtin_prefetch(next + line * kLine, 0, 2);  // 2: into L2, not L1
        const int cols = int(std::min(NR, nc - jr));
        if (rows == kernels.MR && cols == NR)
            kernels.micro(kc, a, b_packed + jr * kc, C + jr, ldc, accumulate);
        else
            common::lab5::edge_tile(kernels, rows, cols, kc, a, b_packed + jr * kc, C + jr, ldc, accumulate);
    }
}

}  // namespace

// Loops 2 and 1. Loop 2 (ir) walks the slivers of the packed A panel (MR
// rows each), loop 1 (jr) the micro-panels of the packed B block (NR columns
// each). The A sliver (MR x kc) is reused by all nc/NR micro-kernel calls of
// loop 1 and stays in L1 (block_sizes.cpp sizes kc for it); the B block
// (kc x nc) is reused by every sliver, from L2.
void macro_kernel(const KernelSet& kernels, std::int64_t mc, std::int64_t nc, std::int64_t kc,
                  const float* a_packed, const float* b_packed, float* C, std::int64_t ldc, bool accumulate) {
    const std::int64_t MR = kernels.MR;
    for (std::int64_t ir = 0; ir < mc; ir += MR) {  // loop 2
        const float* a = a_packed + ir * kc;         // sliver ir/MR of A
        const bool last = ir + MR >= mc;
        loop1(kernels, int(std::min(MR, mc - ir)), nc, kc, a, b_packed, C + ir * ldc, ldc, accumulate, a + MR * kc,
              last ? 0 : MR * kc / kLine);
    }
}

namespace {

// Loops 2 and 1 when loop 3 runs once (see the top of the file): each sliver
// of the mc x kc block of A at A (row stride lda) is packed into `sliver`
// (MR x kc floats) just before loop 1 uses it, and loop 1 then reads it
// from L1. No software prefetch here: fetching the next sliver's MR rows of
// A into L2 during loop 1 (as macro_kernel does with the packed sliver) made
// it slower (handouts/data/lab5-blis-xeon.txt) - at N = 32 loop 1 is one
// call, and its 200 prefetches come all at once. The hardware prefetcher
// follows the MR rows being packed.
void macro_kernel_packing_a(const KernelSet& kernels, std::int64_t mc, std::int64_t nc, std::int64_t kc,
                            const float* A, std::int64_t lda, float* sliver, const float* b_packed, float* C,
                            std::int64_t ldc, bool accumulate) {
    const std::int64_t MR = kernels.MR;
    for (std::int64_t ir = 0; ir < mc; ir += MR) {  // loop 2
        const std::int64_t rows = std::min(MR, mc - ir);
        pack_a(A + ir * lda, lda, rows, kc, int(MR), sliver);
        loop1(kernels, int(rows), nc, kc, sliver, b_packed, C + ir * ldc, ldc, accumulate, nullptr, 0);
    }
}

}  // namespace

// Loops 5, 4 and 3 on this thread's block of C (see the top of the file).
void block_loops(const float* A, const float* B, float* C, std::int64_t N, std::int64_t K, const KernelSet& kernels,
                 const common::lab5::ThreadBlock& block) {
    const int MR = kernels.MR, NR = kernels.NR;
    const std::int64_t KC = block.KC, width = block.n_end - block.n_begin;
    for (std::int64_t ic = block.m_begin; ic < block.m_end; ic += block.mc_equal) {  // loop 5
        const std::int64_t mc = std::min(block.mc_equal, block.m_end - ic);
        for (std::int64_t pc = 0; pc < K; pc += KC) {                                // loop 4
            const std::int64_t kc = std::min(KC, K - pc);
            // The first pc step writes C (it holds garbage until then), later ones add.
            if (width <= block.nc_equal) {  // loop 3 runs once: slivers of A packed on the fly
                pack_b_panels(B + pc * N + block.n_begin, N, kc, width, NR, 0, panels(width, NR), block.b_block);
                macro_kernel_packing_a(kernels, mc, width, kc, A + ic * K + pc, K, block.a_panel, block.b_block,
                                       C + ic * N + block.n_begin, N, pc > 0);
                continue;
            }
            pack_a(A + ic * K + pc, K, mc, kc, MR, block.a_panel);
            for (std::int64_t jc = block.n_begin; jc < block.n_end; jc += block.nc_equal) {  // loop 3
                const std::int64_t nc = std::min(block.nc_equal, block.n_end - jc);
                pack_b_panels(B + pc * N + jc, N, kc, nc, NR, 0, panels(nc, NR), block.b_block);
                macro_kernel(kernels, mc, nc, kc, block.a_panel, block.b_block, C + ic * N + jc, N, pc > 0);
            }
        }
    }
}

void matmul_blis(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K,
                 const KernelSet& kernels, BlockSizes blocks, int threads) {
    common::lab5::blis_threads(M, N, K, kernels, blocks, threads, [&](const common::lab5::ThreadBlock& block) {
        block_loops(A, B, C, N, K, kernels, block);
    });
}

}  // namespace reference::lab5
