// Stand-in for gpu/harness_backend.cu when this build has no CUDA toolkit.
#include <stdexcept>

#include "harness/gpu_backend.h"

namespace mml::gpu {

namespace {
const char* kNoCuda =
    "this build has no CUDA (nvcc was not found, or CUDA=0, when it was configured); install the CUDA "
    "toolkit and run 'make clean' then make again";
}

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
