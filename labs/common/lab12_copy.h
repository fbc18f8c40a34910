// SUMMA with the panels moved by the GPUs' copy engines (mmlab-nccl gemm
// --transport copy): the transport is given code (here; the SUMMA loop that
// uses it is the reference's, the instructors' solutions/lab12/summa_copy_nccl.cu) beside the lab's NCCL version, to show how
// close to P x one GPU the products can come when moving the panels takes no
// SMs from them.
//
// Why it can: a panel's source never changes during the product (it is a
// piece of its owner's A or B block), so a rank that needs it can fetch it
// itself - a cudaMemcpy2DAsync from the owner's memory into its own panel
// buffer, which the copy engines run over NVLink while every SM multiplies.
// The owner takes no part and nothing has to wait across processes: the
// blocks are uploaded before the first barrier and freed after the last.
// The owners' memory is reached through CUDA IPC: each rank exports its A
// and B blocks (cudaIpcGetMemHandle), the handles go round over MPI, and
// each rank opens those of its process row (A) and column (B). So every rank
// must sit on one node (a Usage error otherwise).
//
// The steps, buffers and events are those of the NCCL version (the
// instructors' solutions/lab12/summa_nccl.cu): step s's panels land in buffer s % 2 on
// the communication stream while step s-1 is multiplied. The B panel's copy
// forks onto a stream of its own and joins back, so that the A and B panels
// (from two different owners on a 2-D grid) move on two copy engines at once (measured: no faster
// than one after the other - they share the receiving GPU's links; the
// first step may go in two halves, splits_first_step). A rank that owns a
// panel multiplies it where it lies (no copy), unless always_broadcast asks
// for the copies anyway (one GPU then copies from itself: the tests).
// With lab 11's tile every B block is stored transposed (N x K, rows
// kmajor_stride(its depth) apart, set up by the program with the bf16
// conversion): a B panel is then w columns of it, moved as such, and the
// kernel reads it where it lands - no transposition per step.
#pragma once

#include <vector>

#include "labs/common/lab12_nccl.h"

namespace mml::lab12 {

// Every rank's A and B blocks as this process reaches them: its own
// pointers, or the peers' opened IPC handles (null: not needed here).
class PeerBlocks {
public:
    // Collective over MPI_COMM_WORLD. layouts: every rank's (index = rank).
    // b_transposed: every rank's B_loc is its B block transposed (above).
    PeerBlocks(const std::vector<Layout>& layouts, int rank, const void* A_loc, const void* B_loc,
               bool b_transposed = false);
    ~PeerBlocks();  // closes the handles (close() first on the normal path)
    PeerBlocks(const PeerBlocks&) = delete;
    PeerBlocks& operator=(const PeerBlocks&) = delete;
    // Collective: closes this rank's handles, then a barrier, so that no
    // owner frees a block another rank still has open.
    void close();

    const void* A(int rank) const { return a_[rank]; }
    const void* B(int rank) const { return b_[rank]; }
    const Layout& layout(int rank) const { return layouts_[rank]; }
    bool b_transposed() const { return b_transposed_; }
    // The row stride of rank's B block: its columns, or transposed kmajor_stride(its depth).
    std::int64_t b_ld(int rank) const;
    // The B panels' stream, and the events that fork it from and join it to
    // the communication stream.
    cudaStream_t side() const { return side_; }
    cudaEvent_t fork() const { return fork_; }
    cudaEvent_t join() const { return join_; }
    // Recorded on the communication stream after piece j of a split first step.
    cudaEvent_t piece(int j) const { return pieces_[j]; }

private:
    std::vector<Layout> layouts_;
    bool b_transposed_ = false;
    std::vector<const void*> a_, b_;
    std::vector<void*> opened_;  // to cudaIpcCloseMemHandle
    cudaStream_t side_ = nullptr;
    cudaEvent_t fork_ = nullptr, join_ = nullptr;
    std::vector<cudaEvent_t> pieces_;
};

// Step s's panels into g.a_panel[s % 2] / g.b_panel[s % 2] (or the local
// block where this rank owns them), on `stream` (the B panel forked onto
// peers.side() and joined back): the copies alone, without SUMMA's events or timers. Returns the A and B operands of step s and their row
// strides. Used by the reference's summa_copy and by the model's transfer measurement.
// `moves` picks the panels moved (the model times each alone).
struct StepOperands {
    const void* a = nullptr;
    std::int64_t lda = 0;
    const void* b = nullptr;
    std::int64_t ldb = 0;  // B's row stride (B transposed: N x K rows)
};
enum Moves { kMoveA = 1, kMoveB = 2, kMoveBoth = 3 };
StepOperands copy_step(const GpuSumma& g, const PeerBlocks& peers, std::size_t s, cudaStream_t stream,
                       int moves = kMoveBoth);
// Bytes of the panels `moves` picks that this rank receives in step s (0 where it owns them).
double copy_step_bytes(const GpuSumma& g, std::size_t s, int moves = kMoveBoth);

// Part of step s's copies, as copy_step: rows [r0, r1) of the A panel and
// columns [c0, c1) of the B panel, each where copy_step puts it (the
// operands returned are the whole panels'). What the first step's split uses.
StepOperands copy_step_part(const GpuSumma& g, const PeerBlocks& peers, std::size_t s, cudaStream_t stream,
                            std::int64_t r0, std::int64_t r1, std::int64_t c0, std::int64_t c1, int moves = kMoveBoth);

// Whether the first step runs split (the reference's summa_copy; the model
// predicts it so, abg_model.h): with overlap, only the first step's copies
// are not hidden behind a product, so they go in kFirstStepParts pieces -
// piece j the j-th eighth of the A panel's rows and of the B panel's columns
// - and once piece j is in, the part of C those rows and columns complete is
// multiplied while the next pieces move (a strip of rows or columns where
// only one panel moves, an L where both do). Each element of C is written
// once, so no pass over C is added; only the first piece is exposed. With
// cuBLAS's tile (the kernels of labs 8 and 11 have alignment rules of their
// own), overlap on, and something to copy.
constexpr int kFirstStepParts = 8;
bool splits_first_step(const GpuSumma& g);

// The copy transport's step order for this rank: `panels` (the K order)
// rotated to start at first_fetch_step (lab12_grid.h: the fewest bytes to
// fetch, from the least shared owners), wrapping round. The owners never
// wait for anyone, so each rank may walk K in its own order; only the first
// step's copies are not hidden behind a product, and a rank that holds both
// panels of some step (on a 2-D grid the diagonal ranks, on 1 x P every rank
// in its own block) then hides all of its copies. The sum over K is the
// same (in another order: rounding differs within the float64 check's bound).
std::vector<Panel> owned_first(const GpuSumma& g, std::vector<Panel> panels);

}  // namespace mml::lab12
