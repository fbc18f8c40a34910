// The rules every target judge shares (harness/targets.h), on made-up rows:
// no verdict from repetitions on both sides of a goal (labs 1 and 3 here;
// lab 5's in tests/test_lab5.cpp), none from a row above its measured peak.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "cpu/matrix.h"
#include "cpu/verify.h"
#include "harness/run_stage.h"
#include "harness/targets.h"
#include "tests/made_up_row.h"

namespace {

using mml::Impl;
using mml::Measurement;

// A row with its repetitions' range (seconds).
Measurement row(const char* stage, Impl impl, mml::Shape s, double median, double fastest, double slowest) {
    Measurement m = mml::testing::made_up_row(stage, impl, s, median);
    m.fastest_seconds = fastest;
    m.slowest_seconds = slowest;
    m.repetitions = 5;
    return m;
}

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

}  // namespace

TEST_SUITE("targets") {
    TEST_CASE("time_ratio: the median's ratio and the range of the repetitions (none on made-up rows)") {
        const mml::Shape s{512, 512, 512};
        const mml::TimeRatio r = mml::time_ratio(row("a", Impl::Reference, s, 1.0, 0.9, 1.2),
                                                 row("b", Impl::Student, s, 2.0, 1.8, 2.4));
        CHECK(r.value == doctest::Approx(0.5));
        CHECK(r.low == doctest::Approx(0.9 / 2.4));
        CHECK(r.high == doctest::Approx(1.2 / 1.8));
        const mml::TimeRatio bare = mml::time_ratio(mml::testing::made_up_row("a", Impl::Reference, s, 1.0),
                                                    mml::testing::made_up_row("b", Impl::Student, s, 2.0));
        CHECK(bare.low == bare.value);
        CHECK(bare.high == bare.value);
    }

    TEST_CASE("lab 1 target: a gain whose repetitions span 4x is no verdict, unless the other goal fails beyond its noise") {
        const mml::Lab* lab = mml::Registry::instance().find_lab(1);
        REQUIRE(lab != nullptr);
        const mml::Shape s{512, 512, 512};
        // Your ikj's median 4.3x faster than your ijk (MET by the medians), its repetitions 3.6-5.0x.
        auto rows = [&](double own_ijk, double ijk_lo, double ijk_hi) {
            return std::vector<Measurement>{row("lab1.ijk", Impl::Student, s, own_ijk, ijk_lo, ijk_hi),
                                            row("lab1.ijk", Impl::Reference, s, 0.25, 0.25, 0.25),
                                            row("lab1.ikj", Impl::Student, s, 0.060, 0.052, 0.070),
                                            row("lab1.ikj", Impl::Reference, s, 0.02, 0.02, 0.02)};
        };
        const mml::TargetVerdict v = lab->judge(rows(0.26, 0.25, 0.26));
        CHECK(mml::verdict_word(v) == "INCONCLUSIVE");
        CHECK(has(v.explanation, "your fastest order's gain over your ijk anywhere from 3.6x to 5.0x, across the 4.0x goal"));
        // ijk 2x the reference's time even at its fastest repetition: NOT MET, whatever the gain's noise.
        CHECK(mml::verdict_word(lab->judge(rows(0.60, 0.55, 0.65))) == "TARGET NOT MET");
    }

    TEST_CASE("lab 3 target: Strassen must beat the kernel it stops at; a naive recursion fails and is told what to revisit") {
        const mml::Lab* lab = mml::Registry::instance().find_lab(3);
        REQUIRE(lab != nullptr);
        const mml::Shape s{2048, 2048, 2048};
        // The classical kernel 0.32 s; the student's and the reference's Strassen at `cutoff` (0: the default).
        auto rows = [&](long long cutoff, double own, double lo, double hi, double ref, double ref_lo, double ref_hi) {
            std::vector<Measurement> r{row("lab3.strassen", Impl::Student, s, own, lo, hi),
                                       row("lab3.strassen", Impl::Reference, s, ref, ref_lo, ref_hi),
                                       row("lab3.classical", Impl::Reference, s, 0.32, 0.315, 0.325)};
            if (cutoff > 0)
                for (Measurement& m : r) m.params.values["cutoff"] = cutoff;
            return r;
        };
        // A good recursion (one level at the default cutoff, 1.07x): met.
        const mml::TargetVerdict good = lab->judge(rows(0, 0.30, 0.295, 0.305, 0.30, 0.295, 0.305));
        CHECK(mml::verdict_word(good) == "TARGET MET");
        CHECK(has(good.explanation, "1.07x as fast as the classical kernel"));
        CHECK(has(good.explanation, "cutoff 1024 (1 level)"));
        // Recursing to 16 x 16 (7 levels): 1.6 s; the reference at the same cutoff loses too -> the cutoff.
        const mml::TargetVerdict deep = lab->judge(rows(16, 1.6, 1.55, 1.65, 1.5, 1.45, 1.55));
        CHECK(mml::verdict_word(deep) == "TARGET NOT MET");
        CHECK(has(deep.explanation, "(7 levels)"));
        CHECK(has(deep.explanation, "revisit the cutoff (task 3"));
        CHECK(mml::verdict_word(mml::settle(deep, "")) == "TARGET NOT MET");
        // ... and on a busy machine no verdict (a load spike can slow one row 3x), the advice kept.
        const mml::TargetVerdict busy = mml::settle(deep, "the load average is 9.0 on 2 cores");
        CHECK(mml::verdict_word(busy) == "INCONCLUSIVE");
        CHECK(has(busy.explanation, "revisit the cutoff"));
        // One level whose sums and combinations cost more than the 1/8 (copies, an allocation, C walked by
        // columns): the reference pays at the same cutoff -> tasks 1 and 2, their hints.
        const mml::TargetVerdict slow = lab->judge(rows(0, 0.36, 0.355, 0.365, 0.30, 0.295, 0.305));
        CHECK(mml::verdict_word(slow) == "TARGET NOT MET");
        CHECK(has(slow.explanation, "gap is in your operand sums and combinations (tasks 1 and 2)"));
        CHECK(has(slow.explanation, "hint 3.1.4"));
        CHECK(slow.code_gap_shown);  // the reference paid in the same run: a busy machine does not excuse it
        CHECK(mml::verdict_word(mml::settle(slow, "the load average is 9.0 on 2 cores")) == "TARGET NOT MET");
        // The reference's one level loses too (a machine that did not let a level pay while timed): no verdict.
        const mml::TargetVerdict machine = lab->judge(rows(0, 0.36, 0.355, 0.365, 0.35, 0.345, 0.355));
        CHECK(mml::verdict_word(machine) == "INCONCLUSIVE");
        CHECK(has(machine.explanation, "the reference's one level did not pay in this run either"));
        // The repetitions on both sides of 1.00 (0.30-0.34 s against 0.315-0.325): no verdict.
        const mml::TargetVerdict noisy = lab->judge(rows(0, 0.31, 0.30, 0.34, 0.30, 0.295, 0.305));
        CHECK(mml::verdict_word(noisy) == "INCONCLUSIVE");
        CHECK(has(noisy.explanation, "across the 100% goal"));
        CHECK_FALSE(has(noisy.explanation, "gap is in your"));  // no advice from a miss the noise may have made
        // A cutoff at or above the size: no level ran, the row is the kernel itself: not met, and why.
        const mml::TargetVerdict none = lab->judge(rows(2048, 0.32, 0.315, 0.325, 0.32, 0.315, 0.325));
        CHECK(mml::verdict_word(none) == "TARGET NOT MET");
        CHECK(has(none.explanation, "no Strassen level runs"));
        // The untouched starter: not written yet, no timing read.
        std::vector<Measurement> starter = rows(0, 0.30, 0.295, 0.305, 0.30, 0.295, 0.305);
        starter[0].passed = false;
        starter[0].failure = "not written yet: tasks 1 and 2 in handouts/lab3.md";
        CHECK(has(lab->judge(starter).explanation, "not written yet"));
    }

    TEST_CASE("no verdict from a row above the measured peak, in any lab; within the peak's own spread it stands") {
        const mml::Shape s{512, 512, 512};
        Measurement fast = mml::testing::made_up_row("lab1.ikj", Impl::Student, s, 0.01);
        fast.percent_of_peak = 130;
        fast.peak_ceiling_percent = 102;
        const mml::TargetVerdict met{true, "4.1x", false, true};
        const mml::TargetVerdict v = mml::distrust_impossible(met, {fast});
        CHECK(mml::verdict_word(v) == "INCONCLUSIVE");
        CHECK(has(v.explanation, "lab1.ikj (student) ran at 130% of the measured 1-thread"));
        CHECK(has(v.explanation, "nothing runs above its peak"));
        fast.peak_ceiling_percent = 0;  // not checked (a GPU row)
        CHECK(mml::distrust_impossible(met, {fast}).met);
        fast.peak_ceiling_percent = 131;
        CHECK(mml::distrust_impossible(met, {fast}).met);
        // A 2-thread peak below the 1-thread one (lab 10's 123.7 vs 149.9 GFLOP/s): no verdict from that run.
        Measurement two = mml::testing::made_up_row("lab4.pthreads", Impl::Student, s, 0.01);
        two.threads = 2;
        two.peak_gflops = 123.7;
        two.peak_gflops_one_thread = 149.9;
        const mml::TargetVerdict low = mml::distrust_impossible(met, {two});
        CHECK(mml::verdict_word(low) == "INCONCLUSIVE");
        CHECK(has(low.explanation, "2-thread peak (123.7 GFLOP/s) came out below the 1-thread one (149.9)"));
        two.peak_gflops = 290;
        CHECK(mml::distrust_impossible(met, {two}).met);
        Measurement wrong = fast;
        wrong.passed = false;  // a wrong row's timing is not read
        wrong.peak_ceiling_percent = 102;
        CHECK(mml::distrust_impossible(met, {wrong}).met);
    }

    TEST_CASE("an untouched starter's stage: 'not written yet: task N in handouts/labN.md', no zeroing advice") {
        const mml::Shape s{3, 4, 5};
        mml::Matrix A(3, 5), B(5, 4), C(3, 4);
        mml::fill_inputs(A, B, 7);
        mml::poison(C);
        const mml::CheckResult none = mml::verify_product(A.data(), B.data(), C.data(), s, mml::classical_bound(s));
        CHECK(none.never_written);
        // One element written: partly written code, where the zeroing advice may apply.
        C.data()[0] = 1.0f;
        const mml::CheckResult part = mml::verify_product(A.data(), B.data(), C.data(), s, mml::classical_bound(s));
        CHECK_FALSE(part.never_written);
        CHECK(has(part.failure, "must set it to 0 first"));
        // The harness's message names the stage's task (in `make labN`'s table and every test).
        for (const auto& [stage, task] : {std::pair<const char*, const char*>{"lab1.ijk", "task 1 in handouts/lab1.md"},
                                          {"lab1.kji", "task 2 in handouts/lab1.md"},
                                          {"lab2.blocked", "task 3 in handouts/lab2.md"},
                                          {"lab3.strassen", "tasks 1 and 2 in handouts/lab3.md"},
                                          {"lab4.omp_dynamic", "task 3 in handouts/lab4.md"},
                                          {"lab5.blis", "tasks 3, 4 and 5 in handouts/lab5.md"}}) {
            const mml::Stage* st = mml::Registry::instance().find(stage);
            REQUIRE(st != nullptr);
            const std::string m = mml::not_written_message(*st);
            CHECK(has(m, std::string("not written yet: ") + task));
            CHECK_FALSE(has(m, "set it to 0"));
        }
    }
}
