// Lab 12 reference, the 1-D algorithm (lab12 "rows"): rows of A and C split
// over P ranks, B split by rows and allgathered, so that each rank computes
// its rows of C with one local product.
//
// Communication: every rank receives all of B but its own block,
// (P-1)/P * K*N floats, whatever P is: the volume per rank does not shrink
// when processes are added, while the work per rank does (2*M*N*K/P flops).
// That is why 1-D stops scaling (the alpha-beta-gamma model, models/abg_model.h).
#include "solutions/lab12/distributed.h"

#include <vector>

#include "cpu/matrix.h"
#include "labs/common/lab12_local_gemm.h"

namespace reference::lab12 {

using namespace mml::lab12;

void matmul_rows(const Layout& L, MPI_Comm comm, const float* A_loc, const float* B_loc, float* C_loc,
                 CommStats& stats) {
    const int P = L.grid.rows;
    const std::int64_t K = L.shape.K, N = L.shape.N;
    const float* B = B_loc;  // with one rank, B_loc is all of B
    if (P > 1) {
        // Kept from call to call: a fresh K x N buffer would pay its page
        // faults inside the timed product every time.
        static mml::Matrix whole;
        if (whole.size() < K * N) whole = mml::Matrix(K, N);
        std::vector<std::int64_t> counts(P);
        for (int r = 0; r < P; ++r) counts[r] = part_size(K, P, r) * N;
        timed_allgatherv(B_loc, L.b_depth() * N, whole.data(), counts, comm, stats);
        B = whole.data();
    }
    local_gemm(A_loc, K, B, N, C_loc, N, L.rows(), N, K, false);
}

}  // namespace reference::lab12
