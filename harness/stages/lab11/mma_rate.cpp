// mmlab mma-rate (lab 11): how fast the tensor cores go through mma.sync
// when nothing else is in the way (gpu/mma_rate.h), beside the tensor cores'
// spec peak (models/tensor_peaks.h): the ceiling of lab11.mma_sync, to set
// beside what lab11.wgmma reaches with all its memory traffic (handouts/lab11.md).
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "gpu/mma_rate.h"
#include "harness/cli.h"
#include "harness/commands.h"
#include "harness/gpu_backend.h"
#include "models/tensor_peaks.h"

namespace mml::lab11 {
namespace {

const char* kUsage = R"(usage: mmlab mma-rate
The tensor cores' rate through mma.sync.m16n8k16 (bf16 in, FP32 sums) with the operands already
in registers: no loads, no ldmatrix, 8 independent accumulators a warp, at 8, 16 and 32 warps an
SM (lab11.mma_sync runs 8). No mma.sync kernel runs faster on this GPU. Printed beside the bf16
tensor-core peak (spec, dense: SMs x clock x FLOPs a clock an SM, models/tensor_peaks.h), which
on Hopper only wgmma can approach. Kernel time between CUDA events, median of 5 launches.
)";

int run_mma_rate(const std::vector<std::string>& raw) {
    if (!raw.empty()) throw UsageError("'mmlab mma-rate' takes no options");
    gpu::require_gpu("'mmlab mma-rate'");
    const gpu::DeviceInfo info = gpu::probe();
    const double clock = info.sm_clock_ghz;
    std::printf("GPU: %s (sm_%d%d), %d SMs, reported clock %.2f GHz\n", info.name.c_str(), info.cc_major,
                info.cc_minor, info.sm_count, clock);
    std::printf("mma.sync.m16n8k16 bf16 -> FP32, operands in registers (no memory traffic), 8 accumulators a warp:\n");
    double best = 0;
    for (int warps : {8, 16, 32}) {
        const gpu::MmaRate r = gpu::measure_mma_sync_rate(warps);
        if (!r.why_not.empty()) {
            std::printf("  not measured: %s\n", r.why_not.c_str());
            return 0;
        }
        best = std::max(best, r.tflops);
        std::printf("  %2d warps an SM: %7.1f TFLOP/s = %6.0f FLOPs a clock an SM at %.2f GHz (%.3f ms)\n", warps,
                    r.tflops, r.tflops * 1e3 / (info.sm_count * clock), clock, r.ms);
    }
    using peaks::TensorFormat;
    const double peak =
        peaks::tensor_peak_gflops(info.cc_major, info.cc_minor, info.sm_count, clock, TensorFormat::Bf16) / 1e3;
    if (peak > 0)
        std::printf("bf16 tensor cores, dense (%s):\n  %.0f FLOPs a clock an SM x %d SMs x %.2f GHz = %.1f TFLOP/s: "
                    "mma.sync reaches at most %.0f%% of it\n",
                    peaks::tensor_rate_source(info.cc_major, info.cc_minor),
                    peaks::tensor_flops_per_clock_per_sm(info.cc_major, info.cc_minor, TensorFormat::Bf16),
                    info.sm_count, clock, peak, 100 * best / peak);
    else
        std::printf("%s\n", peaks::tensor_rate_source(info.cc_major, info.cc_minor));
    return 0;
}

CommandRegistrar mma_rate_cmd({"mma-rate", "lab 11: the tensor cores' rate through mma.sync, operands in registers",
                               kUsage, run_mma_rate, 11});

}  // namespace
}  // namespace mml::lab11
