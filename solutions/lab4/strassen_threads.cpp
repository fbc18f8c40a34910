// Lab 4, stage 4: Strassen's seven products on threads.
//
// What changed from lab 3's Strassen: only the top level. Its seven products
// are independent (each reads quadrants of A and B and writes its own M_i),
// so they run at the same time on up to seven threads; below the top level
// each product is lab 3's sequential recursion, called as is
// (reference::lab3::compute_product). Then the products are added into C -
// in the same order as lab 3, M1 to M7, so the result is bit for bit lab 3's -
// with the T threads splitting C's rows, every thread adding all seven
// products into its own rows.
//
// (Seed 003 splits C into its four quadrants instead, one thread each: 4
// independent tasks, but 8 half-size products, giving up Strassen's saving at
// the top level. Here: 7 tasks - which also means 2 threads can at best get
// 7/4 = 1.75x, one thread doing 4 products while the other does 3.)
//
// Memory: ONE allocation per call, computed up front:
//   7 x Z (m x n)   one per product: they must all exist until they are added
//   P x (X, Y, levels below)   one product workspace per product thread
//                              (P = min(T, 7)), reused for its next product
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <vector>

#include "solutions/lab3/strassen.h"
#include "solutions/lab4/row_partition.h"
#include "solutions/lab4/threads.h"

namespace reference::lab4 {
namespace {

namespace l3 = reference::lab3;

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

// Starts one thread per task, fn(&tasks[i]), then joins them all; a task whose
// thread the system refuses runs on the calling thread instead.
template <typename Task>
void run_all(void* (*fn)(void*), std::vector<Task>& tasks) {
    std::vector<pthread_t> ids(tasks.size());
    std::vector<bool> started(tasks.size(), false);
    for (std::size_t i = 0; i < tasks.size(); ++i) {
        started[i] = pthread_create(&ids[i], nullptr, fn, &tasks[i]) == 0;
        if (!started[i]) fn(&tasks[i]);
    }
    for (std::size_t i = 0; i < tasks.size(); ++i)
        if (started[i]) pthread_join(ids[i], nullptr);
}

}  // namespace

void matmul_strassen_threads(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
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
