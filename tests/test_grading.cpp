// The instructors' grading script (tools/grade.py, the package tools/grading/).
//
// "grading": tests/grading/test_grade.py grades made-up lab 1 submissions:
// the untouched starter, the reference, code that does not compile, an
// endless loop, endless output and a 10 GB file, a write outside its folder,
// an empty folder, a weights file, and bad command lines. It takes about a
// minute (eight small builds), so it runs only where MML_GRADING_TESTS is set,
// as `make test-all` does; elsewhere (make sanitize, make gpu-check) it is
// reported as skipped. So is tests/grading/test_given.py (minutes): lab 3 and
// lab 4 classes, for the code given compiled to lab 4 (lab 3's recursion),
// and tests/grading/test_resume.py (a minute or two): a class stopped
// half-way by SIGKILL and by SIGTERM, then run again: only the rest graded,
// the same OUT as an uninterrupted run.
//
// "grading-units": each module's own tests (tests/grading/test_<module>.py,
// run by tests/grading/run_unit_tests.py): a few seconds, no build, so they
// run everywhere. Not in a suite named labN: those are graded test cases.
//
// The checks themselves are in Python, like the script; these test cases run
// them so that `make test-all` counts them.
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
    TEST_CASE("tools/grade.py and code given compiled: lab 3 cannot call the recursion lab 4 is given, lab 4 can" *
              doctest::skip(!grading_tests_enabled())) {
        mml::testing::run_python_test("tests/grading/test_given.py", "given-code grading tests: all passed");
    }
    TEST_CASE("tools/grade.py stopped half-way (SIGKILL, SIGTERM) resumes: the rerun grades only the rest, same OUT" *
              doctest::skip(!grading_tests_enabled())) {
        mml::testing::run_python_test("tests/grading/test_resume.py", "resume grading tests: all passed");
    }
}

TEST_SUITE("grading-units") {
    TEST_CASE("tools/grading/: each module's unit tests (catalog, intake, sandbox, doctest XML, scores, outputs...)") {
        mml::testing::run_python_test("tests/grading/run_unit_tests.py", "grading unit tests: all passed");
    }
}
