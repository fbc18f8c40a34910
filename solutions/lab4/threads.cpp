// Lab 4 reference: the answers to labs/lab4/threads.cpp, one section per
// task (the contract is in threads.h). Every stage runs the same classical
// kernel as lab 3 (labs/common/classical_kernel.h) on each thread, so the
// speedup over one thread measures the threading alone.
#include "solutions/lab4/threads.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <vector>

#include "labs/common/classical_kernel.h"
#include "labs/common/row_partition.h"
#include "labs/common/strassen_fix_ups.h"
#include "labs/common/strassen_plan.h"
#include "labs/common/strassen_recursion.h"
#include "labs/common/strassen_views.h"

namespace reference::lab4 {

using common::lab3::classical_kernel;
using common::lab4::rounded_block_rows;
using common::lab4::RowRange;
using common::lab4::rows_for_thread;

// ==========================================================================
// Task 1, lab4.pthreads: POSIX threads over blocks of rows (Cao's
// survey, section 3.1.1).
//
// What changed from lab 3's classical stage: nothing in the arithmetic. C's
// rows are cut into T contiguous blocks (row_partition.h: equal up to a cache
// line, boundaries on cache lines so no line of C is written by two threads);
// pthread_create starts one thread per block, each runs the same classical
// kernel on its rows (the whole of B, its rows of A and C), and
// pthread_join waits for all of them: the product is done only when the last
// block is. Why it should be faster: the blocks are independent (no thread
// reads what another writes), so T cores do T blocks at once; B is only
// read, and shared.
//
// Time it with the wall clock (the harness does): clock() adds up the CPU time
// of all threads, so a perfectly parallel run "takes" as long as a serial one
// (Cao's survey switched to clock_gettime for this reason).

// One thread's work. Written by the creating thread before pthread_create and
// only read afterwards. alignas(64) gives each task its own cache line, so that
// if a thread ever wrote into its task (a status, a timing) it would not slow
// its neighbours' reads of theirs.
struct alignas(64) RowBlockTask {
    const float* A;  // first row of this block of A
    const float* B;  // all of B
    float* C;        // first row of this block of C
    std::int64_t rows, N, K;
};

void* run_row_block(void* arg) {
    const RowBlockTask& t = *static_cast<const RowBlockTask*>(arg);
    classical_kernel(t.A, t.K, t.B, t.N, t.C, t.N, t.rows, t.N, t.K, false);
    return nullptr;
}

void matmul_pthreads(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                     std::int64_t K, int threads) {
    const int T = threads < 1 ? 1 : threads;
    std::vector<RowBlockTask> tasks(T);
    std::vector<pthread_t> ids(T);
    std::vector<bool> started(T, false);
    for (int t = 0; t < T; ++t) {
        const RowRange r = rows_for_thread(M, N, T, t);
        if (r.size() == 0) continue;  // more threads than row blocks: nothing to start
        tasks[t] = {A + r.begin * K, B, C + r.begin * N, r.size(), N, K};
        started[t] = pthread_create(&ids[t], nullptr, run_row_block, &tasks[t]) == 0;
        // The system may refuse a thread (too many): do that block here instead.
        if (!started[t]) run_row_block(&tasks[t]);
    }
    for (int t = 0; t < T; ++t)
        if (started[t]) pthread_join(ids[t], nullptr);
}

// ==========================================================================
// Tasks 2 and 3, lab4.omp_static and lab4.omp_dynamic: the same row blocks
// with OpenMP.
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
// (row_partition.h) so that no line of C is written by two threads. Block b
// is rows [b*rows, min((b+1)*rows, M)), run as the pthreads stage runs its
// blocks (run_row_block).

void matmul_omp_static(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                       std::int64_t K, int threads, std::int64_t block_rows) {
    const std::int64_t rows = rounded_block_rows(N, block_rows);
    const std::int64_t blocks = (M + rows - 1) / rows;
#pragma omp parallel for num_threads(threads < 1 ? 1 : threads) schedule(static)
    for (std::int64_t b = 0; b < blocks; ++b) {
        const std::int64_t r0 = b * rows, r1 = r0 + rows < M ? r0 + rows : M;
        RowBlockTask task{A + r0 * K, B, C + r0 * N, r1 - r0, N, K};
        run_row_block(&task);
    }
}

void matmul_omp_dynamic(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                        std::int64_t K, int threads, std::int64_t block_rows) {
    const std::int64_t rows = rounded_block_rows(N, block_rows);
    const std::int64_t blocks = (M + rows - 1) / rows;
#pragma omp parallel for num_threads(threads < 1 ? 1 : threads) schedule(dynamic, 1)
    for (std::int64_t b = 0; b < blocks; ++b) {
        const std::int64_t r0 = b * rows, r1 = r0 + rows < M ? r0 + rows : M;
        RowBlockTask task{A + r0 * K, B, C + r0 * N, r1 - r0, N, K};
        run_row_block(&task);
    }
}

// ==========================================================================
// Task 4, lab4.strassen_par: Strassen's seven products on threads.
//
// What changed from lab 3's Strassen: only the top level. Its seven products
// are independent (each reads quadrants of A and B and writes its own M_i),
// so they run at the same time on up to seven threads; below the top level
// each product is lab 3's sequential recursion, called as is (given compiled:
// labs/common/strassen_recursion.h, compute_product). Then the products are added into C -
// in the same order as lab 3, M1 to M7, so the result is bit for bit lab 3's -
// with the T threads splitting C's rows, every thread adding all seven
// products into its own rows.
//
// (Cao's survey splits C into its four quadrants instead, one thread each: 4
// independent tasks, but 8 half-size products, giving up Strassen's saving at
// the top level. Here: 7 tasks - which also means 2 threads can at best get
// 7/4 = 1.75x, one thread doing 4 products while the other does 3.)
//
// Memory: ONE allocation per call, computed up front:
//   7 x Z (m x n)   one per product: they must all exist until they are added
//   P x (X, Y, levels below)   one product workspace per product thread
//                              (P = min(T, 7)), reused for its next product

namespace l3 = common::lab3;  // lab 3's pieces, given (labs/common/; the recursion compiled)

struct ProductPool {  // shared by the product threads
    const l3::Quadrants* q;
    float* Z;                    // 7 products, each m x n
    std::int64_t cutoff;
    std::atomic<int> next{0};    // the next product to take
};

struct alignas(64) ProductTask {
    ProductPool* pool;
    float* work;  // this thread's product workspace
};

void* run_products(void* arg) {
    const ProductTask& t = *static_cast<const ProductTask*>(arg);
    ProductPool& pool = *t.pool;
    const std::int64_t mn = pool.q->half.M * pool.q->half.N;
    for (int p = pool.next.fetch_add(1); p < 7; p = pool.next.fetch_add(1))
        l3::compute_product(p, *pool.q, pool.Z + p * mn, t.work, pool.cutoff);
    return nullptr;
}

struct alignas(64) CombineTask {
    const float* Z;
    const l3::CQuadrants* c;
    std::int64_t m, n, r0, r1;
};

void* run_combine(void* arg) {
    const CombineTask& t = *static_cast<const CombineTask*>(arg);
    for (int p = 0; p < 7; ++p) l3::add_product(p, t.Z + p * t.m * t.n, t.n, *t.c, t.r0, t.r1, t.n);
    return nullptr;
}

void matmul_strassen_par(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                         std::int64_t K, int threads, std::int64_t cutoff) {
    threads = threads < 1 ? 1 : threads;
    const mml::Shape s{M, N, K};
    if (threads == 1 || l3::stops_at_base_case(s, cutoff)) {
        // No top level to split (or one thread): lab 3 itself, or the classical
        // kernel on row blocks (a classical product: lab 3's bound, k^2, holds).
        if (threads == 1) l3::matmul_strassen(A, B, C, M, N, K, cutoff);
        else matmul_pthreads(A, B, C, M, N, K, threads);
        return;
    }
    const mml::Shape h = l3::halves(s);
    const l3::Quadrants q = l3::split(l3::ConstView{A, K}, l3::ConstView{B, N}, h);
    const l3::CQuadrants c = l3::split(l3::View{C, N}, h);

    const int product_threads = std::min(threads, 7);
    const std::int64_t z_floats = 7 * h.M * h.N;
    const std::int64_t per_thread = l3::product_workspace_floats(h, cutoff);
    std::unique_ptr<float[]> work(new float[z_floats + product_threads * per_thread]);

    // Starts one thread per task, fn(&tasks[i]), then joins them all; a task whose
    // thread the system refuses runs on the calling thread instead.
    auto run_all = [](void* (*fn)(void*), auto& tasks) {
        std::vector<pthread_t> ids(tasks.size());
        std::vector<bool> started(tasks.size(), false);
        for (std::size_t i = 0; i < tasks.size(); ++i) {
            started[i] = pthread_create(&ids[i], nullptr, fn, &tasks[i]) == 0;
            if (!started[i]) fn(&tasks[i]);
        }
        for (std::size_t i = 0; i < tasks.size(); ++i)
            if (started[i]) pthread_join(ids[i], nullptr);
    };

    // Phase 1: the seven products, taken one at a time by whichever thread is free.
    ProductPool pool;
    pool.q = &q;
    pool.Z = work.get();
    pool.cutoff = cutoff;
    std::vector<ProductTask> products(product_threads);
    for (int t = 0; t < product_threads; ++t) products[t] = {&pool, work.get() + z_floats + t * per_thread};
    run_all(run_products, products);

    // Phase 2: C11..C22 from M1..M7, each thread its own rows of the quadrants.
    std::vector<CombineTask> combine;
    for (int t = 0; t < threads; ++t) {
        const RowRange r = rows_for_thread(h.M, N, threads, t);
        if (r.size() > 0) combine.push_back({work.get(), &c, h.M, h.N, r.begin, r.end});
    }
    run_all(run_combine, combine);

    // Odd sizes: the same fix-ups as lab 3, on this thread (O(n^2) work).
    l3::fix_up_peeled(l3::ConstView{A, K}, l3::ConstView{B, N}, l3::View{C, N}, s);
}

}  // namespace reference::lab4
