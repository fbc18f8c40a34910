// The shapes lab 7's kernels are tested on beyond the shared test shapes,
// for the student's kernels (tests/gpu/test_lab7.cpp) and the reference-only
// comparison rows (the instructors' tests/reference/test_lab7.cpp) alike.
#pragma once

#include <vector>

#include "cpu/matrix.h"

namespace mml::testing::lab7 {

// K around the tile depths: 1..9, 15..17, 31..33, 63..65 (partial last tiles).
inline std::vector<Shape> k_around_tile_depths() {
    std::vector<Shape> shapes;
    for (long long k : {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65}) shapes.push_back({65, 129, k});
    return shapes;
}

// M and N around the block tiles: 63..65 rows, 127..129 columns.
inline std::vector<Shape> mn_around_block_tiles() {
    std::vector<Shape> shapes;
    for (long long m : {63, 64, 65})
        for (long long n : {127, 128, 129}) shapes.push_back({m, n, 40});
    return shapes;
}

// Very tall C: 8.5M rows, past 65535 blocks for every kernel here (at most
// 128 rows a block): the launch needs two grids.
inline std::vector<Shape> very_tall() { return {{8500000, 3, 2}}; }

}  // namespace mml::testing::lab7
