// Lab 1: every loop order is correct on every test shape.
#include "harness/targets.h"
#include "tests/made_up_row.h"
#include "tests/stage_check.h"

using mml::testing::check_stage;

TEST_SUITE("lab1") {
    TEST_CASE("lab1.ijk: the baseline triple loop") { check_stage("lab1.ijk"); }
    TEST_CASE("lab1.ikj") { check_stage("lab1.ikj"); }
    TEST_CASE("lab1.jik") { check_stage("lab1.jik"); }
    TEST_CASE("lab1.jki") { check_stage("lab1.jki"); }
    TEST_CASE("lab1.kij") { check_stage("lab1.kij"); }
    TEST_CASE("lab1.kji") { check_stage("lab1.kji"); }
}

// The judge of lab 1's target, on made-up rows. Not in the "lab1" suite: it
// does not run the student's code (make lab1 and the grader run that suite).
TEST_SUITE("targets") {
    TEST_CASE("lab 1 target: met at 512^3, not judged below it, missed when ijk is slow or no order gains") {
        using mml::Impl;
        const mml::Lab* lab = mml::Registry::instance().find_lab(1);
        REQUIRE(lab != nullptr);
        auto rows = [](mml::Shape s, double own_ijk, double own_ikj) {
            return std::vector<mml::Measurement>{
                mml::testing::made_up_row("lab1.ijk", Impl::Student, s, own_ijk),
                mml::testing::made_up_row("lab1.ijk", Impl::Reference, s, 0.25),
                mml::testing::made_up_row("lab1.ikj", Impl::Student, s, own_ikj),
                mml::testing::made_up_row("lab1.ikj", Impl::Reference, s, 0.02)};
        };
        CHECK(lab->judge(rows({512, 512, 512}, 0.26, 0.02)).met);
        CHECK_FALSE(lab->judge(rows({512, 512, 512}, 0.40, 0.02)).met);  // ijk 1.6x the reference's time
        CHECK_FALSE(lab->judge(rows({512, 512, 512}, 0.26, 0.10)).met);  // best order only 2.6x faster
        const mml::TargetVerdict tiny = lab->judge(rows({32, 32, 32}, 0.26, 0.02));
        CHECK_FALSE(tiny.met);
        CHECK(tiny.explanation.find("judged at 512^3 or larger") != std::string::npos);
        CHECK_FALSE(tiny.speed);  // not about speed: no busy machine makes it inconclusive
        // A miss is the code's when the reference made its own target in the same run (and says where to look)...
        const mml::TargetVerdict no_gain = lab->judge(rows({512, 512, 512}, 0.26, 0.10));
        CHECK_FALSE(no_gain.inconclusive);
        CHECK(no_gain.explanation.find("lab1.ikj, is 12.5x faster than its ijk in this same run (so the gap is in your "
                                       "loops: handouts/lab1.md, hint 1.2.3)") != std::string::npos);
        CHECK(no_gain.code_gap_shown);  // settle() keeps it NOT MET under load
        // A slow ijk alone (orders gain enough): two single rows a burst of load can part, so
        // not shown to be the code's - settle() makes it INCONCLUSIVE on a busy machine.
        const mml::TargetVerdict slow_ijk = lab->judge(rows({512, 512, 512}, 0.40, 0.02));
        CHECK_FALSE(slow_ijk.code_gap_shown);
        CHECK(mml::settle(slow_ijk, "the load average is 9.0 on 2 cores").inconclusive);
        CHECK_FALSE(mml::settle(slow_ijk, "").inconclusive);
        // ... and the machine's when the reference's fastest order missed the 4x too.
        auto busy = rows({512, 512, 512}, 0.26, 0.10);
        busy[3].median_seconds = 0.125;  // the reference's ikj only 2x its ijk
        const mml::TargetVerdict b = lab->judge(busy);
        CHECK_FALSE(b.met);
        CHECK(b.inconclusive);
        CHECK(b.explanation.find("other programs are using the cores") != std::string::npos);
    }

    TEST_CASE("settle: met, wrong and size verdicts stay as they are on any machine; the words printed") {
        const mml::TargetVerdict met = mml::settle({true, "2x", false, true});
        CHECK(met.met);
        CHECK_FALSE(met.inconclusive);
        const mml::TargetVerdict wrong = mml::settle({false, "lab1.ijk is wrong", false, false});
        CHECK_FALSE(wrong.met);
        CHECK_FALSE(wrong.inconclusive);  // a wrong result is NOT MET, busy or not
        CHECK(mml::verdict_word(met) == "TARGET MET");
        CHECK(mml::verdict_word(wrong) == "TARGET NOT MET");
        CHECK(mml::verdict_word({false, "", true, true}) == "INCONCLUSIVE");
        // A speed miss: NOT MET on a quiet machine, INCONCLUSIVE with the load named on a busy one.
        const mml::TargetVerdict slow = mml::settle({false, "1.2x", false, true});
        CHECK_FALSE(slow.met);
        CHECK(slow.explanation == (slow.inconclusive ? slow.explanation : std::string("1.2x")));
        if (slow.inconclusive) CHECK(slow.explanation.find("load average") != std::string::npos);
        // The same miss with the load named: INCONCLUSIVE, the reason added; quiet: NOT MET as it was.
        const std::string busy = "the load average is 9.0 on 2 cores";
        const mml::TargetVerdict loaded = mml::settle({false, "1.2x", false, true}, busy);
        CHECK(loaded.inconclusive);
        CHECK(loaded.explanation == "1.2x; " + busy);
        CHECK_FALSE(mml::settle({false, "1.2x", false, true}, "").inconclusive);
        // ... but not where the reference met the target in the same run: the machine could, the code did not.
        mml::TargetVerdict beside_reference{false, "1.2x; the gap is in your code", false, true};
        beside_reference.code_gap_shown = true;
        const mml::TargetVerdict kept = mml::settle(beside_reference, busy);
        CHECK_FALSE(kept.inconclusive);
        CHECK(kept.explanation == beside_reference.explanation);
        CHECK(mml::verdict_word(kept) == "TARGET NOT MET");
    }
}
