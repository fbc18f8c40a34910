// Rounding float32 inputs to the tensor cores' input formats (lab 11), the
// same bit for bit on the host (the check rounds A and B before its float64
// reference) and on the GPU (the conversion of A and B before the timed
// call, gpu/lowp_operands.cu): round to nearest, ties to even, as
// __float2bfloat16_rn does. (PTX's cvt.rna.tf32.f32 rounds ties AWAY from
// zero, so the GPU side uses this function, not that instruction.)
//
//   bf16: 8 significant bits (7 stored), float32's exponent range: u = 2^-8
//   tf32: 11 significant bits (10 stored), float32's exponent range: u = 2^-11
//
// The product of two bf16 or two tf32 numbers (16 or 22 significant bits) is
// exact in float32 (24 bits), so once the inputs are rounded, the only error
// left is the FP32 accumulation: cpu/error_bound.h, tensor_core_bound.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define MML_HOST_DEVICE __host__ __device__
#else
#define MML_HOST_DEVICE
#endif

namespace mml {

// How a stage rounds A and B before its products (Stage::input_rounding).
enum class InputRounding { None, Bf16, Tf32 };

inline const char* rounding_name(InputRounding r) {
    switch (r) {
        case InputRounding::Bf16: return "bf16";
        case InputRounding::Tf32: return "tf32";
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

MML_HOST_DEVICE inline float round_input(float x, InputRounding r) {
    return r == InputRounding::Bf16 ? round_to_bf16(x) : r == InputRounding::Tf32 ? round_to_tf32(x) : x;
}

}  // namespace mml
