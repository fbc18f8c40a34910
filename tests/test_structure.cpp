// The code's structure, checked on every `make test` (a second or two, no
// build needed): tests/structure/given_code.py (a starter agrees with its
// solution outside its TODO blocks: given code is written once) and
// tests/structure/arrows.py (no include runs upward, no import cycle in the
// grader) and tests/structure/doc_paths.py (the instructors' documents name only
// paths and make targets that exist) and tests/structure/readers.py (handouts
// within their word budget, tasks early, no dated notebook, no internal source
// numbers, a LICENSE, links that resolve). Never graded: the suite is not a lab's.
#include <doctest/doctest.h>

#include "tests/script_test.h"

TEST_SUITE("structure") {
    TEST_CASE("given code: every starter is its solution outside the TODO blocks (tests/structure/given_code.py)") {
        mml::testing::run_python_test("tests/structure/given_code.py", "given code tests: all passed");
    }
    TEST_CASE("arrows point down: no upward include, no import cycle (tests/structure/arrows.py)") {
        mml::testing::run_python_test("tests/structure/arrows.py", "arrows tests: all passed");
    }
    TEST_CASE("documents name what exists: paths and make targets (tests/structure/doc_paths.py)") {
        mml::testing::run_python_test("tests/structure/doc_paths.py", "doc paths tests: all passed");
    }
    TEST_CASE("what a reader meets: handout budgets, tasks early, sources by name, links resolve (tests/structure/readers.py)") {
        mml::testing::run_python_test("tests/structure/readers.py", "readers tests: all passed");
    }
}
