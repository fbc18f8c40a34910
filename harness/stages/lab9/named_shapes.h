// Lab 9's data: the skinny shapes of Lei et al. 2024 (PHVM) by name, its Tables 1
// and 2 (E is M x K, F is K x N). Header only: the core --size parser
// (harness/cli.cpp, shape_by_name) reads it, so that `--size MTX1` works in
// every command and every build, also where lab 9's stages are not built.
#pragma once

#include "cpu/matrix.h"

namespace mml::lab9 {

struct NamedShape {
    const char* name;
    Shape shape;
};

inline constexpr NamedShape kNamedShapes[] = {
    {"MTXA", {3, 3, 50000000}}, {"MTXB", {5, 5, 300000000}}, {"MTXC", {7, 7, 2000000000}},
    {"MTX1", {5, 5, 30000000}}, {"MTX2", {7, 7, 30000000}},  {"MTX3", {9, 9, 30000000}},
};

}  // namespace mml::lab9
