// Lab 8, stage 2: 16-byte vector loads (float4) from global and shared memory.
//
// What changed from stage 1: the same 128 x 128 block tile, k-step 8 and 8 x 8
// thread tile, but memory is moved 4 floats at a time:
//  - global -> shared: each thread reads one float4 of A and one of B per
//    k-step (LDG.128) instead of four scalars (when the rows allow it, see
//    tile_io.cuh; otherwise four predicated scalar loads);
//  - A is stored TRANSPOSED in shared memory (As[k][m]), so that the 8 values
//    of A's column a thread needs at step k sit side by side: two LDS.128 per
//    k. B's 8 values were already side by side: two LDS.128;
//  - C is written with float4 stores.
//
// Why it should be faster - and what the compiler had already done: in stage
// 1, nvcc itself merged the shared reads into LDS.128 (As[m][k..k+3] are
// neighbours, so it read four k-steps of A at once; check with cuobjdump
// -sass). But that holds 8 x 8 values of A in registers for the whole
// k-step: stage 1 needs 156-170 registers per thread (sm_80 / sm_90), so only
// ONE block of 256 threads fits in an SM's 65536 registers, 8 warps to hide
// every latency. Here each k needs only its own 8 values of A: 127
// registers, TWO blocks (16 warps) per SM. And a quarter of the global load
// instructions (LDG.128).
//
// What is still slow: bank conflicts (stage 3). The transposed store writes
// As[a_k + i][a_m]: the two threads of a row (a_k = 0 and 4) write rows of As
// 4 apart, 4 * 128 floats, a multiple of the 32 banks: the same bank, 2-way.
// And reading B at column tx * 8, the eight threads of a quarter warp (one
// pass of an LDS.128) span 256 bytes: two passes where one would do.
#include "solutions/lab8/lab8.h"
#include "gpu/float4_moves.cuh"
#include "gpu/tile_io.cuh"

#include "gpu/cuda_check.h"

namespace reference::lab8 {
using namespace mml::gpu;  // tiles_covering, load4_or_zero, ... (gpu/tile_io.cuh), copy4 ... (gpu/float4_moves.cuh)
namespace {

constexpr int BM = 128, BN = 128, BK = 8;
constexpr int TM = 8, TN = 8;
constexpr int kThreads = (BM / TM) * (BN / TN);  // 256
static_assert(BM * BK / 4 == kThreads && BK * BN / 4 == kThreads, "one float4 of A and of B per thread");

template <bool kVecA, bool kVecB>
__global__ void __launch_bounds__(kThreads)
vector_loads_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                    std::int64_t M, std::int64_t N, std::int64_t K) {
    __shared__ __align__(16) float As[BK][BM];  // transposed: As[k][m] = A(m0 + m, k0 + k)
    __shared__ __align__(16) float Bs[BK][BN];

    const std::int64_t tiles_n = tiles_covering(N, BN);
    const std::int64_t m0 = std::int64_t(blockIdx.x) / tiles_n * BM;
    const std::int64_t n0 = std::int64_t(blockIdx.x) % tiles_n * BN;
    const int tid = threadIdx.x;
    const int ty = tid / (BN / TN), tx = tid % (BN / TN);

    // Which float4 of each tile this thread loads: A row a_m, columns a_k..a_k+3
    // (two threads per row of the 128 x 8 tile); B row b_k, columns b_n..b_n+3
    // (32 threads per row of the 8 x 128 tile).
    const int a_m = tid / (BK / 4), a_k = tid % (BK / 4) * 4;
    const int b_k = tid / (BN / 4), b_n = tid % (BN / 4) * 4;
    const bool a_row_in = m0 + a_m < M;
    const std::int64_t b_cols_left = N - (n0 + b_n);
    const float* a_ptr = A + (m0 + a_m) * K + a_k;  // walks along the row, BK per step
    const float* b_ptr = B + std::int64_t(b_k) * N + n0 + b_n;  // walks down, BK rows per step

    float acc[TM][TN] = {};
    for (std::int64_t k0 = 0; k0 < K; k0 += BK) {
        const float4 av = load4_or_zero<kVecA>(a_ptr, a_row_in ? K - (k0 + a_k) : 0);
        const float4 bv = load4_or_zero<kVecB>(b_ptr, k0 + b_k < K ? b_cols_left : 0);
        store4_down_column(&As[a_k][a_m], BM, av);  // the transpose: four scalar stores
        *reinterpret_cast<float4*>(&Bs[b_k][b_n]) = bv;
        __syncthreads();

#pragma unroll
        for (int k = 0; k < BK; ++k) {
            float a[TM], b[TN];
            // Two 16-byte shared loads for each fragment.
            copy4(&a[0], &As[k][ty * TM]);
            copy4(&a[4], &As[k][ty * TM + 4]);
            copy4(&b[0], &Bs[k][tx * TN]);
            copy4(&b[4], &Bs[k][tx * TN + 4]);
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
        a_ptr += BK;
        b_ptr += BK * N;
    }

#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const std::int64_t row = m0 + ty * TM + i;
        if (row >= M) break;
#pragma unroll
        for (int j = 0; j < TN; j += 4) {
            const std::int64_t col = n0 + tx * TN + j;
            store4_in_bounds<kVecB>(C + row * N + col, as_float4(&acc[i][j]), N - col);
        }
    }
}

}  // namespace

void vector_loads(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N,
                  std::int64_t K) {
    const unsigned blocks = grid_for_tiles(tiles_covering(M, BM) * tiles_covering(N, BN));
    // float4 for B also means float4 stores of C: both need rows of N floats aligned.
    const bool vec_a = rows_are_float4_aligned(A, K);
    const bool vec_b = rows_are_float4_aligned(B, N) && rows_are_float4_aligned(C, N);
    with_vector_flags(vec_a, vec_b, [&](auto va, auto vb) {
        vector_loads_kernel<decltype(va)::value, decltype(vb)::value><<<blocks, kThreads>>>(A, B, C, M, N, K);
    });
    CUDA_CHECK_LAUNCH();
}

}  // namespace reference::lab8
