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

SimdLevel detect_simd() {
    if (cpu_has_avx512()) return SimdLevel::Avx512;
    if (cpu_has_avx2_fma()) return SimdLevel::Avx2;
    return SimdLevel::Scalar;
}

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
