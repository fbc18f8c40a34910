#include "cpu/peak.h"

#include <immintrin.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <ctime>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cpu/measured_once.h"

namespace mml {
namespace {

// Each kernel keeps many independent accumulators so that the FMA latency
// (4 cycles on current x86) times the number of FMA pipes (2) is covered:
// fewer chains would measure latency, not throughput. Returns FMAs done.

__attribute__((target("avx2,fma"))) double fma_avx2(long rounds, float* sink) {
    __m256 acc[12];
    for (int r = 0; r < 12; ++r) acc[r] = _mm256_set1_ps(0.001f * float(r));
    const __m256 mul = _mm256_set1_ps(0.99999f), add = _mm256_set1_ps(1e-6f);
    for (long i = 0; i < rounds; ++i)
#pragma GCC unroll 12
        for (int r = 0; r < 12; ++r) acc[r] = _mm256_fmadd_ps(acc[r], mul, add);
    __m256 total = acc[0];
    for (int r = 1; r < 12; ++r) total = _mm256_add_ps(total, acc[r]);
    _mm256_storeu_ps(sink, total);  // keeps the compiler from deleting the loop
    return double(rounds) * 12 * 8;
}

__attribute__((target("avx512f"))) double fma_avx512(long rounds, float* sink) {
    __m512 acc[16];
    for (int r = 0; r < 16; ++r) acc[r] = _mm512_set1_ps(0.001f * float(r));
    const __m512 mul = _mm512_set1_ps(0.99999f), add = _mm512_set1_ps(1e-6f);
    for (long i = 0; i < rounds; ++i)
#pragma GCC unroll 16
        for (int r = 0; r < 16; ++r) acc[r] = _mm512_fmadd_ps(acc[r], mul, add);
    __m512 total = acc[0];
    for (int r = 1; r < 16; ++r) total = _mm512_add_ps(total, acc[r]);
    _mm512_storeu_ps(sink, total);
    return double(rounds) * 16 * 16;
}

double scalar_fma(long rounds, float* sink) {
    float acc[8];
    for (int r = 0; r < 8; ++r) acc[r] = 0.001f * float(r);
    for (long i = 0; i < rounds; ++i)
#pragma GCC unroll 8
        for (int r = 0; r < 8; ++r) acc[r] = acc[r] * 0.99999f + 1e-6f;
    float total = 0;
    for (float a : acc) total += a;
    *sink = total;
    return double(rounds) * 8;
}

}  // namespace

PeakResult measure_fma_peak(SimdLevel simd, int threads, double seconds) {
    if (simd == SimdLevel::Avx512 && !cpu_has_avx512())
        throw std::invalid_argument("this CPU has no AVX-512");
    if (simd == SimdLevel::Avx2 && !cpu_has_avx2_fma())
        throw std::invalid_argument("this CPU has no AVX2+FMA");
    if (threads < 1) throw std::invalid_argument("threads must be >= 1");
    auto kernel = simd == SimdLevel::Avx512 ? fma_avx512 : simd == SimdLevel::Avx2 ? fma_avx2 : scalar_fma;

    using clock = std::chrono::steady_clock;
    std::atomic<int> ready{0};
    std::vector<double> fmas(std::size_t(threads), 0.0);
    std::vector<float> sinks(std::size_t(threads) * 16);
    auto worker = [&](int t) {
        ready.fetch_add(1);
        while (ready.load() < threads) {}  // start together
        const auto t0 = clock::now();
        double done = 0;
        while (std::chrono::duration<double>(clock::now() - t0).count() < seconds)
            done += kernel(200000, &sinks[std::size_t(t) * 16]);
        fmas[std::size_t(t)] = done;
    };
    const auto t0 = clock::now();
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) pool.emplace_back(worker, t);
    for (auto& th : pool) th.join();
    const double wall = std::chrono::duration<double>(clock::now() - t0).count();
    double total = 0;
    for (double f : fmas) total += f;
    return {simd, threads, 2.0 * total / wall / 1e9};
}

namespace {
// The lowest run of each thread count's measurement, beside the best that
// MeasuredOnce keeps, and the other programs' CPU use while it ran: the
// spread the header shows, and its cause.
std::mutex spread_mu;
std::map<int, double> lowest_run;
std::map<int, double> others_busy;
std::map<int, std::vector<double>> all_runs;  // every run of each thread count (remeasures too)

// Seconds of CPU time the whole machine has spent busy (every core, every
// program: /proc/stat's first line, all but idle and iowait); -1 without it.
double machine_busy_seconds() {
    std::ifstream stat("/proc/stat");
    std::string cpu;
    unsigned long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
    if (!(stat >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal) || cpu != "cpu") return -1;
    return double(user + nice + system + irq + softirq + steal) / double(sysconf(_SC_CLK_TCK));
}

double own_cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

MeasuredOnce& remembered_peak() {
    static MeasuredOnce peak([](int t) {
        // Best of kPeakRuns short runs: the first also warms the core up
        // (wide-SIMD clock ramp), and a run that shared its core with another
        // program is only low, never high.
        double best = 0, low = 0;
        std::vector<double> runs;
        const double busy0 = machine_busy_seconds(), own0 = own_cpu_seconds();
        const auto wall0 = std::chrono::steady_clock::now();
        for (int run = 0; run < kPeakRuns; ++run) {
            const double g = measure_fma_peak(detect_simd(), t, kPeakRunSeconds).gflops;
            best = std::max(best, g);
            runs.push_back(g);
            if (run > 0) low = run == 1 ? g : std::min(low, g);  // the first is the warm-up
        }
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
        const double busy1 = machine_busy_seconds(), own1 = own_cpu_seconds();
        // Jiffies are coarse (10 ms): a few of them are noise, not a program.
        const double others = busy0 < 0 || busy1 < 0 || wall <= 0
                                  ? -1
                                  : std::max(0.0, (busy1 - busy0) - (own1 - own0)) / wall;
        std::lock_guard<std::mutex> lock(spread_mu);
        lowest_run[t] = lowest_run.count(t) ? std::min(lowest_run[t], low) : low;
        all_runs[t].insert(all_runs[t].end(), runs.begin(), runs.end());
        others_busy[t] = std::max(others_busy.count(t) ? others_busy[t] : -1.0, others);
        return best;
    });
    return peak;
}
}  // namespace

double measured_peak_gflops(int threads) { return remembered_peak()(threads); }

PeakSpread measured_peak_spread(int threads) {
    PeakSpread p;
    p.best = measured_peak_gflops(threads);
    std::lock_guard<std::mutex> lock(spread_mu);
    p.lowest = lowest_run.count(threads) ? lowest_run[threads] : p.best;
    p.others_busy_cores = others_busy.count(threads) ? others_busy[threads] : -1;
    if (all_runs.count(threads) && all_runs[threads].size() >= 2) {
        std::vector<double> r = all_runs[threads];
        std::sort(r.begin(), r.end(), std::greater<double>());
        p.second = r[1];
    }
    return p;
}

double peak_tolerance(const PeakSpread& peak) {
    if (peak.best <= 0 || peak.second <= 0 || peak.second > peak.best) return 0;
    return (peak.best - peak.second) / peak.best;
}

double remeasured_peak_gflops(int threads) { return remembered_peak().remeasure(threads); }

}  // namespace mml
