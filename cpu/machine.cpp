#include "cpu/machine.h"

#include <cstdlib>
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

namespace {

// What the CPU itself supports, before MMLAB_SIMD.
bool hardware_avx2_fma() {
#if defined(__x86_64__) || defined(__i386__)
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return false;
#endif
}

bool hardware_avx512() {
#if defined(__x86_64__) || defined(__i386__)
    return __builtin_cpu_supports("avx512f") && hardware_avx2_fma();
#else
    return false;
#endif
}

SimdLevel hardware_widest() {
    return hardware_avx512() ? SimdLevel::Avx512 : hardware_avx2_fma() ? SimdLevel::Avx2 : SimdLevel::Scalar;
}

// The widest level MMLAB_SIMD allows (Avx512: no limit), read once.
SimdLevel environment_limit() {
    static const SimdLevel limit = [] {
        const char* v = std::getenv("MMLAB_SIMD");
        if (!v) return SimdLevel::Avx512;
        const std::string s = v;
        if (s == "scalar") return SimdLevel::Scalar;
        if (s == "avx2") return SimdLevel::Avx2;
        return SimdLevel::Avx512;  // "avx512", or a word it does not know: nothing taken away
    }();
    return limit;
}

bool allowed(SimdLevel level) { return static_cast<int>(level) <= static_cast<int>(environment_limit()); }

}  // namespace

bool cpu_has_avx2_fma() { return hardware_avx2_fma() && allowed(SimdLevel::Avx2); }

bool cpu_has_avx512() { return hardware_avx512() && allowed(SimdLevel::Avx512); }

std::string simd_limited() {
    const SimdLevel cpu = hardware_widest();
    if (static_cast<int>(environment_limit()) >= static_cast<int>(cpu)) return "";
    return std::string("limited to ") + simd_name(environment_limit()) + " by MMLAB_SIMD=" + std::getenv("MMLAB_SIMD") +
           " (this CPU has " + simd_name(cpu) + ")";
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
