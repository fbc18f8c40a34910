// Given code (lab 5): you use it, you do not write it.
//
// A kernel set: the innermost kernels of lab 5's stages for one instruction
// set and one register tile, and the run-time choice among the sets a build
// has. The starter and the reference each list theirs (labs/lab5/kernels.cpp:
// the given scalar set, the AVX2 set you write, an AVX-512 set if one is
// written) and get the one to run from widest_kernels below.
//
// The binary is built for plain x86-64 and may run on a CPU with AVX2+FMA,
// with AVX-512, or with neither. So the choice is made at run time with cpuid
// (cpu/machine.h), never at compile time with -march=native: each level's
// code is compiled for that level alone (a target attribute) and only called
// after the check says the CPU has it.
#pragma once

#include <cstdint>
#include <initializer_list>

#include "cpu/machine.h"
#include "labs/common/tile_loops.h"

namespace common::lab5 {

// Stage 1: sum over k in [0, K) of a[k] * b[k].
using DotKernel = float (*)(const float* a, const float* b, std::int64_t K);

// Stage 4, the micro-kernel: the MR x NR tile at C (row stride ldc) :=
// (accumulate = false) or += (accumulate = true) the product of a packed A
// micro-panel (for each p in [0, kc): the MR values of column p at a[p*MR])
// and a packed B micro-panel (for each p: the NR values of row p at b[p*NR]).
// Always a whole tile: the loops (labs/lab5/blis.cpp) hand the edges of C to
// edge_tile (blis_loops.h).
using MicroKernel = void (*)(std::int64_t kc, const float* a, const float* b, float* C, std::int64_t ldc,
                             bool accumulate);

// The same, where only the first `rows` <= MR rows and `cols` <= NR columns of
// the tile are in C (packing padded the rest of a and b with zeros); the
// others are never read or written.
using EdgeMicroKernel = void (*)(std::int64_t kc, const float* a, const float* b, float* C, std::int64_t ldc,
                                 bool accumulate, int rows, int cols);

struct KernelSet {
    const char* name;     // e.g. "AVX2+FMA 6x16"
    mml::SimdLevel simd;  // the instructions it needs (checked before any call)
    int MR, NR;           // the register tile: MR rows x NR columns of C
    DotKernel dot;
    TileKernel tile;  // stage 2 (tile_loops.h): the MR x NR tile on A and B as they are
    MicroKernel micro;
    // Optional (null: edge_tile, blis_loops.h, computes an edge tile whole into
    // a small buffer with `micro` and copies the part that is in C):
    EdgeMicroKernel micro_edge = nullptr;  // an edge tile in place
    EdgeMicroKernel micro_half = nullptr;  // cols <= NR/2: the left half of the tile, half the FMAs
};

// The scalar kernels (kernels_scalar.cpp): plain C++ for any CPU, the 6 x 16
// tile of the AVX2 kernels, and the specification of what those compute.
constexpr int kScalarMR = 6, kScalarNR = 16;
float dot_scalar(const float* a, const float* b, std::int64_t K);
void tile_scalar(std::int64_t K, const float* A, std::int64_t lda, const float* B, std::int64_t ldb, float* C,
                 std::int64_t ldc);
void micro_scalar(std::int64_t kc, const float* a, const float* b, float* C, std::int64_t ldc, bool accumulate);
const KernelSet& scalar_kernels();

// The run-time choice: of `sets` (a null entry is a set this build does not
// have), the widest that needs no more than `simd`. Throws
// std::invalid_argument when this CPU lacks `simd` (calling its code would end
// the program with "illegal instruction").
const KernelSet& widest_kernels(mml::SimdLevel simd, std::initializer_list<const KernelSet*> sets);

}  // namespace common::lab5
