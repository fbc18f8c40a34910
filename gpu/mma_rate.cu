#include "gpu/mma_rate.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "gpu/cuda_check.h"
#include "gpu/device_buffer.h"
#include "gpu/event_timer.h"

namespace mml::gpu {
namespace {

constexpr int kChains = 8;            // independent accumulators a warp: enough to cover the instruction's latency
constexpr int kThreads = 256;         // 8 warps a block
constexpr double kFlopsPerMma = 2.0 * 16 * 8 * 16;

// One mma.sync.m16n8k16 (PTX ISA, "Warp-level matrix multiply-accumulate
// instructions"): d += a (16x16 bf16, 4 registers a thread) * b (16x8 bf16,
// 2 registers), d 16x8 float32 (4 registers).
__global__ void __launch_bounds__(kThreads) mma_sync_rate_kernel(float* out, int iterations) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    // Operands that are neither zero nor all alike (the tensor cores' power,
    // and so their clock, depends on the data): small bf16 values from the
    // thread index, so that the sums stay far from overflow.
    const std::uint32_t t = threadIdx.x;
    const std::uint32_t lo = 0x3C00u | (t & 0x7Fu), hi = 0x3B80u | ((t * 7u) & 0x7Fu);  // about 2^-7 .. 2^-8
    const std::uint32_t a0 = lo | (hi << 16), a1 = hi | (lo << 16), a2 = a0 ^ 0x00010001u, a3 = a1 ^ 0x00020002u;
    const std::uint32_t b0 = a2, b1 = a3;
    float d[kChains][4];
#pragma unroll
    for (int c = 0; c < kChains; ++c)
#pragma unroll
        for (int r = 0; r < 4; ++r) d[c][r] = 0.0f;
    for (int i = 0; i < iterations; ++i) {
#pragma unroll
        for (int c = 0; c < kChains; ++c)
            asm volatile(
                "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                "{%8, %9}, {%0, %1, %2, %3};\n"
                : "+f"(d[c][0]), "+f"(d[c][1]), "+f"(d[c][2]), "+f"(d[c][3])
                : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    }
    float sum = 0;
#pragma unroll
    for (int c = 0; c < kChains; ++c) sum += d[c][0] + d[c][1] + d[c][2] + d[c][3];
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;  // keeps every product live
#else
    (void)out, (void)iterations;
#endif
}

}  // namespace

MmaRate measure_mma_sync_rate(int warps_per_sm, int iterations, int reps) {
    MmaRate r;
    r.warps_per_sm = warps_per_sm;
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        cudaGetLastError();
        r.why_not = "no CUDA device";
        return r;
    }
    int device = 0, major = 0, sms = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    if (major < 8) {
        r.why_not = "bf16 mma.sync needs sm_80 or newer";
        return r;
    }
    const int blocks = sms * std::max(1, warps_per_sm / (kThreads / 32));
    DeviceBuffer<float> out(std::size_t(blocks) * kThreads);
    mma_sync_rate_kernel<<<blocks, kThreads>>>(out.get(), iterations);  // untimed: loads the code
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
    EventTimer timer;
    std::vector<double> ms;
    for (int i = 0; i < reps; ++i) {
        timer.start();
        mma_sync_rate_kernel<<<blocks, kThreads>>>(out.get(), iterations);
        CUDA_CHECK_LAUNCH();
        ms.push_back(timer.stop_ms());
    }
    std::sort(ms.begin(), ms.end());
    r.ms = ms[ms.size() / 2];
    const double flops = double(blocks) * kThreads / 32 * iterations * kChains * kFlopsPerMma;
    r.tflops = flops / (r.ms * 1e-3) / 1e12;
    return r;
}

}  // namespace mml::gpu
