// Given code (lab 5): stage 4's loops (blis_loops.h), the five loops around
// the micro-kernel, for any register tile.
//
// What changed from stage 2: the same register tile, but now fed from packed
// copies that fit the caches, so the micro-kernel reads everything from L1
// and L2 at unit stride. The loops, outermost first:
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
// tiles. Here the A sliver sits
// in L1 and the B micro-panels stream past it from L2, so successive calls
// walk ALONG the rows of C: the same MR rows, the next NR columns. (BLIS
// itself ends up in this order when its micro-kernel prefers to access C
// by columns and C is row-major: it then computes C^T = B^T A^T, in which
// our B plays the part of its A.) Why it is faster on the AVX-512 Xeon: the
// MR = 12 rows of a C tile are ldc floats apart, at n = 2048 8 KiB, so all
// 24 lines of a tile fall into the same 2 of L1's 64 sets (12 ways), and
// its rows on 12 pages; the column walk brings such a tile every call, the
// row walk the next lines of rows it is already reading: padding C's rows
// sped the column walk up and made no difference to this order, which beat
// the column walk against OpenBLAS; the AVX2 kernels lose nothing by it
// (the numbers: handouts/data/lab5-blis-xeon.txt, handouts/lab5.md).
//
// Threads: C is cut into a grid of tm x tn blocks, one per thread, and each
// thread runs the five loops above on its own block with its own packed
// copies: the rows of A and the columns of B its block needs. No thread
// ever waits for another until the end. On 2 threads and a square C the
// grid is 1 x 2: loop 3's range (N) is split, each core keeps its B blocks
// in its own L2, and both pack the whole A panel - twice the A packing (1.8 %
// of the time of a 1-thread product at n = 2048), for no barrier. BLIS's
// way, the A panel packed once by both threads together into a shared
// buffer with a barrier per (ic, pc) step, is level with this on a quiet
// machine but far worse with other programs on the cores: a thread waiting
// at the barrier spins (libgomp's default) on a core the late thread or the
// other programs need (handouts/data/lab5-blis-xeon.txt). On many cores the
// redundant packing grows (each thread packs K * (M/tm + N/tn) floats), and
// sharing the panels would pay off again; thread_grid keeps the blocks
// square-ish to hold it down. A narrow C (N = 1, 50) is cut across M.
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
//
// Small products start fewer threads (threads_worth_starting, below).
//
// A thread's columns are cut into B blocks of equal size, at most NC, and
// its rows into A panels of equal size, at most MC: 1100 columns with
// NC = 1024 become 576 + 524 (whole micro-panels), not 1024 + 76 (a block
// of 76 columns would stream the whole A panel through L1 for little work).
#include "labs/common/blis_loops.h"

#include <omp.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "cpu/matrix.h"

