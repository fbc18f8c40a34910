// Tolerances derived from the error analysis of each algorithm, never tuned.
//
// Classical product in float32, any summation order, with or without FMA
// (Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed., eq. 3.13):
//     |C - fl(A*B)| <= gamma_K * |A|*|B|,   gamma_K = K*u / (1 - K*u),
// element by element, where u = 2^-24 is float32's unit roundoff. A result
// outside that bound cannot come from rounding: it is a bug.
//
// Algorithms that do not satisfy the element-wise bound (Strassen) state a
// norm-wise bound instead:  max|C - fl(A*B)| <= factor * max|A| * max|B|.
#pragma once

#include <string>

#include "cpu/matrix.h"

namespace mml {

constexpr double kFloat32UnitRoundoff = 1.0 / 16777216.0;  // 2^-24
constexpr double kFloat64UnitRoundoff = 1.0 / 9007199254740992.0;  // 2^-53

// gamma_n = n*u / (1 - n*u); +inf when n*u >= 1 (the bound says nothing).
double gamma_n(double n, double u);

struct ErrorBound {
    enum class Kind { Elementwise, Normwise };
    Kind kind = Kind::Elementwise;
    double factor = 0.0;       // multiplies (|A||B|)_ij, or max|A|*max|B|
    std::string formula;       // for reports, e.g. "gamma_K(u=2^-24)"
};

// The classical float32 bound above.
ErrorBound classical_bound(Shape s);

// Tensor-core TF32: inputs are rounded to 10 mantissa bits (u = 2^-11) before
// the products, which are then summed in float32:
//     |C - fl(A*B)| <= (2*u_tf32 + u_tf32^2 + gamma_K) * |A|*|B|.
ErrorBound tf32_bound(Shape s);

// Tensor cores on inputs already rounded to bf16 or TF32 (lab 11, whose check
// multiplies the ROUNDED inputs in float64: cpu/rounding.h). The products are
// then exact in float32 (16 or 22 significant bits), and only the FP32
// accumulation errs - but tensor cores do not accumulate as IEEE float32
// does: one instruction adds a block of b products to the accumulator with
// every term aligned to the largest one's exponent and cut off (truncated),
// then truncates the sum (Fasi et al., "Numerical behavior of NVIDIA tensor
// cores", PeerJ CS 2021, for V100/T4/A100; Khattak and Mikaitis, "Accurate
// models of NVIDIA tensor cores", 2025, for the H100). Truncation's unit
// roundoff is 2^-23, twice rounding to nearest's. In one block each of the b
// terms that is not the largest loses less than 2^-23 times the largest, and
// the sum loses less than 2^-23 times itself: at most (b + 1) 2^-23 times the
// block's sum of |terms|, which includes the accumulator, i.e. every earlier
// product. Over the K/b blocks of one entry's sum that is at most
// K (1 + 1/b) 2^-23 <= 2K 2^-23 (any b >= 1, any order), and with the
// second-order terms (Higham's Lemma 3.1):
//     |C - fl(A~ B~)| <= gamma_2K(2^-23) * |A~||B~|,   A~, B~ the rounded inputs.
// Four times gamma_K(2^-24), derived, not tuned: a kernel that drops one
// product of a sum is still far outside it (tests/gpu/test_lab11.cpp).
ErrorBound tensor_core_bound(Shape s);

// Hopper's FP8 tensor cores (lab 11, stage 6: wgmma .e4m3, e4m3 inputs
// already rounded, products exact in float32) do NOT keep float32's 24 bits
// in their accumulator: it holds 14 significant bits (13 stored, truncated;
// DeepSeek-V3 technical report, 2024, sec. 3.3.2: "around 14 bits"; the
// PyTorch blog's FP8 measurements: e8m13). The same derivation as above with
// u = 2^-13 over all of K would say nothing past K = 4096 (2K u >= 1). So the
// kernel promotes: each chunk of kFp8PromotionK products is summed by the
// tensor core from zero, then added to float32 registers (FADD, round to
// nearest, u = 2^-24). A chunk of c = min(K, kFp8PromotionK) products errs
// by at most gamma_2c(2^-13) times its sum of |terms|; the n = ceil(K / c)
// chunk sums added in float32 by gamma_n(2^-24) times the sum of their
// magnitudes, each at most (1 + gamma_2c(2^-13)) times its |terms|:
//     |C - fl(A~ B~)| <= (g + gamma_n(2^-24) (1 + g)) |A~||B~|,  g = gamma_2c(2^-13).
// Derived, not tuned; about 3 % of |A~||B~| - e4m3's own rounding (2^-4 per
// input) is larger still, and a missing chunk of products is far outside it.
constexpr int kFp8PromotionK = 128;
ErrorBound fp8_tensor_core_bound(Shape s);

}  // namespace mml
