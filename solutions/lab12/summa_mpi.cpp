// Lab 12 reference, SUMMA (van de Geijn & Watts, 1997) on a rows x cols grid.
//
// C(i,j) = sum over K panels p of A(i, p) * B(p, j). Process (i, j) holds
// C(i,j); the A panel it needs lives in its own process row (at the grid
// column that owns those K columns), the B panel in its own process column.
// So each step is: the owner broadcasts its A panel along the process row,
// the owner of the B panel along the process column, and every process adds
// the product of the two panels to its C block.
//
// Communication per rank: K * (M/rows * (cols-1)/cols + N/cols * (rows-1)/rows)
// floats - it shrinks like 1/sqrt(P) on a square grid, where 1-D's does not
// shrink at all.
//
// The broadcasts are blocking here: on the CPU the rank that computes is the
// one that would have to move the data (MPI progresses a non-blocking
// broadcast over shared memory only inside MPI calls), so overlap gains
// little. The GPU version (summa_nccl.cu) overlaps: NCCL moves the next
// panel on its own stream while the tensor cores multiply this one.
#include "solutions/lab12/distributed.h"

#include <algorithm>
#include <vector>

#include "cpu/matrix.h"
#include "labs/common/lab12_local_gemm.h"

namespace reference::lab12 {

using namespace mml::lab12;

void matmul_summa(const Layout& L, MPI_Comm comm, const float* A_loc, const float* B_loc, float* C_loc,
                  std::int64_t max_panel, CommStats& stats) {
    const std::int64_t m = L.rows(), n = L.cols(), ka = L.a_depth();
    // One communicator per process row (ranked by grid column) and per
    // process column (ranked by grid row): a broadcast's root is then the
    // owner's grid column, or grid row.
    MPI_Comm row_comm = timed_split(comm, L.row, L.col, stats);
    MPI_Comm col_comm = timed_split(comm, L.col, L.row, stats);
    const std::vector<Panel> panels = summa_panels(L.shape, L.grid, max_panel);
    for (const Panel& p : panels) {
        const bool first = &p == &panels.front();
        static mml::Matrix a_panel, b_panel;  // grow-only: no page faults after the first call
        if (first) {  // before the first panel: room for the widest
            std::int64_t widest = 0;
            for (const Panel& q : panels) widest = std::max(widest, q.width());
            if (a_panel.size() < m * widest) a_panel = mml::Matrix(1, m * widest);
            if (b_panel.size() < widest * n) b_panel = mml::Matrix(1, widest * n);
        }
        const std::int64_t w = p.width();
        // The A panel: rows of A_loc, columns [p.k0, p.k1) of A.
        const float* a = nullptr;
        std::int64_t lda = w;
        if (L.grid.cols == 1) {  // the row is this process alone: A never moves
            a = A_loc + (p.k0 - L.ka0);
            lda = ka;
        } else {
            float* buf = a_panel.data();
            if (L.col == p.a_owner) {  // pack the owner's columns into one contiguous message
                for (std::int64_t r = 0; r < m; ++r)
                    std::copy(A_loc + r * ka + (p.k0 - L.ka0), A_loc + r * ka + (p.k1 - L.ka0), buf + r * w);
            }
            timed_bcast(buf, m * w, p.a_owner, row_comm, stats);
            a = buf;
        }
        // The B panel: rows [p.k0, p.k1) of B, contiguous in B_loc (whole rows).
        const float* b = nullptr;
        if (L.grid.rows == 1) {
            b = B_loc + (p.k0 - L.kb0) * n;
        } else if (L.row == p.b_owner) {
            // The root sends from its own block (MPI_Bcast does not write the root's buffer).
            float* own = const_cast<float*>(B_loc + (p.k0 - L.kb0) * n);
            timed_bcast(own, w * n, p.b_owner, col_comm, stats);
            b = own;
        } else {
            timed_bcast(b_panel.data(), w * n, p.b_owner, col_comm, stats);
            b = b_panel.data();
        }
        local_gemm(a, lda, b, n, C_loc, n, m, n, w, !first);
    }
    mpi_check(MPI_Comm_free(&row_comm), "MPI_Comm_free");
    mpi_check(MPI_Comm_free(&col_comm), "MPI_Comm_free");
}

}  // namespace reference::lab12
