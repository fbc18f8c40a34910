// Made-up measurements for the tests of a lab's target judge (Lab::judge):
// the judge only reads rows, so its tests need no timing and no GPU.
#pragma once

#include <string>

#include "harness/stage.h"

namespace mml::testing {

// A row saying that `stage`'s `impl` version took `seconds` at `shape`
// (GFLOP/s follow from them, 2 flops per multiply-add) and passed its check,
// unless `passed` is false.
inline Measurement made_up_row(const std::string& stage, Impl impl, Shape shape, double seconds,
                               bool passed = true) {
    Measurement m;
    m.stage = stage;
    m.impl = impl;
    m.shape = shape;
    m.median_seconds = seconds;
    m.gflops = shape.flops() / seconds / 1e9;
    m.passed = passed;
    return m;
}

}  // namespace mml::testing
