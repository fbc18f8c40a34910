// Lab 9's reference versions, bound to the stages by name (lab9.cublas is a
// peer with its library call, registered in stages.cpp). The only file of
// lab 9's harness that includes solutions/: a build without the answers (the
// grader's) leaves it out.
#include "harness/stage.h"
#include "harness/stages/lab9/lab9.h"
#include "solutions/lab9/one_pass.h"
#include "solutions/lab9/phvm.h"

namespace {

using mml::ReferenceRegistrar;
namespace ref = reference::lab9;

ReferenceRegistrar basicmm("lab9.basicmm", mml::lab9::per_element(ref::basicmm));
ReferenceRegistrar phvm("lab9.phvm", mml::lab9::per_element(ref::phvm));
// --param kstep=1: one k per step everywhere, no 16-byte loads (to measure
// what task 5's vector loads bring).
ReferenceRegistrar one_pass("lab9.one_pass", [](const float* E, const float* F, float* R, mml::Shape s,
                                               const mml::StageParams& p) {
    mml::lab9::check_kstep(p);
    ref::one_pass(E, F, R, s.M, s.N, s.K, p.get("kstep", 4) == 4);
});

}  // namespace
