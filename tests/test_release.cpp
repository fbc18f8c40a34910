// The instructors' packaging, end to end: the student release (no answers in
// it, make lab1 works there on the prebuilt references), GitHub Classroom (the
// workflow's commands, run here) and the Gradescope autograder (a simulated
// /autograder: full, 0, 0 and partial scores, a results.json every time). Each builds the tree again (minutes), so, like the
// grading tests, they run only where MML_GRADING_TESTS is set (make test-all sets it).
#include <doctest/doctest.h>

#include <cstdlib>

#include "tests/script_test.h"

namespace {
bool enabled() { return std::getenv("MML_GRADING_TESTS") != nullptr; }
}  // namespace

TEST_SUITE("packaging") {
    TEST_CASE("make student-release: no solution source, make lab1 works on the prebuilt references" *
              doctest::skip(!enabled())) {
        mml::testing::run_python_test("tests/release/test_release.py", "release tests: all passed");
    }
    TEST_CASE("make check and the GitHub Classroom workflow: its commands fail on the starter, pass on a correct lab" *
              doctest::skip(!enabled())) {
        mml::testing::run_python_test("tests/classroom/test_classroom.py", "classroom tests: all passed");
    }
    TEST_CASE("make gradescope: the autograder always writes a valid results.json (full, 0, 0, partial)" *
              doctest::skip(!enabled())) {
        mml::testing::run_python_test("tests/gradescope/test_gradescope.py", "gradescope tests: all passed");
    }
}
