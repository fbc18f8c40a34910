// Lab 8, stage 6: the tile configuration and split-K chosen per shape - fast
// at every shape, not only at large round ones.
//
// What changed from stages 4 and 5: nothing inside the kernels' main loops.
// Stage 4 is fast when C has many block tiles, and slow when it has few: at
// 1000^3 its 128 x 128 tiles make 64 blocks for the H100's 132 SMs (264 slots
// at two blocks an SM), so half the GPU idles - wave quantization. Two remedies:
//  1. More, smaller tiles: the same kernels instantiated with the block tiles
//     of labs/common/lab8_tiles.h (128 x 256 with stage 5's kernel where B's
//     rows are float4-aligned; 128 x 256, 128 x 128, 128 x 64, 64 x 64 with
//     stage 4's).
//     Smaller tiles make more blocks but do fewer FFMAs per loaded value.
//  2. Split-K: cut K into `split` slices and give each (tile, slice) its own
//     block (grid y = the slice): split times the blocks, each with the same
//     tile and 1/split of the k-loop. Each block writes its partial product
//     to its own M x N slab of a workspace; a second small kernel adds the
//     slabs into C. The price: 2 * split * M * N * 4 more bytes through memory.
// The model in labs/common/lab8_tiles.h predicts the time of every
// (configuration, split) from the shape and the GPU's facts, and the launcher
// takes the fastest. `mmlab tune` measures them all beside the model.
//
// Why a second kernel and not atomicAdd into C: floating-point addition is
// not associative, and atomics add in whatever order the blocks finish, so
// the result would change from run to run in its last bits. The reduction
// here adds the slabs in slab order 0, 1, 2...: the same bits every run.
//
// The error bound stays gamma_K: each element is split slice sums of at most
// k_slice products, then split - 1 additions; as ceil(K / k_slice) = split,
// K >= (split - 1) * k_slice + 1 >= k_slice + split - 1, so no element sees
// more than K roundings in a row.
#include <algorithm>
#include <cstddef>
#include <utility>

#include "solutions/lab8/lab8.h"
#include "solutions/lab8/double_buffer_impl.cuh"  // the stage-4 kernel
#include "solutions/lab8/async_copy_impl.cuh"     // the stage-5 kernel
#include "labs/common/lab8_tiles.h"
#include "gpu/device_info.h"

namespace reference::lab8 {
namespace {

namespace tiles = common::lab8;

// Configuration I runs stage 4's kernel (stages == 0) or stage 5's.
template <int I>
void launch_one(const float* A, const float* B, float* out, std::int64_t M, std::int64_t N, std::int64_t K,
                std::int64_t k_slice, int slices) {
    if constexpr (tiles::kTileConfigs[I].stages == 0)
        launch_double_buffer<tiles::ConfigTiles<I>>(A, B, out, M, N, K, k_slice, slices);
    else
        launch_async_copy<tiles::PipelineConfigTiles<I>>(A, B, out, M, N, K, k_slice, slices);
}
// Configuration `tile` (a run-time index) of the table.
template <std::size_t... I>
void launch_indexed(int tile, std::index_sequence<I...>, const float* A, const float* B, float* out, std::int64_t M,
                    std::int64_t N, std::int64_t K, std::int64_t k_slice, int slices) {
    ((tile == int(I) ? launch_one<int(I)>(A, B, out, M, N, K, k_slice, slices) : void()), ...);
}
void launch_config(int tile, const float* A, const float* B, float* out, std::int64_t M, std::int64_t N,
                   std::int64_t K, std::int64_t k_slice, int slices) {
    launch_indexed(tile, std::make_index_sequence<tiles::kTileConfigCount>{}, A, B, out, M, N, K, k_slice, slices);
}

// C = the sum of `slices` slabs of `count` floats each, added in slab order.
// Read once, written once: a streaming kernel, float4 wide where it can be.
template <bool kVec>
__global__ void sum_slices(const float* __restrict__ partials, float* __restrict__ C, std::int64_t count,
                           int slices) {
    const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
    const std::int64_t first = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (kVec) {
        const std::int64_t count4 = count / 4;
        const float4* p = reinterpret_cast<const float4*>(partials);
        for (std::int64_t i = first; i < count4; i += stride) {
            float4 s = p[i];
            for (int z = 1; z < slices; ++z) {
                const float4 v = p[z * count4 + i];
                s.x += v.x, s.y += v.y, s.z += v.z, s.w += v.w;
            }
            reinterpret_cast<float4*>(C)[i] = s;
        }
    } else {
        for (std::int64_t i = first; i < count; i += stride) {
            float s = partials[i];
            for (int z = 1; z < slices; ++z) s += partials[z * count + i];
            C[i] = s;
        }
    }
}

// The partial products live in a workspace kept between calls (allocated on
// the first call that needs it, grown when needed; after the first call of a
// shape, never inside a timed run).
float* workspace(std::size_t floats) {
    static float* p = nullptr;
    static std::size_t have = 0;
    if (floats > have) {
        if (p) CUDA_CHECK(cudaFree(p));
        p = nullptr, have = 0;
        CUDA_CHECK(cudaMalloc(&p, floats * sizeof(float)));
        have = floats;
    }
    return p;
}

const tiles::GpuFacts& gpu_facts() {
    static const tiles::GpuFacts g = tiles::gpu_facts(mml::gpu::read_device_info());
    return g;
}

}  // namespace

void autotile(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K, int tile,
              int split) {
    const tiles::Plan p = tiles::choose_plan(M, N, K, gpu_facts(), tile, split);
    if (p.split == 1) {
        launch_config(p.tile, A, B, C, M, N, K, K, 1);
        return;
    }
    const std::int64_t count = M * N;
    float* partials = workspace(std::size_t(p.split) * std::size_t(count));
    launch_config(p.tile, A, B, partials, M, N, K, p.k_slice, p.split);
    // Enough threads for one float4 each, at most 8 blocks of 256 per SM
    // (the loop strides over the rest).
    const bool vec = rows_are_float4_aligned(C, count);  // C 16-byte aligned, count a multiple of 4
    const std::int64_t items = vec ? count / 4 : count;
    const int blocks = int(std::min<std::int64_t>((items + 255) / 256, std::int64_t(gpu_facts().sms) * 8));
    if (vec)
        sum_slices<true><<<std::max(blocks, 1), 256>>>(partials, C, count, p.split);
    else
        sum_slices<false><<<std::max(blocks, 1), 256>>>(partials, C, count, p.split);
    CUDA_CHECK_LAUNCH();
}

}  // namespace reference::lab8
