#include "harness/stages/lab9/command_helpers.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "cpu/stats.h"
#include "gpu/device_info.h"
#include "harness/cli.h"
#include "harness/format.h"
#include "harness/gpu_backend.h"

namespace mml::lab9 {

double parse_real(const std::string& text, const std::string& what, double lo, double hi) {
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !(v >= lo && v <= hi))
        throw UsageError(what + " must be a number in [" + fixed(lo, 3) + ", " + fixed(hi, 0) + "], got '" + text + "'");
    return v;
}

Shape fit_shape(Shape s) {
    const gpu::DeviceInfo info = gpu::probe();
    const double per_k = 4.0 * double(s.M + s.N);
    const double gpu_room = 0.90 * double(info.free_bytes) - 4.0 * double(s.M * s.N) - 64e6;
    const double host_room = 0.60 * available_memory_bytes() - 4.0 * double(s.M * s.N);
    const double kmax = std::floor(std::min(gpu_room, host_room) / per_k);
    if (double(s.K) <= kmax) return s;
    if (kmax < 1) throw UsageError("shape " + shape_text(s) + " cannot fit at any K on this machine");
    long long k = (long long)kmax;
    for (long long round : {1000000000LL, 100000000LL, 10000000LL, 1000000LL, 1000LL, 4LL})
        if (k >= 2 * round) {
            k -= k % round;
            break;
        }
    std::printf("note: %s needs %.1f GB for E and F; this machine has room for %.1f GB (GPU %.1f GB free, "
                "host %.1f GB available): running at the largest K that fits, K = %lld\n",
                shape_text(s).c_str(), per_k * double(s.K) / 1e9, std::min(gpu_room, host_room) / 1e9,
                double(info.free_bytes) / 1e9, available_memory_bytes() / 1e9, k);
    return {s.M, s.N, k};
}

void print_device_line(double read_bandwidth_gbs) {
    const gpu::DeviceInfo info = gpu::probe();
    std::printf("GPU     : %s (sm_%d%d), %d SMs, %.2f GHz, %.1f GB free; measured read bandwidth %.0f GB/s\n",
                info.name.c_str(), info.cc_major, info.cc_minor, info.sm_count, info.sm_clock_ghz,
                double(info.free_bytes) / 1e9, read_bandwidth_gbs);
}

phvm::ModelGpu this_gpu_model(const gpu::Latencies& L, double usm) {
    const gpu::DeviceInfo info = gpu::probe();
    const gpu::ThreadLimits lim = gpu::thread_limits();
    phvm::ModelGpu g;
    g.name = info.name + " (this GPU: limits read from the device, latencies measured)";
    g.sm_num = lim.sm_count;
    g.sms = lim.max_threads_per_sm;
    g.ws = lim.warp_size;
    g.max_block = lim.max_block;
    g.cores = lim.sm_count * gpu::fp32_lanes_per_sm(info.cc_major, info.cc_minor);
    g.sigma_add = L.fadd, g.sigma_mul = L.fmul, g.sigma_g = L.global_dram, g.sigma_s = L.shared;
    g.u_sm = usm;
    return g;
}

void print_model_inputs(const phvm::ModelGpu& g) {
    std::printf("model inputs: %s\n  SM_NUM %d, SMS %d, WS %d, CoreS %d, max block %d; sigma_add %.2f, sigma_mul %.2f, "
                "sigma_g %.1f, sigma_s %.2f cycles; u_SM %.3f\n",
                g.name.c_str(), g.sm_num, g.sms, g.ws, g.cores, g.max_block, g.sigma_add, g.sigma_mul, g.sigma_g,
                g.sigma_s, g.u_sm);
}

namespace {
double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

double upload_ms(Problem& p) {
    // Problem::device() would allocate and copy in one step; the allocation
    // is not part of the copy the tables report.
    p.dev = std::make_unique<gpu::DeviceProblem>(p.shape);
    const auto t0 = std::chrono::steady_clock::now();
    p.dev->upload(p.A.data(), p.B.data());
    return ms_since(t0);
}

double download_ms(Problem& p) {
    const auto t0 = std::chrono::steady_clock::now();
    p.device().download_c(p.C.data());
    return ms_since(t0);
}

double median_kernel_ms(Problem& p, const MatmulFn& fn, const StageParams& params, int reps) {
    std::vector<double> times;
    for (int r = 0; r < reps; ++r) times.push_back(p.device().run_timed_ms(fn, params));
    return median(times);
}

}  // namespace mml::lab9
