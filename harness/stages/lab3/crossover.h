// mmlab crossover's conclusion (harness/stages/lab3/commands.cpp), apart from
// the timing so that its tests can feed it made-up rows.
#pragma once

#include <string>
#include <vector>

#include "harness/stage.h"

namespace mml::lab3 {

// One size of the crossover table: the classical kernel's row and one level
// of Strassen's, both correct and timed.
struct CrossoverPoint {
    Measurement classical;
    Measurement one_level;
};

// Whether one level pays at a point, from the rows' repetitions: "pays" when
// even the classical kernel's fastest repetition is slower than one level's
// slowest, "loses" when the reverse holds, "noise" when the ranges overlap
// (the medians alone would read noise as a crossover).
enum class Pays { Yes, No, Noise };
Pays one_level_pays(const CrossoverPoint& p);

// The conclusion, one paragraph: "pays from N on" only where one level pays
// beyond the noise at N and at every larger size; where the medians say it
// pays but the ranges overlap, that the noise hides the crossover, naming the
// sizes and their ranges. Points in increasing size.
std::string crossover_conclusion(const std::vector<CrossoverPoint>& points);

}  // namespace mml::lab3
