// Lab 5 reference: the answer to labs/lab5/packing.cpp (task 4), for any
// register tile MR x NR (the layout is in gemm.h), with SIMD copies of full
// micro-panels for the AVX2 (6 x 16) and AVX-512 (12 x 32) tiles.
#include <immintrin.h>

#include <algorithm>

#include "cpu/machine.h"
#include "solutions/lab5/gemm.h"

namespace reference::lab5 {

namespace {

// Six rows of a full micro-panel of A, packed with SIMD: the whole panel of
// the AVX2 tile (MR = 6), or either half of the AVX-512 tile's (MR = 12,
// called for rows 0-5 and 6-11). Column p of the six rows goes to
// out[p*stride .. p*stride + 6): stride is the panel's MR.
// The plain loop (pack_a_panel below) moves one float at a time: 6 loads
// and 6 stores for each column p. Here 8 columns at once: 6 loads of
// 8 floats (one per row), a transpose in registers (unpack + shuffle, as in
// the usual 8 x 8 transpose, rows 6 and 7 left out), then 8 stores of 4
// floats (rows 0-3 of a column) and 8 of 2 (rows 4-5): 22 memory operations
// instead of 96. Packing A is small next to the FMAs (about 1 % of the run
// time at n = 2048, handouts/lab5.md), so this trims a small share; the
// micro-kernel is where the time goes.
//
// Compiled for AVX2 by the target attribute (whatever the build flags);
// called only when cpuid says the CPU has AVX2.
__attribute__((target("avx2"))) void pack_a_rows6_avx2(const float* A, std::int64_t lda, std::int64_t kc,
                                                        int stride, float* out) {
    std::int64_t p = 0;
    for (; p + 8 <= kc; p += 8, out += 8 * stride) {
        const float* a = A + p;
        const __m256 r0 = _mm256_loadu_ps(a), r1 = _mm256_loadu_ps(a + lda), r2 = _mm256_loadu_ps(a + 2 * lda),
                     r3 = _mm256_loadu_ps(a + 3 * lda), r4 = _mm256_loadu_ps(a + 4 * lda),
                     r5 = _mm256_loadu_ps(a + 5 * lda);
        // Pairs of rows interleaved; rk_j is row k, column j (of these 8):
        //   t01lo = r0_0 r1_0 r0_1 r1_1 | r0_4 r1_4 r0_5 r1_5   (columns 0,1 | 4,5)
        //   t01hi = r0_2 r1_2 r0_3 r1_3 | r0_6 r1_6 r0_7 r1_7   (columns 2,3 | 6,7)
        const __m256 t01lo = _mm256_unpacklo_ps(r0, r1), t01hi = _mm256_unpackhi_ps(r0, r1);
        const __m256 t23lo = _mm256_unpacklo_ps(r2, r3), t23hi = _mm256_unpackhi_ps(r2, r3);
        const __m256 t45lo = _mm256_unpacklo_ps(r4, r5), t45hi = _mm256_unpackhi_ps(r4, r5);
        // Rows 0-3 of one column in each 128-bit half: columns (0|4), (1|5), (2|6), (3|7).
        const __m256 top[4] = {_mm256_shuffle_ps(t01lo, t23lo, 0x44), _mm256_shuffle_ps(t01lo, t23lo, 0xEE),
                               _mm256_shuffle_ps(t01hi, t23hi, 0x44), _mm256_shuffle_ps(t01hi, t23hi, 0xEE)};
        for (int j = 0; j < 4; ++j) {
            _mm_storeu_ps(out + j * stride, _mm256_castps256_ps128(top[j]));
            _mm_storeu_ps(out + (j + 4) * stride, _mm256_extractf128_ps(top[j], 1));
        }
        // Rows 4-5: t45lo holds them for columns 0,1 | 4,5 and t45hi for 2,3 | 6,7,
        // two floats (64 bits) per column.
        const __m128 q[4] = {_mm256_castps256_ps128(t45lo), _mm256_castps256_ps128(t45hi),
                             _mm256_extractf128_ps(t45lo, 1), _mm256_extractf128_ps(t45hi, 1)};
        for (int i = 0; i < 4; ++i) {  // q[i] holds the columns 2i and 2i + 1 (of 0, 1, 2, 3 | 4, 5, 6, 7)
            const int col = (i % 2) * 2 + (i / 2) * 4;
            _mm_storel_pi(reinterpret_cast<__m64*>(out + col * stride + 4), q[i]);
            _mm_storeh_pi(reinterpret_cast<__m64*>(out + (col + 1) * stride + 4), q[i]);
        }
    }
    for (; p < kc; ++p, out += stride)  // the last kc mod 8 columns, one float at a time
        for (int r = 0; r < 6; ++r) out[r] = A[r * lda + p];
}

// One full micro-panel of B for the AVX2 tile (NR = 16) or the AVX-512 tile
// (NR = 32): each row p is NR consecutive floats of B, copied as NR/8
// 8-float vectors. The plain loop compiles to 4-float SSE copies (the build
// targets plain x86-64).
template <int NR>
__attribute__((target("avx2"))) void pack_b_panel_avx2(const float* B, std::int64_t ldb, std::int64_t kc,
                                                        float* out) {
    for (std::int64_t p = 0; p < kc; ++p, B += ldb, out += NR)
        for (int v = 0; v < NR; v += 8) _mm256_storeu_ps(out + v, _mm256_loadu_ps(B + v));
}

// The general case, and the last micro-panel of A when only `rows` < MR of
// its rows are in A: the padding is zeroed first, then each row is copied
// (one loop choosing A or 0 for every element compiled to a branch per float).
void pack_a_panel_any(const float* A, std::int64_t lda, std::int64_t rows, std::int64_t kc, int MR, float* out) {
    std::fill(out, out + kc * MR, 0.0f);
    for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t p = 0; p < kc; ++p) out[p * MR + r] = A[r * lda + p];
}

// One micro-panel of A with `rows` <= MR valid rows. With MR a compile-time
// constant (the common tile sizes below) the inner loop is fully unrolled.
template <int MR>
void pack_a_panel(const float* A, std::int64_t lda, std::int64_t rows, std::int64_t kc, float* out) {
    if (rows == MR) {
        for (std::int64_t p = 0; p < kc; ++p)
#pragma GCC unroll 16
            for (int r = 0; r < MR; ++r) out[p * MR + r] = A[r * lda + p];
        return;
    }
    pack_a_panel_any(A, lda, rows, kc, MR, out);
}

}  // namespace

