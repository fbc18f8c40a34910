// What machine are we on? CPU model, core count, widest SIMD, compiler.
#pragma once

#include <string>

namespace mml {

enum class SimdLevel { Scalar, Avx2, Avx512 };  // Avx2 means AVX2 + FMA
const char* simd_name(SimdLevel level);

// Widest SIMD the CPU and OS support, read with cpuid at run time (never a
// compile-time guess: the binary may run on another machine than it was built on).
SimdLevel detect_simd();
bool cpu_has_avx2_fma();
bool cpu_has_avx512();

struct MachineInfo {
    std::string cpu_model;
    int logical_cores = 1;
    SimdLevel simd = SimdLevel::Scalar;
    std::string compiler;  // e.g. "g++ 12.2.0"
    std::string flags;     // the flags this binary was built with
};
MachineInfo describe_machine();

}  // namespace mml
