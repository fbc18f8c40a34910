// Lab 12, task 2: SUMMA on a rows x cols process grid (distributed.h says who
// owns what). C(i,j) = sum over the K panels p of A(i,p) * B(p,j): process
// (i,j) has C(i,j); the A panel it needs is held by one process of its own
// grid ROW, the B panel by one process of its own grid COLUMN. Each step:
// the owners broadcast, everyone multiplies and adds.
//
// Test:  make lab12   (or: mpirun -np 4 --oversubscribe build/bin/mmlab-mpi gemm
//                      --algo summa --impl student --size 13x17x19 --grid 2x2)
#include "labs/lab12/distributed.h"

#include <algorithm>
#include <vector>

#include "cpu/matrix.h"
#include "labs/common/lab12_local_gemm.h"

namespace student::lab12 {

using namespace mml::lab12;

void matmul_summa(const Layout& L, MPI_Comm comm, const float* A_loc, const float* B_loc, float* C_loc,
                  std::int64_t max_panel, CommStats& stats) {
    const std::int64_t m = L.rows(), n = L.cols(), ka = L.a_depth();
    (void)m, (void)n, (void)ka, (void)comm, (void)A_loc, (void)B_loc, (void)C_loc, (void)stats;

    // TODO 2.1: two communicators: the processes of your grid row (color
    //   L.row), ranked by grid column (key L.col), and those of your grid
    //   column (color L.col), ranked by grid row (key L.row):
    //       MPI_Comm row_comm = timed_split(comm, L.row, L.col, stats);
    //   Then the root of a broadcast along the row is simply a grid column.
    //   Free both with MPI_Comm_free (through mpi_check) at the end.
    const std::vector<Panel> panels = summa_panels(L.shape, L.grid, max_panel);
    for (const Panel& p : panels) {
        (void)p;
        // TODO 2.2: the A panel, columns [p.k0, p.k1) of your rows of A
        //   (m x p.width()). If L.col == p.a_owner you hold it: copy it out of
        //   A_loc (row r starts at A_loc + r*ka + (p.k0 - L.ka0)) into a
        //   contiguous buffer. Then broadcast the buffer along the row:
        //       timed_bcast(buffer, m * p.width(), p.a_owner, row_comm, stats);
        //   (A grid of one column needs no broadcast: A_loc with row stride ka.)
        // TODO 2.3: the B panel, rows [p.k0, p.k1) of B (p.width() x n): whole
        //   rows of B_loc at B_loc + (p.k0 - L.kb0)*n on the owner (L.row ==
        //   p.b_owner). Broadcast it along the column (root p.b_owner) into a
        //   buffer on the other ranks.
        // TODO 2.4: C_loc = (first panel) or += (later panels) A panel * B panel:
        //       local_gemm(a, lda, b, n, C_loc, n, m, n, p.width(), /*accumulate=*/not the first);
    }
}

}  // namespace student::lab12
