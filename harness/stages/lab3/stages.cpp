// Lab 3 - Strassen: recursion with a cutoff to a fast classical kernel, any
// shape (peeling), one workspace; its norm-wise error bound. The stages carry
// the student's version and the given code (the classical kernel, the bound:
// labs/common/); the reference's Strassen is bound by name in references.cpp.
// The cutoff each version runs at is decided in cutoff_of alone (cutoff_param.h).
#include <string>

#include "harness/bench.h"
#include "harness/cli.h"
#include "harness/stage.h"
#include "harness/stages/lab3/cutoff_param.h"
#include "harness/stages/lab3/judge.h"
#include "harness/student_side.h"
#include "harness/targets.h"
#include "labs/common/classical_kernel.h"
#include "labs/common/strassen_bound.h"
#include "labs/common/strassen_plan.h"
#include "labs/lab3/strassen.h"

static_assert(student::lab3::kYourCutoff >= 0,
              "kYourCutoff in labs/lab3/strassen.h: 0 while not chosen yet, else your cutoff (>= 1)");

namespace mml::lab3 {

std::int64_t cutoff_of(const StageParams& p, std::int64_t choice) {
    const auto given = p.values.find("cutoff");
    if (given == p.values.end()) return choice > 0 ? choice : common::lab3::kDefaultCutoff;
    const long long c = given->second;
    if (c < 1) throw UsageError("--param cutoff must be >= 1 (the recursion stops when a dimension is <= cutoff), got " + std::to_string(c));
    return c;
}

namespace {

// The call that answers your_cutoff: where it runs, this program's copy of
// labs/lab3/strassen.h is the student's (the runner's, in grading).
const SideCallRegistrar kYourCutoffCall("lab3.your_cutoff", [](const std::vector<std::string>&) {
    SideCallResult r;
    r.text = std::to_string(student::lab3::kYourCutoff);
    return r;
});

std::int64_t ask_your_cutoff() {
    // The student's side's data: believed only as a number from 0 to 2^40.
    const std::string text = call_student_side("lab3.your_cutoff", {}).text;
    const bool number = !text.empty() && text.size() <= 13 && text.find_first_not_of("0123456789") == std::string::npos;
    if (!number || std::stoll(text) > (1LL << 40)) {
        std::string shown;
        for (char ch : text.substr(0, 40)) shown += (ch > 0x20 && ch < 0x7f) ? ch : '?';
        throw UsageError("the student's side answered '" + shown + "' for kYourCutoff (labs/lab3/strassen.h): not a cutoff");
    }
    return std::stoll(text);
}

}  // namespace

std::int64_t your_cutoff() {
    static const std::int64_t choice = ask_your_cutoff();
    return choice;
}

MatmulFn strassen_fn(StrassenMatmul fn, std::int64_t choice) {
    return [fn, choice](const float* A, const float* B, float* C, Shape s, const StageParams& p) {
        fn(A, B, C, s.M, s.N, s.K, cutoff_of(p, choice));
    };
}

}  // namespace mml::lab3

