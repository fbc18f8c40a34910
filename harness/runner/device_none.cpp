// harness/runner/device.h for a build without CUDA: GPU stages are not in such
// a build, so a request for one is a mistake that this says plainly.
#include <stdexcept>

#include "harness/runner/device.h"

namespace mml::runner {

namespace {
[[noreturn]] void no_cuda() { throw std::runtime_error("this runner was built without CUDA: it cannot run GPU stages"); }
}  // namespace

struct DeviceSide::State {};
DeviceSide::DeviceSide() = default;
DeviceSide::~DeviceSide() = default;
void DeviceSide::load(Shape, const float*, const float*) { no_cuda(); }
bool DeviceSide::loaded(Shape) const { return false; }
void DeviceSide::run(const MatmulFn&, const MatmulFn&, const StageParams&, bool, std::uint64_t, float*) { no_cuda(); }
void DeviceSide::reset() {}

}  // namespace mml::runner
