// Lab 7's reference-only comparison rows, in builds that hold the answers
// (this folder is linked only then): lab7.naive (lab 6's naive kernel, the
// yardstick) and lab7.volkov_stream_a (the RTX 4090 GEMM walk-through's
// layout of the Volkov kernel)
// have no student version, so a build without the answers has no version of
// them to test; the student's kernels are tested in tests/gpu/test_lab7.cpp,
// on the same shapes.
#include "tests/gpu/lab7_shapes.h"
#include "tests/stage_check.h"

using mml::testing::check_stage;
using mml::testing::check_stage_on;
namespace shapes = mml::testing::lab7;

namespace {

const char* const kReferenceOnlyRows[] = {"lab7.naive", "lab7.volkov_stream_a"};

}  // namespace

TEST_SUITE("gpu-reference-lab7") {
    TEST_CASE("lab7.naive (reference-only row)") { check_stage("lab7.naive"); }
    TEST_CASE("lab7.volkov_stream_a (reference-only row)") { check_stage("lab7.volkov_stream_a"); }

    // Separate test cases, named as in tests/gpu/test_lab7.cpp, so that slow
    // runs (compute-sanitizer in tools/gpu-check.sh) can leave out '*very tall*'.
    TEST_CASE("reference-only rows: K around the tile depths: 1..9, 15..17, 31..33, 63..65 (partial last tiles)") {
        for (const char* stage : kReferenceOnlyRows) {
            CAPTURE(stage);
            check_stage_on(stage, shapes::k_around_tile_depths());
        }
    }

    TEST_CASE("reference-only rows: M and N around the block tiles: 63..65 rows, 127..129 columns") {
        for (const char* stage : kReferenceOnlyRows) {
            CAPTURE(stage);
            check_stage_on(stage, shapes::mn_around_block_tiles());
        }
    }

    TEST_CASE("reference-only rows: very tall C: more than 65535 blocks of rows, the launch needs two grids") {
        for (const char* stage : kReferenceOnlyRows) {
            CAPTURE(stage);
            check_stage_on(stage, shapes::very_tall());
        }
    }
}
