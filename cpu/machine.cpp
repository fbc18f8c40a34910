#include "cpu/machine.h"

#include <fstream>
#include <thread>

#ifndef MML_BUILD_FLAGS
#define MML_BUILD_FLAGS "unknown"
#endif

namespace mml {

const char* simd_name(SimdLevel level) {
    switch (level) {
        case SimdLevel::Avx512: return "AVX-512";
        case SimdLevel::Avx2: return "AVX2+FMA";
        default: return "scalar";
    }
}

bool cpu_has_avx2_fma() {
#if defined(__x86_64__) || defined(__i386__)
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return false;
#endif
}

bool cpu_has_avx512() {
#if defined(__x86_64__) || defined(__i386__)
    return __builtin_cpu_supports("avx512f") && cpu_has_avx2_fma();
#else
    return false;
#endif
}

int simd_lanes(SimdLevel level) { return level == SimdLevel::Avx512 ? 16 : level == SimdLevel::Avx2 ? 8 : 1; }

bool simd_available(SimdLevel level) {
    switch (level) {
        case SimdLevel::Avx512: return cpu_has_avx512();
        case SimdLevel::Avx2: return cpu_has_avx2_fma();
        default: return true;
    }
}

std::vector<SimdLevel> simd_levels_present() {
    std::vector<SimdLevel> out;
    for (SimdLevel l : {SimdLevel::Scalar, SimdLevel::Avx2, SimdLevel::Avx512})
        if (simd_available(l)) out.push_back(l);
    return out;
}

SimdLevel detect_simd() { return simd_levels_present().back(); }

MachineInfo describe_machine() {
    MachineInfo m;
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("model name", 0) == 0) {
            auto colon = line.find(':');
            if (colon != std::string::npos) m.cpu_model = line.substr(colon + 2);
            break;
        }
    }
    if (m.cpu_model.empty()) m.cpu_model = "unknown CPU";
    m.logical_cores = int(std::thread::hardware_concurrency());
    if (m.logical_cores < 1) m.logical_cores = 1;
    m.simd = detect_simd();
#if defined(__clang__)
    m.compiler = "clang++ " __clang_version__;
#elif defined(__GNUC__)
    m.compiler = "g++ " __VERSION__;
#else
    m.compiler = "unknown compiler";
#endif
    m.flags = MML_BUILD_FLAGS;
    return m;
}

}  // namespace mml
