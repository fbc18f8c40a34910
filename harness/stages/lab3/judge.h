// Lab 3's target judge (make lab3), apart from the stages so that the tests
// can give it made-up rows and either state of the student's cutoff.
#pragma once

#include <cstdint>
#include <vector>

#include "harness/stage.h"

namespace mml::lab3 {

// The verdict from `make lab3`'s rows. `your_choice`: the student's
// kYourCutoff (0: not chosen yet - task 3 not done, so never MET; the rows
// are still read, at the cutoff they ran with, for what tasks 1 and 2 give).
// A row without --param cutoff ran at the cutoff cutoff_of (cutoff_param.h)
// gives its version: yours at `your_choice`, the reference's at its own.
TargetVerdict judge(const std::vector<Measurement>& rows, std::int64_t your_choice);

}  // namespace mml::lab3
