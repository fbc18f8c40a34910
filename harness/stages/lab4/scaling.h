// Lab 4's scaling measurement: one stage at one shape, timed at several
// thread counts in one run; used by `mmlab scaling` and by lab 4's judge.
#pragma once

#include <vector>

#include "harness/bench.h"

namespace mml::lab4 {

// Rows in the order of `thread_counts` (one shape). `runs` is the code that
// runs, `label` the name in the table (they differ under --solution).
std::vector<Measurement> measure_scaling(const Stage& stage, Impl label, Impl runs, Shape shape,
                                         const std::vector<int>& thread_counts,
                                         const StageParams& params, const BenchSettings& settings);

// Speedup of row i over row 0, and parallel efficiency = speedup / (T_i / T_0).
double speedup(const std::vector<Measurement>& rows, std::size_t i);
double efficiency(const std::vector<Measurement>& rows, std::size_t i);

}  // namespace mml::lab4
