// Lab 5 reference: SIMD versions of the packing for full micro-panels of the
// AVX2 tile (packing_avx2.cpp). Only called by packing.cpp, after cpuid has
// said yes.
#pragma once

#include <cstdint>

namespace reference::lab5 {

// One micro-panel of 6 full rows of A (row stride lda), kc columns, packed
// as packing.h says: out[p*6 + r] = A[r*lda + p]. Needs AVX2.
void pack_a_panel6_avx2(const float* A, std::int64_t lda, std::int64_t kc, float* out);

// One micro-panel of 16 full columns of B (row stride ldb), kc rows:
// out[p*16 + c] = B[p*ldb + c]. Needs AVX2.
void pack_b_panel16_avx2(const float* B, std::int64_t ldb, std::int64_t kc, float* out);

}  // namespace reference::lab5
