// The structure of what users see (mmlab list, the demo's rows, lab 1's rows
// and verdict, the grader's scores on two submissions) is what it was before
// the architecture move: tests/golden/test_structure.py compares it with
// tests/golden/structure.txt. It runs the grader (about 25 s), so, like the
// grading tests, only where MML_GRADING_TESTS is set (make test-all sets it).
#include <doctest/doctest.h>

#include <cstdlib>

#include "tests/script_test.h"

TEST_SUITE("golden") {
    TEST_CASE("outputs keep their structure: stages, verdicts, scores (tests/golden/structure.txt)" *
              doctest::skip(std::getenv("MML_GRADING_TESTS") == nullptr)) {
        mml::testing::run_python_test("tests/golden/test_structure.py", "structure tests: all passed");
    }
}
