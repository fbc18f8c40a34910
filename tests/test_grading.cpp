// The instructors' grading script (tools/grade.py) on made-up lab 1
// submissions: the untouched starter, the reference, code that does not
// compile, an endless loop, endless output and a 10 GB file, a write outside
// its folder, an empty folder, a weights file, and bad command lines. The
// checks themselves are in tests/grading/test_grade.py (Python, like the
// script); this test case runs it so that `make test` counts it. It takes
// about a minute (eight small builds), so it runs only where MML_GRADING_TESTS
// is set, as `make test` does; elsewhere (make sanitize, make gpu-check) it is
// reported as skipped.
#include <doctest/doctest.h>

#include <cstdlib>

#include "tests/script_test.h"

namespace {
bool grading_tests_enabled() { return std::getenv("MML_GRADING_TESTS") != nullptr; }
}  // namespace

TEST_SUITE("grading") {
    TEST_CASE("tools/grade.py: scores, feedback, CSV and results.json; broken, slow and hostile submissions contained" *
              doctest::skip(!grading_tests_enabled())) {
        mml::testing::run_python_test("tests/grading/test_grade.py", "grading tests: all passed");
    }
}