void pack_a(const float* A, std::int64_t lda, std::int64_t mc, std::int64_t kc, int MR, float* out) {
    static const bool avx2 = mml::cpu_has_avx2_fma();  // asked once
    for (std::int64_t i0 = 0; i0 < mc; i0 += MR, out += MR * kc) {
        const std::int64_t rows = std::min<std::int64_t>(MR, mc - i0);
        const float* a = A + i0 * lda;
        const bool full_simd = avx2 && rows == MR;  // full micro-panels with SIMD (above)
        switch (MR) {
            case 4: pack_a_panel<4>(a, lda, rows, kc, out); break;
            case 6:  // the AVX2 tile
                if (full_simd)
                    pack_a_rows6_avx2(a, lda, kc, 6, out);
                else
                    pack_a_panel<6>(a, lda, rows, kc, out);
                break;
            case 12:  // the AVX-512 tile: two halves of six rows
                if (full_simd) {
                    pack_a_rows6_avx2(a, lda, kc, 12, out);
                    pack_a_rows6_avx2(a + 6 * lda, lda, kc, 12, out + 6);
                } else {
                    pack_a_panel<12>(a, lda, rows, kc, out);
                }
                break;
            default: pack_a_panel_any(a, lda, rows, kc, MR, out);
        }
    }
}

namespace {

// The general case, and the last micro-panel of B when only `cols` < NR of
// its columns are in B: per row, the valid columns copied, the rest zeroed,
// in two plain loops. (One loop choosing B or 0 for every element compiled
// to a branch per float: at 100^3 that one partial panel took 14 % of the
// product's time, more than the 3 full ones.)
void pack_b_panel_any(const float* B, std::int64_t ldb, std::int64_t cols, std::int64_t kc, int NR, float* out) {
    for (std::int64_t p = 0; p < kc; ++p, B += ldb, out += NR) {
        std::copy(B, B + cols, out);
        std::fill(out + cols, out + NR, 0.0f);
    }
}

// One micro-panel of B with `cols` <= NR valid columns; a fixed-size copy of
// NR floats per row when the panel is full.
template <int NR>
void pack_b_panel(const float* B, std::int64_t ldb, std::int64_t cols, std::int64_t kc, float* out) {
    if (cols == NR) {
        for (std::int64_t p = 0; p < kc; ++p)
#pragma GCC unroll 32
            for (int c = 0; c < NR; ++c) out[p * NR + c] = B[p * ldb + c];
        return;
    }
    pack_b_panel_any(B, ldb, cols, kc, NR, out);
}

}  // namespace

void pack_b_panels(const float* B, std::int64_t ldb, std::int64_t kc, std::int64_t nc, int NR,
                   std::int64_t first_panel, std::int64_t end_panel, float* out) {
    static const bool avx2 = mml::cpu_has_avx2_fma();  // asked once
    out += first_panel * NR * kc;
    for (std::int64_t jp = first_panel; jp < end_panel; ++jp, out += NR * kc) {
        const std::int64_t j0 = jp * NR, cols = std::min<std::int64_t>(NR, nc - j0);
        switch (NR) {
            case 4: pack_b_panel<4>(B + j0, ldb, cols, kc, out); break;
            case 16:  // the AVX2 tile: full micro-panels with SIMD (above)
                if (avx2 && cols == 16)
                    pack_b_panel_avx2<16>(B + j0, ldb, kc, out);
                else
                    pack_b_panel<16>(B + j0, ldb, cols, kc, out);
                break;
            case 32:  // the AVX-512 tile (AVX2 copies: as fast here, and one function for both)
                if (avx2 && cols == 32)
                    pack_b_panel_avx2<32>(B + j0, ldb, kc, out);
                else
                    pack_b_panel<32>(B + j0, ldb, cols, kc, out);
                break;
            default: pack_b_panel_any(B + j0, ldb, cols, kc, NR, out);
        }
    }
}

}  // namespace reference::lab5
