// Lab 10 on the GPU: the measurements its two parts need (lab10.h). Built
// only with CUDA (lab 10 is a CPU lab; the Makefile builds its *_gpu.cpp
// files only in CUDA builds).
//   roofline: lab 6-8 and lab 11 kernels and cuBLAS timed at one size, the
//             FP32 spec peak, the tensor cores' spec peaks (models/tensor_peaks.h)
//             and the measured read bandwidth;
//   lh:       for the kernels models/lh_kernels.h describes (lab 6's naive
//             kernel, lab 7's tiled16/tiled32 and Volkov kernels), the inputs
//             of Yuan et al. 2010's model read from this GPU (occupancy of the
//             compiled reference kernel, latencies by micro-benchmark,
//             bandwidth) and the kernels' measured times.
// Nothing here is fitted to the kernels' times: every input is either read
// from the device, measured by a micro-benchmark, or a stated hardware fact.
#include <algorithm>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <vector>

#include "cpu/stats.h"
#include "gpu/bandwidth.h"
#include "gpu/device_info.h"
#include "gpu/latency.h"
#include "gpu/occupancy.h"
#include "harness/cli.h"
#include "harness/format.h"
#include "harness/gpu_backend.h"
#include "harness/run_stage.h"
#include "harness/stages/lab10/lab10.h"
#include "models/lh_kernels.h"
#include "models/tensor_peaks.h"

