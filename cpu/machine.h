// What machine are we on? CPU model, core count, widest SIMD, compiler.
#pragma once

#include <string>
#include <vector>

namespace mml {

// The one ISA table of the project: every SIMD level the code knows, its name,
// its width, and whether this CPU has it (lab 5's kernels dispatch on it, the
// peak and the machine header print it).
enum class SimdLevel { Scalar, Avx2, Avx512 };  // Avx2 means AVX2 + FMA
const char* simd_name(SimdLevel level);          // "scalar", "AVX2+FMA", "AVX-512"
int simd_lanes(SimdLevel level);                 // floats per vector register: 1, 8, 16
bool simd_available(SimdLevel level);            // does this CPU (and OS) support it?
std::vector<SimdLevel> simd_levels_present();    // scalar first, the widest last

// Widest SIMD the CPU and OS support, read with cpuid at run time (never a
// compile-time guess: the binary may run on another machine than it was built on).
SimdLevel detect_simd();
bool cpu_has_avx2_fma();
bool cpu_has_avx512();

// MMLAB_SIMD=avx2 (or scalar) runs this machine as one without the wider sets:
// every function above answers as such a CPU would (the kernels, the peak, lab
// 5's bars), so that an AVX2-only machine can be tried on an AVX-512 one. It
// only takes away: a set the CPU lacks is never claimed (MMLAB_SIMD=avx512 on
// an AVX2 CPU changes nothing). Every verdict of such a run says so
// (harness/commands/lab.cpp). Empty when the CPU runs as it is; else the
// sentence to print, e.g. "limited to AVX2+FMA by MMLAB_SIMD=avx2 (this CPU has AVX-512)".
std::string simd_limited();

struct MachineInfo {
    std::string cpu_model;
    int logical_cores = 1;
    SimdLevel simd = SimdLevel::Scalar;
    std::string compiler;  // e.g. "g++ 12.2.0"
    std::string flags;     // the flags this binary was built with
};
MachineInfo describe_machine();

}  // namespace mml
