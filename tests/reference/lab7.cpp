// Lab 7's reference-only comparison rows, in builds that hold the answers
// (this folder is linked only then): lab7.naive (lab 6's naive kernel, the
// yardstick) and lab7.volkov_seed (seed 001's layout of the Volkov kernel)
// have no student version, so a build without the answers has no version of
// them to test; the student's kernels are tested in tests/gpu/test_lab7.cpp,
// on the same shapes.
#include "tests/gpu/lab7_shapes.h"
#include "tests/stage_check.h"

using mml::testing::check_stage;
using mml::testing::check_stage_on;
namespace shapes = mml::testing::lab7;

namespace {

const char* const kReferenceOnlyRows[] = {"lab7.naive", "lab7.volkov_seed"};

}  // namespace

TEST_SUITE("gpu-reference-lab7") {
    TEST_CASE("lab7.naive (reference-only row)") { check_stage("lab7.naive"); }
    TEST_CASE("lab7.volkov_seed (reference-only row)") { check_stage("lab7.volkov_seed"); }

    TEST_CASE("reference-only rows: K around the tile depths, M and N around the block tiles, very tall C") {
        for (const char* stage : kReferenceOnlyRows) {
            CAPTURE(stage);
            check_stage_on(stage, shapes::k_around_tile_depths());
            check_stage_on(stage, shapes::mn_around_block_tiles());
            check_stage_on(stage, shapes::very_tall());
        }
    }
}
