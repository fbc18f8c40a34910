// Lab 5's edge shapes, shared by its tests (tests/test_lab5.cpp) and the
// tests of its reference's internals (the instructors' tests/reference/test_lab5.cpp).
#pragma once

#include <vector>

#include "cpu/matrix.h"

namespace mml::testing {

// Shapes around the tile and block sizes: non-multiples of MR (4, 6, 12),
// NR (4, 16, 32), of the SIMD widths (8, 16) and of the block sizes the
// parameterised tests use; K = 1; and exact multiples.
inline const std::vector<Shape>& lab5_edge_shapes() {
    static const std::vector<Shape> shapes = {
        {1, 1, 1},    {6, 16, 1},   {7, 17, 1},    {12, 32, 1},  {13, 33, 2},   {5, 15, 9},
        {11, 31, 17}, {25, 65, 33}, {48, 96, 64},  {49, 97, 65}, {73, 129, 257}, {1, 200, 300},
        {200, 1, 300}, {300, 300, 1},
    };
    return shapes;
}

}  // namespace mml::testing
