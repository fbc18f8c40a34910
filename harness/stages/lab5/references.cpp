// Lab 5's reference versions, bound to the stages by name. With
// references_blis_levels.cpp, the only files of lab 5's harness that include
// solutions/: a build without the answers (the grader's) leaves them out, and
// the stages keep their student versions (and the OpenBLAS peer) only.
#include "harness/stage.h"
#include "harness/stages/lab5/simd_param.h"
#include "labs/common/blis_loops.h"
#include "solutions/lab5/gemm.h"

namespace {

using mml::ReferenceRegistrar;
using mml::Shape;
using mml::StageParams;
namespace ref = reference::lab5;

// The reference's kernels for --param simd=W (a level this CPU lacks was refused before).
const ref::KernelSet& kernels(const StageParams& p) { return ref::kernels_for(mml::lab5::requested_simd(p)); }

ReferenceRegistrar dot("lab5.dot", [](const float* A, const float* B, float* C, Shape s, const StageParams& p) {
    ref::matmul_dot(A, B, C, s.M, s.N, s.K, kernels(p), 1);
});

ReferenceRegistrar tile("lab5.tile", [](const float* A, const float* B, float* C, Shape s, const StageParams& p) {
    ref::matmul_tile(A, B, C, s.M, s.N, s.K, kernels(p));
});

ReferenceRegistrar blis("lab5.blis", [](const float* A, const float* B, float* C, Shape s, const StageParams& p) {
    ref::matmul_blis(A, B, C, s.M, s.N, s.K, kernels(p), mml::lab5::requested_blocks(p),
                     common::lab5::threads_worth_starting(s.M, s.N, s.K, p.threads));
});

ReferenceRegistrar combined("lab5.combined", [](const float* A, const float* B, float* C, Shape s,
                                                const StageParams& p) {
    ref::matmul_dot(A, B, C, s.M, s.N, s.K, kernels(p), p.threads);
});

}  // namespace
