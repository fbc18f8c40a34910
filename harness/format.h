// How the harness writes numbers and shapes in tables, verdicts and errors.
#pragma once

#include <string>

#include "cpu/matrix.h"

namespace mml {

std::string shape_text(Shape s);  // "512^3" or "300x200x100" (M x N x K)
std::string fixed(double x, int digits);  // x with `digits` digits after the point

}  // namespace mml
