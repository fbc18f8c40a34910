// Lab 12's checked, timed MPI collectives (lab12_comm.h).
#include "labs/common/lab12_comm.h"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace mml::lab12 {

void mpi_check(int rc, const char* what) {
    if (rc == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING] = {0};
    int len = 0;
    MPI_Error_string(rc, text, &len);
    int rank = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    std::fprintf(stderr, "mmlab-mpi (rank %d): %s failed: %s\n", rank, what, text);
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 3);
}

void timed_bcast(float* buf, std::int64_t count, int root, MPI_Comm comm, CommStats& stats) {
    const double t0 = MPI_Wtime();
    for (std::int64_t done = 0; done < count;) {
        const std::int64_t piece = std::min<std::int64_t>(count - done, INT_MAX);
        mpi_check(MPI_Bcast(buf + done, static_cast<int>(piece), MPI_FLOAT, root, comm), "MPI_Bcast");
        done += piece;
    }
    stats.seconds += MPI_Wtime() - t0;
    // What arrived here: the root sends, so it counts nothing (as an
    // allgather counts no rank's own piece), and the mean over the ranks is
    // the data moved over P - the volume lab 12's target judges.
    int me = -1;
    mpi_check(MPI_Comm_rank(comm, &me), "MPI_Comm_rank");
    if (me != root) stats.bytes += 4.0 * double(count);
    ++stats.calls;
}

void timed_allgatherv(const float* send, std::int64_t send_count, float* recv,
                      const std::vector<std::int64_t>& counts, MPI_Comm comm, CommStats& stats) {
    std::vector<int> c(counts.size()), displ(counts.size());
    std::int64_t offset = 0;
    for (std::size_t r = 0; r < counts.size(); ++r) {
        if (counts[r] > INT_MAX || offset > INT_MAX)
            throw std::runtime_error("timed_allgatherv: more than 2^31 floats (" + std::to_string(offset + counts[r]) +
                                     "): too large for MPI's int counts");
        c[r] = static_cast<int>(counts[r]);
        displ[r] = static_cast<int>(offset);
        offset += counts[r];
    }
    if (send_count > INT_MAX) throw std::runtime_error("timed_allgatherv: send count above 2^31");
    const double t0 = MPI_Wtime();
    mpi_check(MPI_Allgatherv(send, static_cast<int>(send_count), MPI_FLOAT, recv, c.data(), displ.data(), MPI_FLOAT,
                             comm),
              "MPI_Allgatherv");
    stats.seconds += MPI_Wtime() - t0;
    stats.bytes += 4.0 * double(offset - send_count);
    ++stats.calls;
}

MPI_Comm timed_split(MPI_Comm comm, int color, int key, CommStats& stats) {
    MPI_Comm out = MPI_COMM_NULL;
    const double t0 = MPI_Wtime();
    mpi_check(MPI_Comm_split(comm, color, key, &out), "MPI_Comm_split");
    stats.seconds += MPI_Wtime() - t0;
    ++stats.calls;
    return out;
}

}  // namespace mml::lab12
