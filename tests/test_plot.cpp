// The lecturers' plotting script (tools/plot.py) on a real mmlab run at tiny
// shapes and a checked-in roofline CSV: every chart well-formed SVG with the
// stages and their values, failed and skipped stages drawn as such, bad input
// refused with one line and exit 2, nothing half-written; and lab 12's
// scaling chart (tools/lab12_plot.py) from mmlab abg-model --csv. The checks are in
// tests/plot/test_plot.py (Python, like the script); this test case runs it
// so that `make test` counts it. It takes a few seconds.
#include <doctest/doctest.h>

#include "tests/script_test.h"

TEST_SUITE("plot") {
    TEST_CASE("tools/plot.py: progression, sizes and roofline SVGs from real output; failed rows shown; bad input exits 2; lab12_plot.py's scaling chart") {
        // MMLAB (set by make test) names the mmlab binary that writes the JSON.
        mml::testing::run_python_test("tests/plot/test_plot.py", "plot tests: all passed");
    }
}

TEST_SUITE("plot") {
    TEST_CASE("tools/compare.py: before/after of two --json runs, with the Mann-Whitney significance") {
        mml::testing::run_python_test("tests/compare/test_compare.py", "compare tests: all passed");
    }
}
