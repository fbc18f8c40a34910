// Lab 4 - your code. Read handouts/lab4.md first.
//
// Given (in labs/common/; read them, they are short):
//   common::lab3::classical_kernel(A, lda, B, ldb, C, ldc, m, n, k, false)
//       C (m x n, row stride ldc) = A (m x k, stride lda) * B (k x n, stride ldb):
//       lab 3's classical kernel (classical_kernel.h). Every thread runs it on
//       its own rows.
//   common::lab4::rows_for_thread(M, N, T, t) -> RowRange {begin, end}
//       the rows of C that thread t of T computes: contiguous, covering [0, M)
//       once, boundaries on 64-byte cache lines of C (no false sharing), empty
//       ranges for threads past the work (M < T) (row_partition.h).
//   common::lab4::rounded_block_rows(N, block_rows)
//       rows of one OpenMP block, rounded up to whole cache-line units of C.
//   lab 3's Strassen for task 4, common::lab3: the views and quadrants
//       (strassen_views.h), the plan (strassen_plan.h), the fix-ups
//       (strassen_fix_ups.h) and the sequential recursion with its
//       compute_product and add_product (strassen_recursion.h: given
//       compiled, since its body is lab 3's answer).
//
// Until you write a function, it leaves C unwritten and its tests fail with
// "was never written".
#include "labs/lab4/threads.h"

#include <pthread.h>

#include <atomic>
#include <memory>
#include <vector>

#include "labs/common/classical_kernel.h"
#include "labs/common/row_partition.h"
#include "labs/common/strassen_fix_ups.h"
#include "labs/common/strassen_plan.h"
#include "labs/common/strassen_recursion.h"
#include "labs/common/strassen_views.h"

namespace student::lab4 {

using common::lab3::classical_kernel;
using common::lab4::rounded_block_rows;
using common::lab4::RowRange;
using common::lab4::rows_for_thread;

// ---------------------------------------------------------------- task 1: pthreads
// One thread's work. alignas(64): each task on its own cache line.
struct alignas(64) RowBlockTask {
    const float* A;  // row `begin` of A
    const float* B;  // all of B
    float* C;        // row `begin` of C
    std::int64_t rows, N, K;
};

// TODO(lab4, task 1a): the thread function of task 1.
//   Contract: pthread_create calls it with the address of this thread's
//     RowBlockTask; it computes that block of rows of C (C = A*B on those rows,
//     with the given classical_kernel) and returns nullptr.
//   Stuck: handouts/lab4.md, hints 4.1.x.
void* run_row_block(void* arg) {
    (void)arg;
    return nullptr;
}

// TODO(lab4, task 1b): C = A*B on `threads` POSIX threads.
//   Contract: as lab 1's (C garbage on entry, every element written), for any
//     threads >= 1, also more threads than rows; returns when all of C is done.
//   Goal: C's rows in `threads` contiguous blocks (rows_for_thread, given:
//     boundaries on cache lines, so no two threads write one line), one thread
//     per block, all running at once; B shared and only read, no locks.
//   Judged: the tests (T = 1, 2, 3, 7, shapes with M < T), then lab 4's target:
//     at 2048^3 your pthreads stage on 2 threads at least 1.8x as fast as on
//     1 (the judge times both itself, in interleaved rounds).
//   Stuck: hints 4.1.x.
void matmul_pthreads(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                     std::int64_t K, int threads) {
    (void)A; (void)B; (void)C; (void)M; (void)N; (void)K; (void)threads;
}

// ---------------------------------------------------------------- tasks 2 and 3: OpenMP
// TODO(lab4, task 2): the same product with OpenMP, schedule(static).
//   Contract: as task 1b's; block_rows >= 1 is the height of one block of rows
//     before rounding (rounded_block_rows, given, rounds it up to whole cache
//     lines of C); the last block may be shorter.
//   Goal: blocks of rows handed to `threads` OpenMP threads in fixed,
//     contiguous shares decided before the loop starts.
//   Judged: the tests; the table shows it beside task 1. Stuck: hints 4.2.x.
void matmul_omp_static(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                       std::int64_t K, int threads, std::int64_t block_rows) {
    (void)A; (void)B; (void)C; (void)M; (void)N; (void)K; (void)threads;
    (void)rounded_block_rows(N, block_rows);
}

// TODO(lab4, task 3): task 2 with schedule(dynamic, 1): each thread takes the
//   next block when it has finished its last one (same contract as task 2).
//   Goal: a slowed core takes fewer blocks (compare with task 2 on a busy
//   machine). Judged: the tests; the table. Stuck: hints 4.2.x.
void matmul_omp_dynamic(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                        std::int64_t K, int threads, std::int64_t block_rows) {
    (void)A; (void)B; (void)C; (void)M; (void)N; (void)K; (void)threads; (void)block_rows;
}

// ---------------------------------------------------------------- task 4: Strassen on threads
namespace l3 = common::lab3;

// Given: what the product threads share, and one thread's slice of the workspace.
struct ProductPool {
    const l3::Quadrants* q;
    float* Z;                  // 7 products one after another, each q->half.M x q->half.N
    std::int64_t cutoff;
    std::atomic<int> next{0};  // the next product (0..6) nobody has taken yet
};
struct alignas(64) ProductTask {
    ProductPool* pool;
    float* work;  // this thread's product workspace: l3::product_workspace_floats(half, cutoff) floats
};

// TODO(lab4, task 4a): a product thread of task 4.
//   Contract: takes products p = 0..6 from the shared counter pool.next until
//     none is left, and computes each with lab 3's l3::compute_product into
//     its own slot of Z (product p at pool.Z + p*m*n, m x n = pool.q->half),
//     using its own workspace slice t.work. Every product is computed exactly
//     once, whichever thread takes it. Stuck: hints 4.4.x.
void* run_products(void* arg) {
    (void)arg;
    return nullptr;
}

// Given: one thread's rows of the four quadrants of C.
struct alignas(64) CombineTask {
    const float* Z;
    const l3::CQuadrants* c;
    std::int64_t m, n, r0, r1;
};

// TODO(lab4, task 4b): a combining thread of task 4.
//   Contract: adds the seven products into rows [t.r0, t.r1) of C's quadrants
//     with lab 3's l3::add_product, in the order M1..M7 (the order lab 3 uses:
//     the result must be bit for bit lab 3's). Stuck: hints 4.4.x.
void* run_combine(void* arg) {
    (void)arg;
    return nullptr;
}

// TODO(lab4, task 4c): Strassen's top level on threads.
//   Contract: C = A*B, bit for bit what lab 3's sequential Strassen
//     (l3::matmul_strassen, given compiled) computes with the same cutoff, for
//     any shape and threads >= 1; one allocation per call at most.
//   Goal: the seven top-level products run at once on min(threads, 7) threads
//     (task 4a), each with its own slice of one workspace; then all `threads`
//     threads combine them into C, each its own rows (task 4b); then the given
//     fix-ups for odd sizes. threads == 1 is lab 3's; a shape that lab 3 would
//     not split (at or below the cutoff) runs on task 1's threads instead.
//   Judged: the tests ("bit for bit lab 3's Strassen", T = 1, 2, 3, 7, odd
//     shapes), then its row of the table.
//   Stuck: handouts/lab4.md, hints 4.4.x.
void matmul_strassen_par(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                         std::int64_t K, int threads, std::int64_t cutoff) {
    (void)A; (void)B; (void)C; (void)M; (void)N; (void)K; (void)threads; (void)cutoff;
}

}  // namespace student::lab4
