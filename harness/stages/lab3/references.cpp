// Lab 3's reference version, bound to its stage by name. The only file of
// lab 3's harness that includes solutions/: a build without the answers (the
// grader's) leaves it out. (lab3.classical is given code, registered with
// the stages in stages.cpp.)
#include "harness/stage.h"
#include "harness/stages/lab3/cutoff_param.h"
#include "labs/common/strassen_plan.h"
#include "solutions/lab3/strassen.h"

namespace {

// The harness times a student's Strassen at the reference's cutoff until the
// student chooses one, and lab 4 runs at it: both read it as the given
// common::lab3::kDefaultCutoff, which must be the reference's choice.
static_assert(reference::lab3::kYourCutoff == common::lab3::kDefaultCutoff,
              "solutions/lab3/strassen.h's kYourCutoff and labs/common/strassen_plan.h's kDefaultCutoff must agree");

mml::ReferenceRegistrar strassen("lab3.strassen",
                                 mml::lab3::strassen_fn(reference::lab3::matmul_strassen, reference::lab3::kYourCutoff));

}  // namespace
