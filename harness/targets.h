// Helpers for the labs' target judges (harness/stages/labN/stages.cpp): find a row,
// the fastest row, the first failure, and format numbers for the verdict.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/stage.h"

namespace mml {

std::string shape_text(Shape s);       // "512^3" or "300x200x100" (M x N x K)
std::string fixed(double x, int digits);

// Largest shape (by M*N*K) among the rows.
Shape largest_shape(const std::vector<Measurement>& rows);
const Measurement* find_row(const std::vector<Measurement>& rows, const std::string& stage,
                            Impl impl, Shape shape);
// Fastest correct, timed row of this version at this shape; nullptr if none.
const Measurement* fastest_row(const std::vector<Measurement>& rows, Impl impl, Shape shape);
// A "not met" verdict naming the first row of this version that failed its check.
std::optional<TargetVerdict> first_failure(const std::vector<Measurement>& rows, Impl impl);

// Why the machine is too busy to judge speed ("" when it is not): its 1-minute
// load average at least its cores + 1.
std::string machine_busy();
// A speed verdict that missed while the machine is busy becomes INCONCLUSIVE,
// with the reason added; met, wrong or already inconclusive verdicts stay.
TargetVerdict settle(TargetVerdict v);
// "TARGET MET", "INCONCLUSIVE" or "TARGET NOT MET".
std::string verdict_word(const TargetVerdict& v);
// What to do about an inconclusive verdict.
std::string rerun_advice();

}  // namespace mml
