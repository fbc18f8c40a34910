// Lab 1: every loop order is correct on every test shape.
#include "tests/stage_check.h"

using mml::testing::check_stage;

TEST_SUITE("lab1") {
    TEST_CASE("lab1.ijk: the baseline triple loop") { check_stage("lab1.ijk"); }
    TEST_CASE("lab1.ikj") { check_stage("lab1.ikj"); }
    TEST_CASE("lab1.jik") { check_stage("lab1.jik"); }
    TEST_CASE("lab1.jki") { check_stage("lab1.jki"); }
    TEST_CASE("lab1.kij") { check_stage("lab1.kij"); }
    TEST_CASE("lab1.kji") { check_stage("lab1.kji"); }
}
