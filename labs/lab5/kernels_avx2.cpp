// Lab 5 - your code: the AVX2+FMA kernels. Read handouts/lab5.md first.
//
// Every function here carries __attribute__((target("avx2,fma"))) (see
// kernels.h): the compiler may use AVX2 and FMA instructions in it, and only
// in it, whatever the build flags. Never build with -march=native instead:
// the binary must run on CPUs without these instructions (kernels.cpp checks
// the CPU before calling anything here).
//
// The intrinsics you need (immintrin.h), __m256 = 8 floats:
//   _mm256_setzero_ps()            8 zeros
//   _mm256_loadu_ps(p)             p[0..7] (any alignment)
//   _mm256_storeu_ps(p, v)         p[0..7] = v
//   _mm256_set1_ps(x)              x in all 8 lanes (the broadcast)
//   _mm256_fmadd_ps(a, b, c)       a*b + c, lane by lane, one rounding
//   _mm256_add_ps(a, b)            a + b
// and for the horizontal sum (__m128 = 4 floats, lanes 0..3; which of them
// you need, and in what order, is yours to work out):
//   _mm_add_ps(a, b)               a + b, all 4 lanes
//   _mm_add_ss(a, b)               lane 0: a0 + b0 (lanes 1..3: a's)
//   _mm256_castps256_ps128(v)      lanes 0..3 of v (no instruction)
//   _mm256_extractf128_ps(v, 1)    lanes 4..7 of v
//   _mm_movehdup_ps(a)             (a1, a1, a3, a3)
//   _mm_movehl_ps(a, b)            (b2, b3, a2, a3)
//   _mm_cvtss_f32(a)               lane 0 as a float
#include <immintrin.h>

#include "labs/lab5/kernels.h"

namespace student::lab5 {

// Task 1a: the dot product of Cao's survey, with FMA.
float dot_avx2(const float* a, const float* b, std::int64_t K) {
    // TODO(lab5, task 1a): return sum_k a[k]*b[k] for k < K (the specification:
    //   dot_scalar in labs/common/kernels_scalar.cpp), for any K >= 0 and any alignment.
    //   Goal: Cao's SIMD dot product with FMA, fast enough that the loop
    //     runs at the FMA units' rate, not at the rate of one chain of dependent
    //     additions (lab 2, question 2).
    //   Judged: the tests (through lab5.dot: K = 1, 2, 9, 17, 33, 64, 65, 257,
    //     300, ...: every kind of remainder; error within gamma_K*|A||B|), then
    //     lab5.dot's row of the table. Stuck: handouts/lab5.md, hints 5.1.x.
    (void)a; (void)b; (void)K;
    return 0;
}

// Task 2: the register tile, on A and B as they are (unpacked).
void tile_avx2(std::int64_t K, const float* A, std::int64_t lda, const float* B, std::int64_t ldb, float* C,
               std::int64_t ldc) {
    // TODO(lab5, task 2): what tile_scalar computes: the 6 x 16 tile of C at C
    //   (row stride ldc) = the 6 rows of A at A (stride lda) times the 16
    //   columns of B at B (stride ldb), over K; C holds garbage on entry.
    //   Goal: the whole tile stays in 12 __m256 registers for the entire k loop:
    //     per step, two vector loads of B and six broadcasts of A feed 12 FMAs,
    //     and C is touched only at the end.
    //   Judged: the tests, then lab5.tile's row of the table (the loops around
    //     the tile, with the edges, are given in tile.cpp).
    //     Stuck: hints 5.2.x.
    (void)K; (void)A; (void)lda; (void)B; (void)ldb; (void)C; (void)ldc;
}

// Task 3: the micro-kernel, on packed panels (see packing.cpp for the layout).
void micro_avx2(std::int64_t kc, const float* a, const float* b, float* C, std::int64_t ldc, bool accumulate) {
    // TODO(lab5, task 3): task 2's tile on packed panels (the specification:
    //   micro_scalar): a is one sliver of A and b one micro-panel of B in the
    //   layouts of packing.cpp (MR = 6, NR = 16), so the values a step of k
    //   needs lie together, right after those of the step before. At
    //   the end, store the tile into C (row stride ldc), or add it to C when
    //   accumulate. Always a whole 6 x 16 tile: your loops (task 5) hand the
    //   edges of C to the given edge_tile. Judged: the tests, then lab5.blis (with task 4).
    //   Stuck: hints 5.3.x.
    (void)kc; (void)a; (void)b; (void)C; (void)ldc; (void)accumulate;
}

}  // namespace student::lab5
