// Lab 2: every stage is correct on every test shape; the blocked stage also
// with block sizes that do not divide the shapes, that are larger than the
// matrices, and of one row/column; bad block sizes are refused with a
// UsageError, before anything runs.
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "harness/cli.h"
#include "tests/run_mmlab.h"
#include "tests/stage_check.h"

using mml::StageParams;
using mml::testing::check_stage;
using mml::testing::check_stage_on;

namespace {

StageParams params(std::initializer_list<std::pair<const char*, long long>> kv) {
    StageParams p;
    for (const auto& [k, v] : kv) p.values[k] = v;
    return p;
}

std::string describe(const StageParams& p) {
    std::string s;
    for (const auto& [k, v] : p.values) s += k + "=" + std::to_string(v) + " ";
    return s;
}


}  // namespace

TEST_SUITE("lab2") {
    TEST_CASE("lab2.interchanged: i-k-j with row pointers") { check_stage("lab2.interchanged"); }
    TEST_CASE("lab2.transposed: transpose B, then row-by-row dot products") { check_stage("lab2.transposed"); }
    TEST_CASE("lab2.blocked: default block sizes") { check_stage("lab2.blocked"); }

    TEST_CASE("lab2.blocked: block sizes that do not divide the shapes, and larger than the matrices") {
        // Every pair on every shared shape: odd blocks (3, 5, 7, 13, 37) leave
        // partial blocks at each edge; 1 is the smallest block; 4096 and 2^40
        // are larger than any test matrix (a single partial block); kc = 4n+1..3
        // exercise the tail of a k loop unrolled by 4.
        for (const StageParams& p : {params({{"kc", 1}, {"nc", 1}}), params({{"kc", 3}, {"nc", 5}}),
                                     params({{"kc", 5}, {"nc", 13}}), params({{"kc", 6}, {"nc", 37}}),
                                     params({{"kc", 7}, {"nc", 64}}), params({{"kc", 64}, {"nc", 7}}),
                                     params({{"kc", 37}, {"nc", 100}}), params({{"kc", 4096}, {"nc", 4096}}),
                                     params({{"kc", 1LL << 40}, {"nc", 1LL << 40}})}) {
            if (!check_stage("lab2.blocked", p)) break;  // the first wrong block size is enough (its message names the --param values)
        }
    }

    TEST_CASE("lab2.blocked: --param block=.. sets both, kc/nc override it") {
        for (const StageParams& p : {params({{"block", 1}}), params({{"block", 16}}), params({{"block", 33}}),
                                     params({{"block", 100000}}), params({{"block", 16}, {"kc", 5}}),
                                     params({{"block", 9}, {"nc", 200}})}) {
            if (!check_stage("lab2.blocked", p)) break;  // the first wrong block size is enough (its message names the --param values)
        }
    }

    TEST_CASE("lab2.blocked: block sizes of a few rows on larger, odd shapes") {
        // Many blocks in both directions, each edge partial.
        if (check_stage_on("lab2.blocked", {{300, 301, 302}, {129, 517, 263}, {1, 1000, 999}},
                           params({{"kc", 16}, {"nc", 48}})))
            check_stage_on("lab2.blocked", {{300, 301, 302}, {129, 517, 263}}, params({{"kc", 128}, {"nc", 512}}));
    }

    TEST_CASE("lab2.blocked: block sizes of 0 or below are refused with a UsageError naming the parameter") {
        const mml::Stage* stage = mml::Registry::instance().find("lab2.blocked");
        REQUIRE(stage != nullptr);
        REQUIRE(stage->check_params);
        mml::Matrix A(4, 4), B(4, 4), C(4, 4);
        mml::fill_uniform(A, 1);
        mml::fill_uniform(B, 2);
        for (const auto& [name, value] : {std::pair<const char*, long long>{"kc", 0}, {"nc", 0}, {"block", 0},
                                          {"kc", -1}, {"nc", -64}, {"block", -(1LL << 40)}}) {
            const StageParams p = params({{name, value}});
            INFO("block sizes " << describe(p) << ":");  // (CAPTURE would print "describe(p) := " to students)
            // The harness's check before a run...
            std::string message = "(no exception)";
            try {
                stage->check_params(p);
            } catch (const mml::UsageError& e) {
                message = e.what();
            }
            CHECK_MESSAGE(message.find(std::string("--param ") + name + " must be >= 1") != std::string::npos,
                          "expected a UsageError naming --param " << name << ", got: " << message);
            // ...and the stage itself, both versions (the reference where this build has it):
            // the student's code is never called with it.
            for (mml::Impl impl : {mml::Impl::Student, mml::Impl::Reference})
                if (impl == mml::Impl::Student || stage->reference)
                    CHECK_THROWS_AS(mml::version_of(*stage, impl)(A.data(), B.data(), C.data(), {4, 4, 4}, p),
                                    mml::UsageError);
        }
        // A bad block= is refused even when kc and nc are given (it is still a mistake).
        CHECK_THROWS_AS(stage->check_params(params({{"block", 0}, {"kc", 8}, {"nc", 8}})), mml::UsageError);
        // Good values pass.
        CHECK_NOTHROW(stage->check_params(params({{"kc", 1}, {"nc", 1LL << 40}})));
        CHECK_NOTHROW(stage->check_params(StageParams{}));
    }

    TEST_CASE("lab2.blocked: mmlab refuses a bad block size in one line, exit 2, before running anything") {
        for (const char* args : {"run --stage lab2.blocked --size 16 --param kc=0",
                                 "run --lab 2 --size 16 --param block=-8",
                                 "sweep --stage lab2.blocked --size 16 --sweep kc=0",
                                 "sweep --stage lab2.blocked --size 16 --sweep kc=4 --sweep kc=8",
                                 "run --stage lab2.blocked --size 16x"}) {
            const auto [code, out] = mml::testing::run_mmlab(args);
            INFO("mmlab " << args << " printed: " << out);
            CHECK(code == 2);
            CHECK(mml::testing::first_message(out).rfind("mmlab: error:", 0) == 0);
            CHECK(mml::testing::error_lines(out) == 1);  // exactly one line (beside any environment notice)
        }
    }
}
