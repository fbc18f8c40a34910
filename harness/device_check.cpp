// The one check that a GPU is usable, with the one message every command and
// stage gives when it is not (harness/gpu_backend.h: require_gpu).
#include "harness/cli.h"
#include "harness/gpu_backend.h"

namespace mml::gpu {

void require_gpu(const std::string& what) {
    const DeviceInfo info = probe();
    if (!info.available) throw UsageError(what + " needs a CUDA GPU, but " + info.why_not);
}

}  // namespace mml::gpu
