// Given code (lab 5): what stage 4's loops (blis.cpp, task 5) run inside
// (blis_loops.h): the block sizes, the buffers, the threads, the edge tiles.
//
// The loops themselves, outermost first (handouts/lab5.md, "Feeding the
// tile", says why in this order):
//   loop 5, ic: M in steps of MC   - one MC x KC panel of A at a time (L3)
//   loop 4, pc: K in steps of KC   - pack that panel of A
//   loop 3, jc: N in steps of NC   - pack a KC x NC block of B (L2)
//   loop 2, ir: MC in steps of MR  - one MR x KC sliver of A (L1)
//   loop 1, jr: NC in steps of NR  - the micro-kernel: an MR x NR tile of C
// Here each thread runs them on its own block of C.
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

constexpr int kMostTileFloats = 16 * 64;  // the largest MR x NR the edge buffer holds

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

std::int64_t equal_piece(std::int64_t n, std::int64_t most, int R) {
    const std::int64_t pieces = std::max<std::int64_t>(1, panels(n, int(most)));
    return panels(panels(n, R), int(pieces)) * R;
}

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


void blis_threads(std::int64_t M, std::int64_t N, std::int64_t K, const KernelSet& kernels, BlockSizes requested,
                  int threads, const std::function<void(const ThreadBlock&)>& loops) {
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
            // My block of C: whole micro-panels, except at the edges of C.
            const int tr = t / grid.tn, tc = t % grid.tn;
            ThreadBlock block;
            block.m_begin = std::min(M, m_panels * tr / grid.tm * MR);
            block.m_end = std::min(M, m_panels * (tr + 1) / grid.tm * MR);
            block.n_begin = std::min(N, n_panels * tc / grid.tn * NR);
            block.n_end = std::min(N, n_panels * (tc + 1) / grid.tn * NR);
            block.mc_equal = equal_piece(block.m_end - block.m_begin, MC, MR);
            block.nc_equal = equal_piece(block.n_end - block.n_begin, NC, NR);
            block.KC = KC;
            block.a_panel = workspace + t * per_thread;
            block.b_block = block.a_panel + round_up(MC * KC, 16);
            loops(block);
        }
    }
}

}  // namespace common::lab5
