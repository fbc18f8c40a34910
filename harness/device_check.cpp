// The one check that a GPU is usable, with the one message every command and
// stage gives when it is not (harness/gpu_backend.h: require_gpu); and the
// process's L2 policy for timed runs (set_flush_l2), with or without CUDA.
#include "harness/cli.h"
#include "harness/gpu_backend.h"

namespace mml::gpu {

void require_gpu(const std::string& what) {
    const DeviceInfo info = probe();
    if (!info.available) throw UsageError(what + " needs a CUDA GPU, but " + info.why_not);
}

namespace {
bool g_flush_l2 = false;
}  // namespace

void set_flush_l2(bool flush) { g_flush_l2 = flush; }
bool flush_l2() { return g_flush_l2; }

}  // namespace mml::gpu
