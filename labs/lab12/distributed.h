// Lab 12: C = A*B spread over P MPI processes. You write the TODOs of
// rows_mpi.cpp (the 1-D algorithm) and summa_mpi.cpp (SUMMA on a 2-D grid);
// handouts/lab12.md explains both. The program build/bin/mmlab-mpi (started by
// mpirun, P copies) hands each rank its blocks, calls your function on every
// rank at once, gathers C on rank 0 and checks it against the float64 product.
//
// Who owns what (labs/common/lab12_grid.h: Layout L, from layout_of):
//   A_loc  rows [L.m0, L.m1) of A, columns [L.ka0, L.ka1)  (L.rows() x L.a_depth(), row-major)
//   B_loc  rows [L.kb0, L.kb1) of B, columns [L.n0, L.n1)  (L.b_depth() x L.cols())
//   C_loc  rows [L.m0, L.m1) of C, columns [L.n0, L.n1)    (L.rows() x L.cols()): yours to write, all of it
// Blocks may be empty (more processes than rows...): your code must work then too.
//
// Rules: every MPI collective goes through labs/common/lab12_comm.h
// (timed_bcast, timed_allgatherv, timed_split: checked, and timed for the
// report); every product through local_gemm (labs/common/lab12_local_gemm.h:
// lab 5's GEMM). Add to `stats` nothing yourself: the helpers do.
#pragma once

#include <mpi.h>

#include <cstdint>

#include "labs/common/lab12_comm.h"
#include "labs/common/lab12_grid.h"

namespace student::lab12 {

using mml::lab12::CommStats;
using mml::lab12::Layout;

// 1-D (rows_mpi.cpp): L.grid is P x 1. Rank r holds rows block r of A (all K
// columns) and K block r of B's rows (all N columns); it computes rows block
// r of C. Every rank needs all of B.
void matmul_rows(const Layout& L, MPI_Comm comm, const float* A_loc, const float* B_loc, float* C_loc,
                 CommStats& stats);

// SUMMA (summa_mpi.cpp) on the grid L.grid (rows x cols = the size of comm;
// rank r at grid row r / cols, column r % cols). max_panel: the widest K panel
// one step may take (0: as wide as the blocks allow); summa_panels gives the steps.
void matmul_summa(const Layout& L, MPI_Comm comm, const float* A_loc, const float* B_loc, float* C_loc,
                  std::int64_t max_panel, CommStats& stats);

}  // namespace student::lab12
