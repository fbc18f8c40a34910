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

// TODO(lab4, task 1a): the thread function. pthread_create calls it with the
//   address of this thread's RowBlockTask. Cast `arg` back to RowBlockTask*,
//   then compute its block of rows with the given kernel:
//     classical_kernel(t.A, t.K, t.B, t.N, t.C, t.N, t.rows, t.N, t.K, false);
//   and return nullptr.
void* run_row_block(void* arg) {
    (void)arg;
    return nullptr;
}

// TODO(lab4, task 1b): split C's rows over `threads` threads, start them, wait.
//   1. std::vector<RowBlockTask> tasks(threads); std::vector<pthread_t> ids(threads);
//   2. for t in 0..threads-1: RowRange r = rows_for_thread(M, N, threads, t);
//        skip the thread if r.size() == 0 (more threads than rows);
//        tasks[t] = {A + r.begin*K, B, C + r.begin*N, r.size(), N, K};
//        pthread_create(&ids[t], nullptr, run_row_block, &tasks[t]);
//      (remember which threads you started: only those may be joined)
//   3. pthread_join every started thread. The product is done only when all are.
//   Do not run a block on this thread between create and join, and do not
//   join inside the creating loop: that would make the threads run one after another.
void matmul_pthreads(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                     std::int64_t K, int threads) {
    (void)A; (void)B; (void)C; (void)M; (void)N; (void)K; (void)threads;
}

// ---------------------------------------------------------------- tasks 2 and 3: OpenMP
// TODO(lab4, task 2): blocks of `rows = rounded_block_rows(N, block_rows)` rows,
//   blocks = ceil(M / rows); block b is rows [b*rows, min(M, (b+1)*rows)).
//   Loop over b with
//     #pragma omp parallel for num_threads(threads) schedule(static)
//   and compute each block with classical_kernel (as in task 1, on its rows).
void matmul_omp_static(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                       std::int64_t K, int threads, std::int64_t block_rows) {
    (void)A; (void)B; (void)C; (void)M; (void)N; (void)K; (void)threads;
    (void)rounded_block_rows(N, block_rows);
}

// TODO(lab4, task 3): the same loop with schedule(dynamic, 1): each thread takes
//   the next block when it has finished its last one.
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

// TODO(lab4, task 4a): a product thread. Take products with
//     for (int p = pool.next.fetch_add(1); p < 7; p = pool.next.fetch_add(1))
//   and compute each with lab 3's code:
//     l3::compute_product(p, *pool.q, pool.Z + p * m * n, t.work, pool.cutoff);
//   (m, n = pool.q->half.M, .N). fetch_add hands every product to exactly one thread.
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

// TODO(lab4, task 4b): a combining thread: for p = 0..6 IN THIS ORDER,
//     l3::add_product(p, t.Z + p * t.m * t.n, t.n, *t.c, t.r0, t.r1, t.n);
void* run_combine(void* arg) {
    (void)arg;
    return nullptr;
}

// TODO(lab4, task 4c): the top level of Strassen on threads.
//   threads == 1: call l3::matmul_strassen(A, B, C, M, N, K, cutoff) and return.
//   l3::stops_at_base_case({M, N, K}, cutoff) (no top level to split: lab 3 would
//     run the classical kernel): call your matmul_pthreads(A, B, C, M, N, K, threads)
//     and return, so that shapes at or below the cutoff use the threads too.
//   Otherwise, with h = l3::halves({M, N, K}):
//     q = l3::split(l3::ConstView{A, K}, l3::ConstView{B, N}, h);
//     c = l3::split(l3::View{C, N}, h);
//     P = min(threads, 7) product threads;
//     ONE allocation: 7*h.M*h.N floats for the seven Z's, then P slices of
//       l3::product_workspace_floats(h, cutoff) floats, one per product thread;
//     phase 1: start P threads on run_products (ProductPool pool{&q, Z, cutoff}),
//       ProductTask t = {&pool, its slice}; join them all;
//     phase 2: for t in 0..threads-1: RowRange r = rows_for_thread(h.M, N, threads, t);
//       if not empty, a thread on run_combine with {Z, &c, h.M, h.N, r.begin, r.end}; join;
//     finally l3::fix_up_peeled(l3::ConstView{A, K}, l3::ConstView{B, N}, l3::View{C, N}, {M, N, K}).
void matmul_strassen_threads(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                             std::int64_t K, int threads, std::int64_t cutoff) {
    (void)A; (void)B; (void)C; (void)M; (void)N; (void)K; (void)threads; (void)cutoff;
}

}  // namespace student::lab4
