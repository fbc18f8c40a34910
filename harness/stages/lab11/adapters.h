// Lab 11's stage functions on the prepared operands: the adapters between the
// stage contract (float32 A, B, C on the device, harness/stage.h) and the
// lab's kernels, which take the bf16, TF32 or FP8 e4m3 operands that Stage::prepare
// made from those A and B (gpu/lowp_operands.h). Used by stages.cpp (the
// student versions) and references.cpp (the reference versions).
#pragma once

#include <algorithm>
#include <cstdint>

#include "gpu/lowp_operands.h"
#include "harness/stage.h"

struct __nv_bfloat16;
struct __nv_fp8_e4m3;

namespace mml::lab11 {

using Bf16Matmul = void (*)(const __nv_bfloat16* A, const __nv_bfloat16* Bt, std::int64_t ld, float* C,
                            std::int64_t M, std::int64_t N, std::int64_t K);
using Fp8Matmul = void (*)(const __nv_fp8_e4m3* A, const __nv_fp8_e4m3* Bt, std::int64_t ld, float* C,
                           std::int64_t M, std::int64_t N, std::int64_t K);
using Tf32Matmul = void (*)(const float* A, const float* Bt, std::int64_t ld, float* C, std::int64_t M,
                            std::int64_t N, std::int64_t K);

// --param drop_k=D (a multiple of 8): the kernel is told K - D instead of K, so
// it leaves out the last D products of every sum - a deliberately wrong kernel,
// to see the check catch what a kernel that forgets its last k-tile does
// (tests/gpu/test_lab11.cpp; handouts/lab11.md, question 2). Default 0.
inline std::int64_t k_told(Shape s, const StageParams& p) {
    return std::max<std::int64_t>(1, s.K - p.get("drop_k", 0));
}

inline MatmulFn on_bf16(Bf16Matmul fn) {
    return [fn](const float* A, const float* B, float* C, Shape s, const StageParams& p) {
        const gpu::LowpOperands& ops = gpu::lowp_operands_for(A, B, s, InputRounding::Bf16);
        fn(static_cast<const __nv_bfloat16*>(ops.A), static_cast<const __nv_bfloat16*>(ops.Bt), ops.ld, C, s.M,
           s.N, k_told(s, p));
    };
}

inline MatmulFn on_tf32(Tf32Matmul fn) {
    return [fn](const float* A, const float* B, float* C, Shape s, const StageParams& p) {
        const gpu::LowpOperands& ops = gpu::lowp_operands_for(A, B, s, InputRounding::Tf32);
        fn(static_cast<const float*>(ops.A), static_cast<const float*>(ops.Bt), ops.ld, C, s.M, s.N,
           k_told(s, p));
    };
}

inline MatmulFn on_e4m3(Fp8Matmul fn) {
    return [fn](const float* A, const float* B, float* C, Shape s, const StageParams& p) {
        const gpu::LowpOperands& ops = gpu::lowp_operands_for(A, B, s, InputRounding::E4m3);
        fn(static_cast<const __nv_fp8_e4m3*>(ops.A), static_cast<const __nv_fp8_e4m3*>(ops.Bt), ops.ld, C, s.M,
           s.N, k_told(s, p));
    };
}

}  // namespace mml::lab11
