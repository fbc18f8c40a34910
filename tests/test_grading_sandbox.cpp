// The grading script against a hostile class, and through Slurm.
//
// "grading": tests/grading/test_hostile.py grades a class of attacks on the
// grader (forged reports, reads of other students' work and of solutions/,
// writes outside, daemons, fork storms, memory hogs, endless output, network,
// hangs, crashes, compile bombs, odd folder names, symbolic links) twice, with
// the expected score and review line of each and identical CSVs (about two
// minutes on 2 cores); tests/grading/test_hostile_trust.py grades planted
// libraries and programs (with empty PATH and LD_LIBRARY_PATH entries in the
// grader's environment), the checker's descriptors, and a 5 GiB memfd hog
// twice. tests/grading/test_slurm_cluster.py starts a one-node Slurm
// cluster (as root it installs slurm-wlm and munge when missing) and checks
// that --slurm writes what a local run writes, and that a rerun grades only
// the students without a result (about a minute, plus the install); where the
// cluster cannot start (not root, no apt-get) it says why and passes nothing
// else. tests/grading/test_safe_default.py checks the default is safe: no
// grading below bwrap unless a level is named (the one-line refusal without
// bubblewrap, simulated in a mount namespace; the install steps; a plain
// user's install line) and a reader of other students' files and solutions/
// that finds nothing at bwrap and unshare (under a minute).
// tests/grading/test_build_attacks.py grades submissions whose compile is the
// attack (compile bombs, /dev/zero and /dev/stdin includes, 1 TB and 1 GB
// objects, a program over the size limit, .incbin and #include of other
// students' files and of solutions/, pragmas) once, with a 40 s build clock:
// each one's status and reason, nothing read into a program (about a
// minute on 2 cores). All run only
// where MML_GRADING_TESTS is set, as `make test-all` does, like
// tests/test_grading.cpp's end-to-end case.
#include <doctest/doctest.h>

#include <cstdlib>

#include "tests/script_test.h"

namespace {
bool grading_tests_enabled() { return std::getenv("MML_GRADING_TESTS") != nullptr; }
}  // namespace

TEST_SUITE("grading") {
    TEST_CASE("tools/grade.py on a hostile class: each attack's score and review line, nothing escapes, same CSV twice" *
              doctest::skip(!grading_tests_enabled())) {
        mml::testing::run_python_test("tests/grading/test_hostile.py", "hostile grading tests: all passed");
    }

    TEST_CASE("tools/grade.py on planted libraries and programs, and a shared-memory hog: nothing runs as the "
              "grader, memory counted per sandbox or reported missing, same CSV twice" *
              doctest::skip(!grading_tests_enabled())) {
        mml::testing::run_python_test("tests/grading/test_hostile_trust.py", "trusted hostile grading tests: all passed");
    }

    TEST_CASE("tools/grade.py is safe by default: it refuses to grade below bwrap unless a level is named, and a "
              "reader of other students' files and solutions/ gets nothing at bwrap and unshare" *
              doctest::skip(!grading_tests_enabled())) {
        mml::testing::run_python_test("tests/grading/test_safe_default.py", "safe-default grading tests: all passed");
    }

    TEST_CASE("tools/grade.py on build-time attacks: compile bombs, huge objects and programs, reads outside the "
              "tree stopped at the build's limits, each with its reason, nothing read into a program" *
              doctest::skip(!grading_tests_enabled())) {
        mml::testing::run_python_test("tests/grading/test_build_attacks.py", "build-attack grading tests: all passed");
    }

    TEST_CASE("tools/grade.py --slurm on a one-node Slurm cluster: the local run's outputs; a rerun grades only what is missing" *
              doctest::skip(!grading_tests_enabled())) {
        mml::testing::run_python_test("tests/grading/test_slurm_cluster.py", "slurm grading tests: all passed");
    }
}
