// Lab 12's tests run its MPI programs (build/bin/mmlab-mpi, mmlab-nccl) with
// mpirun, the way mmlab does (harness/stages/lab12/launch.h), and check every
// RESULT line. Where a program or mpirun is missing, the tests are skipped -
// reported as skipped, with the reason printed first, never as passed.
//
// The verdict is made HERE, not by the program: the programs hold the
// student's code (in the grader, they run in the sandbox, out of this
// process's sight: launch.h), so what they say about their own check could be
// forged. This process picks the inputs' seed, makes the same A and B
// (shape_seed, fill_inputs), and checks each product rank 0 wrote against its
// own float64 product under the error bound; the program's RESULT lines must
// also say "ok", but they only add the program's words to a failure.
#pragma once

#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cpu/error_bound.h"
#include "cpu/matrix.h"
#include "cpu/verify.h"

#include "harness/stages/lab12/launch.h"
#include "harness/stages/lab12/protocol.h"
#include "tests/skip_notes.h"
#include "tests/stage_check.h"

namespace mml::testing {

// "student" under MML_IMPL=student (make lab12), "reference" otherwise.
inline std::string lab12_impl() { return impl_under_test() == Impl::Student ? "student" : "reference"; }

// The tests' MPI runs move small messages and must not depend on Open MPI's
// cross-memory attach (CMA), which many containers forbid (ptrace rules): it
// is switched off for them (benchmarks keep it). Harmless where the MPI is not
// Open MPI 4 (an unknown MCA variable in the environment is ignored).
inline const bool kLab12SafeMpi = [] {
    setenv("OMPI_MCA_btl_vader_single_copy_mechanism", "none", 0);
    return true;
}();

// Why the tests that need `missing` (mpi_missing or nccl_missing) cannot
// run; printed once, at start-up, like the GPU tests' reason, where the run
// selects `suites` (tests/skip_notes.h).
inline bool lab12_skip(const std::string& missing, const char* which, const char* suites) {
    if (!missing.empty()) skip_note(suites, std::string("lab 12's ") + which + " tests skipped: " + missing);
    return !missing.empty();
}

// The value of `flag` in a command line ("" when it is not there).
inline std::string lab12_flag(const std::vector<std::string>& args, const std::string& flag) {
    for (std::size_t i = 0; i + 1 < args.size(); ++i)
        if (args[i] == flag) return args[i + 1];
    return "";
}

// CHECKs each product of a run against this process's own: A and B made from
// the run's seed, the float64 product, the error bound of the precision the
// command line asks for (one message: the first wrong product, and how many
// were). Returns how many were wrong or missing.
inline std::size_t check_lab12_products(const lab12::ProductRun& pr, const std::vector<std::string>& args,
                                        std::uint64_t seed) {
    const std::vector<Shape> shapes = lab12::parse_shape_list(lab12_flag(args, "--size"));
    const bool bf16 = lab12_flag(args, "--precision") == "bf16";
    std::size_t bad = 0;
    std::string first;
    for (std::size_t i = 0; i < shapes.size(); ++i) {
        const Shape s = shapes[i];
        const std::string at = "M x N x K = " + lab12::shape_arg(s);
        const std::size_t bytes = std::size_t(s.M) * std::size_t(s.N) * sizeof(float);
        if (i >= pr.products.size() || pr.products[i].size() != bytes) {
            if (first.empty()) first = "the program wrote no product (M x N floats) at " + at + "; it said: " + pr.run.error();
            ++bad;
            continue;
        }
        Matrix A(s.M, s.K), B(s.K, s.N), C(s.M, s.N);
        fill_inputs(A, B, lab12::shape_seed(seed, i));
        std::memcpy(C.data(), pr.products[i].data(), bytes);  // Matrix rows are contiguous
        const CheckResult c = verify_product(A.data(), B.data(), C.data(), s,
                                             bf16 ? lab12::bf16_bound(s) : classical_bound(s), VerifyMethod::Auto,
                                             fresh_seed());
        if (!c.passed && bad++ == 0) first = "the product at " + at + " is wrong: " + c.failure;
    }
    CHECK_MESSAGE(bad == 0, "checked here against the float64 product: " << first << " (" << bad << " of "
                                                                         << shapes.size() << " products wrong or missing)");
    return bad;
}

// Runs `program` on np processes and CHECKs that it printed one result per
// shape, that all of them passed the program's own check, and that every
// product passes this process's check (check_lab12_products); the message
// names the first wrong one and the command to repeat. Returns whether all passed.
inline bool check_lab12_run(const std::string& program, int np, const std::vector<std::string>& args,
                            std::size_t expected_results, int limit_s = 300) {
    const std::uint64_t seed = fresh_seed() >> 5;  // below 2^59: the programs take seeds of at most 18 digits
    const lab12::ProductRun pr = lab12::launch_with_products(program, np, args, seed, limit_s);
    const lab12::Launch& l = pr.run;
    INFO("command: " << l.command);
    CHECK_MESSAGE(l.results.size() == expected_results, "expected " << expected_results << " results, got "
                                                                     << l.results.size() << ": " << l.error());
    std::size_t wrong = 0;
    const lab12::Fields* first = nullptr;
    for (const lab12::Fields& f : l.results)
        if (lab12::field(f, "check") != "ok" && wrong++ == 0) first = &f;
    if (first) {
        const lab12::Fields& f = *first;
        CHECK_MESSAGE(wrong == 0, lab12::field(f, "algo") << " (" << lab12::field(f, "impl") << ") on "
                                                         << lab12::field(f, "P") << " process(es), grid "
                                                         << lab12::field(f, "grid") << ", is wrong at M x N x K = "
                                                         << lab12::field(f, "M") << "x" << lab12::field(f, "N") << "x"
                                                         << lab12::field(f, "K") << ": " << lab12::field(f, "failure")
                                                         << " (" << wrong << " of " << l.results.size()
                                                         << " shapes wrong)");
    }
    const std::size_t bad = check_lab12_products(pr, args, seed);
    return wrong == 0 && bad == 0 && l.results.size() == expected_results;
}

inline std::string lab12_sizes(const std::vector<Shape>& shapes) {
    std::string s;
    for (Shape x : shapes) s += (s.empty() ? "" : ",") + lab12::shape_arg(x);
    return s;
}

}  // namespace mml::testing
