#include "cpu/peak.h"

#include <immintrin.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <sstream>
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

// One try: `runs` back-to-back runs, and how many cores' worth of CPU time
// the other programs used meanwhile (-1: unknown).
struct Round {
    std::vector<double> runs;
    double others = -1;
};

Round measure_round(int threads, int runs) {
    Round r;
    const double busy0 = machine_busy_seconds(), own0 = own_cpu_seconds();
    const auto wall0 = std::chrono::steady_clock::now();
    for (int run = 0; run < runs; ++run)
        r.runs.push_back(measure_fma_peak(detect_simd(), threads, kPeakRunSeconds).gflops);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    const double busy1 = machine_busy_seconds(), own1 = own_cpu_seconds();
    // Jiffies are coarse (10 ms): a few of them are noise, not a program.
    if (busy0 >= 0 && busy1 >= 0 && wall > 0) r.others = std::max(0.0, (busy1 - busy0) - (own1 - own0)) / wall;
    return r;
}

// The tries of one thread count together: the best and second-best runs, the
// lowest run after each try's first (the first warms the core's wide-SIMD
// clock up), and the others' use in the quietest try (the one that decides
// whether any try had the cores it needed).
PeakSpread summarise(const std::vector<Round>& rounds) {
    PeakSpread p;
    std::vector<double> all;
    for (const Round& r : rounds) {
        for (std::size_t i = 0; i < r.runs.size(); ++i) {
            all.push_back(r.runs[i]);
            if (i > 0) p.lowest = p.lowest > 0 ? std::min(p.lowest, r.runs[i]) : r.runs[i];
        }
        if (r.others >= 0) p.others_busy_cores = p.others_busy_cores < 0 ? r.others : std::min(p.others_busy_cores, r.others);
    }
    std::sort(all.begin(), all.end(), std::greater<double>());
    p.best = p.measured = all.empty() ? 0 : all[0];
    p.second = all.size() >= 2 ? all[1] : 0;
    if (p.lowest <= 0) p.lowest = p.best;
    return p;
}

// The store's key: the CPU, the SIMD level measured and the thread count.
std::string store_key(int threads) {
    return describe_machine().cpu_model + " | " + simd_name(detect_simd()) + " | " + std::to_string(threads) + " threads";
}

// peaks.txt: one line per key, "key<TAB>best<TAB>second" (GFLOP/s).
StoredPeak read_stored_peak(const std::string& key) {
    StoredPeak s;
    const std::string path = peak_store_path();
    if (path.empty()) return s;
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);) {
        std::istringstream fields(line);
        std::string k;
        if (std::getline(fields, k, '\t') && k == key && (fields >> s.best >> s.second) && s.best > 0) return s;
        s = {};
    }
    return {};
}

// Replaces the key's line (written to a temporary file, then renamed, so that
// two runs at once never leave half a file); a store that cannot be written
// (a read-only build folder) is skipped without a word: the peak measured now
// is used as before.
void write_stored_peak(const std::string& key, const StoredPeak& s) {
    const std::string path = peak_store_path();
    if (path.empty()) return;
    std::ostringstream out;
    {
        std::ifstream in(path);
        for (std::string line; std::getline(in, line);)
            if (line.rfind(key + "\t", 0) != 0) out << line << "\n";
    }
    out << key << "\t" << s.best << "\t" << s.second << "\n";
    const std::string tmp = path + "." + std::to_string(getpid());
    {
        std::ofstream f(tmp);
        if (!(f << out.str())) {
            std::remove(tmp.c_str());
            return;
        }
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) std::remove(tmp.c_str());
}

std::mutex spread_mu;
std::map<int, std::vector<Round>> tries;  // every try of each thread count (remeasures too)
std::map<int, PeakSpread> chosen;          // choose_peak's answer for each thread count

int machine_cores() {
    const int n = int(std::thread::hardware_concurrency());
    return n < 1 ? 1 : n;
}

