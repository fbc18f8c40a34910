// Measures the CPU's floating-point peak: how many float32 FLOP/s the FMA
// units sustain when nothing but independent FMAs is issued. "% of peak" in
// every table divides by this measured number, never by a datasheet guess.
#pragma once

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
// the best of kPeakRuns runs of kPeakRunSeconds each.
constexpr int kPeakRuns = 5;
constexpr double kPeakRunSeconds = 0.06;
double measured_peak_gflops(int threads);
// That peak and the lowest of its runs after the first (the first warms the
// core's wide-SIMD clock up), and how many cores' worth of CPU time the other
// programs used meanwhile (from /proc/stat less this process's own; -1 where
// it cannot be read). Far apart with others busy: other programs held the
// cores; far apart on an idle machine: the clock moved (turbo, power or heat).
// The best is still what % peak divides by.
struct PeakSpread {
    double best = 0;
    double lowest = 0;
    double others_busy_cores = -1;
    double second = 0;  // the second-best run (0: unknown)
};
PeakSpread measured_peak_spread(int threads);
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
