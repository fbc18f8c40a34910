// Lab 10 with the reference, in builds that hold the answers (this folder is
// linked only then). The student's functions are tested in
// tests/test_lab10.cpp; here, what needs the reference itself:
//   reference-lab10      the paper's printed sum over warps (lh::time_one_rep_as_printed)
//                        with the reference's LH, by hand and on the C1060;
//   gpu-reference-lab10  the model's inputs read from the device are sane
//                        (registers, shared memory, occupancy of the compiled
//                        reference kernels agree with their source and the
//                        hardware's limits), the predicted-vs-measured table is
//                        produced with every kernel checked and timed, and the
//                        roofline's GPU rows (reference versions) are measured.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "gpu/occupancy.h"
#include "harness/gpu_backend.h"
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

TEST_SUITE("gpu-reference-lab10") {
    TEST_CASE("occupancy of the modelled kernels: what their source says, within the hardware's limits") {
        struct Expect {
            const char* kernel;
            int warps, shared;
        };
        const Expect expected[] = {
            {"naive", 8, 0},
            {"tiled16", 8, 2 * 16 * 16 * 4},
            {"tiled32", 32, 2 * 32 * 32 * 4},
            {"volkov", 4, lh::kVolkovRows * lh::kVolkovDepth * 4},
        };
        const std::vector<lab10::ModelledKernel>& kernels = lab10::modelled_kernels();
        REQUIRE(kernels.size() == 4);
        for (std::size_t i = 0; i < kernels.size(); ++i) {
            const Expect& e = expected[i];
            REQUIRE(kernels[i].kernel == e.kernel);
            const gpu::KernelResources r = gpu::kernel_resources(kernels[i].handle);
            INFO(e.kernel << ": " << r.regs_per_thread << " registers, " << r.static_shared_bytes << " bytes shared, "
                          << r.blocks_per_sm << " blocks/SM");
            CHECK(r.warps_per_block == e.warps);
            CHECK(r.static_shared_bytes == e.shared);
            CHECK(r.regs_per_thread > 0);
            CHECK(r.regs_per_thread <= 255);
            CHECK(r.blocks_per_sm >= 1);
            CHECK(r.blocks_per_sm * r.warps_per_block <= r.max_warps_per_sm);
            CHECK(r.blocks_per_sm * r.regs_per_thread * r.block_threads <= 65536);  // the register file
        }
        // The Volkov kernel keeps 64 sums a thread in registers.
        CHECK(gpu::kernel_resources(kernels[3].handle).regs_per_thread >= 64);
    }

    TEST_CASE("lh-model: every kernel checked, timed and predicted at every size") {
        REQUIRE(lab10::gpu_sections().lh);
        REQUIRE(lab10::gpu_lh_unavailable().empty());
        const lab10::GpuLh g = lab10::gpu_sections().lh({96, 288}, 1, true);
        REQUIRE(g.cases.size() == 8);
        const lab10::ModelFns& f = reference_fns();
        const gpu::DeviceInfo info = gpu::probe();
        for (const lab10::LhCase& c : g.cases) {
            INFO(c.kernel << " at n = " << c.shape.M);
            CHECK(c.check == "ok");
            CHECK(c.measured_ms > 0);
            CHECK(c.model.sm_count == info.sm_count);
            CHECK(c.model.occupancy.blocks_per_sm >= 1);
            CHECK(c.model.occupancy.blocks_per_sm <= c.blocks_per_sm_device);
            CHECK(c.model.clock_ghz > 0.3);
            CHECK(c.model.blocks.size() >= 2);
            for (const lh::Block& b : c.model.blocks) {
                // Measured latencies: tens of cycles (shared) to hundreds (DRAM). No upper
                // limit: compute-sanitizer's racecheck instruments shared memory and the
                // shared-memory chase then reads ~40 000 cycles.
                CHECK(std::isfinite(b.latency));
                CHECK(b.latency > 1);
                CHECK(b.bandwidth > 0);
                CHECK(b.ilp > 0);
            }
            const double predicted = f.time_total_cycles(c.model);
            CHECK(std::isfinite(predicted));
            CHECK(predicted > 0);
        }
    }

    TEST_CASE("roofline: the GPU stages are measured against a positive peak and bandwidth") {
        REQUIRE(lab10::gpu_sections().roofline);
        BenchSettings s;
        s.reps = 2;
        s.quiet = true;
        const lab10::GpuRoofline g = lab10::gpu_sections().roofline({256, 256, 256}, s);
        CHECK(g.peak_gflops > 0);
        CHECK(g.bandwidth_gbs > 0);
        CHECK(g.rows.size() == g.stages.size());
        REQUIRE_FALSE(g.rows.empty());  // else the checks below check nothing
        for (const Measurement& m : g.rows) {
            INFO(m.stage << ": " << m.failure);
            CHECK(m.passed);
            CHECK(m.median_seconds > 0);
            CHECK(m.gflops < g.peak_gflops);  // nothing beats the FP32 peak
        }
    }
}
