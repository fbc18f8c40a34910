// The set-up (tools/configure.sh) on machines that lack packages, simulated in
// a mount namespace by tests/setup/test_configure.sh: a machine whose only
// cblas.h is netlib's must be told to install libopenblas-dev (the build used
// to fail there), NO_INSTALL=1 must install nothing, and without apt-get the
// message names the dnf, pacman and Homebrew packages. About a second.
//
// tests/setup/test_messages.sh: what make lab1, make check LAB=1 and make
// sanitize LAB=1 advise is true of the configuration (the build as it is;
// CUDA=0 without MPI; a sanitizer build). It builds two small trees
// (minutes), so it runs only where MML_GRADING_TESTS is set (make test-all).
//
// tests/setup/test_environment.sh: make test again, in a copy of the built
// tree, under the variables users and images set (OPENBLAS_CORETYPE,
// OMP_NUM_THREADS, LC_ALL=C, a latin-1 locale, CUDA_VISIBLE_DEVICES, TMPDIR,
// no HOME, a plain user): a few minutes, so make test-all only.
//
// tests/setup/test_stamps.sh (suite "build", make test: every user's build):
// a make goal that reads no configuration (help, grade, student-release...)
// leaves the stamps every object depends on as they were. A second.
#include <doctest/doctest.h>

#include <cstdlib>

#include "tests/script_test.h"

TEST_SUITE("setup") {
    TEST_CASE("tools/configure.sh: OpenBLAS detected as OpenBLAS (netlib's cblas.h is not enough), install hints") {
        mml::testing::run_script_test("bash", "tests/setup/test_configure.sh", "configure tests: all passed");
    }
    TEST_CASE("make lab1, make check and make sanitize LAB=1: no advice that contradicts what configure found" *
              doctest::skip(std::getenv("MML_GRADING_TESTS") == nullptr)) {
        mml::testing::run_script_test("bash", "tests/setup/test_messages.sh", "message tests: all passed");
    }
    TEST_CASE("make test holds in the environments users bring (OPENBLAS_CORETYPE, OMP_NUM_THREADS, LC_ALL, a plain user...)" *
              doctest::skip(std::getenv("MML_GRADING_TESTS") == nullptr)) {
        mml::testing::run_script_test("bash", "tests/setup/test_environment.sh", "environment tests: all passed");
    }
}

TEST_SUITE("build") {
    TEST_CASE("make help, grade, student-release, gradescope, compare: the build's stamps stay as they were; a CUDA=0 build keeps a CUDA build's objects") {
        mml::testing::run_script_test("bash", "tests/setup/test_stamps.sh", "stamp tests: all passed");
    }
}
