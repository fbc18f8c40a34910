// STREAM-style read and triad bandwidth (cpu/stream_bandwidth.h).
#include "cpu/stream_bandwidth.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <memory>

#include "cpu/measured_once.h"

namespace mml {
namespace {

using Clock = std::chrono::steady_clock;

// Eight independent sums so that the loads, not the adds' latency, set the pace.
float sum_chunk(const float* x, std::size_t n) {
    float s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8)
        for (int q = 0; q < 8; ++q) s[q] += x[i + q];
    for (; i < n; ++i) s[0] += x[i];
    return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

}  // namespace

StreamBandwidth measure_stream_bandwidth(int threads, int passes) {
    threads = std::max(1, threads);
    passes = std::max(1, passes);
    const std::size_t n = std::size_t(16) << 20;  // 16 Mi floats = 64 MiB an array
    std::unique_ptr<float[]> a(new float[n]), b(new float[n]), c(new float[n]);
    float* pa = a.get();
    float* pb = b.get();
    float* pc = c.get();
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::ptrdiff_t i = 0; i < std::ptrdiff_t(n); ++i) pa[i] = 0.0f, pb[i] = 1.0f, pc[i] = 2.0f;

    StreamBandwidth r;
    r.threads = threads;
    r.array_bytes = 4.0 * double(n);
    volatile float sink = 0;
    double best_read = 1e300, best_triad = 1e300;
    for (int p = 0; p <= passes; ++p) {  // pass 0 is the warm-up
        auto t0 = Clock::now();
        float total = 0;
#pragma omp parallel num_threads(threads) reduction(+ : total)
        {
            const int t = omp_get_thread_num(), nt = omp_get_num_threads();
            const std::size_t first = n * std::size_t(t) / std::size_t(nt), last = n * std::size_t(t + 1) / std::size_t(nt);
            total += sum_chunk(pb + first, last - first);
        }
        const double read_s = std::chrono::duration<double>(Clock::now() - t0).count();
        sink = sink + total;
        t0 = Clock::now();
        const float scale = 3.0f;
#pragma omp parallel for num_threads(threads) schedule(static)
        for (std::ptrdiff_t i = 0; i < std::ptrdiff_t(n); ++i) pa[i] = pb[i] + scale * pc[i];
        const double triad_s = std::chrono::duration<double>(Clock::now() - t0).count();
        sink = sink + pa[n / 2];
        if (p > 0) best_read = std::min(best_read, read_s), best_triad = std::min(best_triad, triad_s);
    }
    r.read_gbs = r.array_bytes / best_read / 1e9;
    r.triad_gbs = 3.0 * r.array_bytes / best_triad / 1e9;
    return r;
}

double measured_read_bandwidth_gbs(int threads) {
    static MeasuredOnce read_gbs([](int t) { return measure_stream_bandwidth(t).read_gbs; });
    return read_gbs(threads);
}

}  // namespace mml