namespace {

using namespace mml;
using lab3::cutoff_of;

// Strassen levels a run of this shape goes through at this cutoff (0: the kernel alone).
int strassen_levels(Shape s, std::int64_t cutoff) {
    int levels = 0;
    for (; !common::lab3::stops_at_base_case(s, cutoff); s = common::lab3::halves(s)) ++levels;
    return levels;
}

// Lab 3's target judges what the student decides: whether the Strassen level
// pays. One level replaces 8 half-size products by 7 - it saves 1/8 of the
// kernel's time - and pays that back in operand sums and combinations (tasks
// 1 and 2) and in every level below it (the cutoff, task 3). So the goal is
// the model's break-even: the student's Strassen faster than the classical
// kernel it stops at (lab3.classical, the same code below the cutoff), at the
// largest size and the cutoff the run used. The reference, at the same
// cutoff in the same run, tells which decision a miss comes from.
TargetVerdict at_cutoff(Shape largest, std::int64_t cutoff, const Measurement& own, const Measurement* ref,
                        const Measurement& classical) {
    const int levels = strassen_levels(largest, cutoff);
    const std::string where = shape_text(largest) + ", cutoff " + std::to_string(cutoff);
    if (levels == 0)  // nothing to judge: the row is the kernel itself
        return {false, "at " + where + " no Strassen level runs (the recursion stops when any dimension is <= the "
                       "cutoff), so your row is the classical kernel alone: give a cutoff below the smallest "
                       "dimension (task 3 in handouts/lab3.md: choose it from mmlab crossover --impl student)",
                false, false};
    const TimeRatio r = time_ratio(classical, own);  // > 1: your Strassen is faster than the kernel
    TargetVerdict v;
    v.met = r.value > 1.0;
    v.explanation = "your Strassen runs " + fixed(r.value, 2) + "x as fast as the classical kernel it stops at (goal: " +
                    "above 1.00, where a level's 1/8 fewer multiplications outweigh what it adds) at " + where + " (" +
                    std::to_string(levels) + (levels == 1 ? " level" : " levels") + ")";
    if (ref) v.explanation += "; the reference: " + fixed(classical.median_seconds / ref->median_seconds, 2) + "x";
    // A miss beyond the repetitions' noise: which decision it comes from. (A miss
    // inside it gets no advice: inside_noise below makes it INCONCLUSIVE.)
    if (!v.met && r.high < 1.0) {
        // Which decision: the reference, same cutoff, same run. Beyond its own
        // noise below 1 too, with levels below the first: the cutoff recurses
        // where a level no longer pays. Beyond it above 1: the same levels pay
        // with the reference's sums and combinations, so the gap is the code's.
        const bool ref_loses = ref && time_ratio(classical, *ref).high < 1.0;
        const bool ref_pays = ref && time_ratio(classical, *ref).low > 1.0;
        if (ref_loses && levels == 1) {
            // The reference's one level did not pay in this run either: the machine, not the code.
            v.inconclusive = true;
            v.explanation += "; but the reference's one level did not pay in this run either, so this machine did "
                             "not let one level pay at this size while it was timed";
        } else if (ref_loses) {
            v.explanation += " - the reference loses too at this cutoff: the deepest levels work on blocks below "
                             "the size where one level pays, and cost more than the 1/8 they save; revisit the cutoff "
                             "(task 3 in handouts/lab3.md: mmlab crossover --impl student, then a cutoff about half "
                             "the crossover)";
        } else if (ref_pays) {
            v.explanation += " - the reference pays at the same cutoff, so the gap is in your operand sums and "
                             "combinations (tasks 1 and 2): a single quadrant used as its view, not copied "
                             "(hint 3.1.1), no allocation in the recursion (hint 3.1.4), C walked along its rows "
                             "with the right strides (hint 3.2.3)";
            v.code_gap_shown = true;  // the same run shows the machine lets a level pay (as lab 5's judge)
        } else {
            v.explanation += " - a level costs what your operand sums and combinations add (tasks 1 and 2) and what "
                             "the levels below the cutoff lose (task 3): mmlab crossover --impl student shows both";
        }
    }
    // The repetitions on both sides of 1.00: no verdict, whatever the medians say.
    return inside_noise(v, r, 1.0, "your Strassen's speed as a share of the classical kernel's");
}

// make lab3 runs both versions of lab3.strassen at one cutoff, so that the
// reference tells which decision a miss comes from (the judge): --param
// cutoff=N where given (every version reads the run's parameters then), else
// the cutoff cutoff_of gives the version in your place - yours, or the
// reference's while yours is not chosen yet and under --solution.
void at_one_cutoff(std::vector<Job>& jobs, const StageParams& params) {
    if (params.values.count("cutoff")) return;
    bool yours_runs = false;
    for (const Job& j : jobs) yours_runs = yours_runs || (j.stage->name == "lab3.strassen" && j.runs == Impl::Student);
    StageParams at;  // what lab3.strassen reads: the threads and the cutoff
    at.threads = params.threads;
    at.values["cutoff"] = cutoff_of(params, yours_runs ? lab3::your_cutoff() : common::lab3::kDefaultCutoff);
    for (Job& j : jobs)
        if (j.stage->name == "lab3.strassen") {
            j.own_params = true;
            j.params = at;
        }
}

}  // namespace

