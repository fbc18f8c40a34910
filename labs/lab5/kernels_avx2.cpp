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
//   _mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1), _mm_add_ps,
//   _mm_movehl_ps, _mm_movehdup_ps, _mm_add_ss, _mm_cvtss_f32: the horizontal sum
#include <immintrin.h>

#include "labs/lab5/kernels.h"

namespace student::lab5 {

// Task 1a: the dot product of seed 003, with FMA.
float dot_avx2(const float* a, const float* b, std::int64_t K) {
    // TODO(lab5, task 1a): return sum_k a[k]*b[k] (kernels_scalar.cpp: dot_scalar).
    //  - 8 independent __m256 accumulators, all zero. Main loop: while at least
    //    64 floats are left, acc[u] = fmadd(load(a+k+8u), load(b+k+8u), acc[u])
    //    for u = 0..7, then k += 64. (One accumulator would make every FMA wait
    //    for the previous one: ~4 cycles each. Eight keep both FMA units busy.)
    //  - then 8 at a time into acc[0] while at least 8 are left;
    //  - the add tree: acc[0..3] += acc[4..7], acc[0..1] += acc[2..3], acc[0] += acc[1];
    //  - the horizontal sum of acc[0]'s 8 lanes into one float;
    //  - the scalar tail: the last K mod 8 elements one by one.
    (void)a; (void)b; (void)K;
    return 0.0f;
}

// Task 2: the register tile, on A and B as they are (unpacked).
void tile_avx2(std::int64_t K, const float* A, std::int64_t lda, const float* B, std::int64_t ldb, float* C,
               std::int64_t ldc) {
    // TODO(lab5, task 2): what tile_scalar computes, with the 6 x 16 tile of C
    // in 12 __m256 registers: c[r][0] holds C[r][0..7], c[r][1] holds C[r][8..15].
    //   all 12 = zero
    //   for k in [0, K):
    //     b0 = load(B + k*ldb), b1 = load(B + k*ldb + 8)       (row k of B)
    //     for r in 0..5:  a = set1(A[r*lda + k])               (broadcast)
    //                     c[r][0] = fmadd(a, b0, c[r][0]); c[r][1] = fmadd(a, b1, c[r][1])
    //   store the 12 vectors to C + r*ldc (+ 8)
    // Write the r loop as a loop over arrays c[6][2]: at -O3 the compiler
    // unrolls it and keeps all 12 in registers (check with objdump -d: no
    // loads/stores of c inside the k loop).
    // Until you write it, C keeps its poison and the tests say "never written".
    (void)K; (void)A; (void)lda; (void)B; (void)ldb; (void)C; (void)ldc;
}

// Task 3: the micro-kernel, on packed panels (see packing.cpp for the layout).
void micro_avx2(std::int64_t kc, const float* a, const float* b, float* C, std::int64_t ldc, bool accumulate) {
    // TODO(lab5, task 3): task 2's tile with packed inputs (micro_scalar): at step p,
    // row p of the B micro-panel is b[p*16 .. p*16+15] and the 6 values of A are
    // a[p*6 .. p*6+5]. At the end store c into C, or add c to C when accumulate.
    (void)kc; (void)a; (void)b; (void)C; (void)ldc; (void)accumulate;
}

}  // namespace student::lab5
