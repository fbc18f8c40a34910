#include "harness/targets.h"

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
                                            shape_text(r.shape) + ": " + r.failure};
    return std::nullopt;
}

}  // namespace mml
