// Lab 5: the innermost kernels. Read handouts/lab5.md first.
//
// You write the AVX2+FMA versions (kernels_avx2.cpp, tasks 1a, 2, 3). The
// plain C++ versions (kernels_scalar.cpp) are given: they compute exactly
// what yours must compute, so read them first. kernels.cpp (given) picks
// yours when the CPU has AVX2+FMA and the scalar ones otherwise.
//
// All matrices are row-major float32. The register tile is MR x NR = 6 x 16:
// 6 rows of C, 16 columns = 2 AVX2 vectors of 8 floats.
#pragma once

#include <cstdint>

namespace student::lab5 {

constexpr int MR = 6, NR = 16;

struct KernelSet {
    const char* name;
    int MR, NR;  // the register tile: MR rows x NR columns of C (6 x 16 here, as above)
    // sum over k in [0, K) of a[k] * b[k]
    float (*dot)(const float* a, const float* b, std::int64_t K);
    // The MR x NR tile at C (row stride ldc) := (MR rows of A at A, row stride lda) *
    // (NR columns of B at B, row stride ldb), summed over all K. Overwrites C.
    void (*tile)(std::int64_t K, const float* A, std::int64_t lda, const float* B, std::int64_t ldb,
                 float* C, std::int64_t ldc);
    // The micro-kernel: the MR x NR tile at C (row stride ldc) := (accumulate = false)
    // or += (accumulate = true) the product of a packed A micro-panel (for each
    // p in [0, kc): the MR values of column p at a[p*MR]) and a packed B
    // micro-panel (for each p: the NR values of row p at b[p*NR]).
    void (*micro)(std::int64_t kc, const float* a, const float* b, float* C, std::int64_t ldc, bool accumulate);
};

const KernelSet& scalar_kernels();        // given, any CPU
const KernelSet& kernels_for_this_cpu();  // given: yours on AVX2+FMA CPUs, else the scalar ones

// The kernels, one file each.
float dot_scalar(const float* a, const float* b, std::int64_t K);
void tile_scalar(std::int64_t K, const float* A, std::int64_t lda, const float* B, std::int64_t ldb, float* C,
                 std::int64_t ldc);
void micro_scalar(std::int64_t kc, const float* a, const float* b, float* C, std::int64_t ldc, bool accumulate);

__attribute__((target("avx2,fma"))) float dot_avx2(const float* a, const float* b, std::int64_t K);
__attribute__((target("avx2,fma"))) void tile_avx2(std::int64_t K, const float* A, std::int64_t lda,
                                                   const float* B, std::int64_t ldb, float* C, std::int64_t ldc);
__attribute__((target("avx2,fma"))) void micro_avx2(std::int64_t kc, const float* a, const float* b, float* C,
                                                    std::int64_t ldc, bool accumulate);

}  // namespace student::lab5
