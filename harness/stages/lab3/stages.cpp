// Lab 3 - Strassen: recursion with a cutoff to a fast classical kernel, any
// shape (peeling), one workspace; its norm-wise error bound. The stages carry
// the student's version and the given code (the classical kernel, the bound:
// labs/common/); the reference's Strassen is bound by name in references.cpp.
#include "harness/cli.h"
#include "harness/stage.h"
#include "harness/stages/lab3/cutoff_param.h"
#include "harness/targets.h"
#include "labs/common/classical_kernel.h"
#include "labs/common/strassen_bound.h"
#include "labs/common/strassen_plan.h"
#include "labs/lab3/strassen.h"

namespace mml::lab3 {

std::int64_t cutoff_of(const StageParams& p) {
    const long long c = p.get("cutoff", common::lab3::kDefaultCutoff);
    if (c < 1) throw UsageError("--param cutoff must be >= 1 (the recursion stops when a dimension is <= cutoff), got " + std::to_string(c));
    return c;
}

MatmulFn strassen_fn(StrassenMatmul fn) {
    return [fn](const float* A, const float* B, float* C, Shape s, const StageParams& p) {
        fn(A, B, C, s.M, s.N, s.K, cutoff_of(p));
    };
}

}  // namespace mml::lab3

namespace {

using namespace mml;
using lab3::cutoff_of;

TargetVerdict judge_lab3(const std::vector<Measurement>& rows) {
    if (auto failed = first_failure(rows, Impl::Student)) return *failed;
    const Shape largest = largest_shape(rows);
    const Measurement* own = find_row(rows, "lab3.strassen", Impl::Student, largest);
    const Measurement* ref = find_row(rows, "lab3.strassen", Impl::Reference, largest);
    const Measurement* classical = find_row(rows, "lab3.classical", Impl::Reference, largest);
    if (!own || !ref || !classical)
        return {false, "lab3.strassen and lab3.classical were not all timed at " + shape_text(largest), false, false};
    const double vs_ref = own->median_seconds / ref->median_seconds;
    const double vs_classical = classical->median_seconds / own->median_seconds;
    TargetVerdict v;
    v.met = vs_ref <= 1.25;
    v.explanation = "your Strassen takes " + fixed(vs_ref, 2) + "x the reference's time (goal <= 1.25) at " +
                    shape_text(largest) + "; it runs " + fixed(vs_classical, 2) +
                    "x as fast as the classical kernel it stops at (> 1: Strassen pays at this size and cutoff; "
                    "mmlab crossover shows where it starts to)";
    // 1.25x the reference's time is 80 % of its speed: the repetitions on both sides of that are no verdict.
    return inside_noise(v, time_ratio(*ref, *own), 0.8, "your speed as a share of the reference's");
}

Registrar lab3_stages([](Registry& reg) {
    // The classical kernel is given code, not an answer: like a peer row, it
    // has no student version, and its function is there in every build.
    reg.add(make_stage(3, "classical",
                       "the classical base case alone (blocked i-k-j, AVX2 when present): Strassen's yardstick", {},
                       from_plain(common::lab3::matmul_classical)));

    Stage strassen =
        make_stage(3, "strassen",
                   "Strassen, 7 products a level, peeling for odd sizes, one workspace (--param cutoff=1024)",
                   lab3::strassen_fn(student::lab3::matmul_strassen), {});  // the reference: references.cpp
    strassen.bound = [](Shape s, const StageParams& p) { return common::lab3::strassen_bound(s, cutoff_of(p)); };
    strassen.param_names = {"cutoff"};
    strassen.task = "tasks 1 and 2";  // form_and_multiply and combine_into_c, labs/lab3/strassen.cpp
    strassen.check_params = [](const StageParams& p) { cutoff_of(p); };
    reg.add(std::move(strassen));

    Lab lab;
    lab.number = 3;
    lab.default_shapes = {{2048, 2048, 2048}};
    lab.target = "lab3.strassen correct at every shape and cutoff (the tests); your Strassen within 1.25x of the reference's time at the largest size";
    lab.judge = judge_lab3;
    // The x ijk column at this lab's sizes (the triple loop timed at 512^3 and scaled), and
    // the previous lab's best beside it (x prev).
    lab.baseline_limit_macs = kBaselineScaledMacs;
    lab.previous_best = "lab2.blocked";
    reg.add_lab(std::move(lab));
});

}  // namespace
