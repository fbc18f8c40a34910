// Lab 4: every threaded stage is correct at 1, 2, 3 and 7 threads (more
// threads than cores, and than rows: M < T); the row split covers C once with
// boundaries on cache lines; Strassen on threads is bit for bit lab 3's
// Strassen; the scaling command runs and rejects bad input.
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "labs/common/row_partition.h"
#include "labs/common/strassen_recursion.h"
#include "tests/run_mmlab.h"
#include "tests/stage_check.h"

using namespace mml;
using mml::testing::check_stage;
using mml::testing::check_stage_on;
using mml::testing::impl_under_test;
using mml::testing::test_shapes;

namespace {

const int kThreadCounts[] = {1, 2, 3, 7};

StageParams params(int threads, const char* name = nullptr, long long value = 0) {
    StageParams p;
    p.threads = threads;
    if (name) p.values[name] = value;
    return p;
}

using mml::testing::Outcome;
using mml::testing::run_mmlab;

}  // namespace

TEST_SUITE("lab4") {
    TEST_CASE("lab4.pthreads at 1, 2, 3, 7 threads") {
        for (int t : kThreadCounts) {
            check_stage("lab4.pthreads", params(t));
        }
    }

    TEST_CASE("lab4.omp_static at 1, 2, 3, 7 threads, and odd block heights") {
        for (int t : kThreadCounts) {
            check_stage("lab4.omp_static", params(t));
        }
        for (long long rows : {1LL, 5LL, 1000LL}) check_stage("lab4.omp_static", params(3, "block_rows", rows));
    }

    TEST_CASE("lab4.omp_dynamic at 1, 2, 3, 7 threads, and odd block heights") {
        for (int t : kThreadCounts) {
            check_stage("lab4.omp_dynamic", params(t));
        }
        for (long long rows : {1LL, 5LL, 1000LL}) check_stage("lab4.omp_dynamic", params(3, "block_rows", rows));
    }

    TEST_CASE("lab4.strassen_par at 1, 2, 3, 7 threads, cutoffs 16 and 64 and the default") {
        for (int t : kThreadCounts) {
            check_stage("lab4.strassen_par", params(t));
            check_stage("lab4.strassen_par", params(t, "cutoff", 16));
            check_stage_on("lab4.strassen_par", {{64, 64, 64}, {65, 65, 65}, {127, 63, 31}, {2, 2, 2}, {3, 3, 3}},
                           params(t, "cutoff", 1));
        }
    }

    TEST_CASE("lab4.strassen_par is bit for bit lab 3's Strassen (same products, same order of additions)") {
        const Stage* stage = Registry::instance().find("lab4.strassen_par");
        REQUIRE(stage != nullptr);
        const Impl impl = impl_under_test();
        for (Shape s : {Shape{64, 64, 64}, Shape{127, 129, 131}, Shape{300, 200, 100}, Shape{65, 33, 17}}) {
            for (long long cutoff : {8LL, 32LL}) {
                Matrix A(s.M, s.K), B(s.K, s.N), want(s.M, s.N), got(s.M, s.N);
                fill_uniform(A, fresh_seed());
                fill_uniform(B, fresh_seed());
                // Lab 3's Strassen as lab 4 is given it (labs/common/strassen_recursion.h).
                common::lab3::matmul_strassen(A.data(), B.data(), want.data(), s.M, s.N, s.K, cutoff);
                for (int t : kThreadCounts) {
                    poison(got);
                    version_of(*stage, impl)(A.data(), B.data(), got.data(), s, params(t, "cutoff", cutoff));
                    const bool same = std::memcmp(want.data(), got.data(), sizeof(float) * std::size_t(want.size())) == 0;
                    CHECK_MESSAGE(same, "lab4.strassen_par (" << std::string(impl_name(impl)) << ") at " << shape_text(s)
                                        << ", cutoff " << cutoff << ", " << t
                                        << " threads differs from lab 3's Strassen: the products must be added in "
                                           "the order M1..M7, with lab 3's compute_product and add_product, each "
                                           "product thread with its own slice of the workspace");
                }
            }
        }
    }

    TEST_CASE("row split: covers [0, M) once, in order, boundaries on cache lines, fair to a unit") {
        using common::lab4::rows_for_thread;
        using common::lab4::rows_per_line_unit;
        CHECK(rows_per_line_unit(16) == 1);
        CHECK(rows_per_line_unit(1024) == 1);
        CHECK(rows_per_line_unit(8) == 2);
        CHECK(rows_per_line_unit(4) == 4);
        CHECK(rows_per_line_unit(1) == 16);
        CHECK(rows_per_line_unit(100) == 4);  // 4 rows of 100 floats = 1600 bytes = 25 lines
        for (std::int64_t M : {1, 2, 15, 16, 17, 100, 1000, 2048})
            for (std::int64_t N : {1, 3, 8, 16, 17, 64, 100})
                for (int T : {1, 2, 3, 7, 64}) {
                    CAPTURE(M);
                    CAPTURE(N);
                    CAPTURE(T);
                    const std::int64_t unit = rows_per_line_unit(N);
                    std::int64_t next = 0, smallest = M, largest = 0;
                    for (int t = 0; t < T; ++t) {
                        const auto r = rows_for_thread(M, N, T, t);
                        CHECK(r.begin == next);  // contiguous, in order
                        CHECK(r.end >= r.begin);
                        if (r.begin < M) CHECK((r.begin * N) % 16 == 0);  // starts on a 64-byte line
                        next = r.end;
                        smallest = std::min(smallest, r.size());
                        largest = std::max(largest, r.size());
                    }
                    CHECK(next == M);  // all rows, once
                    CHECK(largest - smallest <= unit);
                }
        // M < T: as many threads get a row as there are rows (units), the rest nothing.
        int busy = 0;
        for (int t = 0; t < 7; ++t) busy += rows_for_thread(2, 16, 7, t).size() > 0;
        CHECK(busy == 2);
    }
}

// The harness's lab 4 command (given code), not the student's work: it times
// the reference rows too, which the grader's programs do not hold, so it is
// in a suite of its own that `make test` runs and the grader does not.
TEST_SUITE("lab4-given") {
    TEST_CASE("mmlab scaling: a table with speedup and efficiency; bad requests are usage errors") {
        const Outcome ok = run_mmlab("scaling --stage lab4.pthreads --size 96 --threads-list 1,2 --reps 1 --quiet");
        INFO(ok.output);
        CHECK(ok.exit_code == 0);
        CHECK(ok.output.find("efficiency") != std::string::npos);
        CHECK(run_mmlab("scaling --stage lab1.ijk").exit_code == 2);            // not threaded
        CHECK(run_mmlab("scaling --stage lab4.nope").exit_code == 2);           // unknown
        CHECK(run_mmlab("scaling --stage lab4.pthreads --threads-list 0").exit_code == 2);
        CHECK(run_mmlab("run --stage lab4.omp_static --param block_rows=0 --size 8").exit_code == 2);
    }
}