namespace common::lab5 {

namespace {
std::int64_t round_up(std::int64_t x, std::int64_t m) { return (x + m - 1) / m * m; }

// n in pieces of equal size, whole R-panels each, at most `most` (a multiple of R).
std::int64_t equal_piece(std::int64_t n, std::int64_t most, int R) {
    const std::int64_t pieces = std::max<std::int64_t>(1, panels(n, int(most)));
    return panels(panels(n, R), int(pieces)) * R;
}

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

// The threads as a grid of tm x tn blocks of C, one per thread: tm across
// M, tn across N. As many threads in all as the shape has micro-panels for;
// among the grids that use as many, the one that packs least: a thread
// packs its block's rows of A and columns of B, about K * (M/tm + N/tn)
// floats, least for square-ish blocks (on 2 threads and a square C, a tie:
// ties go across N, two blocks side by side).
struct ThreadGrid {
    int tm = 1, tn = 1;
    int size() const { return tm * tn; }
};

ThreadGrid thread_grid(int threads, std::int64_t m_panels, std::int64_t n_panels, int MR, int NR) {
    ThreadGrid best;
    std::int64_t best_packed = m_panels * MR + n_panels * NR;
    for (int tn = 1; tn <= std::min<std::int64_t>(threads, n_panels); ++tn) {
        const ThreadGrid g{int(std::min<std::int64_t>(threads / tn, m_panels)), tn};
        const std::int64_t packed = panels(m_panels, g.tm) * MR + panels(n_panels, g.tn) * NR;
        if (g.size() > best.size() || (g.size() == best.size() && packed <= best_packed)) {
            best = g;
            best_packed = packed;
        }
    }
    return best;
}

}  // namespace

// --------------------------------------------------------------------------
// Loops 2 and 1.
//
// Loop 2 (ir) walks the slivers of the packed A panel (MR rows each), loop 1
// (jr) the micro-panels of the packed B block (NR columns each). The A sliver
// (MR x kc) is reused by all nc/NR micro-kernel calls of loop 1 and stays in
// L1 (block_sizes.cpp sizes kc for it); the B block (kc x nc) is reused by
// every sliver, from L2. The C tile moves along MR rows of C.
//
// One software prefetch: while loop 1 runs over one sliver, the NEXT sliver
// of A is fetched into L2, a few cache lines per micro-kernel call. The A
// panel (2-4 MiB at n = 2048-4096) lives in L3, and the first call on a new
// sliver would otherwise wait for its lines from there; the hardware
// prefetcher only starts once that call is reading them. Into L2, not L1:
// L1 holds the current sliver and the B micro-panels (block_sizes.cpp), and
// from L2 the hardware prefetcher keeps up. Measured on the AVX-512 Xeon,
// 1 thread, interleaved with and without: +2-3 % at n = 2048 and 4096.
//
// Edge tiles (the last rows or columns when mc or nc is not a multiple of MR
// or NR): packing padded A and B with zeros, so the micro-kernel can compute
// a whole tile there too, of which only `rows` x `cols` are in C. A kernel
// set with an edge micro-kernel (micro_edge) computes it in place and writes
// only those, with masked stores; otherwise the whole tile goes into a small
// buffer (poisoned first: a tile the kernel never writes stays "never
// written") and that part is copied. When at most half of the last B
// micro-panel's columns are in C, a half-width micro-kernel (micro_half), if
// the set has one, does it with half the FMAs (at N = 1000 with NR = 32,
// 2.4 % of all FMAs would otherwise be spent on columns that do not exist).

namespace {

constexpr std::int64_t kLine = 16;       // floats per 64-byte cache line
constexpr int kMostTileFloats = 16 * 64;  // the largest MR x NR the edge buffer holds

// The edge tile at C: `rows` x `cols` of the MR x NR tile (see above).
void edge_tile(const KernelSet& kernels, int rows, int cols, std::int64_t kc, const float* a, const float* b, float* C,
               std::int64_t ldc, bool accumulate) {
    if (kernels.micro_half && cols <= kernels.NR / 2)
        return kernels.micro_half(kc, a, b, C, ldc, accumulate, rows, cols);
    if (kernels.micro_edge) return kernels.micro_edge(kc, a, b, C, ldc, accumulate, rows, cols);
    alignas(64) float tile[kMostTileFloats];
    const int NR = kernels.NR;
    std::fill(tile, tile + kernels.MR * NR, mml::poison_value());
    kernels.micro(kc, a, b, tile, NR, false);
    for (int r = 0; r < rows; ++r)
        for (int j = 0; j < cols; ++j) C[r * ldc + j] = accumulate ? C[r * ldc + j] + tile[r * NR + j] : tile[r * NR + j];
}

// Loop 1 (jr) for one sliver of A: the micro-panels of the packed B block
// (NR columns each) stream past the sliver, and the C tile moves along its
// `rows` rows. Spread over the calls, the `next_lines` cache lines at `next`
// (the next packed sliver, or none) are prefetched into L2.
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
            edge_tile(kernels, rows, cols, kc, a, b_packed + jr * kc, C + jr, ldc, accumulate);
    }
}

}  // namespace

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

// Loops 2 and 1 when loop 3 runs once (see blis_loops): each sliver of the
// mc x kc block of A at A (row stride lda) is packed into `sliver` (MR x kc
// floats) just before loop 1 uses it, and loop 1 then reads it from L1.
// No software prefetch here: fetching the next sliver's MR rows of A into
// L2 during loop 1 (as macro_kernel does with the packed sliver) made it
// slower (handouts/data/lab5-blis-xeon.txt) - at N = 32 loop 1 is one call,
// and its 200 prefetches come all at once. The hardware prefetcher follows
// the MR rows being packed.
void macro_kernel_packing_a(const KernelSet& kernels, const Packing& packing, std::int64_t mc, std::int64_t nc,
                            std::int64_t kc, const float* A, std::int64_t lda, float* sliver, const float* b_packed,
                            float* C, std::int64_t ldc, bool accumulate) {
    const std::int64_t MR = kernels.MR;
    for (std::int64_t ir = 0; ir < mc; ir += MR) {  // loop 2
        const std::int64_t rows = std::min(MR, mc - ir);
        packing.pack_a(A + ir * lda, lda, rows, kc, int(MR), sliver);
        loop1(kernels, int(rows), nc, kc, sliver, b_packed, C + ir * ldc, ldc, accumulate, nullptr, 0);
    }
}

// --------------------------------------------------------------------------
// Loops 5, 4 and 3, on a grid of threads (see the top of the file).

