// mmlab gpu-latency (lab 9): the micro-benchmarks the time-cost model takes
// its inputs from (gpu/latency.h, gpu/bandwidth.h), beside the paper's Table 4.
#include <cstdio>
#include <string>
#include <vector>

#include "gpu/bandwidth.h"
#include "gpu/device_info.h"
#include "gpu/latency.h"
#include "harness/cli.h"
#include "harness/commands.h"
#include "harness/gpu_backend.h"

namespace mml::lab9 {
namespace {

const char* kUsage = R"(usage: mmlab gpu-latency
The micro-benchmarks behind the model's inputs: pointer chasing through global
memory (DRAM, L2 and L1) and shared memory, dependent FP32 add and multiply chains,
all in SM cycles (clock64), one thread; the read bandwidth from DRAM and from the L2;
the thread limits. (The L1 and L2 numbers are lab 10's cache-aware model's inputs.)
The paper's Table 4 values are printed beside them.
)";

int run_latency(const std::vector<std::string>& raw) {
    if (!raw.empty()) throw UsageError("'mmlab gpu-latency' takes no options");
    gpu::require_gpu("'mmlab gpu-latency'");
    const gpu::Latencies L = gpu::measure_latencies();
    const auto& bw = gpu::measured_read_bandwidth();
    const auto lim = gpu::thread_limits();
    const gpu::DeviceInfo info = gpu::probe();
    std::printf("GPU: %s, %d SMs, %d threads/SM, warp %d, %d FP32 cores, SM clock %.2f GHz\n", info.name.c_str(),
                lim.sm_count, lim.max_threads_per_sm, lim.warp_size,
                lim.sm_count * gpu::fp32_lanes_per_sm(info.cc_major, info.cc_minor), L.sm_clock_ghz);
    std::printf("%-34s %10s %12s %12s\n", "latency (cycles)", "this GPU", "A100 (paper)", "2080Ti (paper)");
    std::printf("%-34s %10.1f %12s %12s\n", "sigma_g: global load, DRAM", L.global_dram, "317", "346");
    std::printf("%-34s %10.1f %12s %12s\n", "global load, L2 hit (not in model)", L.global_l2, "-", "-");
    std::printf("%-34s %10.1f %12s %12s\n", "global load, L1 hit (not in model)", L.global_l1, "-", "-");
    std::printf("%-34s %10.2f %12s %12s\n", "sigma_s: shared load", L.shared, "34.46", "49.39");
    std::printf("%-34s %10.2f %12s %12s\n", "sigma_add: FP32 add", L.fadd, "1", "1");
    std::printf("%-34s %10.2f %12s %12s\n", "sigma_mul: FP32 multiply", L.fmul, "2", "2");
    std::printf("read bandwidth: %.0f GB/s (%.2f GB read, median of %d runs)\n", bw.gbs, bw.bytes / 1e9, bw.runs);
    const auto& l2 = gpu::measured_l2_read_bandwidth();
    std::printf("L2 read bandwidth (8 MiB read again and again, L1 bypassed; lab 10): %.0f GB/s = %.0f bytes a cycle an SM "
                "(%.2f GB read, median of %d runs); L2 %.1f MiB\n",
                l2.read.gbs, l2.read.gbs / (info.sm_count * L.sm_clock_ghz), l2.read.bytes / 1e9, l2.read.runs,
                l2.l2_bytes / 1048576.0);
    return 0;
}

CommandRegistrar latency_cmd({"gpu-latency", "lab 9: latency micro-benchmarks and read bandwidth (the model's inputs)",
                              kUsage, run_latency, 9});

}  // namespace
}  // namespace mml::lab9
