#include "solutions/lab5/packing.h"

#include <algorithm>

#include "cpu/machine.h"
#include "solutions/lab5/packing_simd.h"

namespace reference::lab5 {

namespace {

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
    for (std::int64_t p = 0; p < kc; ++p)
        for (int r = 0; r < MR; ++r) out[p * MR + r] = r < rows ? A[r * lda + p] : 0.0f;
}

void pack_a_panel_any(const float* A, std::int64_t lda, std::int64_t rows, std::int64_t kc, int MR, float* out) {
    for (std::int64_t p = 0; p < kc; ++p)
        for (int r = 0; r < MR; ++r) out[p * MR + r] = r < rows ? A[r * lda + p] : 0.0f;
}

}  // namespace

void pack_a(const float* A, std::int64_t lda, std::int64_t mc, std::int64_t kc, int MR, float* out) {
    static const bool avx2 = mml::cpu_has_avx2_fma();  // asked once
    for (std::int64_t i0 = 0; i0 < mc; i0 += MR, out += MR * kc) {
        const std::int64_t rows = std::min<std::int64_t>(MR, mc - i0);
        const float* a = A + i0 * lda;
        switch (MR) {
            case 4: pack_a_panel<4>(a, lda, rows, kc, out); break;
            case 6:  // the AVX2 tile: full micro-panels with SIMD (packing_avx2.cpp)
                if (avx2 && rows == 6)
                    pack_a_panel6_avx2(a, lda, kc, out);
                else
                    pack_a_panel<6>(a, lda, rows, kc, out);
                break;
            case 12: pack_a_panel<12>(a, lda, rows, kc, out); break;
            default: pack_a_panel_any(a, lda, rows, kc, MR, out);
        }
    }
}

namespace {

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
    for (std::int64_t p = 0; p < kc; ++p)
        for (int c = 0; c < NR; ++c) out[p * NR + c] = c < cols ? B[p * ldb + c] : 0.0f;
}

void pack_b_panel_any(const float* B, std::int64_t ldb, std::int64_t cols, std::int64_t kc, int NR, float* out) {
    for (std::int64_t p = 0; p < kc; ++p)
        for (int c = 0; c < NR; ++c) out[p * NR + c] = c < cols ? B[p * ldb + c] : 0.0f;
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
            case 16:  // the AVX2 tile: full micro-panels with SIMD (packing_avx2.cpp)
                if (avx2 && cols == 16)
                    pack_b_panel16_avx2(B + j0, ldb, kc, out);
                else
                    pack_b_panel<16>(B + j0, ldb, cols, kc, out);
                break;
            case 32: pack_b_panel<32>(B + j0, ldb, cols, kc, out); break;
            default: pack_b_panel_any(B + j0, ldb, cols, kc, NR, out);
        }
    }
}

}  // namespace reference::lab5
