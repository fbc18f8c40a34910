#include "harness/targets.h"

#include <cstdio>
#include <cstdlib>

#include "cpu/machine.h"

namespace mml {

Shape largest_shape(const std::vector<Measurement>& rows) {
    Shape best{0, 0, 0};
    for (const auto& r : rows)
        if (r.shape.flops() > best.flops()) best = r.shape;
    return best;
}

const Measurement* find_row(const std::vector<Measurement>& rows, const std::string& stage,
                            Impl impl, Shape shape) {
    for (const auto& r : rows)
        if (r.stage == stage && r.impl == impl && r.shape == shape && !r.skipped && r.passed)
            return &r;
    return nullptr;
}

const Measurement* fastest_row(const std::vector<Measurement>& rows, Impl impl, Shape shape) {
    const Measurement* best = nullptr;
    for (const auto& r : rows)
        if (r.impl == impl && r.shape == shape && !r.skipped && r.passed &&
            (!best || r.median_seconds < best->median_seconds))
            best = &r;
    return best;
}

std::optional<TargetVerdict> first_failure(const std::vector<Measurement>& rows, Impl impl) {
    for (const auto& r : rows)
        if (r.impl == impl && !r.skipped && !r.passed)
            return TargetVerdict{false, r.stage + " (" + impl_name(impl) + ") is wrong at " +
                                            shape_text(r.shape) + ": " + r.failure, false, false};
    return std::nullopt;
}

std::string machine_busy() {
    double load[1] = {0};
    const int cores = describe_machine().logical_cores;
    // This run's own threads count too (up to one per core): busy means
    // at least one more runnable program than the machine has cores.
    if (getloadavg(load, 1) == 1 && load[0] >= cores + 1)
        return "the load average is " + fixed(load[0], 1) + " on " + std::to_string(cores) +
               " cores: other programs were running while this was timed";
    return "";
}

TargetVerdict settle(TargetVerdict v, const std::string& busy) {
    if (v.met || v.inconclusive || !v.speed || v.code_gap_shown) return v;
    if (busy.empty()) return v;
    v.inconclusive = true;
    v.explanation += "; " + busy;
    return v;
}

std::string impossible_numbers(const std::vector<Measurement>& rows) {
    for (const auto& r : rows) {
        if (!r.skipped && r.passed && !r.peak_unsure.empty()) return r.peak_unsure;
        if (!r.skipped && r.passed && r.threads > 1 && r.peak_gflops > 0 && r.peak_gflops_one_thread > 0 &&
            r.peak_gflops < r.peak_gflops_one_thread)
            return "the measured " + std::to_string(r.threads) + "-thread peak (" + fixed(r.peak_gflops, 1) +
                   " GFLOP/s) came out below the 1-thread one (" + fixed(r.peak_gflops_one_thread, 1) +
                   "): more threads cannot do less, so other programs held cores while it was measured, and the " +
                   std::to_string(r.threads) + "-thread rows' timings are as unsure";
        if (r.skipped || !r.passed || r.peak_ceiling_percent <= 0 || r.percent_of_peak <= r.peak_ceiling_percent)
            continue;
        return r.stage + " (" + impl_name(r.impl) + ") ran at " + fixed(r.percent_of_peak, 0) + "% of the measured " +
               std::to_string(r.threads) + "-thread " + (r.peak_simd.empty() ? "" : r.peak_simd + " ") + "peak (the peak's own runs allow up to " +
               fixed(r.peak_ceiling_percent, 0) + "%): nothing runs above its peak, so the peak was measured while "
               "other programs held the cores and this run's timings were taken on a machine that changed under them";
    }
    return "";
}

TargetVerdict distrust_impossible(TargetVerdict v, const std::vector<Measurement>& rows) {
    if (!v.speed) return v;
    const std::string why = impossible_numbers(rows);
    if (why.empty()) return v;
    v.met = false;
    v.inconclusive = true;
    v.code_gap_shown = false;
    v.explanation += "; but " + why;
    return v;
}

TimeRatio time_ratio(const Measurement& numerator, const Measurement& denominator) {
    TimeRatio r;
    r.value = numerator.median_seconds / denominator.median_seconds;
    const bool ranges = numerator.fastest_seconds > 0 && numerator.slowest_seconds > 0 &&
                        denominator.fastest_seconds > 0 && denominator.slowest_seconds > 0;
    r.low = ranges ? numerator.fastest_seconds / denominator.slowest_seconds : r.value;
    r.high = ranges ? numerator.slowest_seconds / denominator.fastest_seconds : r.value;
    return r;
}

TargetVerdict inside_noise(TargetVerdict v, const TimeRatio& r, double goal, const std::string& what, bool percent) {
    if (!v.speed || v.inconclusive || !(r.low < goal && r.high >= goal)) return v;
    // A median on one side of the goal, with repetitions on both: the
    // timings cannot tell which side the code is on.
    v.met = false;
    v.inconclusive = true;
    v.code_gap_shown = false;
    auto text = [percent](double x) { return percent ? fixed(x * 100, 0) + "%" : fixed(x, 1) + "x"; };
    v.explanation += "; but the repetitions put " + what + " anywhere from " + text(r.low) + " to " + text(r.high) +
                     ", across the " + text(goal) + " goal: the noise is larger than the distance to the goal";
    return v;
}

std::string verdict_word(const TargetVerdict& v) {
    return v.met ? "TARGET MET" : v.inconclusive ? "INCONCLUSIVE" : "TARGET NOT MET";
}

std::string rerun_advice() {
    return "rerun when the machine is quiet (uptime shows the load; a build or another lab in the background "
           "counts)";
}

}  // namespace mml
