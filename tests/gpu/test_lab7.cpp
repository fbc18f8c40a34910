// Lab 7: every shared-memory kernel the student writes is correct on every
// test shape, on K around its tile depth (partial last tiles), and on a C too
// tall for one grid. (The reference-only rows, lab7.naive and
// lab7.volkov_stream_a, are tested in the instructors' tests/reference/test_lab7.cpp.)
#include "tests/gpu/lab7_shapes.h"
#include "tests/made_up_row.h"
#include "tests/stage_check.h"

using mml::testing::check_stage;
using mml::testing::check_stage_on;
namespace shapes = mml::testing::lab7;

namespace {

const char* const kStages[] = {"lab7.tiled16", "lab7.tiled32", "lab7.transposed_b", "lab7.transposed_b_padded",
                               "lab7.volkov"};

}  // namespace

TEST_SUITE("gpu-lab7") {
    TEST_CASE("lab7.tiled16") { check_stage("lab7.tiled16"); }
    TEST_CASE("lab7.tiled32") { check_stage("lab7.tiled32"); }
    TEST_CASE("lab7.transposed_b (bank conflicts)") { check_stage("lab7.transposed_b"); }
    TEST_CASE("lab7.transposed_b_padded") { check_stage("lab7.transposed_b_padded"); }
    TEST_CASE("lab7.volkov") { check_stage("lab7.volkov"); }

    TEST_CASE("K around the tile depths: 1..9, 15..17, 31..33, 63..65 (partial last tiles)") {
        for (const char* stage : kStages) {
            CAPTURE(stage);
            check_stage_on(stage, shapes::k_around_tile_depths());
        }
    }

    TEST_CASE("M and N around the block tiles: 63..65 rows, 127..129 columns") {
        for (const char* stage : kStages) {
            CAPTURE(stage);
            check_stage_on(stage, shapes::mn_around_block_tiles());
        }
    }

    TEST_CASE("very tall C: more than 65535 blocks of rows, the launch needs two grids") {
        for (const char* stage : kStages) {
            CAPTURE(stage);
            check_stage_on(stage, shapes::very_tall());
        }
    }
}

// The target's judge, on made-up measurements (runs without a GPU).
namespace {

// Every made-up row is at 4096^3, the lab's default size.
mml::Measurement row(const char* stage, mml::Impl impl, double seconds, bool passed = true) {
    return mml::testing::made_up_row(stage, impl, {4096, 4096, 4096}, seconds, passed);
}

std::vector<mml::Measurement> lab7_rows(double volkov, double tiled32, double conflict, double padded,
                                        bool tiled16_ok = true) {
    using mml::Impl;
    return {row("lab7.naive", Impl::Reference, 0.044),       row("lab7.tiled16", Impl::Student, 0.017, tiled16_ok),
            row("lab7.tiled32", Impl::Student, tiled32),      row("lab7.transposed_b", Impl::Student, conflict),
            row("lab7.transposed_b_padded", Impl::Student, padded), row("lab7.volkov", Impl::Student, volkov)};
}

}  // namespace

// (Suite "targets", not "lab7": the judge, not the student's code.)
TEST_SUITE("targets") {
    TEST_CASE("lab 7 target: met; volkov not fast enough; padding without effect; a wrong stage") {
        const mml::Lab* lab = mml::Registry::instance().find_lab(7);
        REQUIRE(lab != nullptr);
        CHECK(lab->judge(lab7_rows(0.006, 0.0165, 0.081, 0.0164)).met);
        CHECK_FALSE(lab->judge(lab7_rows(0.012, 0.0165, 0.081, 0.0164)).met);  // 1.4x over tiled32
        CHECK_FALSE(lab->judge(lab7_rows(0.030, 0.0600, 0.081, 0.0164)).met);  // 1.5x over naive only
        CHECK_FALSE(lab->judge(lab7_rows(0.006, 0.0165, 0.020, 0.0164)).met);  // padding: 1.2x
        const mml::TargetVerdict wrong = lab->judge(lab7_rows(0.006, 0.0165, 0.081, 0.0164, false));
        CHECK_FALSE(wrong.met);
        CHECK(wrong.explanation.find("lab7.tiled16") != std::string::npos);
    }
}
