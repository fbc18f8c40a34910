// Lab 1: every loop order is correct on every test shape.
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
    }
}
