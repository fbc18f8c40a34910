// The student's lab 12 GPU SUMMA, bound for build/bin/mmlab-nccl (the
// reference's: references_nccl.cu).
#include "harness/stages/lab12/gpu_versions.h"
#include "labs/lab12/summa_gpu.h"

namespace mml::lab12 {

SummaGpuFn& gpu_version(bool reference) {
    static SummaGpuFn student = nullptr, ref = nullptr;
    return reference ? ref : student;
}

SummaCopyFn& copy_version() {
    static SummaCopyFn fn = nullptr;
    return fn;
}

namespace {
GpuVersionRegistrar student_version(false, student::lab12::summa_nccl);
}  // namespace

}  // namespace mml::lab12
