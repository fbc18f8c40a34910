// Lab 11's operands: A and B converted to the tensor cores' input formats
// before the timed call (Stage::prepare), the way a caller of a bf16 GEMM
// holds them already. Plain C++ (no CUDA headers): the stage registrations
// include it.
//
// From the float32 A (M x K) and B (K x N) of the stage contract, rounded to
// nearest-even (cpu/rounding.h, the same function as the check's):
//   A  : M x K, row-major,                  element (i,k) at A[i*ld + k]
//   Bt : N x K, B transposed (row-major),   element (k,j) of B at Bt[j*ld + k]
//   ld = lowp_leading_dim(K, format): K rounded up to a multiple of 64 (128
//        for e4m3: 128 bytes either way), the columns K..ld-1 zero. (The TMA needs row strides that are multiples of 16
//        bytes; 64 elements, 128 bytes of bf16, also start every row on a
//        128-byte line, so that a 128-byte box row is one line, not two:
//        with ld = K = 5000 the wgmma kernel ran at 59% of cuBLAS, measured.)
// Both operands K-major ("TN"): the layout every tensor-core generation reads
// without a transpose (Hopper's TF32 wgmma reads no other). The cuBLAS rows get
// the same operands.
#pragma once

#include <cstdint>

#include "cpu/matrix.h"
#include "cpu/rounding.h"

namespace mml::gpu {

inline std::int64_t lowp_leading_dim(std::int64_t K, InputRounding format) {
    const std::int64_t line = format == InputRounding::E4m3 ? 128 : 64;  // elements in 128 bytes
    return (K + line - 1) / line * line;
}

struct LowpOperands {
    InputRounding format = InputRounding::None;  // Bf16: __nv_bfloat16; Tf32: float (TF32 values); E4m3: one byte (__nv_fp8_e4m3)
    Shape shape;
    std::int64_t ld = 0;
    const void* A = nullptr;
    const void* Bt = nullptr;
    std::int64_t rows_padded_to = 1;     // e4m3: A and Bt have rows up to M and N rounded up to 16, zero
                                         // (cuBLASLt's FP8 kernels want 16-aligned dimensions; the lab's don't read them)
    const float* made_from_A = nullptr;  // the float32 inputs they were converted from
    const float* made_from_B = nullptr;
};

// Converts the float32 device matrices A and B of shape s into this
// process's operands of that format (kept between calls, grown as needed),
// and waits for the conversion. Not timed: Stage::prepare.
void prepare_lowp_operands(const float* A, const float* B, Shape s, InputRounding format);

// The operands last prepared in `format`; throws std::logic_error unless they
// were made from exactly these A, B and shape (prepare_lowp_operands first).
const LowpOperands& lowp_operands_for(const float* A, const float* B, Shape s, InputRounding format);

}  // namespace mml::gpu
