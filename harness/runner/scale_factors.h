// The K secret factors of a timed run (protocol.h, "scaled=SEED"): d_k, a
// float in [1, 2) made from the checker's 64-bit seed and k alone, the same
// bits on the host (the checker's check; a CPU runner forming B') and on the
// GPU (a GPU runner forms B' = diag(d) B there, harness/runner/device_cuda.cu).
//
// Why a seed and not the factors themselves: the seed is 8 bytes sent after
// the checker's clock has started; K floats would be copied into the shared
// memory and up to the GPU inside the timed interval, which for lab 9's skinny
// products (K = 3e7 to 5e7: 120-200 MB) took far longer than the product.
// The seed is as secret as the factors were: 2^64 values, drawn by the
// checker's own generator after the runner was given A and B, so no product
// A diag(d) B can be computed before it arrives.
#pragma once

#include <cstdint>
#include <cstring>

#include "cpu/rounding.h"  // MML_HOST_DEVICE

namespace mml::runner {

// splitmix64's output function (Steele, Lea and Flood, "Fast splittable
// pseudorandom number generators", OOPSLA 2014) on seed + (k+1) * its
// increment; 23 of its bits become the mantissa of a number in [1, 2).
MML_HOST_DEVICE inline float scale_factor(std::uint64_t seed, std::uint64_t k) {
    std::uint64_t z = seed + (k + 1) * 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    const std::uint32_t bits = 0x3f800000u | static_cast<std::uint32_t>(z >> 41);
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

}  // namespace mml::runner
