// Lab 10's reference model functions, bound for the harness to compare the
// student's with (make lab10's target) and to show by default (mmlab
// roofline, lh-model). The only file of lab 10's CPU harness that includes
// solutions/: a build without the answers (the grader's) leaves it out.
#include "harness/stages/lab10/lab10.h"
#include "solutions/lab10/models.h"

namespace {

namespace ref = reference::lab10;

mml::lab10::ReferenceModels reference_models({ref::compulsory_bytes, ref::tiled_bytes, ref::arithmetic_intensity,
                                              ref::roofline_gflops, ref::waiting_cycles, ref::latency_hidden,
                                              ref::time_one_rep, ref::rep_num, ref::time_total_cycles});

}  // namespace
