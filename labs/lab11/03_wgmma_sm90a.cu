// Lab 11, stages 3, 4 and 6 - your code: Hopper's way - TMA, an mbarrier
// ring, wgmma, producer and consumer warpgroups, persistent tiles (stage 4,
// lab11.wgmma_tf32, is the same template with TF32 inputs; stage 6,
// lab11.wgmma_fp8, with FP8 e4m3 inputs and 128-wide tiles).
//
// Given: the block (3 warpgroups: one producer, two consumers of 64 rows x BN
// each), the ring of stages and its barriers, the producer (one thread
// issuing two TMA copies a stage), the persistent tile loop, the epilogue,
// the launcher with its tensor maps and its choice of BN (256, or 128 for
// small products); the PTX wrappers are in labs/common/hopper_ptx.cuh (read
// it first: each wrapper is one instruction).
//
// Tasks (handouts/lab11.md, stage 3):
//   TODO 11.3a  smem_descriptor(): the 64-bit shared-memory matrix descriptor of a tile
//   TODO 11.3b  the consumer's product of one stage: wgmma fence, 4 wgmmas, commit
//   TODO 11.6   stage 6 (FP8): the same product, summed by the tensor core one stage
//               at a time and promoted to float32 registers
// Built for sm_90a only (Makefile: *_sm90a.cu); the tests skip it on other GPUs.
#include "labs/lab11/lab11.h"

#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "gpu/cuda_check.h"
#include "labs/common/hopper_ptx.cuh"
#include "labs/common/wgmma_given.cuh"

