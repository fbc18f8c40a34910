// Lab 4, stages 2 and 3: the same row blocks with OpenMP.
//
// What changed from the pthreads stage: the compiler writes the create/join.
// `#pragma omp parallel for` starts (or reuses: OpenMP keeps a pool of threads
// between calls, where the pthreads stage creates T threads every call) a team
// of T threads and divides the loop's iterations - here, blocks of rows of C -
// among them. The SCHEDULE says how:
//   schedule(static)   each thread gets one contiguous share, fixed before the
//                      loop starts: no coordination at all, but if one core is
//                      slowed (another program, a noisy neighbour), its share
//                      finishes last and everyone waits for it.
//   schedule(dynamic)  each thread takes the next block when it is done with
//                      its last: a shared counter per block (cheap at 64 rows
//                      of work each), and a slowed core simply takes fewer blocks.
// On an idle machine with equal blocks both are equally fast; on a shared one
// (CI, a laptop with a browser open) dynamic is the safer choice.
//
// A block is about `block_rows` rows, rounded up to whole cache-line units of C
// (row_partition.h) so that no line of C is written by two threads.
#include "solutions/lab3/classical_kernel.h"
#include "solutions/lab4/row_partition.h"
#include "solutions/lab4/threads.h"

namespace reference::lab4 {
namespace {

std::int64_t rounded_block_rows(std::int64_t N, std::int64_t block_rows) {
    const std::int64_t unit = rows_per_line_unit(N);
    if (block_rows < 1) block_rows = 1;
    return (block_rows + unit - 1) / unit * unit;
}

void row_block(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K,
               std::int64_t rows, std::int64_t b) {
    const std::int64_t r0 = b * rows, r1 = r0 + rows < M ? r0 + rows : M;
    reference::lab3::classical_kernel(A + r0 * K, K, B, N, C + r0 * N, N, r1 - r0, N, K, false);
}

}  // namespace

void matmul_omp_static(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                       std::int64_t K, int threads, std::int64_t block_rows) {
    const std::int64_t rows = rounded_block_rows(N, block_rows);
    const std::int64_t blocks = (M + rows - 1) / rows;
#pragma omp parallel for num_threads(threads < 1 ? 1 : threads) schedule(static)
    for (std::int64_t b = 0; b < blocks; ++b) row_block(A, B, C, M, N, K, rows, b);
}

void matmul_omp_dynamic(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                        std::int64_t K, int threads, std::int64_t block_rows) {
    const std::int64_t rows = rounded_block_rows(N, block_rows);
    const std::int64_t blocks = (M + rows - 1) / rows;
#pragma omp parallel for num_threads(threads < 1 ? 1 : threads) schedule(dynamic, 1)
    for (std::int64_t b = 0; b < blocks; ++b) row_block(A, B, C, M, N, K, rows, b);
}

}  // namespace reference::lab4
