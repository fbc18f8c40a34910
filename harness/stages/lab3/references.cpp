// Lab 3's reference version, bound to its stage by name. The only file of
// lab 3's harness that includes solutions/: a build without the answers (the
// grader's) leaves it out. (lab3.classical is given code, registered with
// the stages in stages.cpp.)
#include "harness/stage.h"
#include "harness/stages/lab3/cutoff_param.h"
#include "solutions/lab3/strassen.h"

namespace {

mml::ReferenceRegistrar strassen("lab3.strassen", mml::lab3::strassen_fn(reference::lab3::matmul_strassen));

}  // namespace
