// Lab 8's stage lab8.autotile reads two --param values: tile (an index into
// labs/common/lab8_tiles.h's kTileConfigs) and split (the split-K factor);
// without them the model chooses. Both versions of the stage get them through
// autotiled() below: the student's (stages.cpp) and the reference's
// (references.cpp), so either is only ever called with valid values.
// lab8.streamk reads one, sk (1: stream-K, the default; 0: the same kernel
// with every tile whole), through streamk_switched().
#pragma once

#include <cstdint>

#include "harness/stage.h"

namespace mml::lab8 {

// The signature of autotile: the product plus the configuration and split
// (tile < 0, split < 1: the model's choice).
using AutotileMatmul = void (*)(const float*, const float*, float*, std::int64_t, std::int64_t, std::int64_t, int,
                                int);

constexpr long long kMaxSplitParam = 64;  // more slices than that only adds reduction traffic

// Throws UsageError for a tile outside the table or a split outside [1, kMaxSplitParam].
void check_autotile_params(const StageParams& p);

// The stage's function: checks the parameters, then calls `fn` with them.
MatmulFn autotiled(AutotileMatmul fn);

// The signature of streamk: the product plus stream-K on or off.
using StreamkMatmul = void (*)(const float*, const float*, float*, std::int64_t, std::int64_t, std::int64_t, bool);

// Throws UsageError for an sk other than 0 or 1.
void check_streamk_params(const StageParams& p);

// The stage's function: checks sk, then calls `fn` with it (default: on).
MatmulFn streamk_switched(StreamkMatmul fn);

}  // namespace mml::lab8