namespace mml::lab3 {

TargetVerdict judge(const std::vector<Measurement>& rows, std::int64_t your_choice) {
    if (auto failed = first_failure(rows, Impl::Student)) return *failed;
    const Shape largest = largest_shape(rows);
    const Measurement* own = find_row(rows, "lab3.strassen", Impl::Student, largest);
    const Measurement* ref = find_row(rows, "lab3.strassen", Impl::Reference, largest);
    const Measurement* classical = find_row(rows, "lab3.classical", Impl::Reference, largest);
    if (!own || !classical)
        return {false, "lab3.strassen and lab3.classical were not both timed at " + shape_text(largest), false, false};
    // The reference's code in your row (--solution) ran at the reference's choice.
    const bool yours = own->runs == Impl::Student;
    const std::int64_t cutoff = cutoff_of(own->params, yours ? your_choice : common::lab3::kDefaultCutoff);
    if (ref && cutoff_of(ref->params, common::lab3::kDefaultCutoff) != cutoff) ref = nullptr;  // not the same cutoff
    const TargetVerdict v = at_cutoff(largest, cutoff, *own, ref, *classical);
    if (!yours || your_choice > 0) return v;
    // Task 3 not done: never MET, whatever the timing (nor INCONCLUSIVE: no
    // load makes a choice), and what tasks 1 and 2 give at the cutoff timed.
    TargetVerdict not_chosen;
    not_chosen.speed = false;
    not_chosen.explanation =
        "your cutoff is not chosen yet: task 3 in handouts/lab3.md - measure with mmlab crossover --impl student "
        "and set kYourCutoff in labs/lab3/strassen.h; meanwhile, timed at " +
        (cutoff == common::lab3::kDefaultCutoff ? std::string("the reference's cutoff")
                                                : "--param cutoff=" + std::to_string(cutoff)) +
        ": " + v.explanation + (v.met ? " - so tasks 1 and 2 pay there" : "");
    return not_chosen;
}

}  // namespace mml::lab3

namespace {

Registrar lab3_stages([](Registry& reg) {
    // The classical kernel is given code, not an answer: like a peer row, it
    // has no student version, and its function is there in every build.
    reg.add(make_stage(3, "classical",
                       "the classical base case alone (blocked i-k-j, AVX2 when present): Strassen's yardstick", {},
                       from_plain(common::lab3::matmul_classical)));

    Stage strassen =
        make_stage(3, "strassen",
                   "Strassen, 7 products a level, peeling for odd sizes, one workspace (cutoff: your kYourCutoff, "
                   "or --param cutoff=N)",
                   lab3::strassen_fn(student::lab3::matmul_strassen, student::lab3::kYourCutoff),
                   {});  // the reference: references.cpp
    // Without --param each version runs at its own cutoff, and the bound is not
    // told which version ran: the looser of the two (more levels, a larger
    // bound), so that neither is checked against a tighter bound than its own.
    strassen.bound = [](Shape s, const StageParams& p) {
        const ErrorBound reference = common::lab3::strassen_bound(s, cutoff_of(p, common::lab3::kDefaultCutoff));
        if (p.values.count("cutoff")) return reference;  // the same for both
        const ErrorBound yours = common::lab3::strassen_bound(s, cutoff_of(p, lab3::your_cutoff()));
        return yours.factor > reference.factor ? yours : reference;
    };
    strassen.param_names = {"cutoff"};
    strassen.task = "tasks 1 and 2";  // form_and_multiply and combine_into_c, labs/lab3/strassen.cpp
    strassen.check_params = [](const StageParams& p) { cutoff_of(p, common::lab3::kDefaultCutoff); };
    reg.add(std::move(strassen));

    Lab lab;
    lab.number = 3;
    lab.default_shapes = {{2048, 2048, 2048}};
    lab.target = "lab3.strassen correct at every shape and cutoff (the tests); at the largest size and your cutoff "
                 "(kYourCutoff, task 3), your Strassen faster than the classical kernel it stops at (a level saves 1/8 "
                 "of the multiplications: what it adds must cost less)";
    // Your cutoff as your side holds it (the runner's, in grading).
    lab.judge = [](const std::vector<Measurement>& rows) { return lab3::judge(rows, lab3::your_cutoff()); };
    lab.add_jobs = at_one_cutoff;
    // The x ijk column at this lab's sizes (the triple loop timed at 512^3 and scaled), and
    // the previous lab's best beside it (x prev).
    lab.baseline_limit_macs = kBaselineScaledMacs;
    lab.previous_best = "lab2.blocked";
    reg.add_lab(std::move(lab));
});

}  // namespace
