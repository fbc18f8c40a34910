// Lab 12 (given code, not a TODO): the MPI calls of the CPU algorithms, each
// checked and timed with MPI's own clock (MPI_Wtime) around the collective,
// so that the report can say how much of the time went to communication.
// Only MPI programs include this (files named *_mpi.cpp: the Makefile builds
// them into build/bin/mmlab-mpi, never into mmlab).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

namespace mml::lab12 {

// What one rank spent in the collectives of one product.
struct CommStats {
    double seconds = 0;  // MPI_Wtime around each call, summed
    double bytes = 0;    // bytes this rank received (a broadcast's root receives none)
    long calls = 0;
};

// Stops every rank (MPI_Abort) with one line naming the call and MPI's own
// error text when rc is not MPI_SUCCESS. The programs set MPI_ERRORS_RETURN
// on MPI_COMM_WORLD, so a failing call returns here instead of aborting
// without a word (communicators made from it inherit that).
void mpi_check(int rc, const char* what);

// MPI_Bcast of `count` floats at buf from `root` (its rank in comm). Counts
// above INT_MAX go in pieces (MPI counts are int).
void timed_bcast(float* buf, std::int64_t count, int root, MPI_Comm comm, CommStats& stats);

// MPI_Allgatherv: every rank's `send_count` floats, concatenated in rank
// order into recv on every rank; counts[r] is rank r's send_count.
void timed_allgatherv(const float* send, std::int64_t send_count, float* recv,
                      const std::vector<std::int64_t>& counts, MPI_Comm comm, CommStats& stats);

// MPI_Comm_split (collective): the ranks of comm with the same color form a
// new communicator, ordered by key. Free it with MPI_Comm_free.
MPI_Comm timed_split(MPI_Comm comm, int color, int key, CommStats& stats);

}  // namespace mml::lab12
