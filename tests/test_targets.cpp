// The rules every target judge shares (harness/targets.h), on made-up rows:
// no verdict from repetitions on both sides of a goal (labs 1 and 3 here;
// lab 5's in tests/test_lab5.cpp), none from a row above its measured peak,
// none from a peak a busy machine would not let be measured (cpu/peak.h's
// choice between this run's peak and the stored quiet one), and lab 5's
// bars on each kind of 2-core machine (AVX2 only, AVX-512, AVX-512 + AMX).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "cpu/matrix.h"
#include "cpu/verify.h"
#include "cpu/peak.h"
#include "harness/report.h"
#include "harness/run_stage.h"
#include "harness/stages/lab2/judge.h"
#include "harness/stages/lab3/cutoff_param.h"
#include "harness/stages/lab3/judge.h"
#include "harness/stages/lab9/phvm_clause.h"
#include "harness/targets.h"
#include "labs/common/strassen_plan.h"
#include "peers/openblas.h"
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

// make lab3's rows at 2048^3: the classical kernel 0.32 s; the student's and
// the reference's Strassen (median, fastest, slowest), both at `cutoff`
// (make lab3 gives them the same one; 0: no --param, each at its own).
std::vector<Measurement> lab3_rows(long long cutoff, double own, double lo, double hi, double ref, double ref_lo,
                                   double ref_hi) {
    const mml::Shape s{2048, 2048, 2048};
    std::vector<Measurement> r{row("lab3.strassen", Impl::Student, s, own, lo, hi),
                               row("lab3.strassen", Impl::Reference, s, ref, ref_lo, ref_hi),
                               row("lab3.classical", Impl::Reference, s, 0.32, 0.315, 0.325)};
    r[0].runs = Impl::Student;  // the student's code in the student's row (not --solution)
    if (cutoff > 0)
        for (Measurement& m : r) m.params.values["cutoff"] = cutoff;
    return r;
}

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

    // Lab 1 (and any lab judged the same way): one row of the student's moves (its median and repetitions' range), the others are
    // fixed; each try gives the verdict word and, where given, a phrase of the explanation.
    TEST_CASE("lab 1: a ratio whose repetitions span the goal is no verdict, unless it fails beyond its noise") {
        struct Try {
            double median, fastest, slowest;
            const char* word;
            const char* says;
        };
        struct Case {
            int lab;
            mml::Shape shape;
            const char* moving;  // the student's stage whose time moves
            std::vector<Measurement> fixed;
            std::vector<Try> tries;
        };
        const mml::Shape s1{512, 512, 512};
        const Case cases[] = {
            // Lab 1: your ikj's median 4.3x faster than your ijk (MET by the medians), its repetitions 3.6-5.0x;
            // ijk 2x the reference's time even at its fastest repetition: NOT MET, whatever the gain's noise.
            {1, s1, "lab1.ijk",
             {row("lab1.ijk", Impl::Reference, s1, 0.25, 0.25, 0.25), row("lab1.ikj", Impl::Student, s1, 0.060, 0.052, 0.070),
              row("lab1.ikj", Impl::Reference, s1, 0.02, 0.02, 0.02)},
             {{0.26, 0.25, 0.26, "INCONCLUSIVE", "your fastest order's gain over your ijk anywhere from 3.6x to 5.0x, across the 4.0x goal"},
              {0.60, 0.55, 0.65, "TARGET NOT MET", ""}}},
        };
        for (const Case& c : cases) {
            const mml::Lab* lab = mml::Registry::instance().find_lab(c.lab);
            REQUIRE(lab != nullptr);
            for (const Try& t : c.tries) {
                std::vector<Measurement> rows{row(c.moving, Impl::Student, c.shape, t.median, t.fastest, t.slowest)};
                rows.insert(rows.end(), c.fixed.begin(), c.fixed.end());
                const mml::TargetVerdict v = lab->judge(rows);
                INFO("lab " << c.lab << ", " << c.moving << " at " << t.median << " s: " << v.explanation);
                CHECK(mml::verdict_word(v) == t.word);
                CHECK(has(v.explanation, t.says));
            }
        }
    }

    TEST_CASE("lab 3 target: Strassen must beat the kernel it stops at; a naive recursion fails and is told what to revisit") {
        const auto rows = lab3_rows;
        // The decision when the student has chosen a cutoff: here 1024, the reference's (so the rows without
        // --param ran at the same cutoff); whatever labs/lab3/strassen.h holds.
        auto judge = [](const std::vector<Measurement>& r) { return mml::lab3::judge(r, 1024); };
        // A good recursion (one level at the chosen cutoff, 1.07x): met.
        const mml::TargetVerdict good = judge(rows(0, 0.30, 0.295, 0.305, 0.30, 0.295, 0.305));
        CHECK(mml::verdict_word(good) == "TARGET MET");
        CHECK(has(good.explanation, "1.07x as fast as the classical kernel"));
        CHECK(has(good.explanation, "cutoff 1024 (1 level)"));
        CHECK_FALSE(has(good.explanation, "not chosen"));
        // Recursing to 16 x 16 (7 levels): 1.6 s; the reference at the same cutoff loses too -> the cutoff.
        const mml::TargetVerdict deep = judge(rows(16, 1.6, 1.55, 1.65, 1.5, 1.45, 1.55));
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
        const mml::TargetVerdict slow = judge(rows(0, 0.36, 0.355, 0.365, 0.30, 0.295, 0.305));
        CHECK(mml::verdict_word(slow) == "TARGET NOT MET");
        CHECK(has(slow.explanation, "gap is in your operand sums and combinations (tasks 1 and 2)"));
        CHECK(has(slow.explanation, "hint 3.1.4"));
        CHECK(slow.code_gap_shown);  // the reference paid in the same run: a busy machine does not excuse it
        CHECK(mml::verdict_word(mml::settle(slow, "the load average is 9.0 on 2 cores")) == "TARGET NOT MET");
        // The reference's one level loses too (a machine that did not let a level pay while timed): no verdict.
        const mml::TargetVerdict machine = judge(rows(0, 0.36, 0.355, 0.365, 0.35, 0.345, 0.355));
        CHECK(mml::verdict_word(machine) == "INCONCLUSIVE");
        CHECK(has(machine.explanation, "the reference's one level did not pay in this run either"));
        // The repetitions on both sides of 1.00 (0.30-0.34 s against 0.315-0.325): no verdict.
        const mml::TargetVerdict noisy = judge(rows(0, 0.31, 0.30, 0.34, 0.30, 0.295, 0.305));
        CHECK(mml::verdict_word(noisy) == "INCONCLUSIVE");
        CHECK(has(noisy.explanation, "across the 100% goal"));
        CHECK_FALSE(has(noisy.explanation, "gap is in your"));  // no advice from a miss the noise may have made
        // A cutoff at or above the size: no level ran, the row is the kernel itself: not met, and why.
        const mml::TargetVerdict none = judge(rows(2048, 0.32, 0.315, 0.325, 0.32, 0.315, 0.325));
        CHECK(mml::verdict_word(none) == "TARGET NOT MET");
        CHECK(has(none.explanation, "no Strassen level runs"));
        // A chosen cutoff of 256 in rows without --param: yours ran at 256 (3 levels), the reference at its
        // own 1024 - not the same cutoff, so the reference is not read for advice.
        const mml::TargetVerdict own_256 = mml::lab3::judge(rows(0, 0.36, 0.355, 0.365, 0.30, 0.295, 0.305), 256);
        CHECK(has(own_256.explanation, "cutoff 256 (3 levels)"));
        CHECK_FALSE(has(own_256.explanation, "the reference"));
        // The untouched starter: not written yet, no timing read.
        std::vector<Measurement> starter = rows(0, 0.30, 0.295, 0.305, 0.30, 0.295, 0.305);
        starter[0].passed = false;
        starter[0].failure = "not written yet: tasks 1 and 2 in handouts/lab3.md";
        CHECK(has(mml::lab3::judge(starter, 0).explanation, "not written yet: tasks 1 and 2"));
        CHECK_FALSE(has(mml::lab3::judge(starter, 0).explanation, "task 3"));
    }

    TEST_CASE("lab 3 target: a cutoff not chosen yet (kYourCutoff 0) is never met, and names task 3") {
        const auto rows = lab3_rows;  // both versions at `cutoff`, as make lab3 runs them
        const std::string task3 = "your cutoff is not chosen yet: task 3 in handouts/lab3.md - measure with mmlab "
                                  "crossover --impl student and set kYourCutoff in labs/lab3/strassen.h";
        // Tasks 1 and 2 pay at the reference's cutoff (1.07x): still not met, task 3 named, and that they pay.
        const std::vector<Measurement> pays = rows(common::lab3::kDefaultCutoff, 0.30, 0.295, 0.305, 0.30, 0.295, 0.305);
        const mml::TargetVerdict v = mml::lab3::judge(pays, 0);
        CHECK(mml::verdict_word(v) == "TARGET NOT MET");
        CHECK(v.explanation.rfind(task3, 0) == 0);  // the first thing said
        CHECK(has(v.explanation, "timed at the reference's cutoff: your Strassen runs 1.07x"));
        CHECK(has(v.explanation, "tasks 1 and 2 pay there"));
        CHECK_FALSE(v.speed);  // not a timing: no load makes it INCONCLUSIVE
        CHECK(mml::verdict_word(mml::settle(v, "the load average is 9.0 on 2 cores")) == "TARGET NOT MET");
        // The same rows with the cutoff chosen: as before, met.
        CHECK(mml::verdict_word(mml::lab3::judge(pays, common::lab3::kDefaultCutoff)) == "TARGET MET");
        // Tasks 1 and 2 do not pay yet where the reference does: task 3 first, then their advice.
        const mml::TargetVerdict slow =
            mml::lab3::judge(rows(common::lab3::kDefaultCutoff, 0.36, 0.355, 0.365, 0.30, 0.295, 0.305), 0);
        CHECK(mml::verdict_word(slow) == "TARGET NOT MET");
        CHECK(has(slow.explanation, task3));
        CHECK(has(slow.explanation, "gap is in your operand sums and combinations (tasks 1 and 2)"));
        CHECK_FALSE(has(slow.explanation, "pay there"));
        // A run given --param cutoff=512 says so (the timing is at 512, not at the reference's cutoff).
        const mml::TargetVerdict tried = mml::lab3::judge(rows(512, 0.30, 0.295, 0.305, 0.30, 0.295, 0.305), 0);
        CHECK(has(tried.explanation, task3));
        CHECK(has(tried.explanation, "timed at --param cutoff=512"));
        // --solution (the reference's code in your row) runs at the reference's choice: judged, met.
        std::vector<Measurement> solution = pays;
        solution[0].runs = Impl::Reference;
        CHECK(mml::verdict_word(mml::lab3::judge(solution, 0)) == "TARGET MET");
        // make lab3's judge reads the student's own kYourCutoff (through the student's side: the runner's in grading).
        const mml::Lab* lab = mml::Registry::instance().find_lab(3);
        REQUIRE(lab != nullptr);
        CHECK(lab->judge(pays).explanation == mml::lab3::judge(pays, mml::lab3::your_cutoff()).explanation);
    }

    TEST_CASE("lab 2 target: blocking must beat the interchange where B is larger than the last-level cache") {
        const mml::Lab* lab = mml::Registry::instance().find_lab(2);
        REQUIRE(lab != nullptr);
        const mml::Shape s{144, 4000, 4000};  // B = 61 MiB: lab 2's judged shape
        const mml::Shape small{1000, 1000, 1000};
        // The decision from the judge's rounds (harness/stages/lab2/judge.h); here the rows
        // stand for both alternations: yours (with the reference's interchange) and the reference's.
        auto decide = [](const std::vector<Measurement>& r) { return mml::lab2::decide(r, r); };
        // Every stage correct; your interchanged 1.0 s; your blocked and the reference's rows as given.
        auto rows = [&](double own, double lo, double hi, double ref_inter, double ref_blocked) {
            return std::vector<Measurement>{row("lab2.blocked", Impl::Student, s, own, lo, hi),
                                            row("lab2.interchanged", Impl::Student, s, 1.0, 0.98, 1.02),
                                            row("lab2.transposed", Impl::Student, s, 5.0, 4.9, 5.1),
                                            row("lab2.interchanged", Impl::Reference, s, ref_inter, ref_inter, ref_inter),
                                            row("lab2.blocked", Impl::Reference, s, ref_blocked, ref_blocked, ref_blocked),
                                            row("lab1.ijk", Impl::Reference, small, 1.1, 1.1, 1.1),
                                            row("lab2.interchanged", Impl::Student, small, 0.16, 0.16, 0.16)};
        };
        // A correct blocking (the plain loop measured 1.3-2.1x, the reference 3.3-4.3x): met.
        const mml::TargetVerdict good = decide(rows(0.5, 0.49, 0.51, 1.0, 0.26));
        CHECK(mml::verdict_word(good) == "TARGET MET");
        CHECK(has(good.explanation, "2.00x as fast as your lab2.interchanged at 144x4000x4000"));
        // The interchange again in lab2.blocked (the blocks ignored): 1.0x, the reference's blocking 3.8x -> NOT MET,
        // the task and hints named, and a busy machine does not excuse it (the reference gained in the same run).
        const mml::TargetVerdict same = decide(rows(1.0, 0.98, 1.02, 1.0, 0.26));
        CHECK(mml::verdict_word(same) == "TARGET NOT MET");
        CHECK(has(same.explanation, "gap is in your task 3"));
        CHECK(has(same.explanation, "hint 2.3.1"));
        CHECK(has(same.explanation, "task 4"));
        CHECK(same.code_gap_shown);
        CHECK(mml::verdict_word(mml::settle(same, "the load average is 5.0 on 2 cores")) == "TARGET NOT MET");
        // The interchange alone is 36x the baseline at 1024^3 (its 4 KiB strides) - no longer what is judged.
        std::vector<Measurement> fast_ijk = rows(1.0, 0.98, 1.02, 1.0, 0.26);
        fast_ijk.push_back(row("lab1.ijk", Impl::Reference, {1024, 1024, 1024}, 5.8, 5.8, 5.8));
        fast_ijk.push_back(row("lab2.interchanged", Impl::Student, {1024, 1024, 1024}, 0.16, 0.16, 0.16));
        CHECK(mml::verdict_word(decide(fast_ijk)) == "TARGET NOT MET");
        // A slow task 1 (5 s) does not make the blocks look good: judged against the faster interchange.
        std::vector<Measurement> slow_task1 = rows(1.0, 0.98, 1.02, 1.0, 0.26);
        slow_task1[1] = row("lab2.interchanged", Impl::Student, s, 5.0, 4.9, 5.1);
        const mml::TargetVerdict slow1 = decide(slow_task1);
        CHECK(mml::verdict_word(slow1) == "TARGET NOT MET");
        CHECK(has(slow1.explanation, "1.00x as fast as the reference's lab2.interchanged"));
        // Blocks of 4 (the loop overhead, 0.4x): NOT MET.
        CHECK(mml::verdict_word(decide(rows(2.4, 2.3, 2.5, 1.0, 0.26))) == "TARGET NOT MET");
        // Repetitions on both sides of 1.3x (1.18-1.46x): no verdict, no advice.
        const mml::TargetVerdict noisy = decide(rows(0.78, 0.70, 0.83, 1.0, 0.26));
        CHECK(mml::verdict_word(noisy) == "INCONCLUSIVE");
        CHECK(has(noisy.explanation, "across the 1.3x goal"));
        CHECK_FALSE(has(noisy.explanation, "gap is in your"));
        // The reference's blocking gains only 1.1x too (load on the memory, or an L3 that holds B): no verdict.
        const mml::TargetVerdict machine = decide(rows(0.9, 0.89, 0.91, 1.0, 0.9));
        CHECK(mml::verdict_word(machine) == "INCONCLUSIVE");
        CHECK(has(machine.explanation, "the reference's blocking gains only 1.1x"));
        // Only sizes whose B fits in the cache (SIZE=1000): no verdict, and where it is judged.
        const mml::TargetVerdict unjudged = lab->judge({row("lab2.blocked", Impl::Student, small, 0.1, 0.1, 0.1),
                                                        row("lab2.interchanged", Impl::Student, small, 0.16, 0.16, 0.16)});
        CHECK(mml::verdict_word(unjudged) == "TARGET NOT MET");
        CHECK_FALSE(unjudged.speed);
        CHECK(has(unjudged.explanation, "144x4000x4000"));
        // The untouched starter: not written yet, no timing read.
        std::vector<Measurement> starter = rows(0.5, 0.49, 0.51, 1.0, 0.26);
        starter[0].passed = false;
        starter[0].failure = "not written yet: task 3 in handouts/lab2.md";
        const mml::TargetVerdict unwritten = lab->judge(starter);
        CHECK(mml::verdict_word(unwritten) == "TARGET NOT MET");
        CHECK(has(unwritten.explanation, "not written yet: task 3 in handouts/lab2.md"));
        CHECK(mml::verdict_word(decide(starter)) == "TARGET NOT MET");
    }

    TEST_CASE("lab 2 judge: it times the pair itself in alternation; a load that fell between the table's rows fakes no gain") {
        const mml::Shape s{144, 4000, 4000};
        // The table: your lab2.blocked only calls the interchange, but the load fell between its rows: 2.1x.
        std::vector<Measurement> table{row("lab2.interchanged", Impl::Student, s, 1.05, 1.0, 1.1),
                                       row("lab2.transposed", Impl::Student, s, 5.0, 4.9, 5.1),
                                       row("lab2.blocked", Impl::Student, s, 0.5, 0.49, 0.51),
                                       row("lab2.interchanged", Impl::Reference, s, 1.1, 1.1, 1.1),
                                       row("lab2.blocked", Impl::Reference, s, 0.27, 0.27, 0.27)};
        for (auto& m : table) m.runs = m.impl;  // the student's code ran as the student's
        CHECK(mml::verdict_word(mml::lab2::decide(table, table)) == "TARGET MET");  // what reading the rows gave
        // The judge's rounds, in alternation: both at 1.0 s (1.0x); the reference's blocking 3.8x.
        const std::vector<Measurement> rounds{row("lab2.interchanged", Impl::Student, s, 1.0, 0.98, 1.02),
                                              row("lab2.blocked", Impl::Student, s, 1.0, 0.98, 1.02),
                                              row("lab2.interchanged", Impl::Reference, s, 1.0, 0.98, 1.02),
                                              row("lab2.blocked", Impl::Reference, s, 0.26, 0.25, 0.27)};
        std::vector<std::vector<std::string>> asked;  // each call's jobs: "stage/impl"
        auto timer = [&](const std::vector<mml::Job>& jobs) {
            std::vector<Measurement> out;
            asked.emplace_back();
            for (const mml::Job& j : jobs) {
                asked.back().push_back(j.stage->name + "/" + mml::impl_name(j.impl));
                const Measurement* m = mml::find_row(rounds, j.stage->name, j.impl, j.shape);
                REQUIRE(m != nullptr);
                out.push_back(*m);
            }
            return out;
        };
        const mml::TargetVerdict v = mml::lab2::judge(table, timer);
        INFO(v.explanation);
        CHECK(mml::verdict_word(v) == "TARGET NOT MET");
        CHECK(has(v.explanation, "1.00x as fast as your lab2.interchanged"));
        CHECK(has(v.explanation, "medians of 5 interleaved rounds"));
        CHECK(v.code_gap_shown);  // the reference, timed the same way after the miss, gained 3.8x
        REQUIRE(asked.size() == 2);
        CHECK(asked[0] == std::vector<std::string>{"lab2.interchanged/student", "lab2.blocked/student"});
        CHECK(asked[1] == std::vector<std::string>{"lab2.interchanged/reference", "lab2.blocked/reference"});
        // Under --solution your rows are the reference's code: one alternation, no second one.
        std::vector<Measurement> solution = table;
        for (auto& m : solution) m.runs = Impl::Reference;
        asked.clear();
        const mml::TargetVerdict sol = mml::lab2::judge(solution, timer);
        CHECK(asked.size() == 1);
        CHECK(mml::verdict_word(sol) == "INCONCLUSIVE");  // the rounds' 1.0x: the reference missing its own target
    }

    TEST_CASE("lab 9's PHVM clause: a copy of BasicMM fails it; a GPU where the reference misses too is no verdict") {
        using mml::lab9::judge_phvm_gain;
        const double ref_h100 = 2.3, ref_cached = 1.2;  // the reference's ratio: H100 (handout), a made-up cache-friendly GPU
        // The grid stride at the reference's speed: met.
        const auto coalesced = judge_phvm_gain(2.5, &ref_h100);
        CHECK(coalesced.met);
        CHECK(coalesced.text == "PHVM 2.5x BasicMM");
        // PHVM written with BasicMM's contiguous segments: about 1x, which
        // the old "> 1.0" bar passed when noise favoured it. Not met, task 1 named.
        const auto copy = judge_phvm_gain(1.04, &ref_h100);
        CHECK_FALSE(copy.met);
        CHECK_FALSE(copy.inconclusive);
        CHECK(copy.text.find("goal >= 1.5x") != std::string::npos);
        CHECK(copy.text.find("task 1") != std::string::npos);
        // Under --solution (no reference rows beside) a miss is the code's.
        CHECK_FALSE(judge_phvm_gain(1.04, nullptr).inconclusive);
        // The reference misses 1.5x in the same run: the GPU cannot tell.
        const auto cached = judge_phvm_gain(1.1, &ref_cached);
        CHECK_FALSE(cached.met);
        CHECK(cached.inconclusive);
        CHECK(cached.text.find("the reference's PHVM is 1.2x") != std::string::npos);
        // The bar itself: exactly 1.5x meets it.
        CHECK(judge_phvm_gain(1.5, &ref_h100).met);
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

    TEST_CASE("the peak on a busy 2-core machine: the stored quiet one, or no verdict; never half of it") {
        using mml::PeakSpread;
        auto measured = [](double best, double lowest, double others) {
            PeakSpread p;
            p.best = best;
            p.second = 0.98 * best;
            p.lowest = lowest;
            p.others_busy_cores = others;
            return p;
        };
        const int cores = 2;
        // Quiet (others idle, the runs within 10 %): used as measured, and worth storing.
        const PeakSpread quiet = measured(209.4, 200.0, 0.05);
        CHECK(mml::peak_quiet(quiet));
        const PeakSpread q = mml::choose_peak(quiet, {}, 1, cores);
        CHECK(q.best == 209.4);
        CHECK_FALSE(q.stored);
        CHECK(q.unsure.empty());
        // The busy run: 81.7 GFLOP/s on 1 thread while others used 1.8 of the 2 cores. With the
        // quiet peak stored, that one is used (within 15 % of the quiet one: it is the quiet one), and said.
        const PeakSpread busy = measured(81.7, 60.0, 1.8);
        CHECK_FALSE(mml::peak_quiet(busy));
        CHECK(mml::peak_contended(busy, 1, cores));
        const PeakSpread kept = mml::choose_peak(busy, {209.4, 205.0}, 1, cores);
        CHECK(kept.stored);
        CHECK(kept.best == 209.4);
        CHECK(kept.measured == 81.7);
        CHECK(kept.unsure.empty());
        CHECK(mml::peak_tolerance(kept) == doctest::Approx((209.4 - 205.0) / 209.4));  // the stored runs' gap
        CHECK(has(mml::peak_spread_note(kept), "this run measured 81.7 GFLOP/s while other programs used the cores (1.8 cores' worth): % peak divides by this machine's stored quiet peak"));
        // Below the stored peak with the others idle (an idle GPU host's clock moved):
        // the note blames the clock, never "other programs used the cores (0.0 cores' worth)".
        PeakSpread clock = kept;
        clock.measured = 161.2;
        clock.others_busy_cores = 0.01;
        const std::string clock_note = mml::peak_spread_note(clock);
        CHECK(has(clock_note, "this run measured 161.2 GFLOP/s while other programs were idle (0.01 cores' worth: the CPU's clock moved)"));
        CHECK_FALSE(has(clock_note, "used the cores"));
        // Nothing stored: no peak to divide by, said; every speed verdict of the run is INCONCLUSIVE (below).
        const PeakSpread none = mml::choose_peak(busy, {}, 1, cores);
        CHECK_FALSE(none.stored);
        CHECK(has(none.unsure, "the 1-thread peak could not be measured: other programs used 1.8 of the 2 cores' time"));
        CHECK(has(mml::peak_spread_note(none), "no speed verdict from this run"));
        // One program beside a 1-thread peak on 2 cores leaves it a core of its own: trusted (not stored);
        // the 2-thread peak needs both cores: not.
        const PeakSpread beside = measured(205.0, 195.0, 1.0);
        CHECK_FALSE(mml::peak_contended(beside, 1, cores));
        CHECK(mml::peak_contended(beside, 2, cores));
        CHECK(mml::choose_peak(beside, {}, 1, cores).unsure.empty());
        CHECK_FALSE(mml::choose_peak(beside, {}, 2, cores).unsure.empty());
        // Busy, yet above the stored one: the higher, measured now.
        const PeakSpread higher = mml::choose_peak(measured(215.0, 150.0, 1.5), {209.4, 205.0}, 1, cores);
        CHECK_FALSE(higher.stored);
        CHECK(higher.best == 215.0);
        // An idle machine whose clock moved the runs 20 % (turbo): trusted, not stored. No /proc/stat: trusted.
        CHECK_FALSE(mml::peak_quiet(measured(175.1, 139.6, 0.03)));
        CHECK(mml::choose_peak(measured(175.1, 139.6, 0.03), {}, 1, cores).unsure.empty());
        CHECK(mml::choose_peak(measured(100.0, 50.0, -1), {}, 1, cores).unsure.empty());

        // A row whose peak could not be measured: no verdict, met or missed; a wrong result stays NOT MET.
        Measurement r = mml::testing::made_up_row("lab4.pthreads", Impl::Student, {512, 512, 512}, 0.01);
        r.peak_unsure = none.unsure;
        const mml::TargetVerdict met{true, "4.1x", false, true};
        const mml::TargetVerdict v = mml::distrust_impossible(met, {r});
        CHECK(mml::verdict_word(v) == "INCONCLUSIVE");
        CHECK(has(v.explanation, "could not be measured"));
        mml::TargetVerdict gap{false, "the gap is in your code", false, true};
        gap.code_gap_shown = true;
        CHECK(mml::verdict_word(mml::distrust_impossible(gap, {r})) == "INCONCLUSIVE");
        const mml::TargetVerdict wrong{false, "lab4.pthreads is wrong", false, false};
        CHECK(mml::verdict_word(mml::distrust_impossible(wrong, {r})) == "TARGET NOT MET");
    }

    // The three kinds of 2-core machine that CI and students run on, as a run's rows show them: the SIMD
    // level the peak was measured with, and whether make lab5 adds the AVX2 rows (--param simd=8:
    // add_avx2_rows, where the CPU has AVX-512). AMX has no float32 path (the lab's kernels and OpenBLAS's
    // sgemm run AVX-512 there), so an AMX machine must judge exactly as an AVX-512 one, naming no AMX.
    TEST_CASE("every rule on every 2-core machine kind: AVX2 only, AVX-512, AVX-512 + AMX") {
        struct Kind {
            const char* name;
            const char* simd;
            bool avx2_rows;
        };
        const Kind kinds[] = {{"AVX2 only", "AVX2+FMA", false},
                              {"AVX-512", "AVX-512", true},
                              {"AVX-512 + AMX", "AVX-512", true}};
        const mml::Lab* lab5 = mml::Registry::instance().find_lab(5);
        REQUIRE(lab5 != nullptr);
        const mml::Shape s{2048, 2048, 2048};
        for (const Kind& k : kinds) {
            // A row of a 2-thread lab 5 run there: --param simd (0: none), the kernel set it ran.
            auto lab5_row = [&](const char* stage, Impl impl, double median, double spread, long long simd,
                                const char* set) {
                Measurement m = row(stage, impl, s, median, median * (1 - spread), median * (1 + spread));
                if (simd) m.params.values["simd"] = simd;
                m.kernel_set = set;
                m.threads = 2;
                m.peak_simd = k.simd;
                m.percent_of_peak = 60;
                m.peak_ceiling_percent = 103;
                return m;
            };
            // A student who wrote only the required AVX2 set, at `share` of the same-width bar (OpenBLAS on
            // an AVX2 machine; the reference's AVX2 path, 73 % of OpenBLAS, where the peers run AVX-512),
            // its repetitions `spread` either side of the median.
            auto run = [&](double share, double spread) {
                const double bar = k.avx2_rows ? 1.37 : 1.0, own = bar / share;
                std::vector<Measurement> rows{
                    lab5_row("lab5.blis", Impl::Student, own, spread, 0, "AVX2+FMA"),
                    lab5_row("lab5.blis", Impl::Reference, 1.0, 0.01, 0, k.simd),
                    lab5_row("lab5.openblas", Impl::Reference, 1.0, 0.01, 0, "")};
                if (k.avx2_rows) {
                    rows.push_back(lab5_row("lab5.blis", Impl::Student, own, spread, 8, "AVX2+FMA"));
                    rows.push_back(lab5_row("lab5.blis", Impl::Reference, bar, 0.01, 8, "AVX2+FMA"));
                }
                return rows;
            };
            // make labN's last steps (harness/commands/lab.cpp), on a quiet machine.
            auto verdict = [&](const std::vector<Measurement>& rows) {
                return mml::distrust_impossible(mml::settle(lab5->judge(rows), ""), rows);
            };
            auto no_wider_word = [&](std::string text) {
                // The judge adds this process's own OpenBLAS's warnings (an environment's OPENBLAS_CORETYPE
                // on this CPU): that part is the machine the test runs on, not the kind it plays.
                const std::string live = mml::peers::openblas_weaker_than_cpu();
                for (std::size_t at; !live.empty() && (at = text.find(live)) != std::string::npos;) text.erase(at, live.size());
                CHECK_FALSE(has(text, "AMX"));
                if (!k.avx2_rows) {  // an AVX2 machine hears of no AVX-512 row or advice
                    CHECK_FALSE(has(text, "AVX-512"));
                    CHECK_FALSE(has(text, "simd=16"));
                }
            };
            INFO(k.name);
            // The required set at 80 % of the same-width bar: MET, against that bar.
            const mml::TargetVerdict good = verdict(run(0.80, 0.0));
            INFO(good.explanation);
            CHECK(mml::verdict_word(good) == "TARGET MET");
            CHECK(has(good.explanation, std::string("% of the measured ") + k.simd + " peak"));
            CHECK(has(good.explanation, "same-width bar") == k.avx2_rows);
            CHECK_FALSE(has(good.explanation, "gap is in your code"));
            no_wider_word(good.explanation);
            // At 55 %: NOT MET, the gap named as the code's (the bar ran beside it at the same width).
            const mml::TargetVerdict slow = verdict(run(0.55, 0.0));
            INFO(slow.explanation);
            CHECK(mml::verdict_word(slow) == "TARGET NOT MET");
            CHECK(has(slow.explanation, "gap is in your code"));
            no_wider_word(slow.explanation);
            // Noisy: a median of 80 % whose repetitions span 68-92 %: no verdict.
            const mml::TargetVerdict noisy = verdict(run(0.80, 0.12));
            INFO(noisy.explanation);
            CHECK(mml::verdict_word(noisy) == "INCONCLUSIVE");
            CHECK(has(noisy.explanation, "across the 75% goal"));
            no_wider_word(noisy.explanation);
            // Above the measured peak (the 144 % of a busy machine's peak): no verdict, the peak named.
            std::vector<Measurement> above = run(0.80, 0.0);
            above[0].percent_of_peak = 144;
            const mml::TargetVerdict impossible = verdict(above);
            INFO(impossible.explanation);
            CHECK(mml::verdict_word(impossible) == "INCONCLUSIVE");
            CHECK(has(impossible.explanation, std::string("ran at 144% of the measured 2-thread ") + k.simd + " peak"));
            no_wider_word(impossible.explanation);
            // The 2-thread peak not measurable (others held the cores, nothing stored): no verdict.
            std::vector<Measurement> busy = run(0.55, 0.0);
            for (Measurement& m : busy) m.peak_unsure = "the 2-thread peak could not be measured: other programs used 1.9 of the 2 cores' time";
            CHECK(mml::verdict_word(verdict(busy)) == "INCONCLUSIVE");
        }
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
