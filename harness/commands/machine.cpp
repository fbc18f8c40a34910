// mmlab machine (what this machine is) and mmlab peak (its measured FMA peak).
#include <cstdio>

#include "cpu/machine.h"
#include "cpu/peak.h"
#include "harness/cli.h"
#include "harness/commands.h"
#include "harness/report.h"

namespace mml {
namespace {

int machine_command(const std::vector<std::string>& args) {
    parse_options("machine", args);
    print_machine_header(true);
    return 0;
}

int peak_command(const std::vector<std::string>& args) {
    const Options o = parse_options("peak", args);
    const MachineInfo m = describe_machine();
    std::printf("machine: %s, %d logical cores\n", m.cpu_model.c_str(), m.logical_cores);
    std::printf("measured float32 peak, back-to-back independent FMAs, 2 flops per lane:\n");
    const int max_threads = o.threads_given ? o.threads : m.logical_cores;
    std::printf("%-10s %8s %12s\n", "SIMD", "threads", "GFLOP/s");
    for (SimdLevel level : simd_levels_present())
        for (int t = 1; t <= max_threads; ++t) {
            const PeakResult r = measure_fma_peak(level, t, 0.3);
            std::printf("%-10s %8d %12.1f\n", simd_name(level), t, r.gflops);
        }
    if (const std::string limited = simd_limited(); !limited.empty()) std::printf("(%s)\n", limited.c_str());
    else if (!cpu_has_avx512()) std::printf("(no AVX-512 on this CPU)\n");
    // The peak the tables' % peak divides by: shorter runs, a quiet stored one where higher.
    std::printf("%% peak in make labN divides by (%s, best of %d runs of %.2f s):\n", simd_name(detect_simd()), kPeakRuns,
                kPeakRunSeconds);
    for (int t = 1; t <= max_threads; ++t) {
        const PeakSpread p = measured_peak_spread(t);
        const std::string note = peak_spread_note(p);
        std::printf("  %d thread%s: %.1f GFLOP/s%s%s\n", t, t > 1 ? "s" : "", p.best, note.empty() ? "" : "; ",
                    note.c_str());
    }
    return 0;
}

CommandRegistrar machine_cmd({"machine", "CPU model, cores, SIMD level, GPU, compiler and flags", "", machine_command});
CommandRegistrar peak_cmd({"peak", "measure the CPU's FMA peak (scalar, AVX2, AVX-512 where present)", "", peak_command});

}  // namespace
}  // namespace mml
