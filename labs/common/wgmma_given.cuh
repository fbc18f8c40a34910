// Given code for lab 11's wgmma kernel (labs/lab11/03_wgmma_sm90a.cu, its
// starter and its reference alike), everything around the kernel that does
// not change with the student's work: the block tile and the ring of stages
// (Tiling), what depends on the input type (Operand: bf16, TF32 or FP8
// e4m3), the order of the persistent tiles (tile_origin), the epilogue
// (store_tile: one consumer's sums into C; stages 3 to 6 alike),
// and the host's facts and checks (sm_count, require_hopper, MapCache). The
// kernel and its launcher stay in the stage's file, with the TODOs.
// Included by *_sm90a.cu files only (wgmma exists on sm_90a alone).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "gpu/cuda_check.h"
#include "labs/common/hopper_ptx.cuh"

namespace lab11 {

// Block tile: BM x BN of C, BN = 256 (or 128 for products too small to fill
// the GPU with 256-wide tiles: launch() picks). Each stage holds 128 bytes of
// k per tile row - the width of the 128-byte swizzle: 64 bf16 or 32 TF32.
constexpr int BM = 128;
constexpr int kRowBytes = 128;
constexpr int kConsumers = 2;      // consumer warpgroups: 64 rows of the block tile each
constexpr int kThreads = 128 * (1 + kConsumers);
constexpr int kATileBytes = BM * kRowBytes;  // 16 KB
constexpr int kRingBytes = 192 * 1024;       // stages: 4 of 48 KB (BN = 256) or 6 of 32 KB (BN = 128)
constexpr int kGroupRows = 8;      // tile order: 8 tile rows walked together (L2 reuse of B)
constexpr int kProducerRegs = 40, kConsumerRegs = 232;  // 128*40 + 256*232 <= 65536

template <int BN>
struct Tiling {
    static constexpr int kBTileBytes = BN * kRowBytes;
    static constexpr int kStageBytes = kATileBytes + kBTileBytes;
    static constexpr int kStages = kRingBytes / kStageBytes;
    static constexpr int kSmemBytes = kStages * kStageBytes + 1024;  // + room to align the ring to 1024 bytes
    static constexpr int kAccRegs = BN / 2;                           // 64 x BN floats over 128 threads
};

// What depends on the input type: its size, k per instruction, the TMA's
// element type, the instruction, and whether the tensor core's sums must be
// promoted to float32 registers every stage (kPromote: FP8, whose
// accumulator keeps 14 significant bits; bf16 and TF32 keep float32's).
template <typename T>
struct Operand;
template <>
struct Operand<__nv_bfloat16> {
    static constexpr int kInstrK = 16;
    static constexpr bool kPromote = false;
    static constexpr CUtensorMapDataType kMapType = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    __device__ static void mma(float (&d)[128], std::uint64_t a, std::uint64_t b, int scale_d) {
        wgmma_m64n256k16_bf16(d, a, b, scale_d);
    }
    __device__ static void mma(float (&d)[64], std::uint64_t a, std::uint64_t b, int scale_d) {
        wgmma_m64n128k16_bf16(d, a, b, scale_d);
    }
};
template <>
struct Operand<float> {  // TF32 values held in float32
    static constexpr int kInstrK = 8;
    static constexpr bool kPromote = false;
    static constexpr CUtensorMapDataType kMapType = CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    __device__ static void mma(float (&d)[128], std::uint64_t a, std::uint64_t b, int scale_d) {
        wgmma_m64n256k8_tf32(d, a, b, scale_d);
    }
    __device__ static void mma(float (&d)[64], std::uint64_t a, std::uint64_t b, int scale_d) {
        wgmma_m64n128k8_tf32(d, a, b, scale_d);
    }
};

template <>
struct Operand<__nv_fp8_e4m3> {  // one byte an element: a stage holds 128 of k
    static constexpr int kInstrK = 32;
    static constexpr bool kPromote = true;  // only 128-wide tiles: 64 registers of sums + 64 of the stage's
    static constexpr CUtensorMapDataType kMapType = CU_TENSOR_MAP_DATA_TYPE_UINT8;
    __device__ static void mma(float (&d)[64], std::uint64_t a, std::uint64_t b, int scale_d) {
        wgmma_m64n128k32_e4m3(d, a, b, scale_d);
    }
};

// Tile number -> its first row and column of C. Tiles go down kGroupRows tile
// rows, then one tile column right: the blocks at work together read a few
// B tile columns and a band of A, which stay in L2.
struct TileOrigin {
    int m0, n0;
};
template <int BN>
__device__ __forceinline__ TileOrigin tile_origin(int tile, int tiles_m, int tiles_n) {
    const int per_group = kGroupRows * tiles_n;
    const int first_row = tile / per_group * kGroupRows;
    const int rows = min(tiles_m - first_row, kGroupRows);
    const int in_group = tile % per_group;
    return {(first_row + in_group % rows) * BM, in_group / rows * BN};
}

// Two neighbouring elements of one row of C, each only if inside C.
__device__ __forceinline__ void store_pair(float* C, int row, int col, float x, float y, int M, int N,
                                           bool pairs_aligned) {
    if (row >= M || col >= N) return;
    float* p = C + std::int64_t(row) * N + col;
    if (pairs_aligned && col + 1 < N) {
        *reinterpret_cast<float2*>(p) = make_float2(x, y);
    } else {
        p[0] = x;
        if (col + 1 < N) p[1] = y;
    }
}

// The epilogue: one consumer warpgroup's 64 x BN sums (kRegs = BN / 2 a
// thread) into C at the block tile whose first element is (m0, n0). Thread
// (warp, lane) of the warpgroup holds rows r and r + 8, columns
// 8j + 2(lane % 4) and +1, j < BN / 8 (wgmma's accumulator layout).
template <int kRegs>
__device__ __forceinline__ void store_tile(float* C, const float (&acc)[kRegs], int m0, int n0, int consumer, int M,
                                           int N, bool pairs_aligned) {
    const int warp = threadIdx.x / 32 % 4, lane = threadIdx.x % 32;
    const int row = m0 + consumer * 64 + warp * 16 + lane / 4;
    const int col = n0 + 2 * (lane % 4);
#pragma unroll
    for (int j = 0; j < kRegs / 4; ++j) {
        store_pair(C, row, col + 8 * j, acc[4 * j], acc[4 * j + 1], M, N, pairs_aligned);
        store_pair(C, row + 8, col + 8 * j, acc[4 * j + 2], acc[4 * j + 3], M, N, pairs_aligned);
    }
}

inline int sm_count() {
    static const int count = [] {
        int device = 0, n = 0;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, device));
        return n;
    }();
    return count;
}

inline void require_hopper(const char* stage) {
    int device = 0, major = 0, minor = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
    if (major != 9)
        throw std::runtime_error(std::string(stage) + " needs a Hopper GPU (sm_90: wgmma, TMA, setmaxnreg); this GPU is sm_" +
                                 std::to_string(major) + std::to_string(minor));
}

// The tensor maps of the last call, kept: encoding them is host work inside the
// timed call, and the harness calls with the same operands again and again.
struct MapCache {
    const void* a = nullptr;
    const void* bt = nullptr;
    std::int64_t ld = 0, M = 0, N = 0, K = 0;
    CUtensorMap map_a{}, map_b{};
};

}  // namespace lab11
