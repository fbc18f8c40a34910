// Lab 2's target judge, in two parts: judge() times the judged pair itself
// (your lab2.interchanged and lab2.blocked, in alternation, so that both see
// the same machine), and decide() reads the verdict off those timings alone.
// The tests give decide() made-up timings, and judge() a made-up timer.
#pragma once

#include <functional>
#include <vector>

#include "harness/bench.h"
#include "harness/stage.h"

namespace mml::lab2 {

// The judge's rounds (interchanged, blocked, interchanged, blocked, ...): the
// median of 5 shrugs off 2 disturbed ones.
constexpr int kJudgeRounds = 5;

// Times the jobs in kJudgeRounds interleaved rounds: one row per job
// (measure_in_rounds, harness/bench.h).
using RoundsTimer = std::function<std::vector<Measurement>(const std::vector<Job>&)>;

// The verdict from timings alone. `rounds`: your two stages at the judged
// shape (and the reference's lab2.interchanged where it is the faster),
// timed in one alternation; `reference_rounds`: the reference's two stages,
// timed in another one (empty where they were not timed). The shape judged
// is the largest in `rounds` whose B is at least 48 MiB.
TargetVerdict decide(const std::vector<Measurement>& rounds, const std::vector<Measurement>& reference_rounds);

// make lab2's judge: `table` (the rows of make lab2) says whether every stage
// is correct, which shape to judge and which code ran as yours (the
// reference's under --solution); `time_rounds` times the pair, and the
// reference's pair when yours misses. No timing where no shape can be judged.
TargetVerdict judge(const std::vector<Measurement>& table, const RoundsTimer& time_rounds);

}  // namespace mml::lab2
