// Given code (labs 3 and 4): you use it, you do not write it.
//
// One level of Strassen's recursion and the one allocation before it, written
// once for lab 3's starter (its recurse and matmul_strassen) and for the
// answer that lab 4 is given compiled (strassen_recursion.h): the two differ
// only in the functions that do lab 3's tasks, which come in as arguments.
#pragma once

#include <cstdint>

#include "cpu/matrix.h"
#include "labs/common/strassen_views.h"

namespace common::lab3 {

// Lab 3's two tasks: M_{product+1} of the quadrants into Z (task 1), and Z
// added into the rows [r0, r1) of the quadrants of C it belongs to (task 2).
struct StrassenTasks {
    void (*form_and_multiply)(int product, const Quadrants& q, float* Z, float* work, std::int64_t cutoff);
    void (*combine_into_c)(int product, const float* Z, std::int64_t ldz, const CQuadrants& c, std::int64_t r0,
                           std::int64_t r1, std::int64_t cols);
};

// One level on views, `work` holding workspace_floats(s, cutoff) floats
// (strassen_plan.h): stop at the classical kernel when the shape is small;
// else split, run the seven products through Z one by one (Z = work, the
// products' own workspace after it), then fix up what odd sizes left out.
void strassen_level(ConstView A, ConstView B, View C, mml::Shape s, std::int64_t cutoff, float* work,
                    StrassenTasks tasks);

// C = A*B (row-major, A M x K, B K x N): the one allocation (none when the
// shape goes straight to the kernel), sized before the recursion starts, then
// `recurse` on the whole product.
using Recursion = void (*)(ConstView A, ConstView B, View C, mml::Shape s, std::int64_t cutoff, float* work);
void with_workspace(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K,
                    std::int64_t cutoff, Recursion recurse);

}  // namespace common::lab3