// A thread gets at least 2^16 multiply-adds: the measured crossover (on the
// 2-core Xeon 2 threads were slower at 32^3, level at 48^3, faster from 64^3
// on: handouts/data/lab5-blis-xeon.txt). Below it, starting a team of OpenMP
// threads and waiting for it costs more than the second thread saves -
// microseconds when the worker still spins from the last region (libgomp
// spins a while before it sleeps), more once it slept, milliseconds when
// another program has the other core. So 32^3 runs on 1 thread, 64^3 and up on 2.
int threads_worth_starting(std::int64_t M, std::int64_t N, std::int64_t K, int threads) {
    constexpr std::int64_t kMinMultiplyAddsPerThread = std::int64_t(1) << 16;
    const std::int64_t worth = std::max<std::int64_t>(1, M * N * K / kMinMultiplyAddsPerThread);
    return int(std::min<std::int64_t>(std::max(1, threads), worth));
}

void blis_loops(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K,
                const KernelSet& kernels, Packing packing, BlockSizes requested, int threads) {
    const int MR = kernels.MR, NR = kernels.NR;
    if (MR * NR > kMostTileFloats)
        throw std::invalid_argument(std::string(kernels.name) + ": an MR x NR tile of at most " +
                                    std::to_string(kMostTileFloats) + " floats, please (blis_loops.cpp)");
    const BlockSizes bs = blocks_for_product(requested, MR, NR, M, N, K);
    const std::int64_t KC = bs.KC, MC = bs.MC, NC = bs.NC;
    const std::int64_t m_panels = panels(M, MR), n_panels = panels(N, NR);
    const int nthreads = thread_grid(std::max(1, threads), m_panels, n_panels, MR, NR).size();

    // 64-byte aligned buffers, per thread a packed A panel and a packed B
    // block (each part starts on a 64-byte boundary, so no cache line is
    // shared by two threads' parts). Kept from one call to the next (per
    // calling thread), so that a call does not pay for fresh pages: several
    // MiB at n = 2048 would otherwise cost about 1 % of the time in page
    // faults (on the 2-core Zen 3 dev machine).
    static thread_local Workspace ws;
    const std::int64_t per_thread = round_up(MC * KC, 16) + round_up(KC * NC, 16);  // 16 floats = 64 bytes
    float* workspace = ws.get(nthreads * per_thread);

#pragma omp parallel num_threads(nthreads)
    {
        // OpenMP may give fewer threads than asked (OMP_THREAD_LIMIT, a nested
        // region, a ThreadSanitizer build): split the work by the team we got,
        // or some of C would never be computed.
        const int team = omp_get_num_threads();
        const int t = omp_get_thread_num();
        const ThreadGrid grid = thread_grid(team, m_panels, n_panels, MR, NR);
        if (t < grid.size()) {
            // My block of C: rows [m_begin, m_end), columns [n_begin, n_end), whole micro-panels.
            const int tr = t / grid.tn, tc = t % grid.tn;
            const std::int64_t m_begin = std::min(M, m_panels * tr / grid.tm * MR);
            const std::int64_t m_end = std::min(M, m_panels * (tr + 1) / grid.tm * MR);
            const std::int64_t n_begin = std::min(N, n_panels * tc / grid.tn * NR);
            const std::int64_t n_end = std::min(N, n_panels * (tc + 1) / grid.tn * NR);
            const std::int64_t mc_equal = equal_piece(m_end - m_begin, MC, MR);
            const std::int64_t nc_equal = equal_piece(n_end - n_begin, NC, NR);
            float* a_panel = workspace + t * per_thread;
            float* b_block = a_panel + round_up(MC * KC, 16);

            for (std::int64_t ic = m_begin; ic < m_end; ic += mc_equal) {      // loop 5
                const std::int64_t mc = std::min(mc_equal, m_end - ic);
                for (std::int64_t pc = 0; pc < K; pc += KC) {                  // loop 4
                    const std::int64_t kc = std::min(KC, K - pc);
                    // The first pc step writes C (it holds garbage until then), later ones add.
                    if (n_end - n_begin <= nc_equal) {  // loop 3 runs once: slivers of A packed on the fly
                        packing.pack_b_panels(B + pc * N + n_begin, N, kc, n_end - n_begin, NR, 0,
                                              panels(n_end - n_begin, NR), b_block);
                        macro_kernel_packing_a(kernels, packing, mc, n_end - n_begin, kc, A + ic * K + pc, K, a_panel, b_block,
                                               C + ic * N + n_begin, N, pc > 0);
                        continue;
                    }
                    packing.pack_a(A + ic * K + pc, K, mc, kc, MR, a_panel);
                    for (std::int64_t jc = n_begin; jc < n_end; jc += nc_equal) {  // loop 3
                        const std::int64_t nc = std::min(nc_equal, n_end - jc);
                        packing.pack_b_panels(B + pc * N + jc, N, kc, nc, NR, 0, panels(nc, NR), b_block);
                        macro_kernel(kernels, mc, nc, kc, a_panel, b_block, C + ic * N + jc, N, pc > 0);
                    }
                }
            }
        }
    }
}

}  // namespace common::lab5
