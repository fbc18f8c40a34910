// The shared code of lab 11's reduced-precision check, on the CPU: rounding
// to bf16 and TF32 (to nearest, ties to even: the same function rounds the
// check's inputs and, on the GPU, the kernels' operands), the tensor-core
// accumulation bound, and the error against the unrounded inputs.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "cpu/error_bound.h"
#include "cpu/rounding.h"
#include "cpu/verify.h"

using namespace mml;

namespace {
float from_bits(std::uint32_t b) {
    float f;
    std::memcpy(&f, &b, sizeof f);
    return f;
}
std::uint32_t bits_of(float f) {
    std::uint32_t b;
    std::memcpy(&b, &f, sizeof b);
    return b;
}
}  // namespace

TEST_SUITE("shared") {
    TEST_CASE("round_to_bf16 / round_to_tf32: to nearest, ties to even, exact values kept") {
        // 1 + 2^-8 lies half-way between 1 and 1 + 2^-7 (bf16 keeps 7 bits): ties go to the even 1.
        CHECK(round_to_bf16(1.0f + 0x1p-8f) == 1.0f);
        // 1 + 3*2^-8 lies half-way between 1 + 2^-7 (odd) and 1 + 2^-6 (even).
        CHECK(round_to_bf16(1.0f + 3 * 0x1p-8f) == 1.0f + 0x1p-6f);
        CHECK(round_to_bf16(1.0f + 0x1p-8f + 0x1p-20f) == 1.0f + 0x1p-7f);  // above half-way: up
        CHECK(round_to_bf16(-(1.0f + 0x1p-8f + 0x1p-20f)) == -(1.0f + 0x1p-7f));
        CHECK(round_to_tf32(1.0f + 0x1p-11f) == 1.0f);                       // TF32 keeps 10 bits
        CHECK(round_to_tf32(1.0f + 0x1p-11f + 0x1p-20f) == 1.0f + 0x1p-10f);
        for (float x : {0.0f, -0.0f, 1.0f, -0.75f, 0x1p-100f, 3.0f})
            CHECK(round_to_bf16(x) == x);
        CHECK((bits_of(round_to_bf16(0.123456f)) & 0xffffu) == 0u);
        CHECK((bits_of(round_to_tf32(0.123456f)) & 0x1fffu) == 0u);
        CHECK(std::isinf(round_to_bf16(std::numeric_limits<float>::infinity())));
        CHECK(std::isnan(round_to_bf16(std::numeric_limits<float>::quiet_NaN())));
        CHECK(std::isnan(round_to_tf32(from_bits(0x7f800001u))));  // a NaN with only low payload bits stays a NaN
        CHECK(std::isinf(round_to_bf16(std::numeric_limits<float>::max())));  // rounds past the largest bf16
        CHECK(round_input(0.3f, InputRounding::None) == 0.3f);
    }

    TEST_CASE("tensor_core_bound: gamma_2K with u = 2^-23, element-wise") {
        const Shape s{10, 10, 1000};
        const ErrorBound b = tensor_core_bound(s);
        CHECK(b.kind == ErrorBound::Kind::Elementwise);
        CHECK(b.factor == doctest::Approx(gamma_n(2000, 0x1p-23)));
        CHECK(b.factor == doctest::Approx(4 * classical_bound(s).factor).epsilon(1e-3));
    }

    TEST_CASE("round_to_e4m3: to nearest, ties to even, subnormals, saturation at 448, and its byte") {
        CHECK(round_to_e4m3(1.0f + 0x1p-4f) == 1.0f);                    // half-way between 1 and 1 + 2^-3: even
        CHECK(round_to_e4m3(1.0f + 3 * 0x1p-4f) == 1.0f + 0x1p-2f);     // half-way, up to the even one
        CHECK(round_to_e4m3(1.0f + 0x1p-4f + 0x1p-10f) == 1.0f + 0x1p-3f);
        CHECK(round_to_e4m3(-0.3f) == -0.3125f);                        // 1.25 x 2^-2
        CHECK(round_to_e4m3(0x1p-6f) == 0x1p-6f);                       // smallest normal
        CHECK(round_to_e4m3(3 * 0x1p-9f) == 3 * 0x1p-9f);               // subnormal, exact
        CHECK(round_to_e4m3(0x1p-10f) == 0.0f);                         // half the smallest subnormal: ties to 0
        CHECK(round_to_e4m3(3 * 0x1p-10f) == 2 * 0x1p-9f);              // 1.5 x 2^-9: ties to even (2)
        CHECK(round_to_e4m3(15.5f * 0x1p-10f) == 0x1p-6f);              // 7.75 x 2^-9 rounds into the normals
        CHECK(round_to_e4m3(448.0f) == 448.0f);
        CHECK(round_to_e4m3(470.0f) == 448.0f);                         // would round to 480: saturates
        CHECK(round_to_e4m3(-1e30f) == -448.0f);
        CHECK(round_to_e4m3(std::numeric_limits<float>::infinity()) == 448.0f);
        CHECK(std::isnan(round_to_e4m3(std::numeric_limits<float>::quiet_NaN())));
        CHECK(round_input(0.3f, InputRounding::E4m3) == 0.3125f);
        CHECK(e4m3_bits(1.0f) == 0x38);    // exponent 7 (bias 7), mantissa 0
        CHECK(e4m3_bits(-1.0f) == 0xb8);
        CHECK(e4m3_bits(448.0f) == 0x7e);  // the largest finite
        CHECK(e4m3_bits(0x1p-6f) == 0x08);
        CHECK(e4m3_bits(5 * 0x1p-9f) == 0x05);
        CHECK(e4m3_bits(0.0f) == 0x00);
        CHECK(e4m3_bits(std::numeric_limits<float>::quiet_NaN()) == 0x7f);
        // Every byte but the NaNs decodes to a value that rounds to itself and encodes back to the byte.
        for (int b = 0; b < 256; ++b) {
            if ((b & 0x7f) == 0x7f) continue;
            const int e = (b >> 3) & 15, m = b & 7;
            const float mag = e == 0 ? m * 0x1p-9f : std::ldexp(1.0f + m / 8.0f, e - 7);
            const float v = (b & 0x80) ? -mag : mag;
            CHECK(round_to_e4m3(v) == v);
            if (mag != 0.0f) CHECK(int(e4m3_bits(v)) == b);
        }
    }

    TEST_CASE("fp8_tensor_core_bound: 14-bit chunks of 128, promoted to float32") {
        const ErrorBound small = fp8_tensor_core_bound(Shape{10, 10, 100});  // one chunk of 100
        CHECK(small.factor == doctest::Approx(gamma_n(200, 0x1p-13) + gamma_n(1, 0x1p-24) * (1 + gamma_n(200, 0x1p-13))));
        const ErrorBound big = fp8_tensor_core_bound(Shape{10, 10, 1000000});  // 7813 chunks of 128
        const double g = gamma_n(256, 0x1p-13);
        CHECK(big.factor == doctest::Approx(g + gamma_n(7813, 0x1p-24) * (1 + g)));
        CHECK(big.factor < 0.04);  // finite and small at any K the lab runs: the promotion is what makes it so
        CHECK(gamma_n(2e6, 0x1p-13) == std::numeric_limits<double>::infinity());  // unpromoted: no bound at all
    }

    TEST_CASE("relative_error_sampled: 0 for the exact product, the relative size of a perturbation") {
        const Shape s{3, 2, 2};
        const float A[] = {1, 2, 3, 4, 5, 6}, B[] = {1, 0, 0, 1};  // B = I: C = A
        float C[] = {1, 2, 3, 4, 5, 6};
        CHECK(relative_error_sampled(A, B, C, s, 1) == 0.0);
        C[0] = 1.5f;  // error 0.5 against ||A|| = sqrt(91)
        CHECK(relative_error_sampled(A, B, C, s, 1) == doctest::Approx(0.5 / std::sqrt(91.0)));
    }
}
