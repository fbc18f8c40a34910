// Lab 10 with the reference, in builds that hold the answers (this folder is
// linked only then). The student's functions are tested in
// tests/test_lab10.cpp; here, what needs the reference itself:
//   reference-lab10      the paper's printed sum over warps (lh::time_one_rep_as_printed)
//                        with the reference's LH, by hand and on the C1060.
// The GPU half (gpu-reference-lab10) is test_lab10_gpu.cpp: built with CUDA only.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "harness/stages/lab10/lab10.h"
#include "models/lh_kernels.h"

using namespace mml;

namespace {

const lab10::ModelFns& reference_fns() {
    const lab10::ModelFns* f = lab10::model_fns(Impl::Reference);
    REQUIRE_MESSAGE(f != nullptr, "harness/stages/lab10/references.cpp bound no reference model functions");
    return *f;
}

lh::Block block(double ilp, double latency, double bandwidth) {
    lh::Block b;
    b.ilp = ilp, b.latency = latency, b.bandwidth = bandwidth;
    return b;
}

}  // namespace

TEST_SUITE("reference-lab10") {
    TEST_CASE("the paper's printed sum over warps adds every warp's exposed wait (tests/test_lab10.cpp, task 7's blocks)") {
        const lab10::ModelFns& ref = reference_fns();
        const std::vector<lh::Block> blocks = {block(10, 100, 4), block(5, 20, 2)};
        const lh::Occupancy occ{2, 1};
        // Block 0: issue 2 x 10, exposed 94 and 99; block 1: issue 2 x 5, exposed 17 and 17.
        CHECK(lh::time_one_rep_as_printed(blocks, occ, ref.waiting_cycles, ref.latency_hidden) ==
              doctest::Approx(20.0 + 94 + 99 + 10 + 17 + 17));
    }

    TEST_CASE("reference model on the C1060: the literal sum over warps is far slower than the longest-wait reading") {
        const lab10::ModelFns& ref = reference_fns();
        const lh::Hardware hw = lh::paper_c1060();
        const auto k = lh::naive_model(hw, {4128, 4128, 4128}, 16, 16, lh::Occupancy{8, 4});
        const double longest = ref.time_one_rep(k.blocks, k.occupancy);
        const double printed = lh::time_one_rep_as_printed(k.blocks, k.occupancy, ref.waiting_cycles, ref.latency_hidden);
        CHECK(printed > 5 * longest);  // handouts/lab10.md, "reading the sum"
        // Bandwidth-bound: never faster than moving the modelled bytes at 102 GB/s.
        const double seconds = ref.time_total_cycles(k) / (hw.clock_ghz * 1e9);
        const double bytes = 4128.0 * 4128 / 32 * 4128 * 192;  // warps x K steps x bytes a step
        CHECK(seconds >= 0.95 * bytes / 102e9);
    }
}

