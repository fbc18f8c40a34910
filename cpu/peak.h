// Measures the CPU's floating-point peak: how many float32 FLOP/s the FMA
// units sustain when nothing but independent FMAs is issued. "% of peak" in
// every table divides by this measured number, never by a datasheet guess.
#pragma once

#include <string>

#include "cpu/machine.h"

namespace mml {

struct PeakResult {
    SimdLevel simd = SimdLevel::Scalar;
    int threads = 1;
    double gflops = 0;  // 2 FLOP per FMA lane
};

// Runs `threads` threads of back-to-back FMAs at the given SIMD width for
// about `seconds`. Throws std::invalid_argument if the CPU lacks that SIMD.
PeakResult measure_fma_peak(SimdLevel simd, int threads, double seconds = 0.2);

// The peak of the widest SIMD present (cached per thread count within a run):
// the best of kPeakRuns runs of kPeakRunSeconds each, with more runs spread
// over up to kPeakExtraSeconds when other programs held the cores meanwhile,
// or this machine's stored quiet peak (below) where that is higher.
constexpr int kPeakRuns = 5;
constexpr double kPeakRunSeconds = 0.06;
constexpr double kPeakExtraSeconds = 1.0;
double measured_peak_gflops(int threads);
// That peak and the lowest of its runs after the first (the first warms the
// core's wide-SIMD clock up), and how many cores' worth of CPU time the other
// programs used meanwhile (from /proc/stat less this process's own; -1 where
// it cannot be read). Far apart with others busy: other programs held the
// cores; far apart on an idle machine: the clock moved (turbo, power or heat).
// `best` is what % peak divides by.
struct PeakSpread {
    double best = 0;
    double lowest = 0;
    double others_busy_cores = -1;
    double second = 0;  // the second-best run (0: unknown)
    // This run's own best, and whether `best` is the stored quiet peak instead
    // (this run's was lower: other programs held the cores while it ran).
    double measured = 0;
    bool stored = false;
    // Why no speed verdict may rest on this peak ("" when one may): other
    // programs held the cores it needed through every try, and no quiet peak
    // of this machine is stored. targets.h's impossible_numbers reads it.
    std::string unsure;
};
PeakSpread measured_peak_spread(int threads);

// The per-machine store: the best quiet peak of this CPU model, SIMD level and
// thread count, kept in a file between runs (peak_store_path) so that a busy
// run cannot halve the peak that % peak and the roofline divide by. A
// measurement is quiet when the other programs used under kQuietCores cores'
// worth and its runs after the warm-up agree within 10 % (the slowest at least
// kQuietRuns of the fastest's speed); only a quiet one is stored, and only
// where it is higher than the stored one. The peak's spread note and the
// demo's x ijk ranges read the same bound: the noise a quiet machine leaves.
constexpr double kQuietCores = 0.25;
constexpr double kQuietRuns = 0.9;
struct StoredPeak {
    double best = 0, second = 0;  // 0: none stored
};
bool peak_quiet(const PeakSpread& measured);
// Other programs took cores this measurement needed: their CPU time and its
// threads exceed the machine's cores (a 1-thread peak beside one busy program
// on 2 cores keeps a core of its own and stays valid).
bool peak_contended(const PeakSpread& measured, int threads, int cores);
// The peak to use from this run's measurement and the stored one: a quiet
// measurement as it is; otherwise the higher of the two, saying which; and
// where neither is trustworthy (contended, nothing stored), `unsure` says why.
PeakSpread choose_peak(PeakSpread measured, const StoredPeak& stored, int threads, int cores);
// Where the store lives: $MMLAB_PEAK_STORE where set (empty: no store), else
// peaks.txt in the build folder (the one holding bin/mmlab; make clean removes it).
std::string peak_store_path();
// How far above the measured best (as a fraction of it) the true peak may
// plausibly lie: the gap between the best and the second-best run, the
// extreme-value estimate of how much a best-of-N misses the maximum by. Small
// when the runs agree; 0 when the second run is unknown. A rate above
// best * (1 + this) did not run on this machine's FMA units as measured: the
// peak was measured while other programs held the cores.
double peak_tolerance(const PeakSpread& peak);
// Measures that peak again and keeps the higher value: the harness calls it
// when a stage ran faster than the remembered peak (which was then measured
// while other programs held the cores).
double remeasured_peak_gflops(int threads);

}  // namespace mml
