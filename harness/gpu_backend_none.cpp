// Stand-in for gpu/harness_backend.cu when this build has no CUDA toolkit.
#include <stdexcept>

#include "harness/gpu_backend.h"

namespace mml::gpu {

namespace {
// Why there is no GPU here, true to how this build was made. `make sanitize`
// builds without CUDA on purpose (GCC defines __SANITIZE_ADDRESS__ /
// __SANITIZE_THREAD__ under its -fsanitize flags): installing the toolkit
// would change nothing there.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
const char* kNoCuda =
    "this is a sanitizer build (make sanitize): CPU stages and their tests only, built without CUDA on "
    "purpose, so it checks no GPU code; on a GPU machine, make gpu-check runs the GPU tests under "
    "compute-sanitizer (memcheck, racecheck)";
#else
const char* kNoCuda =
    "this build has no CUDA: nvcc was not found when it was configured (install the CUDA toolkit, then "
    "'make clean' and make again), or it was configured with CUDA=0";
#endif
}  // namespace

bool built_with_cuda() { return false; }

DeviceInfo probe() {
    DeviceInfo info;
    info.why_not = kNoCuda;
    return info;
}

struct DeviceProblem::State {};
DeviceProblem::DeviceProblem(Shape) { throw std::runtime_error(kNoCuda); }
DeviceProblem::~DeviceProblem() = default;
void DeviceProblem::upload(const float*, const float*) {}
void DeviceProblem::poison_c() {}
double DeviceProblem::run_timed_ms(const MatmulFn&, const StageParams&) { return 0; }
void DeviceProblem::download_c(float*) {}

CostBreakdown measure_breakdown(const MatmulFn&, const float*, const float*, float*, Shape,
                                const StageParams&, int) {
    throw std::runtime_error(kNoCuda);
}

}  // namespace mml::gpu
