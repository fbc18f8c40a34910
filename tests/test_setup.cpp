// The set-up (tools/configure.sh) on machines that lack packages, simulated in
// a mount namespace by tests/setup/test_configure.sh: a machine whose only
// cblas.h is netlib's must be told to install libopenblas-dev (the build used
// to fail there), NO_INSTALL=1 must install nothing, and without apt-get the
// message names the dnf, pacman and Homebrew packages. About a second.
#include <doctest/doctest.h>

#include "tests/script_test.h"

TEST_SUITE("setup") {
    TEST_CASE("tools/configure.sh: OpenBLAS detected as OpenBLAS (netlib's cblas.h is not enough), install hints") {
        mml::testing::run_script_test("bash", "tests/setup/test_configure.sh", "configure tests: all passed");
    }
}
