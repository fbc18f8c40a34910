// Lab 11, stage 2: the Ampere way - mma.sync.m16n8k16 fed by ldmatrix, a
// 4-stage cp.async pipeline, swizzled shared memory, tiles in L2-friendly order.
//
// What changed from stage 1 (wmma_bf16), and why it should be faster:
//  - mma.sync instead of WMMA: the same tensor cores, but we now know (and
//    choose) which thread holds which element: ldmatrix.x4 loads four 8 x 8
//    tiles from shared memory straight into the fragment layout in one
//    instruction, with no 16 x 16 fragment objects and no extra copies.
//  - cp.async (global -> shared without registers) in a 4-stage ring: three
//    k-tiles are in flight while the fourth is multiplied, so the loads'
//    latency hides behind the tensor cores, with one __syncthreads a k-tile.
//  - Swizzled shared memory: a row of a k-tile is 128 bytes (8 chunks of 16),
//    so the 8 rows one ldmatrix reads at the same k would all start on the
//    same bank (an 8-way conflict); storing chunk c of row r at c ^ (r % 8)
//    spreads them over all 32 banks (no padding: stays 16-byte aligned for
//    cp.async).
//  - A bigger block tile (128 x 256, k-tile 64) and warp tile (64 x 64): each
//    A or B fragment loaded from shared memory feeds 8 or 4 mma.sync, and a
//    k-tile of 64 halves the barriers of a k-tile of 32 (measured on the
//    H100: 310 TFLOP/s with 32, at 4096^3).
//  - Tiles in groups of 8 tile rows (as lab 8's double_buffer): blocks that
//    run together share B tiles in L2.
// What limits it on an H100: mma.sync is Ampere's instruction. Hopper runs it,
// but its tensor cores reach full speed only through wgmma (stage 3), whose
// operands come from shared memory without passing through registers; here
// every operand goes shared -> registers (ldmatrix) -> tensor core, one
// 16 x 8 x 16 product a warp instruction. With no memory traffic at all
// (mmlab mma-rate) mma.sync reaches 596 TFLOP/s at 8 warps an SM, 56% of the
// spec rate and below what wgmma reaches with all its traffic; this kernel
// reaches 63% of that ceiling (377 TFLOP/s at 4096^3), the rest going to the
// ldmatrix, cp.async and barrier each warp issues (handouts/lab11.md).
//
// Operands (gpu/lowp_operands.h): A (M x K) and Bt (N x K) both K-major, rows
// ld elements apart, ld a multiple of 8 with zeros past K: a 16-byte chunk
// (8 elements) that starts below K lies inside its row, and what it holds
// past K is zero, so the k edge is one test a chunk.
#include "solutions/lab11/lab11.h"

#include <cuda_bf16.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "gpu/cuda_check.h"
#include "labs/common/ampere_ptx.cuh"

namespace reference::lab11 {
namespace {
using namespace ::lab11;  // the given PTX wrappers (labs/common/ampere_ptx.cuh)

constexpr int BM = 128, BN = 256, BK = 64;  // block tile; k-tile of 64 bf16 = 128 bytes a row
constexpr int kStages = 4;
constexpr int WARPS_M = 2, WARPS_N = 4;     // 8 warps, warp tile 64 x 64
constexpr int WM = BM / WARPS_M, WN = BN / WARPS_N;
constexpr int FM = WM / 16, FN = WN / 8;    // 4 x 8 mma tiles of 16 x 8 per warp
constexpr int kThreads = WARPS_M * WARPS_N * 32;
constexpr int kChunks = BK / 8;             // 16-byte chunks per tile row: 8
constexpr int kAStageElems = BM * BK, kBStageElems = BN * BK;
constexpr int kSmemBytes = kStages * (kAStageElems + kBStageElems) * 2;  // 192 KB
constexpr int kGroupRows = 8;

// Where chunk `chunk` of row `row` of a k-tile lives (in bf16 elements from the tile's start).
__device__ __forceinline__ int swizzled(int row, int chunk) { return row * BK + ((chunk ^ (row & 7)) << 3); }

__global__ void __launch_bounds__(kThreads, 1)
    mma_sync_kernel(const __nv_bfloat16* __restrict__ A, const __nv_bfloat16* __restrict__ Bt, std::int64_t ld,
                    float* __restrict__ C, std::int64_t M, std::int64_t N, std::int64_t K, bool pairs_aligned) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    extern __shared__ __align__(128) unsigned char smem_raw[];
    __nv_bfloat16* As = reinterpret_cast<__nv_bfloat16*>(smem_raw);  // kStages x BM x BK
    __nv_bfloat16* Bs = As + kStages * kAStageElems;                  // kStages x BN x BK

