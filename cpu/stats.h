// The statistics of every timing in the project, in one place: each command
// and stage, CPU and GPU, reports the median of its repetitions and the same
// measure of spread, computed here.
#pragma once

#include <vector>

namespace mml {

// The middle value (the mean of the two middle ones when the count is even):
// one slow repetition, disturbed by other work, does not move it. 0 for none.
double median(std::vector<double> values);

// How far the repetitions lie apart: (largest - smallest) / median. A table
// that shows a 3 % difference between two rows whose spread is 10 % shows noise.
double relative_spread(const std::vector<double>& values);

}  // namespace mml
