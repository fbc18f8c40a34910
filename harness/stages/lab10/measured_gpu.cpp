// Lab 10 on the GPU: the measurements its two sections need (lab10.h).
//   roofline: lab 6-8 kernels and cuBLAS timed at one size, the FP32 spec
//             peak and the measured read bandwidth;
//   lh:       for lab 6's naive kernel, lab 7's tiled16/tiled32 and Volkov
//             kernels, the inputs of seed 004's model read from this GPU
//             (occupancy of the compiled kernel, latencies by micro-benchmark,
//             bandwidth) and the kernels' measured times.
// Nothing here is fitted to the kernels' times: every input is either read
// from the device, measured by a micro-benchmark, or a stated hardware fact.
#include <algorithm>
#include <cstdio>
#include <map>
#include <stdexcept>

#include "gpu/bandwidth.h"
#include "gpu/device_info.h"
#include "gpu/latency.h"
#include "gpu/occupancy.h"
#include "harness/cli.h"
#include "harness/gpu_backend.h"
#include "harness/run_stage.h"
#include "harness/stages/lab10/lab10.h"
#include "harness/targets.h"
#include "solutions/lab10/kernel_models.h"
#include "solutions/lab6/lab6.h"
#include "solutions/lab7/lab7.h"

namespace mml::lab10 {
namespace {

const std::vector<RooflineStage>& gpu_stages() {
    static const std::vector<RooflineStage> s = {
        {"lab6.naive_coalesced", 1, 1, "each thread reads its row of A and column of B"},
        {"lab7.tiled16", 16, 16, "16x16 tiles of A and B in shared memory"},
        {"lab7.tiled32", 32, 32, "32x32 tiles"},
        {"lab7.volkov", 64, 128, "64 x 128 of C a block"},
        {"lab8.tile8x8", 128, 128, "128 x 128 block tile"},
        {"lab8.double_buffer", 128, 256, "128 x 256 block tile"},
        {"lab8.cublas", 0, 0, ""},
    };
    return s;
}

GpuRoofline measure_roofline(Shape s, const BenchSettings& settings) {
    GpuRoofline g;
    const gpu::DeviceInfo info = gpu::probe();
    g.peak_gflops = info.fp32_peak_gflops;
    g.bandwidth_gbs = gpu::measured_read_bandwidth().gbs;
    g.device = info.name + ", " + std::to_string(info.sm_count) + " SMs at " + fixed(info.sm_clock_ghz, 2) +
               " GHz: FP32 peak (spec) " + fixed(g.peak_gflops, 0) + " GFLOP/s, measured read bandwidth " +
               fixed(g.bandwidth_gbs, 0) + " GB/s, ridge point " + fixed(g.peak_gflops / g.bandwidth_gbs, 1) +
               " FLOP/byte";
    g.stages = gpu_stages();
    std::vector<Job> jobs;
    check_fits_in_memory(s, Device::Gpu);
    for (const RooflineStage& rs : g.stages)
        if (const Stage* st = Registry::instance().find(rs.stage)) jobs.push_back({st, Impl::Reference, Impl::Reference, s, false, {}});
    g.rows = measure(jobs, settings).rows;
    return g;
}

struct Modelled {
    const char* name;
    const char* stage;
    gpu::KernelHandle handle;
};

double median_ms(gpu::DeviceProblem& dev, const MatmulFn& fn, int reps) {
    dev.run_timed_ms(fn, {});  // warm-up: the first launch loads the code
    std::vector<double> t;
    for (int r = 0; r < reps; ++r) t.push_back(dev.run_timed_ms(fn, {}));
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

GpuLh measure_lh(const std::vector<long long>& sizes, int reps, bool quiet) {
    using namespace reference::lab10;
    const gpu::DeviceInfo info = gpu::probe();
    const gpu::Latencies L = gpu::measure_latencies();
    Hardware hw;
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

    GpuLh g;
    g.device = info.name + " (sm_" + std::to_string(info.cc_major) + std::to_string(info.cc_minor) + "), " +
               std::to_string(info.sm_count) + " SMs";
    g.inputs = "clock " + fixed(hw.clock_ghz, 3) + " GHz; DRAM latency " + fixed(hw.latency_global, 0) +
               " cycles (L2 hit " + fixed(L.global_l2, 0) + "), shared " + fixed(hw.latency_shared, 1) +
               " cycles (mmlab gpu-latency); read bandwidth " + fixed(hw.bandwidth_gbs, 0) + " GB/s = " +
               fixed(hw.global_bytes_per_cycle(), 1) + " bytes/cycle an SM; issue " + fixed(hw.issue_alu, 2) +
               " (FP32/INT) and " + fixed(hw.issue_lsu, 2) + " (load/store) cycles a warp instruction; shared " +
               fixed(hw.shared_bytes_per_cycle, 0) + " bytes/cycle an SM";

    const std::vector<Modelled> kernels = {
        {"naive", "lab6.naive_coalesced", reference::lab6::naive_coalesced_handle()},
        {"tiled16", "lab7.tiled16", reference::lab7::tiled16_handle()},
        {"tiled32", "lab7.tiled32", reference::lab7::tiled32_handle()},
        {"volkov", "lab7.volkov", reference::lab7::volkov_handle()},
    };
    std::map<std::string, std::vector<LhCase>> by_kernel;
    std::map<std::string, gpu::KernelResources> res;
    std::map<std::string, std::string> checks;
    const long long smallest = *std::min_element(sizes.begin(), sizes.end());
    for (const Modelled& k : kernels) {
        res[k.name] = gpu::kernel_resources(k.handle);
        const Stage* st = Registry::instance().find(k.stage);
        if (!st) throw std::runtime_error(std::string("stage ") + k.stage + " is not registered");
        // Each kernel's result is checked once (at the smallest size) before it is timed.
        const Shape s{smallest, smallest, smallest};
        const CheckResult c = run_and_check(*st, Impl::Reference, s, {}, fresh_seed());
        checks[k.name] = c.passed ? "ok" : c.failure;
    }
    for (long long n : sizes) {
        const Shape s{n, n, n};
        check_fits_in_memory(s, Device::Gpu);
        if (!quiet) std::fprintf(stderr, "[lh-model] timing the four kernels at n = %lld...\n", n);
        Matrix A(n, n), B(n, n);
        const auto seed = fresh_seed();
        fill_inputs(A, B, seed);
        gpu::DeviceProblem dev(s);
        dev.upload(A.data(), B.data());
        for (const Modelled& k : kernels) {
            const gpu::KernelResources& r = res[k.name];
            const lh::Occupancy occ{r.warps_per_block, std::max(1, r.blocks_per_sm)};
            LhCase c;
            c.kernel = k.name;
            c.shape = s;
            c.regs_per_thread = r.regs_per_thread;
            c.shared_bytes = r.static_shared_bytes;
            c.blocks_per_sm_device = r.blocks_per_sm;
            c.check = checks[k.name];
            const std::string name = k.name;
            c.model = name == "naive"     ? naive_model(hw, s, kNaiveBlockX, kNaiveBlockY, occ)
                      : name == "tiled16" ? tiled_model(hw, s, 16, occ)
                      : name == "tiled32" ? tiled_model(hw, s, 32, occ)
                                          : volkov_model(hw, s, occ);
            c.measured_ms = c.check == "ok" ? median_ms(dev, Registry::instance().find(k.stage)->reference, reps) : -1;
            by_kernel[k.name].push_back(c);
        }
    }
    for (const Modelled& k : kernels)
        for (const LhCase& c : by_kernel[k.name]) g.cases.push_back(c);
    return g;
}

const bool registered = [] {
    gpu_sections().roofline = measure_roofline;
    gpu_sections().lh = measure_lh;
    return true;
}();

}  // namespace
}  // namespace mml::lab10