    // Tile order: down kGroupRows tile rows, then one tile column right.
    const std::int64_t tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
    const std::int64_t per_group = kGroupRows * tiles_n, tile = blockIdx.x;
    const std::int64_t first_row = tile / per_group * kGroupRows;
    const std::int64_t rows_in_group = min(tiles_m - first_row, std::int64_t(kGroupRows));
    const std::int64_t m0 = (first_row + tile % per_group % rows_in_group) * BM;
    const std::int64_t n0 = tile % per_group / rows_in_group * BN;

    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wm0 = warp / WARPS_N * WM, wn0 = warp % WARPS_N * WN;
    const std::int64_t k_tiles = (K + BK - 1) / BK;

    // One k-tile of A (BM x BK) and Bt (BN x BK) into stage `s`, 16 bytes a copy.
    // Thread tid copies chunk c = tid % 8 of rows r0 = tid / 8, r0 + 32, r0 + 64...:
    // the same chunk column and the same swizzle (r % 8 does not change in
    // steps of 32) for all its rows, so the addresses are worked out once here
    // and the k-loop only adds k0 (the copies' integer work took issue slots
    // from the mma.sync: measured on the H100, 327 -> 377 TFLOP/s at 4096^3).
    constexpr int kRowStep = kThreads / kChunks;  // 32
    const int c = tid % kChunks, r0 = tid / kChunks;
    const __nv_bfloat16* a_src = A + min(m0 + r0, M - 1) * ld + c * 8;  // clamped: a row past M is never read
    const __nv_bfloat16* b_src = Bt + min(n0 + r0, N - 1) * ld + c * 8;
    const std::int64_t row_step = kRowStep * ld;
    const int s_off = swizzled(r0, c);  // + i * kRowStep * BK for row r0 + 32 i
    unsigned a_rows = 0, b_rows = 0;    // bit i: row r0 + 32 i lies inside A (of Bt)
#pragma unroll
    for (int i = 0; i < BM / kRowStep; ++i) a_rows |= unsigned(m0 + r0 + i * kRowStep < M) << i;
#pragma unroll
    for (int i = 0; i < BN / kRowStep; ++i) b_rows |= unsigned(n0 + r0 + i * kRowStep < N) << i;
    auto load_tile = [&](int s, std::int64_t kt) {
        if (kt >= k_tiles) return;
        const std::int64_t k0 = kt * BK;
        const bool k_ok = k0 + c * 8 < K;
        __nv_bfloat16* as = As + s * kAStageElems + s_off;
        __nv_bfloat16* bs = Bs + s * kBStageElems + s_off;
#pragma unroll
        for (int i = 0; i < BM / kRowStep; ++i) {  // 4
            const bool ok = k_ok && (a_rows >> i & 1u);
            cp_async_16(as + i * kRowStep * BK, ok ? a_src + i * row_step + k0 : A, ok);
        }
#pragma unroll
        for (int i = 0; i < BN / kRowStep; ++i) {  // 8
            const bool ok = k_ok && (b_rows >> i & 1u);
            cp_async_16(bs + i * kRowStep * BK, ok ? b_src + i * row_step + k0 : Bt, ok);
        }
    };

    float acc[FM][FN][4];
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j)
#pragma unroll
            for (int r = 0; r < 4; ++r) acc[i][j][r] = 0.0f;

    // Prologue: kStages - 1 k-tiles in flight (a group each, empty or not, so
    // that wait_group counts the same way everywhere).
#pragma unroll
    for (int s = 0; s < kStages - 1; ++s) {
        load_tile(s, s);
        cp_async_commit();
    }