namespace student::lab11 {
namespace {
using namespace ::lab11;  // the given PTX wrappers and tiling (labs/common/hopper_ptx.cuh, wgmma_given.cuh)

// The shared-memory matrix descriptor of a K-major tile written by the TMA
// with the 128-byte swizzle (PTX ISA, "Matrix Descriptor Format"): rows of 128
// bytes, 8 rows (1024 bytes) to a swizzle atom, atoms one after the other.
// The tile must start on a 1024-byte boundary; the next k-step of 32 bytes is
// the same descriptor plus 32 / 16 = 2 (the hardware applies the swizzle to
// the final addresses).
// TODO(lab11, 11.3a): build the descriptor from smem_u32(tile) (a byte address).
//   The PTX ISA's fields (each a byte count >> 4, in 14 bits):
//   bits 0-13  : start address >> 4            (of the 18-bit shared address)
//   bits 16-29 : leading byte offset >> 4       (unused by this swizzled K-major
//                                                layout: 1, i.e. 16 bytes, fills it)
//   bits 32-45 : stride byte offset >> 4        (the distance from one 8-row atom to
//                                                the next: work it out from the layout above)
//   bits 62-63 : swizzle mode                   (1 = 128-byte swizzle)
__device__ __forceinline__ std::uint64_t smem_descriptor(const void* tile) {
    (void)tile;
    return 0;
}

template <typename T, int BN>
__global__ void __launch_bounds__(kThreads, 1)
    wgmma_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                 float* __restrict__ C, int M, int N, int K, bool pairs_aligned) {
#ifdef LAB11_SM90A
    constexpr int BK = kRowBytes / int(sizeof(T));    // k per stage: 64 bf16 or 32 tf32
    constexpr int kSteps = BK / Operand<T>::kInstrK;  // 4 wgmmas per stage
    constexpr int kStages = Tiling<BN>::kStages, kStageBytes = Tiling<BN>::kStageBytes;
    extern __shared__ unsigned char smem_raw[];
    unsigned char* ring = reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(smem_raw) + 1023) &
                                                           ~std::uintptr_t(1023));
    __shared__ __align__(8) std::uint64_t full[kStages], empty[kStages];

    const int warpgroup = threadIdx.x / 128;
    const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN, tiles = tiles_m * tiles_n;
    const int k_tiles = (K + BK - 1) / BK;

    if (threadIdx.x == 0) {
        for (int s = 0; s < kStages; ++s) {
            mbar_init(&full[s], 1);                    // the producer's arrive (+ the bytes)
            mbar_init(&empty[s], kConsumers * 4);      // lane 0 of every consumer warp
        }
        mbar_fence_init();
    }
    __syncthreads();

    if (warpgroup == 0) {  // the producer
        setmaxnreg_dec<kProducerRegs>();
        if (threadIdx.x == 0) {
            int stage = 0;
            unsigned phase = 0;
            for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
                const TileOrigin t = tile_origin<BN>(tile, tiles_m, tiles_n);
                for (int kt = 0; kt < k_tiles; ++kt) {
                    mbar_wait(&empty[stage], phase ^ 1);  // the consumers are done with this stage
                    unsigned char* dst = ring + stage * kStageBytes;
                    mbar_arrive_expect_tx(&full[stage], kStageBytes);
                    tma_load_2d(dst, &map_a, kt * BK, t.m0, &full[stage]);
                    tma_load_2d(dst + kATileBytes, &map_b, kt * BK, t.n0, &full[stage]);
                    if (++stage == kStages) stage = 0, phase ^= 1;
                }
            }
        }
    } else {  // a consumer: rows 64 * consumer .. +63 of each block tile
        setmaxnreg_inc<kConsumerRegs>();
        const int consumer = warpgroup - 1;
        const int lane = threadIdx.x % 32;
        float acc[Tiling<BN>::kAccRegs];
#pragma unroll
        for (int i = 0; i < Tiling<BN>::kAccRegs; ++i) acc[i] = 0.0f;
        int stage = 0;
        unsigned phase = 0;
        for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
            const TileOrigin t = tile_origin<BN>(tile, tiles_m, tiles_n);
            int previous = 0;
            for (int kt = 0; kt < k_tiles; ++kt) {
                mbar_wait(&full[stage], phase);  // the copy engine has delivered this stage
                const unsigned char* a = ring + stage * kStageBytes + consumer * 64 * kRowBytes;
                const unsigned char* b = ring + stage * kStageBytes + kATileBytes;
                const std::uint64_t desc_a = smem_descriptor(a), desc_b = smem_descriptor(b);
                if constexpr (Operand<T>::kPromote) {  // FP8 (stage 6): promote every stage
                    // TODO(lab11, 11.6): the product of this stage, promoted (handouts/lab11.md, stage 6).
                    //   Goal: the tensor core's FP8 accumulator keeps 14 significant bits, not 24 -
                    //   summed there over all of K, the error bound (cpu/error_bound.h,
                    //   fp8_tensor_core_bound) says nothing past K = 4096. So the tensor core may
                    //   only sum ONE stage (128 products), from zero, into a second array of
                    //   Tiling<BN>::kAccRegs floats; float32 registers (acc) add the stages up.
                    //   Contract: acc holds the tile's sum after its last stage; the first stage
                    //   of a tile overwrites acc; this stage's wgmmas are complete before the
                    //   code below (wgmma_wait<1>, the arrive on `previous`) runs.
                    //   Target: >= 90 % of lab11.cublaslt_fp8 at 4096^3 and 8192^3.
                    (void)desc_a, (void)desc_b;
                } else {
                    // TODO(lab11, 11.3b): the product of this stage, by the whole warpgroup.
                    //   Contract: acc += this stage's 64 x BN x BK product, as kSteps wgmmas along
                    //     k (Operand<T>::mma) issued as ONE group, so that wgmma_wait<1> below counts it.
                    //   Ask yourself (the wrappers are in labs/common/hopper_ptx.cuh):
                    //     - wgmma reads acc's registers and the stage's shared memory on its own:
                    //       which two wrappers settle them (for the compiler, for the hardware) first?
                    //     - the next k-step starts further along the 128-byte row: by how many
                    //       bytes, and what is that in descriptor units (the address field counts 16)?
                    //     - the tile loop is persistent: acc still holds the last tile's sums when a
                    //       tile begins. Which product must start acc afresh (scale_d), which add?
                    //     - which wrapper closes the group?
                    (void)desc_a, (void)desc_b;
                }
                // Keep this stage's wgmmas running, wait for the previous stage's,
                // and hand that stage back to the producer.
                wgmma_wait<1>();
                fence_accumulators(acc);
                if (kt > 0 && lane == 0) mbar_arrive(&empty[previous]);
                previous = stage;
                if (++stage == kStages) stage = 0, phase ^= 1;
            }
            wgmma_wait<0>();
            fence_accumulators(acc);
            if (lane == 0) mbar_arrive(&empty[previous]);

            store_tile(C, acc, t.m0, t.n0, consumer, M, N, pairs_aligned);  // (wgmma_given.cuh)
        }
    }