namespace mml::lab10 {
namespace {

GpuRoofline measure_roofline(Shape s, const BenchSettings& settings) {
    GpuRoofline g;
    const gpu::DeviceInfo info = gpu::probe();
    g.peak_gflops = info.fp32_peak_gflops;
    using peaks::TensorFormat;
    g.bf16_peak_gflops =
        peaks::tensor_peak_gflops(info.cc_major, info.cc_minor, info.sm_count, info.sm_clock_ghz, TensorFormat::Bf16);
    g.tf32_peak_gflops =
        peaks::tensor_peak_gflops(info.cc_major, info.cc_minor, info.sm_count, info.sm_clock_ghz, TensorFormat::Tf32);
    g.bandwidth_gbs = gpu::measured_read_bandwidth().gbs;
    g.device = info.name + " (sm_" + std::to_string(info.cc_major) + std::to_string(info.cc_minor) + "), " +
               std::to_string(info.sm_count) + " SMs at " + fixed(info.sm_clock_ghz, 2) +
               " GHz (the clock the device reports): FP32 peak (spec) " + fixed(g.peak_gflops, 0) +
               " GFLOP/s, measured read bandwidth " + fixed(g.bandwidth_gbs, 0) + " GB/s, ridge point " +
               fixed(g.peak_gflops / g.bandwidth_gbs, 1) + " FLOP/byte";
    const std::string source = peaks::tensor_rate_source(info.cc_major, info.cc_minor);
    if (g.bf16_peak_gflops > 0) {
        auto ceiling = [&](TensorFormat f, double peak) {
            return std::string("     ") + peaks::format_name(f) + " tensor cores (dense, FP32 sums): " +
                   fixed(peaks::tensor_flops_per_clock_per_sm(info.cc_major, info.cc_minor, f), 0) +
                   " FLOPs a clock an SM x " + std::to_string(info.sm_count) + " SMs x " +
                   fixed(info.sm_clock_ghz, 2) + " GHz = " + fixed(peak, 0) + " GFLOP/s, ridge point " +
                   fixed(peak / g.bandwidth_gbs, 1) + " FLOP/byte\n";
        };
        g.ceilings = "     tensor-core ceilings (" + source + "):\n" + ceiling(TensorFormat::Bf16, g.bf16_peak_gflops) +
                     ceiling(TensorFormat::Tf32, g.tf32_peak_gflops) +
                     "     (ceilings at the reported clock: under a long load the GPU may hold a lower one)";
    } else {
        g.ceilings = "     " + source + ": the tensor-core stages (lab 8's TF32, lab 11) are left off";
    }
    for (const roofline::RooflineStage& rs : roofline::gpu_stages())
        if (g.peak_for(rs.ceiling) > 0) g.stages.push_back(rs);
    std::vector<Job> jobs;
    check_fits_in_memory(s, Device::Gpu);
    for (const roofline::RooflineStage& rs : g.stages)
        if (const Stage* st = Registry::instance().find(rs.stage)) jobs.push_back({st, Impl::Reference, Impl::Reference, s, false, {}});
    g.rows = measure(jobs, settings).rows;
    return g;
}

// This GPU as the model sees it: its SMs and clock, the latencies of the
// micro-benchmarks (mmlab gpu-latency), the measured read bandwidth.
lh::Hardware this_gpu(const gpu::DeviceInfo& info, const gpu::Latencies& L) {
    lh::Hardware hw;
    hw.name = info.name;
    hw.sm_count = info.sm_count;
    hw.clock_ghz = L.sm_clock_ghz;
    const int lanes = gpu::fp32_lanes_per_sm(info.cc_major, info.cc_minor);
    if (lanes <= 0) throw std::runtime_error("unknown FP32 lanes per SM for sm_" + std::to_string(info.cc_major * 10 + info.cc_minor));
    hw.issue_alu = 32.0 / lanes;  // 4 schedulers x 32 lanes (Volta and newer): 0.25 cycles a warp instruction
    hw.issue_lsu = 1.0;           // 32 load/store units an SM (Volta and newer): one warp instruction a cycle
    hw.latency_global = L.global_dram;
    hw.latency_shared = L.shared;
    hw.bandwidth_gbs = gpu::measured_read_bandwidth().gbs;
    hw.shared_bytes_per_cycle = 128;  // 32 banks x 4 bytes
    hw.sector_bytes = 32;
    hw.block_scheduling = false;  // warp-granular scheduling: the paper's CUDA 2.0 rule
    // The caches, for the cache-aware model: L1 and L2 hit latencies by
    // pointer chasing, the L2's measured read bandwidth, its size as the
    // device reports it; the L1 is the SRAM shared memory lives in, 128 bytes a cycle.
    hw.latency_l1 = L.global_l1;
    hw.latency_l2 = L.global_l2;
    hw.l1_bytes_per_cycle = hw.shared_bytes_per_cycle;
    hw.l2_bandwidth_gbs = gpu::measured_l2_read_bandwidth().read.gbs;
    hw.l2_bytes = gpu::measured_l2_read_bandwidth().l2_bytes;
    return hw;
}

// The median kernel time of `reps` runs after a warm-up (the first launch
// loads the kernel's code), on inputs already on the device.
double median_kernel_ms(Problem& p, const MatmulFn& fn, int reps) {
    p.device().run_timed_ms(fn, {});
    std::vector<double> times;
    for (int r = 0; r < reps; ++r) times.push_back(p.device().run_timed_ms(fn, {}));
    return median(times);
}

GpuLh measure_lh(const std::vector<long long>& sizes, int reps, bool quiet) {
    if (sizes.empty()) throw std::invalid_argument("lh-model: no sizes to measure");
    const std::vector<ModelledKernel>& kernels = modelled_kernels();
    if (kernels.empty()) throw std::runtime_error("lh-model: " + std::string(kNoReference));
    const gpu::DeviceInfo info = gpu::probe();
    const gpu::Latencies L = gpu::measure_latencies();
    const lh::Hardware hw = this_gpu(info, L);

    GpuLh g;
    g.device = info.name + " (sm_" + std::to_string(info.cc_major) + std::to_string(info.cc_minor) + "), " +
               std::to_string(info.sm_count) + " SMs";
    g.inputs = "clock " + fixed(hw.clock_ghz, 3) + " GHz; DRAM latency " + fixed(hw.latency_global, 0) +
               " cycles, L2 hit " + fixed(hw.latency_l2, 0) + ", L1 hit " + fixed(hw.latency_l1, 1) + ", shared " +
               fixed(hw.latency_shared, 1) + " cycles (mmlab gpu-latency); read bandwidth " +
               fixed(hw.bandwidth_gbs, 0) + " GB/s = " + fixed(hw.global_bytes_per_cycle(), 1) +
               " bytes/cycle an SM; L2 read bandwidth " + fixed(hw.l2_bandwidth_gbs, 0) + " GB/s = " +
               fixed(hw.l2_bytes_per_cycle(), 1) + " bytes/cycle an SM; L2 " + fixed(hw.l2_bytes / 1048576.0, 1) +
               " MiB; issue " + fixed(hw.issue_alu, 2) + " (FP32/INT) and " + fixed(hw.issue_lsu, 2) +
               " (load/store) cycles a warp instruction; shared and L1 " + fixed(hw.shared_bytes_per_cycle, 0) +
               " bytes/cycle an SM";

    std::map<std::string, std::vector<LhCase>> by_kernel;
    std::map<std::string, gpu::KernelResources> res;
    std::map<std::string, std::string> checks;
    const long long smallest = *std::min_element(sizes.begin(), sizes.end());
    for (const ModelledKernel& k : kernels) {
        res[k.kernel] = gpu::kernel_resources(k.handle);
        const Stage* st = Registry::instance().find(k.stage);
        if (!st) throw std::runtime_error("stage " + k.stage + " is not registered");
        // Each kernel's result is checked once (at the smallest size) before it is timed.
        const CheckResult c = run_and_check(*st, Impl::Reference, {smallest, smallest, smallest}, {}, fresh_seed());
        checks[k.kernel] = c.passed ? "ok" : c.failure;
    }
    for (long long n : sizes) {
        const Shape s{n, n, n};
        check_fits_in_memory(s, Device::Gpu);
        if (!quiet) std::fprintf(stderr, "[lh-model] timing the four kernels at n = %lld...\n", n);
        Problem p(s);
        for (const ModelledKernel& k : kernels) {
            const gpu::KernelResources& r = res[k.kernel];
            const lh::Occupancy occ{r.warps_per_block, std::max(1, r.blocks_per_sm)};
            LhCase c;
            c.kernel = k.kernel;
            c.shape = s;
            c.regs_per_thread = r.regs_per_thread;
            c.shared_bytes = r.static_shared_bytes;
            c.blocks_per_sm_device = r.blocks_per_sm;
            c.check = checks[k.kernel];
            c.model = lh::kernel_model(k.kernel, hw, s, occ, lh::Memory::DramOnly);
            c.cached = lh::kernel_model(k.kernel, hw, s, occ, lh::Memory::Caches);
            c.measured_ms = c.check == "ok" ? median_kernel_ms(p, Registry::instance().find(k.stage)->reference, reps) : -1;
            by_kernel[k.kernel].push_back(c);
        }
    }
    for (const ModelledKernel& k : kernels)
        for (const LhCase& c : by_kernel[k.kernel]) g.cases.push_back(c);
    return g;
}

const bool registered = [] {
    gpu_sections().roofline = measure_roofline;
    gpu_sections().lh = measure_lh;
    return true;
}();

}  // namespace
}  // namespace mml::lab10
