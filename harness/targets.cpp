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

std::string verdict_word(const TargetVerdict& v) {
    return v.met ? "TARGET MET" : v.inconclusive ? "INCONCLUSIVE" : "TARGET NOT MET";
}

std::string rerun_advice() {
    return "rerun when the machine is quiet (uptime shows the load; a build or another lab in the background "
           "counts)";
}

}  // namespace mml
