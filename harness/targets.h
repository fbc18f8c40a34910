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

}  // namespace mml
