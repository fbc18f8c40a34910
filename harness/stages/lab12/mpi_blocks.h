// Handing out the blocks of A and B from rank 0 and gathering C back: the
// untimed parts of lab 12's MPI programs (program_mpi.cpp, program_nccl.cu).
// Point-to-point messages from and to rank 0, one block at a time (a count
// per block, so no int offset overflows; pieces of at most INT_MAX floats).
// Header-only: both programs include it and nothing else does.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "cpu/matrix.h"
#include "labs/common/lab12_comm.h"
#include "labs/common/lab12_grid.h"

namespace mml::lab12 {

inline void send_floats(const float* p, std::int64_t count, int to) {
    for (std::int64_t done = 0; done < count;) {
        const std::int64_t piece = std::min<std::int64_t>(count - done, INT_MAX);
        mpi_check(MPI_Send(p + done, static_cast<int>(piece), MPI_FLOAT, to, 7, MPI_COMM_WORLD), "MPI_Send");
        done += piece;
    }
}

inline void recv_floats(float* p, std::int64_t count, int from) {
    for (std::int64_t done = 0; done < count;) {
        const std::int64_t piece = std::min<std::int64_t>(count - done, INT_MAX);
        mpi_check(MPI_Recv(p + done, static_cast<int>(piece), MPI_FLOAT, from, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                  "MPI_Recv");
        done += piece;
    }
}

struct Block {
    std::int64_t r0, r1, c0, c1;  // rows [r0, r1), columns [c0, c1) of the whole matrix
    std::int64_t count() const { return (r1 - r0) * (c1 - c0); }
};
inline Block a_block(const Layout& L) { return {L.m0, L.m1, L.ka0, L.ka1}; }
inline Block b_block(const Layout& L) { return {L.kb0, L.kb1, L.n0, L.n1}; }
inline Block c_block(const Layout& L) { return {L.m0, L.m1, L.n0, L.n1}; }

inline void copy_out(const Matrix& whole, Block b, float* out) {
    const std::int64_t w = b.c1 - b.c0;
    for (std::int64_t r = b.r0; r < b.r1; ++r)
        std::copy(whole.data() + r * whole.cols() + b.c0, whole.data() + r * whole.cols() + b.c1, out + (r - b.r0) * w);
}

inline void copy_in(Matrix& whole, Block b, const float* in) {
    const std::int64_t w = b.c1 - b.c0;
    for (std::int64_t r = b.r0; r < b.r1; ++r)
        std::copy(in + (r - b.r0) * w, in + (r - b.r0 + 1) * w, whole.data() + r * whole.cols() + b.c0);
}

// Rank 0 hands every rank its block of `whole` (rank r's: block_of(layouts[r]));
// `mine` receives this rank's (at least one element, so that data() is valid).
inline void scatter_blocks(const Matrix& whole, const std::vector<Layout>& layouts, Block (*block_of)(const Layout&),
                           int rank, Matrix& mine) {
    const Block own = block_of(layouts[rank]);
    mine = Matrix(1, std::max<std::int64_t>(own.count(), 1));
    if (rank != 0) {
        recv_floats(mine.data(), own.count(), 0);
        return;
    }
    copy_out(whole, own, mine.data());
    Matrix buf;
    for (std::size_t r = 1; r < layouts.size(); ++r) {
        const Block b = block_of(layouts[r]);
        if (buf.size() < b.count()) buf = Matrix(1, b.count());
        copy_out(whole, b, buf.data());
        send_floats(buf.data(), b.count(), static_cast<int>(r));
    }
}

// Every rank's C block (mine) to rank 0, into `whole` there.
inline void gather_c(Matrix& whole, const std::vector<Layout>& layouts, int rank, const float* mine) {
    if (rank != 0) {
        send_floats(mine, c_block(layouts[rank]).count(), 0);
        return;
    }
    copy_in(whole, c_block(layouts[0]), mine);
    Matrix buf;
    for (std::size_t r = 1; r < layouts.size(); ++r) {
        const Block b = c_block(layouts[r]);
        if (buf.size() < b.count()) buf = Matrix(1, std::max<std::int64_t>(b.count(), 1));
        recv_floats(buf.data(), b.count(), static_cast<int>(r));
        copy_in(whole, b, buf.data());
    }
}

// The value of v on every rank combined with op (MPI_MAX, MPI_SUM), on every rank.
inline double all_reduce(double v, MPI_Op op) {
    double out = 0;
    mpi_check(MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, op, MPI_COMM_WORLD), "MPI_Allreduce");
    return out;
}

// The column-major rank numbering's layout (the --fault rank-layout test
// hook: blocks handed out row-major, the algorithm told column-major). Only
// where every block has the same size; else it throws std::invalid_argument.
inline Layout column_major_layout(Shape s, Grid g, int rank) {
    if (g.rows == 1 || g.cols == 1 || s.M % g.rows || s.N % g.cols || s.K % g.rows || s.K % g.cols)
        throw std::invalid_argument("--fault rank-layout needs a grid of at least 2x2 that divides M, N and K evenly");
    return layout_of(s, g, (rank % g.rows) * g.cols + rank / g.rows);
}

}  // namespace mml::lab12
