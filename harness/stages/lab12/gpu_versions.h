// The two versions (student, reference) of lab 12's GPU SUMMA, as the NCCL
// program build/bin/mmlab-nccl finds them: the student's bound in
// versions_nccl.cu, the reference's in references_nccl.cu (left out of a
// build without the answers).
#pragma once

#include "labs/common/lab12_copy.h"
#include "labs/common/lab12_nccl.h"

namespace mml::lab12 {

using SummaGpuFn = void (*)(const GpuSumma&);
SummaGpuFn& gpu_version(bool reference);

struct GpuVersionRegistrar {
    GpuVersionRegistrar(bool reference, SummaGpuFn fn) { gpu_version(reference) = fn; }
};

// The copy-engine SUMMA (--transport copy): the reference's only (its loop
// is task 3's answer); null in a build without the answers.
using SummaCopyFn = void (*)(const GpuSumma&, const PeerBlocks&);
SummaCopyFn& copy_version();

struct CopyVersionRegistrar {
    explicit CopyVersionRegistrar(SummaCopyFn fn) { copy_version() = fn; }
};

}  // namespace mml::lab12