#else
    __trap();  // built for another GPU: the launcher never gets here
#endif
}

template <typename T, int BN>
void launch_tiles(const T* A, const T* Bt, std::int64_t ld, float* C, std::int64_t M, std::int64_t N,
                  std::int64_t K, int blocks_max) {
    constexpr int BK = kRowBytes / int(sizeof(T));
    constexpr int kSmemBytes = Tiling<BN>::kSmemBytes;
    static bool configured = false;
    static MapCache cache;
    if (!configured) {
        CUDA_CHECK(cudaFuncSetAttribute(wgmma_kernel<T, BN>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
        configured = true;
    }
    if (cache.a != A || cache.bt != Bt || cache.ld != ld || cache.M != M || cache.N != N || cache.K != K) {
        cache.map_a = make_tensor_map_2d(A, Operand<T>::kMapType, sizeof(T), M, K, ld, BM, BK);
        cache.map_b = make_tensor_map_2d(Bt, Operand<T>::kMapType, sizeof(T), N, K, ld, BN, BK);
        cache.a = A, cache.bt = Bt, cache.ld = ld, cache.M = M, cache.N = N, cache.K = K;
    }
    const std::int64_t tiles = ((M + BM - 1) / BM) * ((N + BN - 1) / BN);
    const int blocks = int(std::min<std::int64_t>(tiles, blocks_max));
    const bool pairs_aligned = N % 2 == 0 && reinterpret_cast<std::uintptr_t>(C) % 8 == 0;
    wgmma_kernel<T, BN><<<blocks, kThreads, kSmemBytes>>>(cache.map_a, cache.map_b, C, int(M), int(N), int(K),
                                                           pairs_aligned);
    CUDA_CHECK_LAUNCH();
}

template <typename T>
void launch(const T* A, const T* Bt, std::int64_t ld, float* C, std::int64_t M, std::int64_t N, std::int64_t K,
            const char* stage) {
    static bool checked = false;
    if (!checked) {
        require_hopper(stage);
        checked = true;
    }
    if (M > INT_MAX || N > INT_MAX || K > INT_MAX || ld > INT_MAX || (M / BM + 1) * (N / 128 + 1) > INT_MAX)
        throw std::runtime_error(std::string(stage) + ": the TMA takes 32-bit coordinates; this shape is too large");
    // 256-wide tiles do the most work per byte of shared memory read, but a
    // product with few of them leaves SMs idle (1000^3: 32 tiles for 132 SMs).
    // Count the waves of tiles each width needs; a 128-wide tile costs about
    // half a 256-wide one, plus ~10% (less work per instruction).
    const int sms = sm_count();
    const std::int64_t tiles_256 = ((M + BM - 1) / BM) * ((N + 255) / 256);
    const std::int64_t tiles_128 = ((M + BM - 1) / BM) * ((N + 127) / 128);
    const double waves_256 = double((tiles_256 + sms - 1) / sms), waves_128 = double((tiles_128 + sms - 1) / sms);
    if constexpr (Operand<T>::kPromote)  // FP8: two sets of 64 x BN sums a consumer fit 232 registers at BN = 128 only
        launch_tiles<T, 128>(A, Bt, ld, C, M, N, K, sms);
    else if (0.55 * waves_128 < waves_256)
        launch_tiles<T, 128>(A, Bt, ld, C, M, N, K, sms);
    else
        launch_tiles<T, 256>(A, Bt, ld, C, M, N, K, sms);
}

}  // namespace

void wgmma(const __nv_bfloat16* A, const __nv_bfloat16* Bt, std::int64_t ld, float* C, std::int64_t M,
           std::int64_t N, std::int64_t K) {
    launch(A, Bt, ld, C, M, N, K, "lab11.wgmma");
}

void wgmma_tf32(const float* A, const float* Bt, std::int64_t ld, float* C, std::int64_t M, std::int64_t N,
                std::int64_t K) {
    launch(A, Bt, ld, C, M, N, K, "lab11.wgmma_tf32");
}

void wgmma_fp8(const __nv_fp8_e4m3* A, const __nv_fp8_e4m3* Bt, std::int64_t ld, float* C, std::int64_t M,
               std::int64_t N, std::int64_t K) {
    launch(A, Bt, ld, C, M, N, K, "lab11.wgmma_fp8");
}

}  // namespace student::lab11
