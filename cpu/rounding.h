// Rounding float32 inputs to the tensor cores' input formats (lab 11), the
// same bit for bit on the host (the check rounds A and B before its float64
// reference) and on the GPU (the conversion of A and B before the timed
// call, gpu/lowp_operands.cu): round to nearest, ties to even, as
// __float2bfloat16_rn does. (PTX's cvt.rna.tf32.f32 rounds ties AWAY from
// zero, so the GPU side uses this function, not that instruction.)
//
//   bf16: 8 significant bits (7 stored), float32's exponent range: u = 2^-8
//   tf32: 11 significant bits (10 stored), float32's exponent range: u = 2^-11
//   e4m3: 4 significant bits (3 stored), normal exponents -6..8, subnormals
//         down to 2^-9, largest finite 448, no infinity: u = 2^-4 (FP8, lab 11
//         stage 6; values past 448 saturate to +-448, as cvt's .satfinite does)
//
// The product of two bf16, two tf32 or two e4m3 numbers (16, 22 or 8
// significant bits) is exact in float32 (24 bits), so once the inputs are rounded, the only error
// left is the FP32 accumulation: cpu/error_bound.h, tensor_core_bound.
#pragma once

#include <cstdint>
#include <cmath>
#include <cstring>

#if defined(__CUDACC__)
#define MML_HOST_DEVICE __host__ __device__
#else
#define MML_HOST_DEVICE
#endif

namespace mml {

// How a stage rounds A and B before its products (Stage::input_rounding).
enum class InputRounding { None, Bf16, Tf32, E4m3 };

inline const char* rounding_name(InputRounding r) {
    switch (r) {
        case InputRounding::Bf16: return "bf16";
        case InputRounding::Tf32: return "tf32";
        case InputRounding::E4m3: return "e4m3";
        default: return "fp32";
    }
}

// The float32 bit pattern `bits` rounded to nearest (ties to even) with its
// lowest `dropped` bits cleared. Infinities stay; a NaN stays a (quiet) NaN;
// a value that rounds past the largest finite number becomes infinity, as
// IEEE rounding says.
MML_HOST_DEVICE inline std::uint32_t round_bits_nearest_even(std::uint32_t bits, int dropped) {
    if ((bits & 0x7f800000u) == 0x7f800000u)  // Inf or NaN
        return (bits & 0x007fffffu) ? (bits | 0x00400000u) & ~((1u << dropped) - 1u) : bits;
    const std::uint32_t lsb = (bits >> dropped) & 1u;  // the last kept bit: ties go to make it 0
    bits += (1u << (dropped - 1)) - 1u + lsb;
    return bits & ~((1u << dropped) - 1u);
}

MML_HOST_DEVICE inline float round_bits_to_float(float x, int dropped) {
    std::uint32_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    bits = round_bits_nearest_even(bits, dropped);
    float out;
    std::memcpy(&out, &bits, sizeof out);
    return out;
}

// x rounded to bf16 (16 low bits dropped), as a float32 holding that value.
MML_HOST_DEVICE inline float round_to_bf16(float x) { return round_bits_to_float(x, 16); }
// x rounded to TF32 (13 low bits dropped), as a float32 holding that value.
MML_HOST_DEVICE inline float round_to_tf32(float x) { return round_bits_to_float(x, 13); }

// x rounded to FP8 e4m3 (to nearest, ties to even), as a float32 holding
// that value. Normal range (|x| >= 2^-6): 3 stored bits, 20 dropped. Below
// it the spacing stays 2^-9 (subnormals): x * 512 rounded to an integer
// (rintf rounds ties to even on the host and on the GPU alike; x * 512 is
// exact). Past 448 (1.75 x 2^8, the largest finite e4m3): +-448. NaN stays NaN.
MML_HOST_DEVICE inline float round_to_e4m3(float x) {
    constexpr float kMax = 448.0f, kMinNormal = 0x1p-6f;
    if (x != x) return x;
    const float mag = x < 0 ? -x : x;
    float r;
    if (mag >= kMinNormal) {
        r = mag > 2 * kMax ? 2 * kMax : round_bits_to_float(mag, 20);  // (inf and huge values: saturated below)
    } else {
        r = rintf(mag * 512.0f) / 512.0f;
    }
    if (r > kMax) r = kMax;
    return x < 0 ? -r : r;
}

// The e4m3 byte of a value that round_to_e4m3 returned: sign, 4 exponent bits
// (bias 7), 3 mantissa bits; exponent 0 holds the subnormals m x 2^-9.
MML_HOST_DEVICE inline unsigned char e4m3_bits(float rounded) {
    if (rounded != rounded) return 0x7f;
    std::uint32_t bits;
    std::memcpy(&bits, &rounded, sizeof bits);
    const unsigned sign = (bits >> 31) << 7;
    const int exponent = int((bits >> 23) & 0xff) - 127;
    if ((bits & 0x7fffffffu) == 0) return static_cast<unsigned char>(sign);
    if (exponent >= -6)
        return static_cast<unsigned char>(sign | unsigned(exponent + 7) << 3 | ((bits >> 20) & 7u));
    const float mag = rounded < 0 ? -rounded : rounded;
    return static_cast<unsigned char>(sign | unsigned(mag * 512.0f));  // 1..7 (x 2^-9)
}

MML_HOST_DEVICE inline float round_input(float x, InputRounding r) {
    switch (r) {
        case InputRounding::Bf16: return round_to_bf16(x);
        case InputRounding::Tf32: return round_to_tf32(x);
        case InputRounding::E4m3: return round_to_e4m3(x);
        default: return x;
    }
}

}  // namespace mml
