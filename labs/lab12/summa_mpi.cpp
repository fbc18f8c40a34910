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

    // TODO 2.1-2.4 (lab 12, task 2): SUMMA.
    //   Contract: on return C_loc (m x n) = this rank's block of C, on every
    //     rank at once, for every grid (1x4, 4x1, 2x2, 2x3, ...), every panel
    //     width down to 3 (summa_panels, given, cuts K: each panel names the
    //     grid column that owns its A part and the grid row that owns its B
    //     part), and ranks that own nothing. Communication through the timed_*
    //     wrappers, the product through local_gemm; every communicator you
    //     create is freed (MPI_Comm_free through mpi_check).
    //   Goal: per panel, the A panel broadcast along the grid row and the B
    //     panel along the grid column, then one local product added into C:
    //     a rank receives only the panels its block of C needs, not all of B
    //     as in task 1.
    //   Judged: the tests, then lab 12's target: on 4 processes (a 2x2
    //     grid) a rank receives no more than SUMMA needs, K*(M/R*(C-1)/C +
    //     N/C*(R-1)/R) floats, counted by the timed_* wrappers (a count: too
    //     many fails on any machine); on 2 processes at 2048^3, >= 85 %
    //     parallel efficiency over lab 5's kernel on one process.
    //     Stuck: handouts/lab12.md, hints 12.2.x.
    const std::vector<Panel> panels = summa_panels(L.shape, L.grid, max_panel);
    for (const Panel& p : panels) {
        (void)p;
        // TODO 2.2-2.4: 2.2 the A panel, 2.3 the B panel, 2.4 the product.
    }
}

}  // namespace student::lab12
