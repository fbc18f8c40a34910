// Helpers for the labs' target judges (harness/stages/labN/stages.cpp): find a row,
// the fastest row, the first failure; format.h (included) writes the verdict's numbers.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/format.h"
#include "harness/stage.h"

namespace mml {

// Largest shape (by M*N*K) among the rows.
Shape largest_shape(const std::vector<Measurement>& rows);
const Measurement* find_row(const std::vector<Measurement>& rows, const std::string& stage,
                            Impl impl, Shape shape);
// Fastest correct, timed row of this version at this shape; nullptr if none.
const Measurement* fastest_row(const std::vector<Measurement>& rows, Impl impl, Shape shape);
// A "not met" verdict naming the first row of this version that failed its check.
std::optional<TargetVerdict> first_failure(const std::vector<Measurement>& rows, Impl impl);

}  // namespace mml
