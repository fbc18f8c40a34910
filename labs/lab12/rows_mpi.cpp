// Lab 12, task 1: the 1-D algorithm ("rows"). P processes; rank r holds rows
// block r of A and of C, and K block r of B's rows (distributed.h). Every rank
// needs ALL of B to compute its rows of C: gather it, then multiply.
//
// Test:  make lab12   (or: mpirun -np 3 --oversubscribe build/bin/mmlab-mpi gemm
//                      --algo rows --impl student --size 7x5x11)
#include "labs/lab12/distributed.h"

#include <vector>

#include "cpu/matrix.h"
#include "labs/common/lab12_local_gemm.h"

namespace student::lab12 {

using namespace mml::lab12;

void matmul_rows(const Layout& L, MPI_Comm comm, const float* A_loc, const float* B_loc, float* C_loc,
                 CommStats& stats) {
    const int P = L.grid.rows;  // the grid is P x 1
    const std::int64_t K = L.shape.K, N = L.shape.N;
    (void)P, (void)K, (void)N, (void)comm, (void)A_loc, (void)B_loc, (void)C_loc, (void)stats;

    // TODO 1.1: a K x N buffer for all of B on every rank. Keep it from one
    //   call to the next (a static mml::Matrix that only grows): the product is
    //   timed several times, and fresh memory costs page faults each time.
    // TODO 1.2: rank r's block of B has part_size(K, P, r) rows of N floats.
    //   Fill a std::vector<std::int64_t> counts(P) with those sizes (in floats)
    //   and gather every rank's B_loc into the buffer, in rank order:
    //       timed_allgatherv(B_loc, L.b_depth() * N, buffer, counts, comm, stats);
    //   (With P == 1 there is nothing to gather: B_loc is all of B.)
    // TODO 1.3: your rows of C = your rows of A (L.rows() x K) times all of B:
    //       local_gemm(A_loc, K, B, N, C_loc, N, L.rows(), N, K, false);
}

}  // namespace student::lab12
