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

// Why the machine is too busy to judge speed ("" when it is not): its 1-minute
// load average at least its cores + 1.
std::string machine_busy();
// A speed verdict that missed while the machine is busy (`busy`: machine_busy()'s
// reason, "" when quiet) becomes INCONCLUSIVE, with the reason added; met, wrong
// or already inconclusive verdicts stay, and so does a miss that the same run
// shows to be the code's (TargetVerdict::code_gap_shown).
TargetVerdict settle(TargetVerdict v, const std::string& busy = machine_busy());
// Why this run's timings cannot be believed ("" when they can): a timed row
// whose peak could not be measured (Measurement::peak_unsure: other programs
// held the cores through every try, no quiet peak stored), a row above its
// peak ceiling (Measurement::peak_ceiling_percent), or a threaded row whose
// measured peak is below the 1-thread one. Nothing runs
// above the FMA peak, so the peak was measured while other programs held the
// cores, and every comparison in the run is between different machines.
std::string impossible_numbers(const std::vector<Measurement>& rows);
// A speed verdict, met or not, read from such a run becomes INCONCLUSIVE with
// that reason (a wrong result stays NOT MET). make labN and the grader both
// pass every verdict through it (harness/commands/lab.cpp).
TargetVerdict distrust_impossible(TargetVerdict v, const std::vector<Measurement>& rows);

// `slow` / `fast`'s time (e.g. the peer's time over yours: your speed as a
// share of the peer's), and its range from the rows' fastest and slowest
// repetitions (low == high == value where a row has no range).
struct TimeRatio {
    double value = 0, low = 0, high = 0;
};
TimeRatio time_ratio(const Measurement& numerator, const Measurement& denominator);
// A speed verdict on `r` against `goal` (met when r >= goal) that the noise
// does not settle - the range spans the goal - becomes INCONCLUSIVE, saying
// the range (`what`: what the ratio is, e.g. "your speed as a share of
// OpenBLAS's"); the verdict itself is unchanged otherwise.
// `percent`: the ratio and goal written as % (else as "4.0x").
TargetVerdict inside_noise(TargetVerdict v, const TimeRatio& r, double goal, const std::string& what,
                           bool percent = true);

// "TARGET MET", "INCONCLUSIVE" or "TARGET NOT MET".
std::string verdict_word(const TargetVerdict& v);
// What to do about an inconclusive verdict.
std::string rerun_advice();

}  // namespace mml