    // ldmatrix addressing: lane l gives row l % 8 of 8x8 tile q = l / 8.
    const int q = lane / 8, qr = lane % 8;
    for (std::int64_t kt = 0; kt < k_tiles; ++kt) {
        cp_async_wait<kStages - 2>();  // k-tile kt has landed (for this thread's copies)...
        __syncthreads();               // ...and for everyone's; and stage (kt-1) % kStages is free
        load_tile(int((kt + kStages - 1) % kStages), kt + kStages - 1);
        cp_async_commit();

        const int s = int(kt % kStages);
        const __nv_bfloat16* as = As + s * kAStageElems;
        const __nv_bfloat16* bs = Bs + s * kBStageElems;
#pragma unroll
        for (int kk = 0; kk < BK / 16; ++kk) {
            // A fragments: tiles (rows 0-7, k 0-7), (8-15, 0-7), (0-7, 8-15), (8-15, 8-15) of each 16 x 16.
            std::uint32_t a[FM][4];
#pragma unroll
            for (int i = 0; i < FM; ++i)
                ldmatrix_x4(a[i], as + swizzled(wm0 + i * 16 + (q & 1) * 8 + qr, kk * 2 + (q >> 1)));
            // B fragments, two n8 tiles per ldmatrix: (n 0-7, k 0-7), (0-7, 8-15), (8-15, 0-7), (8-15, 8-15).
            std::uint32_t b[FN / 2][4];
#pragma unroll
            for (int j = 0; j < FN / 2; ++j)
                ldmatrix_x4(b[j], bs + swizzled(wn0 + j * 16 + (q >> 1) * 8 + qr, kk * 2 + (q & 1)));
#pragma unroll
            for (int i = 0; i < FM; ++i)
#pragma unroll
                for (int j = 0; j < FN; ++j)
                    mma_bf16_16816(acc[i][j], a[i], b[j / 2][(j % 2) * 2], b[j / 2][(j % 2) * 2 + 1]);
        }
    }
    cp_async_wait<0>();  // nothing left in flight when the block exits

    // Epilogue: acc[i][j] holds rows r, r + 8 and columns c, c + 1 of one 16 x 8 tile.
    const std::int64_t row = m0 + wm0 + lane / 4, col = n0 + wn0 + 2 * (lane % 4);
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const std::int64_t r = row + i * 16 + h * 8, c = col + j * 8;
                if (r >= M || c >= N) continue;
                float* p = C + r * N + c;
                if (pairs_aligned && c + 1 < N) {
                    *reinterpret_cast<float2*>(p) = make_float2(acc[i][j][2 * h], acc[i][j][2 * h + 1]);
                } else {
                    p[0] = acc[i][j][2 * h];
                    if (c + 1 < N) p[1] = acc[i][j][2 * h + 1];
                }
            }
#endif
}

}  // namespace

void mma_sync(const __nv_bfloat16* A, const __nv_bfloat16* Bt, std::int64_t ld, float* C, std::int64_t M,
              std::int64_t N, std::int64_t K) {
    static bool configured = false;
    if (!configured) {
        int device = 0, major = 0;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
        if (major < 8)
            throw std::runtime_error("lab11.mma_sync needs compute capability 8.0 or newer (bf16 mma.sync, cp.async)");
        CUDA_CHECK(cudaFuncSetAttribute(mma_sync_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
        configured = true;
    }
    const std::int64_t tiles = ((M + BM - 1) / BM) * ((N + BN - 1) / BN);
    if (tiles > 0x7fffffff) throw std::runtime_error("lab11.mma_sync: too many tiles for a 1-D grid");
    const bool pairs_aligned = N % 2 == 0 && reinterpret_cast<std::uintptr_t>(C) % 8 == 0;
    mma_sync_kernel<<<unsigned(tiles), kThreads, kSmemBytes>>>(A, Bt, ld, C, M, N, K, pairs_aligned);
    CUDA_CHECK_LAUNCH();
}

}  // namespace reference::lab11
