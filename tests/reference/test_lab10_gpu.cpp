// Lab 10 with the reference, on a GPU (built with CUDA only: the *_gpu.cpp
// files of tests/reference/): the model's inputs read from the device are
// sane (registers, shared memory, occupancy of the compiled reference kernels
// agree with their source and the hardware's limits), the predicted-vs-
// measured table is produced with every kernel checked and timed, and the
// roofline's GPU rows (reference versions) are measured, each under the
// ceiling of the units it runs on (FP32, bf16 or TF32 tensor cores).
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "gpu/occupancy.h"
#include "harness/gpu_backend.h"
#include "harness/stages/lab10/lab10.h"
#include "models/lh_kernels.h"
#include "models/tensor_peaks.h"

using namespace mml;

namespace {
const lab10::ModelFns& reference_fns() {
    const lab10::ModelFns* f = lab10::model_fns(Impl::Reference);
    REQUIRE_MESSAGE(f != nullptr, "harness/stages/lab10/references.cpp bound no reference model functions");
    return *f;
}
}  // namespace

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
        for (std::size_t i = 0; i < g.rows.size(); ++i) {
            const Measurement& m = g.rows[i];
            INFO(m.stage << ": " << m.failure << m.skip_reason);
            CHECK(m.stage == g.stages[i].stage);
            if (m.skipped) {  // only a Hopper-only stage on another GPU may be
                CHECK(m.skip_reason.find("needs a Hopper GPU") != std::string::npos);
                continue;
            }
            CHECK(m.passed);
            CHECK(m.median_seconds > 0);
            const double ceiling = g.peak_for(g.stages[i].ceiling);
            CHECK(ceiling > 0);           // stages without a ceiling on this GPU are left off
            CHECK(m.gflops < ceiling);    // nothing beats the peak of the units it runs on
        }
    }

    TEST_CASE("roofline: the tensor-core ceilings are the table's rate x this GPU's SMs x its clock") {
        REQUIRE(lab10::gpu_sections().roofline);
        BenchSettings s;
        s.reps = 1;
        s.quiet = true;
        const lab10::GpuRoofline g = lab10::gpu_sections().roofline({64, 64, 64}, s);
        const gpu::DeviceInfo info = gpu::probe();
        const double bf16 = peaks::tensor_flops_per_clock_per_sm(info.cc_major, info.cc_minor, peaks::TensorFormat::Bf16);
        CHECK(g.bf16_peak_gflops == doctest::Approx(bf16 * info.sm_count * info.sm_clock_ghz));
        CHECK(g.tf32_peak_gflops == doctest::Approx(g.bf16_peak_gflops / 2));  // TF32: half bf16's rate (sm_80, sm_90)
        if (info.cc_major == 9) {
            CHECK(g.bf16_peak_gflops > 10 * g.peak_gflops);  // Hopper: the tensor cores are 16x the FP32 units
            bool has_wgmma = false;
            for (const auto& st : g.stages) has_wgmma = has_wgmma || std::string(st.stage) == "lab11.wgmma";
            CHECK(has_wgmma);
        }
    }
}
