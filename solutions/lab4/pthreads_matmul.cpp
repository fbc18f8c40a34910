// Lab 4, stage 1: POSIX threads over blocks of rows (seed 003, section 3.1.1).
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
// (seed 003 switched to clock_gettime for this reason).
#include <pthread.h>

#include <vector>

#include "solutions/lab3/classical_kernel.h"
#include "solutions/lab4/row_partition.h"
#include "solutions/lab4/threads.h"

namespace reference::lab4 {
namespace {

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
    reference::lab3::classical_kernel(t.A, t.K, t.B, t.N, t.C, t.N, t.rows, t.N, t.K, false);
    return nullptr;
}

}  // namespace

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

}  // namespace reference::lab4
