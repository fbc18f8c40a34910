// Lab 12's reference GPU SUMMAs (NCCL broadcasts; copy engines), bound for build/bin/mmlab-nccl. Like every
// references*.cpp, the only kind of harness file that includes solutions/.
#include "harness/stages/lab12/gpu_versions.h"
#include "solutions/lab12/summa_copy.h"
#include "solutions/lab12/summa_gpu.h"

namespace {
mml::lab12::GpuVersionRegistrar reference_version(true, reference::lab12::summa_nccl);
mml::lab12::CopyVersionRegistrar copy_version(reference::lab12::summa_copy);
}  // namespace
