// Lab 12 reference: the distributed CPU algorithms (see labs/lab12/distributed.h
// for the contract: who owns which blocks, and the rules).
#pragma once

#include <mpi.h>

#include <cstdint>

#include "labs/common/lab12_comm.h"
#include "labs/common/lab12_grid.h"

namespace reference::lab12 {

using mml::lab12::CommStats;
using mml::lab12::Layout;

// 1-D: B's row blocks allgathered, then one local product per rank.
void matmul_rows(const Layout& L, MPI_Comm comm, const float* A_loc, const float* B_loc, float* C_loc,
                 CommStats& stats);

// SUMMA: per K panel, the A panel broadcast along each process row and the B
// panel along each process column, then a rank-w update of C_loc.
void matmul_summa(const Layout& L, MPI_Comm comm, const float* A_loc, const float* B_loc, float* C_loc,
                  std::int64_t max_panel, CommStats& stats);

}  // namespace reference::lab12
