// The cublasXt peer of build/bin/mmlab-nccl (--algo cublasxt, one process):
// cublasXtSgemm on every GPU present, A, B and C in host memory; its time
// includes the host transfers. Only *_nccl.cu files include it.
#pragma once

#include "harness/stages/lab12/program_common.h"

namespace mml::lab12 {

// g.warmup untimed and g.reps timed products of r.A * r.B into r.C (rank 0's).
Measured run_cublasxt(const GemmArgs& g, ShapeRun& r);

}  // namespace mml::lab12
