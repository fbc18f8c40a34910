// Lab 6: the naive kernels and the block-reduction kernel are correct on every
// test shape, for every block size of the reduction, and on a C too tall for
// one grid (more than 65535 blocks of rows). (That the harness catches a store
// past C is tested with the reference kernel: the instructors' tests/reference/test_lab6.cpp.)
#include "harness/cli.h"
#include "tests/made_up_row.h"
#include "tests/stage_check.h"

using mml::testing::check_stage;
using mml::testing::check_stage_on;

namespace {

// More rows than 65535 blocks of 32 rows: the launch needs two grids.
const std::vector<mml::Shape> kVeryTall = {{2200000, 3, 2}};

mml::StageParams block(long long t) {
    mml::StageParams p;
    p.values["block"] = t;
    return p;
}

}  // namespace

TEST_SUITE("gpu-lab6") {
    TEST_CASE("lab6.naive_coalesced") { check_stage("lab6.naive_coalesced"); }
    TEST_CASE("lab6.naive_uncoalesced") { check_stage("lab6.naive_uncoalesced"); }
    TEST_CASE("lab6.block_reduce (64 threads, as in Cao's survey)") { check_stage("lab6.block_reduce"); }

    TEST_CASE("lab6.block_reduce: any block size, K below, at and far above it, not a power of two") {
        const std::vector<mml::Shape> shapes = {{3, 4, 1},  {5, 7, 31},   {5, 7, 32},   {5, 7, 33},
                                                {2, 3, 1000}, {17, 31, 63}, {1, 1, 5000}, {9, 2, 1025}};
        for (long long t : {32, 128, 256, 1024}) {
            CAPTURE(t);
            check_stage_on("lab6.block_reduce", shapes, block(t));
        }
    }

    TEST_CASE("very tall C: the naive kernels launch more than one grid") {
        check_stage_on("lab6.naive_coalesced", kVeryTall);
        check_stage_on("lab6.naive_uncoalesced", kVeryTall);
    }

    TEST_CASE("very tall C: block_reduce's grid-stride loop covers more elements than blocks") {
        check_stage_on("lab6.block_reduce", {{1100000, 2, 3}});  // 2.2M elements, 2^20 blocks
    }
}

// Runs without a GPU: a bad block size is refused before anything is launched
// (the harness calls check_params first; each version's wrapper refuses it too).
// (Suite "shared", not "lab6": it checks the harness, not the student's
// kernels, and the grader grades every test case of "lab6".)
TEST_SUITE("shared") {
    TEST_CASE("lab6.block_reduce: --param block must be a power of two in 32..1024") {
        const mml::Stage* s = mml::Registry::instance().find("lab6.block_reduce");
        REQUIRE(s != nullptr);
        REQUIRE(s->check_params);
        for (long long bad : {0, 16, 48, 100, 2048}) {
            CHECK_THROWS_AS(s->check_params(block(bad)), mml::UsageError);
            CHECK_THROWS_AS(s->student(nullptr, nullptr, nullptr, {4, 4, 4}, block(bad)), mml::UsageError);
        }
        CHECK_NOTHROW(s->check_params(block(256)));
    }
}

// The target's judge, on made-up measurements (runs without a GPU).
namespace {

// Every made-up row is at 4096^3, the lab's default size.
mml::Measurement row(const char* stage, mml::Impl impl, double seconds, bool passed = true) {
    return mml::testing::made_up_row(stage, impl, {4096, 4096, 4096}, seconds, passed);
}

}  // namespace

// (Suite "targets", not "lab6": the judge, not the student's code.)
TEST_SUITE("targets") {
    TEST_CASE("lab 6 target: met, too slow against the reference, no coalescing gain, a wrong stage") {
        using mml::Impl;
        const mml::Lab* lab = mml::Registry::instance().find_lab(6);
        REQUIRE(lab != nullptr);
        auto rows = [](double own, double own_unc, bool reduce_ok) {
            return std::vector<mml::Measurement>{
                row("lab6.naive_coalesced", Impl::Student, own), row("lab6.naive_coalesced", Impl::Reference, 0.044),
                row("lab6.naive_uncoalesced", Impl::Student, own_unc),
                row("lab6.naive_uncoalesced", Impl::Reference, 0.274),
                row("lab6.block_reduce", Impl::Student, 0.4, reduce_ok), row("lab6.block_reduce", Impl::Reference, 0.41)};
        };
        CHECK(lab->judge(rows(0.045, 0.27, true)).met);
        CHECK_FALSE(lab->judge(rows(0.060, 0.27, true)).met);  // 1.36x the reference's time
        CHECK_FALSE(lab->judge(rows(0.045, 0.08, true)).met);  // uncoalesced only 1.8x slower
        const mml::TargetVerdict wrong = lab->judge(rows(0.045, 0.27, false));
        CHECK_FALSE(wrong.met);
        CHECK(wrong.explanation.find("lab6.block_reduce") != std::string::npos);
    }
}
