// The OpenBLAS peer (openblas.h): one cblas_sgemm call and what the library
// says about itself.
#include "peers/openblas.h"

#include <cblas.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <strings.h>
#include <limits>
#include <stdexcept>

namespace mml::peers {

void matmul_openblas(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K,
                     int threads) {
    constexpr std::int64_t kMax = std::numeric_limits<blasint>::max();
    if (M > kMax || N > kMax || K > kMax) throw std::invalid_argument("OpenBLAS takes dimensions below 2^31");
    // The pthread build keeps a pool; this sets how many of its threads the
    // next call uses (the OpenMP build would follow OMP_NUM_THREADS instead).
    openblas_set_num_threads(threads);
    // Row-major C = 1 * A * B + 0 * C: beta = 0 means C's old contents (the
    // poison) are not read.
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, blasint(M), blasint(N), blasint(K), 1.0f, A,
                blasint(K), B, blasint(N), 0.0f, C, blasint(N));
}

std::string openblas_description() {
    const int mode = openblas_get_parallel();
    return std::string(openblas_get_config()) + "; kernel " + openblas_get_corename() + "; " +
           (mode == 0 ? "sequential" : mode == 1 ? "pthreads" : "OpenMP") + " build" + openblas_coretype_set_aside();
}

namespace {

// The SIMD width of an OpenBLAS x86-64 kernel ("core") name, as DYNAMIC_ARCH
// builds name them (openblas_get_corename, OPENBLAS_CORETYPE).
SimdLevel kernel_simd(const std::string& core) {
    for (const char* c : {"SkylakeX", "Cooperlake", "SapphireRapids", "Zen4"})
        if (core == c) return SimdLevel::Avx512;
    for (const char* c : {"Haswell", "Zen", "Excavator", "SkylakeX-AVX2"})
        if (core == c) return SimdLevel::Avx2;
    return SimdLevel::Scalar;  // older cores (Sandybridge, Nehalem...): narrower than AVX2+FMA
}

bool narrower(SimdLevel kernel) { return static_cast<int>(kernel) < static_cast<int>(detect_simd()); }

}  // namespace

std::string openblas_weaker_than_cpu() {
    const std::string core = openblas_get_corename();
    if (!narrower(kernel_simd(core))) return "";
    const char* forced = std::getenv("OPENBLAS_CORETYPE");
    return std::string("WARNING: OpenBLAS runs its ") + core + " kernel (" + simd_name(kernel_simd(core)) +
           ") on this " + simd_name(detect_simd()) + " CPU" +
           (forced ? std::string(", forced by OPENBLAS_CORETYPE=") + forced +
                         " (MMLAB_KEEP_OPENBLAS_CORETYPE=1 kept it): unset it"
                   : ": this OpenBLAS does not know the CPU; a newer one (or the BLIS row) is the stronger peer") +
           ", or the comparison flatters the stages";
}

std::string openmp_threads_spin_beside_openblas() {
    auto is = [](const char* name, const char* value) {
        const char* v = std::getenv(name);
        return v && strcasecmp(v, value) == 0;
    };
    if (openblas_get_parallel() == 2) return "";  // OpenBLAS's own threads are then OpenMP's: they take turns
    const char* why = is("OMP_WAIT_POLICY", "active")    ? "OMP_WAIT_POLICY=active"
                      : is("GOMP_SPINCOUNT", "infinite") ? "GOMP_SPINCOUNT=infinite"
                                                          : nullptr;
    if (!why) return "";
    return std::string("WARNING: ") + why +
           " keeps the stages' idle OpenMP threads spinning on the cores OpenBLAS's threads need "
           "(about half its speed on all cores): unset it, or the comparison flatters the stages";
}

// Where the first mmlab process leaves the value it set aside, for the peer
// line of the process it runs again (nothing else reads it).
constexpr const char* kSetAside = "MMLAB_OPENBLAS_CORETYPE_SET_ASIDE";

void run_openblas_with_its_own_kernel(char** argv) {
    const char* forced = std::getenv("OPENBLAS_CORETYPE");
    // MMLAB_SIMD=avx2 tries this CPU as an AVX2 one (cpu/machine.h): the peer
    // runs the kernel such a CPU would get (Haswell), or the bars compare widths.
    if (!forced && detect_simd() == SimdLevel::Avx2 && !simd_limited().empty()) {
        setenv("OPENBLAS_CORETYPE", "Haswell", 1);
        execv("/proc/self/exe", argv);
        unsetenv("OPENBLAS_CORETYPE");  // no /proc: the peer keeps its wider kernel, which the run shows
        return;
    }
    if (!forced || std::getenv("MMLAB_KEEP_OPENBLAS_CORETYPE") || !narrower(kernel_simd(forced))) return;
    // Silently: the notice belongs beside the OpenBLAS row (openblas_description),
    // not before every message - a bad --size must still get exactly one line.
    const std::string value = forced;
    setenv(kSetAside, value.c_str(), 1);
    unsetenv("OPENBLAS_CORETYPE");
    execv("/proc/self/exe", argv);
    // No /proc (or no exec): go on with the forced kernel, which the peer line then warns about.
    setenv("OPENBLAS_CORETYPE", value.c_str(), 1);
    unsetenv(kSetAside);
}

std::string openblas_coretype_set_aside() {
    const char* value = std::getenv(kSetAside);
    if (!value || std::getenv("OPENBLAS_CORETYPE")) return "";
    return std::string(" (OPENBLAS_CORETYPE=") + value + " set aside: it would run the " +
           simd_name(kernel_simd(value)) + " kernel on this " + simd_name(detect_simd()) +
           " CPU; MMLAB_KEEP_OPENBLAS_CORETYPE=1 keeps it)";
}

int openblas_parallel_mode() { return openblas_get_parallel(); }
int openblas_threads() { return openblas_get_num_threads(); }

}  // namespace mml::peers
