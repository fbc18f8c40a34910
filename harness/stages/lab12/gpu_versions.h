// The two versions (student, reference) of lab 12's GPU SUMMA, as the NCCL
// program build/bin/mmlab-nccl finds them: the student's bound in
// versions_nccl.cu, the reference's in references_nccl.cu (left out of a
// build without the answers).
#pragma once

#include "labs/common/lab12_nccl.h"

namespace mml::lab12 {

using SummaGpuFn = void (*)(const GpuSumma&);
SummaGpuFn& gpu_version(bool reference);

struct GpuVersionRegistrar {
    GpuVersionRegistrar(bool reference, SummaGpuFn fn) { gpu_version(reference) = fn; }
};

}  // namespace mml::lab12
