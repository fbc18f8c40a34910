// Lab 5 reference: SIMD versions of the packing of A for full micro-panels
// (packing_avx2.cpp). Only called by packing.cpp, after cpuid has said yes.
#pragma once

#include <cstdint>

namespace reference::lab5 {

// One micro-panel of 6 full rows of A (row stride lda), kc columns, packed
// as packing.h says: out[p*6 + r] = A[r*lda + p]. Needs AVX2.
void pack_a_panel6_avx2(const float* A, std::int64_t lda, std::int64_t kc, float* out);

}  // namespace reference::lab5
