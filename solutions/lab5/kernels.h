// Lab 5 reference: the innermost loops of every stage, one set per SIMD level
// (see labs/lab5/kernels.h for the starter's).
//
// The three kernels below are the only code in lab 5 that depends on the SIMD
// width. Everything around them (transposing, the tile loops, packing, the
// five BLIS loops, threads) is written once and gets the kernels from a
// KernelSet, chosen at run time. Each level's set is compiled in its own file
// (kernels_scalar.cpp, kernels_avx2.cpp, kernels_avx512.cpp) from the same
// template bodies (kernel_bodies_impl.h), so they differ only in the vector
// type and its handful of operations.
//
// The binary is built for plain x86-64 and may run on a CPU with AVX2+FMA,
// with AVX-512, or with neither. So the choice is made at run time with cpuid
// (cpu/machine.h: the project's one table of SIMD levels), never at compile
// time with -march=native: each level's code sits in its own file compiled
// for that level alone, and is only called after the check says the CPU has it.
#pragma once

#include <cstdint>
#include <vector>

#include "cpu/machine.h"

namespace reference::lab5 {

struct KernelSet {
    const char* name;       // e.g. "AVX2+FMA 6x16"
    mml::SimdLevel simd;    // the instructions it needs (checked before any call)
    int MR, NR;             // the register tile: MR rows x NR columns of C

    // Stage 1: returns sum_k a[k] * b[k] (two contiguous rows of length K).
    float (*dot)(const float* a, const float* b, std::int64_t K);

    // Stage 2: the MR x NR tile of C at C (row stride ldc) is overwritten with
    // (MR rows of A at A, row stride lda) * (NR columns of B at B, row stride ldb),
    // all K terms. Reads A and B where they are, unpacked.
    void (*tile)(std::int64_t K, const float* A, std::int64_t lda, const float* B, std::int64_t ldb,
                 float* C, std::int64_t ldc);

    // Stage 4, the micro-kernel: the MR x NR tile of C (row stride ldc) is
    // overwritten (accumulate = false) or increased (accumulate = true) by
    // a * b, where a is a packed micro-panel of A (kc steps of MR floats: column
    // p of the MR rows at a[p*MR]) and b one of B (kc steps of NR floats: row p
    // of the NR columns at b[p*NR]). Only the first `rows` <= MR rows and
    // `cols` <= NR columns of the tile are in C (the edges of C; packing padded
    // the rest of a and b with zeros); the others are never read or written.
    void (*micro)(std::int64_t kc, const float* a, const float* b, float* C, std::int64_t ldc,
                  bool accumulate, int rows, int cols);
    // The same on the left half of the tile: cols <= NR/2, b still a packed
    // micro-panel of NR columns (for the last columns of C: half the FMAs).
    void (*micro_half)(std::int64_t kc, const float* a, const float* b, float* C, std::int64_t ldc,
                       bool accumulate, int rows, int cols);
};

// The kernels for one SIMD level; throws std::invalid_argument if the CPU lacks it.
const KernelSet& kernels_for(mml::SimdLevel simd);

// Kernel sets with the AVX-512 tile geometry (MR x NR = 12 x 32) that run
// without AVX-512, so that the tests can check that geometry and the template
// bodies on any machine: the scalar body at 12 x 32, and the AVX2 body with a
// 16-float vector made of two 8-float AVX2 registers (AVX2 CPUs only).
const KernelSet& scalar_kernels_with_avx512_tile();
const KernelSet& avx2_kernels_emulating_avx512();  // throws without AVX2+FMA

// Every kernel set this CPU can run, the test-only ones included.
std::vector<const KernelSet*> runnable_kernel_sets();

}  // namespace reference::lab5