MeasuredOnce& remembered_peak() {
    static MeasuredOnce peak([](int t) {
        const std::string key = store_key(t);
        const StoredPeak stored = read_stored_peak(key);
        std::vector<Round> mine;
        {
            std::lock_guard<std::mutex> lock(spread_mu);
            mine = tries[t];
        }
        // Best of kPeakRuns short runs: a run that shared its core with
        // another program is only low, never high.
        mine.push_back(measure_round(t, kPeakRuns));
        // Other programs held the cores and no quiet peak is stored: a few
        // more tries, spread over up to kPeakExtraSeconds, until one finds
        // the cores free (a build's compiler comes and goes).
        const auto extra0 = std::chrono::steady_clock::now();
        while (stored.best <= 0 && peak_contended(summarise(mine), t, machine_cores()) &&
               std::chrono::duration<double>(std::chrono::steady_clock::now() - extra0).count() < kPeakExtraSeconds) {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            mine.push_back(measure_round(t, 3));
        }
        const PeakSpread measured = summarise(mine);
        if (peak_quiet(measured) && measured.best > stored.best) write_stored_peak(key, {measured.best, measured.second});
        const PeakSpread use = choose_peak(measured, stored, t, machine_cores());
        std::lock_guard<std::mutex> lock(spread_mu);
        tries[t] = mine;
        chosen[t] = use;
        return use.best;
    });
    return peak;
}

std::string one_decimal(double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", x);
    return buf;
}
}  // namespace

double measured_peak_gflops(int threads) { return remembered_peak()(threads); }

PeakSpread measured_peak_spread(int threads) {
    const double best = measured_peak_gflops(threads);
    std::lock_guard<std::mutex> lock(spread_mu);
    PeakSpread p = chosen.count(threads) ? chosen[threads] : PeakSpread{};
    p.best = best;  // a remeasure keeps the higher of its answers
    return p;
}

bool peak_quiet(const PeakSpread& m) {
    return m.others_busy_cores >= 0 && m.others_busy_cores < kQuietCores && m.lowest >= kQuietRuns * m.best;
}

// (Logical cores: where two are one core's hyperthreads, a busy sibling slows
// the FMAs less than a whole core would; the runs' spread still shows it.)
bool peak_contended(const PeakSpread& m, int threads, int cores) {
    return m.others_busy_cores >= 0 && m.others_busy_cores + threads > cores + kQuietCores;
}

PeakSpread choose_peak(PeakSpread p, const StoredPeak& stored, int threads, int cores) {
    p.measured = p.best;
    p.stored = false;
    p.unsure.clear();
    if (peak_quiet(p)) return p;
    if (stored.best > p.best) {  // busy now, and this machine did better when quiet
        p.best = stored.best;
        p.second = stored.second;
        p.stored = true;
        return p;
    }
    if (stored.best > 0 || !peak_contended(p, threads, cores)) return p;
    p.unsure = "the " + std::to_string(threads) + "-thread peak could not be measured: other programs used " +
               one_decimal(p.others_busy_cores) + " of the " + std::to_string(cores) +
               " cores' time through every try (its runs " + one_decimal(p.lowest) + "-" + one_decimal(p.best) +
               " GFLOP/s), and no quiet peak of this machine is stored yet";
    return p;
}

std::string peak_store_path() {
    if (const char* set = std::getenv("MMLAB_PEAK_STORE")) return set;
    // The program lives in <build>/bin/: the store beside bin/.
    char exe[4096];
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return "";
    std::string path(exe, std::size_t(n));
    for (int up = 0; up < 2; ++up) {
        const auto slash = path.rfind('/');
        if (slash == std::string::npos) return "";
        path.erase(slash);
    }
    return path + "/peaks.txt";
}

double peak_tolerance(const PeakSpread& peak) {
    if (peak.best <= 0 || peak.second <= 0 || peak.second > peak.best) return 0;
    return (peak.best - peak.second) / peak.best;
}

double remeasured_peak_gflops(int threads) { return remembered_peak().remeasure(threads); }

}  // namespace mml
