// Read-bandwidth micro-benchmark (see gpu/bandwidth.h).
#include <algorithm>
#include <vector>

#include "gpu/bandwidth.h"
#include "gpu/cuda_check.h"
#include "gpu/device_buffer.h"
#include "gpu/event_timer.h"

namespace mml::gpu {
namespace {

constexpr int kThreads = 256;
constexpr int kUnroll = 4;  // independent 16-byte loads in flight per thread

// One 16-byte load: through the L1 (__ldg) or from the L2 alone (__ldcg).
template <bool kL2Only>
__device__ __forceinline__ float4 load16(const float4* p) {
    if constexpr (kL2Only) return __ldcg(p);
    else return __ldg(p);
}

// This thread's sum of one grid-stride pass over in[0, n4): kUnroll loads
// issued before any is used.
template <bool kL2Only>
__device__ __forceinline__ float grid_stride_sum(const float4* __restrict__ in, long long n4) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    float sum = 0.f;
    for (; i + (kUnroll - 1) * stride < n4; i += kUnroll * stride) {
        float4 v[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) v[u] = load16<kL2Only>(in + i + u * stride);
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) sum += v[u].x + v[u].y + v[u].z + v[u].w;
    }
    for (; i < n4; i += stride) {
        const float4 v = load16<kL2Only>(in + i);
        sum += v.x + v.y + v.z + v.w;
    }
    return sum;
}

__global__ void read_kernel(const float4* __restrict__ in, long long n4, float* __restrict__ out) {
    const float sum = grid_stride_sum<false>(in, n4);
    // One value per block keeps the loads alive; the reduction is not timed work worth optimising.
    __shared__ float s[kThreads];
    s[threadIdx.x] = sum;
    __syncthreads();
    for (int h = kThreads / 2; h > 0; h /= 2) {
        if (threadIdx.x < h) s[threadIdx.x] += s[threadIdx.x + h];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

__global__ void fill_kernel(float4* p, long long n4) {
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n4;
         i += (long long)gridDim.x * blockDim.x)
        p[i] = make_float4(1.f, 2.f, 3.f, 4.f);
}

// `bytes` read by each of 10 runs of launch(), the first a warm-up: the median
// of the other nine.
template <class Launch>
ReadBandwidth timed_reads(double bytes, Launch launch) {
    EventTimer timer;
    std::vector<float> ms;
    for (int r = 0; r < 10; ++r) {
        timer.start();
        launch();
        CUDA_CHECK_LAUNCH();
        const float t = timer.stop_ms();
        if (r > 0) ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    ReadBandwidth r;
    r.bytes = bytes;
    r.runs = int(ms.size());
    r.gbs = r.bytes / (ms[ms.size() / 2] * 1e-3) / 1e9;
    return r;
}

ReadBandwidth measure() {
    int dev = 0, sms = 0, per_sm = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, read_kernel, kThreads, 0));
    std::size_t free_b = 0, total_b = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    // 1 GiB: 20x the H100's 50 MB L2, so the L2 cannot serve repeated runs.
    std::size_t bytes = std::min<std::size_t>(std::size_t(1) << 30, free_b / 4);
    bytes -= bytes % 16;
    const long long n4 = (long long)(bytes / 16);
    DeviceBuffer<float4> buf{std::size_t(n4)};
    const int grid = sms * std::max(per_sm, 1);
    DeviceBuffer<float> out{std::size_t(grid)};
    fill_kernel<<<grid, kThreads>>>(buf.get(), n4);
    CUDA_CHECK_LAUNCH();
    return timed_reads(double(n4) * 16.0, [&] { read_kernel<<<grid, kThreads>>>(buf.get(), n4, out.get()); });
}

// Every pass reads the whole buffer (grid-stride); __ldcg keeps the L1 out, so
// each pass's bytes come from the L2.
__global__ void l2_read_kernel(const float4* __restrict__ in, long long n4, int passes, float* __restrict__ out) {
    float sum = 0.f;
    for (int p = 0; p < passes; ++p) sum += grid_stride_sum<true>(in, n4);
    if (sum == -1.f) out[blockIdx.x] = sum;  // never true for the buffer's values; keeps the loads alive
}

L2Bandwidth measure_l2() {
    int dev = 0, sms = 0, per_sm = 0, l2 = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, l2_read_kernel, kThreads, 0));
    const long long n4 = (8LL << 20) / 16;  // 8 MiB: a sixth of the H100's L2, far past any L1
    const int passes = 64;
    DeviceBuffer<float4> buf{std::size_t(n4)};
    const int grid = sms * std::max(per_sm, 1);
    DeviceBuffer<float> out{std::size_t(grid)};
    fill_kernel<<<grid, kThreads>>>(buf.get(), n4);
    CUDA_CHECK_LAUNCH();
    L2Bandwidth r;
    r.read = timed_reads(double(n4) * 16.0 * passes,
                         [&] { l2_read_kernel<<<grid, kThreads>>>(buf.get(), n4, passes, out.get()); });
    r.l2_bytes = double(l2);
    return r;
}

}  // namespace

const L2Bandwidth& measured_l2_read_bandwidth() {
    static const L2Bandwidth r = measure_l2();
    return r;
}

const ReadBandwidth& measured_read_bandwidth() {
    static const ReadBandwidth r = measure();
    return r;
}

}  // namespace mml::gpu
