// Lab 12's tests run its MPI programs (build/bin/mmlab-mpi, mmlab-nccl) with
// mpirun, the way mmlab does (harness/stages/lab12/launch.h), and check every
// RESULT line. Where a program or mpirun is missing, the tests are skipped -
// reported as skipped, with the reason printed first, never as passed.
#pragma once

#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "harness/stages/lab12/launch.h"
#include "harness/stages/lab12/protocol.h"
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
// run; printed once, at start-up, like the GPU tests' reason.
inline bool lab12_skip(const std::string& missing, const char* which) {
    if (!missing.empty()) std::printf("[tests] lab 12's %s tests skipped: %s\n", which, missing.c_str());
    return !missing.empty();
}

// Runs `program` on np processes and CHECKs that it printed one result per
// shape and that all of them passed their check; the message names the first
// wrong one and the command to repeat. Returns whether all passed.
inline bool check_lab12_run(const std::string& program, int np, const std::vector<std::string>& args,
                            std::size_t expected_results, int limit_s = 300) {
    const lab12::Launch l = lab12::launch(program, np, args, limit_s);
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
    return wrong == 0 && l.results.size() == expected_results;
}

inline std::string lab12_sizes(const std::vector<Shape>& shapes) {
    std::string s;
    for (Shape x : shapes) s += (s.empty() ? "" : ",") + lab12::shape_arg(x);
    return s;
}

}  // namespace mml::testing
