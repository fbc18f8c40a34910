// Pointer-chasing and dependent-arithmetic latency benchmarks (gpu/latency.h).
#include <numeric>
#include <random>
#include <vector>

#include "gpu/cuda_check.h"
#include "gpu/device_buffer.h"
#include "gpu/latency.h"

namespace mml::gpu {
namespace {

// One thread walks the chain: every load's address is the previous load's
// value, so no two loads overlap. __ldcg caches in L2 only (not L1), so the
// "L2" walk measures L2 and the "DRAM" walk (over 8x the L2) misses both;
// with ViaL1, __ldca caches in L1 too, and a chain small enough for the L1
// measures an L1 hit.
// (A template argument, so that the timed loop holds nothing but the load.)
template <bool ViaL1>
__device__ __forceinline__ unsigned chase_load(const unsigned* p) {
    if constexpr (ViaL1) return __ldca(p);
    else return __ldcg(p);
}

template <bool ViaL1>
__global__ void chase_global(const unsigned* __restrict__ chain, int steps, int warm_steps,
                             unsigned* sink, long long* cycles) {
    unsigned j = 0;
    for (int s = 0; s < warm_steps; ++s) j = chase_load<ViaL1>(chain + j);
    const long long t0 = clock64();
    for (int s = 0; s < steps; ++s) j = chase_load<ViaL1>(chain + j);
    const long long t1 = clock64();
    *sink = j;
    *cycles = t1 - t0;
}

constexpr int kSharedSlots = 1024;

__global__ void chase_shared(const unsigned* __restrict__ order, int steps, unsigned* sink,
                             long long* cycles) {
    __shared__ unsigned chain[kSharedSlots];
    for (int i = 0; i < kSharedSlots; ++i) chain[i] = order[i];
    __syncthreads();
    unsigned j = 0;
    for (int s = 0; s < 64; ++s) j = chain[j];  // warm-up
    const long long t0 = clock64();
    for (int s = 0; s < steps; ++s) j = chain[j];
    const long long t1 = clock64();
    *sink = j;
    *cycles = t1 - t0;
}

// Dependent chains written in PTX so the compiler cannot fuse or reorder them.
__global__ void chain_arith(float seed, int reps, float* sink, long long* add_cycles,
                            long long* mul_cycles) {
    float x = seed, y = seed * 0.5f;
    long long t0 = clock64();
    for (int r = 0; r < reps; ++r) {
#pragma unroll
        for (int u = 0; u < 64; ++u) asm volatile("add.rn.f32 %0, %0, %1;" : "+f"(x) : "f"(y));
    }
    long long t1 = clock64();
    *add_cycles = t1 - t0;
    float z = seed;
    t0 = clock64();
    for (int r = 0; r < reps; ++r) {
#pragma unroll
        for (int u = 0; u < 64; ++u) asm volatile("mul.rn.f32 %0, %0, %1;" : "+f"(z) : "f"(y));
    }
    t1 = clock64();
    *mul_cycles = t1 - t0;
    *sink = x + z;
}

// A random single cycle through `slots` slots spaced `spacing` words apart
// (Sattolo's algorithm), written into a device array of slots*spacing words.
DeviceBuffer<unsigned> make_chain(std::size_t slots, std::size_t spacing, std::uint64_t seed) {
    std::vector<unsigned> perm(slots);
    std::iota(perm.begin(), perm.end(), 0u);
    std::mt19937_64 rng(seed);
    for (std::size_t i = slots - 1; i > 0; --i) {
        std::uniform_int_distribution<std::size_t> pick(0, i - 1);
        std::swap(perm[i], perm[pick(rng)]);
    }
    std::vector<unsigned> host(slots * spacing, 0u);
    for (std::size_t i = 0; i < slots; ++i) host[i * spacing] = unsigned(perm[i] * spacing);
    DeviceBuffer<unsigned> d(host.size());
    d.copy_from_host(host.data());
    return d;
}

double chase_cycles(const DeviceBuffer<unsigned>& chain, int steps, int warm, bool via_l1 = false) {
    DeviceBuffer<unsigned> sink(1);
    DeviceBuffer<long long> cycles(1);
    if (via_l1) chase_global<true><<<1, 1>>>(chain.get(), steps, warm, sink.get(), cycles.get());
    else chase_global<false><<<1, 1>>>(chain.get(), steps, warm, sink.get(), cycles.get());
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
    long long c = 0;
    cycles.copy_to_host(&c);
    return double(c) / steps;
}

}  // namespace

ThreadLimits thread_limits() {
    int dev = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    ThreadLimits t;
    CUDA_CHECK(cudaDeviceGetAttribute(&t.sm_count, cudaDevAttrMultiProcessorCount, dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&t.max_threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&t.warp_size, cudaDevAttrWarpSize, dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&t.max_block, cudaDevAttrMaxThreadsPerBlock, dev));
    return t;
}

Latencies measure_latencies() {
    Latencies L;
    int dev = 0, khz = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev));
    L.sm_clock_ghz = khz / 1e6;

    // DRAM: 1 Mi slots 256 bytes apart = 256 MiB, far past the L2; each step
    // lands on a line not touched before in this walk. A 128 MiB write first
    // pushes the chain's own initialisation out of the L2.
    {
        auto chain = make_chain(std::size_t(1) << 20, 64, 1);
        DeviceBuffer<char> flush(std::size_t(128) << 20);
        CUDA_CHECK(cudaMemset(flush.get(), 1, flush.bytes()));
        L.global_dram = chase_cycles(chain, 20000, 0);
    }
    // L2: 16 Ki slots 256 bytes apart = 4 MiB: past L1, well inside L2; a full
    // walk first brings it in.
    {
        const int slots = 1 << 14;
        auto chain = make_chain(std::size_t(slots), 64, 2);
        L.global_l2 = chase_cycles(chain, 20000, slots);
    }
    // L1: 64 slots 128 bytes apart = 8 KiB, inside the smallest L1 any
    // shared-memory carveout leaves (28 KiB on an H100); cached in L1
    // (__ldca) and walked once first.
    {
        const int slots = 64;
        auto chain = make_chain(std::size_t(slots), 32, 4);
        L.global_l1 = chase_cycles(chain, 20000, 4 * slots, true);
    }
    // Shared memory.
    {
        std::vector<unsigned> order(kSharedSlots);
        std::iota(order.begin(), order.end(), 0u);
        std::mt19937_64 rng(3);
        for (std::size_t i = kSharedSlots - 1; i > 0; --i) {
            std::uniform_int_distribution<std::size_t> pick(0, i - 1);
            std::swap(order[i], order[pick(rng)]);
        }
        DeviceBuffer<unsigned> d(kSharedSlots), sink(1);
        d.copy_from_host(order.data());
        DeviceBuffer<long long> cycles(1);
        const int steps = 8192;
        chase_shared<<<1, 1>>>(d.get(), steps, sink.get(), cycles.get());
        CUDA_CHECK_LAUNCH();
        CUDA_CHECK(cudaDeviceSynchronize());
        long long c = 0;
        cycles.copy_to_host(&c);
        L.shared = double(c) / steps;
    }
    // FP32 add and multiply.
    {
        DeviceBuffer<float> sink(1);
        DeviceBuffer<long long> add(1), mul(1);
        const int reps = 64;
        chain_arith<<<1, 1>>>(1.0001f, reps, sink.get(), add.get(), mul.get());
        CUDA_CHECK_LAUNCH();
        CUDA_CHECK(cudaDeviceSynchronize());
        long long a = 0, m = 0;
        add.copy_to_host(&a);
        mul.copy_to_host(&m);
        L.fadd = double(a) / (reps * 64.0);
        L.fmul = double(m) / (reps * 64.0);
    }
    return L;
}

}  // namespace mml::gpu
