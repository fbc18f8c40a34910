// The copy-engine transport of lab 12 (lab12_copy.h): the owners' blocks
// through CUDA IPC and one step's panel copies.
#include "labs/common/lab12_copy.h"

#include <mpi.h>

#include <algorithm>

#include "gpu/cuda_check.h"
#include "labs/common/lab12_comm.h"

namespace mml::lab12 {

PeerBlocks::PeerBlocks(const std::vector<Layout>& layouts, int rank, const void* A_loc, const void* B_loc,
                       bool b_transposed)
    : layouts_(layouts), b_transposed_(b_transposed), a_(layouts.size(), nullptr), b_(layouts.size(), nullptr) {
    const int P = static_cast<int>(layouts.size());
    a_[rank] = A_loc;
    b_[rank] = B_loc;
    CUDA_CHECK(cudaStreamCreateWithFlags(&side_, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreateWithFlags(&fork_, cudaEventDisableTiming));
    CUDA_CHECK(cudaEventCreateWithFlags(&join_, cudaEventDisableTiming));
    pieces_.assign(kFirstStepParts, nullptr);
    for (cudaEvent_t& e : pieces_) CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    // Two handles per rank, gathered everywhere: [2r] its A, [2r+1] its B.
    cudaIpcMemHandle_t mine[2];
    CUDA_CHECK(cudaIpcGetMemHandle(&mine[0], const_cast<void*>(A_loc)));
    CUDA_CHECK(cudaIpcGetMemHandle(&mine[1], const_cast<void*>(B_loc)));
    std::vector<cudaIpcMemHandle_t> all(2 * P);
    mpi_check(MPI_Allgather(mine, static_cast<int>(sizeof mine), MPI_BYTE, all.data(), static_cast<int>(sizeof mine),
                            MPI_BYTE, MPI_COMM_WORLD),
              "MPI_Allgather (CUDA IPC handles)");
    const Layout& me = layouts[rank];
    auto open = [&](const cudaIpcMemHandle_t& h) {
        void* p = nullptr;
        CUDA_CHECK(cudaIpcOpenMemHandle(&p, h, cudaIpcMemLazyEnablePeerAccess));
        opened_.push_back(p);
        return static_cast<const void*>(p);
    };
    for (int r = 0; r < P; ++r) {
        if (r == rank) continue;
        if (layouts[r].row == me.row) a_[r] = open(all[2 * r]);      // my process row: its A panels
        if (layouts[r].col == me.col) b_[r] = open(all[2 * r + 1]);  // my process column: its B panels
    }
}

std::int64_t PeerBlocks::b_ld(int rank) const {
    const Layout& l = layouts_[rank];
    return b_transposed_ ? kmajor_stride(l.b_depth()) : l.cols();
}

PeerBlocks::~PeerBlocks() {
    for (void* p : opened_) cudaIpcCloseMemHandle(p);  // close() did it on the normal path
    for (cudaEvent_t e : pieces_)
        if (e) cudaEventDestroy(e);
    if (join_) cudaEventDestroy(join_);
    if (fork_) cudaEventDestroy(fork_);
    if (side_) cudaStreamDestroy(side_);
}

void PeerBlocks::close() {
    CUDA_CHECK(cudaDeviceSynchronize());  // no copy still reads them
    for (void* p : opened_) CUDA_CHECK(cudaIpcCloseMemHandle(p));
    opened_.clear();
    mpi_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier (IPC handles closed)");
}

namespace {

int rank_at(const Grid& g, int row, int col) { return row * g.cols + col; }

bool copies_a(const GpuSumma& g, const Panel& p) { return receives_a(g.L.grid, p, g.L.col, g.always_broadcast); }
bool copies_b(const GpuSumma& g, const Panel& p) { return receives_b(g.L.grid, p, g.L.row, g.always_broadcast); }

}  // namespace

double copy_step_bytes(const GpuSumma& g, std::size_t s, int moves) {
    const Panel& p = g.panels[s];
    const double w = static_cast<double>(p.width()), es = static_cast<double>(g.elem_bytes);
    return ((moves & kMoveA) && copies_a(g, p) ? g.L.rows() * w * es : 0.0) +
           ((moves & kMoveB) && copies_b(g, p) ? w * g.L.cols() * es : 0.0);
}

bool splits_first_step(const GpuSumma& g) {
    return g.overlap && !g.panels.empty() && g.gemm && g.gemm->kernel() == TileKernel::Cublas && !g.gemm->b_transposed() &&
           copy_step_bytes(g, 0) > 0;
}

std::vector<Panel> owned_first(const GpuSumma& g, std::vector<Panel> panels) {
    const std::size_t first = first_fetch_step(g.L.shape, g.L.grid, panels, g.L.rank, g.always_broadcast);
    std::rotate(panels.begin(), panels.begin() + static_cast<std::ptrdiff_t>(first), panels.end());
    return panels;
}

StepOperands copy_step(const GpuSumma& g, const PeerBlocks& peers, std::size_t s, cudaStream_t stream, int moves) {
    return copy_step_part(g, peers, s, stream, 0, g.L.rows(), 0, g.L.cols(), moves);
}

StepOperands copy_step_part(const GpuSumma& g, const PeerBlocks& peers, std::size_t s, cudaStream_t stream,
                            std::int64_t r0, std::int64_t r1, std::int64_t c0, std::int64_t c1, int moves) {
    const Layout& L = g.L;
    const Panel& p = g.panels[s];
    const std::int64_t n = L.cols(), w = p.width();
    const std::size_t es = g.elem_bytes;
    const int buf = static_cast<int>(s % 2);
    StepOperands op;
    bool joins = false;
    // B first, forked onto the side stream (it then runs beside A's copy):
    // the w rows from k0 of the owner's B block (in my process column: my
    // columns), contiguous already where all n columns move; transposed, its
    // w columns from k0 (rows c0 .. c1 of it), packed w apart.
    const int b_rank = rank_at(L.grid, p.b_owner, L.col);
    const Layout& lb = peers.layout(b_rank);
    const bool bt = peers.b_transposed();
    const std::int64_t ldo = peers.b_ld(b_rank);
    const char* b_src = static_cast<const char*>(peers.B(b_rank)) + (p.k0 - lb.kb0) * (bt ? 1 : ldo) * es;
    if (copies_b(g, p)) {
        if (c1 > c0 && w > 0 && (moves & kMoveB)) {
            CUDA_CHECK(cudaEventRecord(peers.fork(), stream));
            CUDA_CHECK(cudaStreamWaitEvent(peers.side(), peers.fork(), 0));
            if (bt)
                CUDA_CHECK(cudaMemcpy2DAsync(static_cast<char*>(g.b_panel[buf]) + c0 * w * es, w * es,
                                             b_src + c0 * ldo * es, ldo * es, w * es, c1 - c0,
                                             cudaMemcpyDeviceToDevice, peers.side()));
            else if (c1 - c0 == n)
                CUDA_CHECK(cudaMemcpyAsync(g.b_panel[buf], b_src, w * n * es, cudaMemcpyDeviceToDevice, peers.side()));
            else
                CUDA_CHECK(cudaMemcpy2DAsync(static_cast<char*>(g.b_panel[buf]) + c0 * es, n * es, b_src + c0 * es,
                                             n * es, (c1 - c0) * es, w, cudaMemcpyDeviceToDevice, peers.side()));
            CUDA_CHECK(cudaEventRecord(peers.join(), peers.side()));
            joins = true;
        }
        op.b = g.b_panel[buf];
        op.ldb = bt ? w : n;
    } else {
        op.b = b_src;
        op.ldb = ldo;
    }
    // A: the w columns from k0 of the owner's A block (the owner is in my
    // process row, so its block has my rows), packed row after row.
    const int a_rank = rank_at(L.grid, L.row, p.a_owner);
    const Layout& la = peers.layout(a_rank);
    const char* a_src = static_cast<const char*>(peers.A(a_rank)) + (p.k0 - la.ka0) * es;
    if (copies_a(g, p)) {
        if (r1 > r0 && w > 0 && (moves & kMoveA))
            CUDA_CHECK(cudaMemcpy2DAsync(static_cast<char*>(g.a_panel[buf]) + r0 * w * es, w * es,
                                         a_src + r0 * la.a_depth() * es, la.a_depth() * es, w * es, r1 - r0,
                                         cudaMemcpyDeviceToDevice, stream));
        op.a = g.a_panel[buf];
        op.lda = w;
    } else {  // my own columns, read in place with my block's row stride
        op.a = a_src;
        op.lda = la.a_depth();
    }
    if (joins) CUDA_CHECK(cudaStreamWaitEvent(stream, peers.join(), 0));
    return op;
}

}  // namespace mml::lab12
