// Lab 5 reference: the bodies of the three kernels, written once for any SIMD
// width. The SIMD kernels get it through avx2_traits_impl.h and
// avx512_traits_impl.h, which switch the compiler to their ISA with #pragma
// GCC target around it and define a small "vector traits" struct S that says
// what a vector is and what can be done with it (kernels_test_tiles.cpp: a
// 1-float one, no pragma):
//
//   S::V              the vector type (float, __m256, __m512)
//   S::W              its width in floats (1, 8, 16)
//   S::zero()         a vector of zeros
//   S::load(p)        W consecutive floats from p (any alignment)
//   S::store(p, v)    W floats to p
//   S::splat(x)       x in every lane (the broadcast)
//   S::fma(a, b, c)   a*b + c lane by lane, one rounding (vfmadd231ps)
//   S::add(a, b)      a + b
//   S::sum(v)         the sum of the W lanes (the horizontal sum)
//   S::load_first(p, n)      the first n <= W floats from p, zeros in the
//   S::store_first(p, v, n)  other lanes / the first n lanes of v to p: masked
//                            (AVX2 vmaskmovps, AVX-512 a k-mask), so the lanes
//                            past n never touch memory (the edges of C)
//
// The traits struct must be in an anonymous namespace: then every
// instantiation below is private to the file that makes it and compiled only
// for that file's ISA (two files could otherwise share one copy, compiled for
// the wrong ISA).
//
// Why a header with bodies: the kernel files instantiate the same templates,
// each compiled for its own ISA. It is part of those files, not an API: named
// *_impl.h so that a student release leaves it out, and included by nothing
// outside solutions/lab5/ (*_traits_impl.h, kernels_test_tiles.cpp).
#pragma once

#include <cstdint>

namespace reference::lab5::bodies {

// ---- Stage 1: the dot product of Cao's survey, with FMA -------------------
// Eight independent accumulators, as the survey's eight ymm register pairs:
// one FMA has a latency of about 4 cycles and two can start per cycle, so a
// single accumulator would wait on itself; eight keep both FMA units busy.
// Then a tail of whole vectors, the add tree of the eight partial sums, the
// horizontal sum, and a scalar tail for the last K mod W elements.
template <class S>
float dot(const float* a, const float* b, std::int64_t K) {
    constexpr int U = 8;
    typename S::V acc[U];
    for (int u = 0; u < U; ++u) acc[u] = S::zero();
    std::int64_t k = 0;
    for (; k + U * S::W <= K; k += U * S::W)
#pragma GCC unroll 8
        for (int u = 0; u < U; ++u)
            acc[u] = S::fma(S::load(a + k + u * S::W), S::load(b + k + u * S::W), acc[u]);
    for (; k + S::W <= K; k += S::W) acc[0] = S::fma(S::load(a + k), S::load(b + k), acc[0]);
    // The add tree: 8 -> 4 -> 2 -> 1 vectors.
    for (int step = U / 2; step >= 1; step /= 2)
        for (int u = 0; u < step; ++u) acc[u] = S::add(acc[u], acc[u + step]);
    float sum = S::sum(acc[0]);
    for (; k < K; ++k) sum += a[k] * b[k];
    return sum;
}

// ---- Stage 2: the register tile, unpacked -----------------------------------
// MR x NV vectors of C stay in registers for the whole k loop. Each step k
// loads NV vectors of row k of B once and broadcasts MR elements of column k
// of A: MR*NV FMAs for MR + NV loads, where the dot product needed two loads
// per FMA. That ratio is what lets the FMA units, not the loads, set the pace.
template <class S, int MR, int NV>
void tile(std::int64_t K, const float* A, std::int64_t lda, const float* B, std::int64_t ldb, float* C,
          std::int64_t ldc) {
    typename S::V c[MR][NV];
#pragma GCC unroll 16
    for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) c[r][v] = S::zero();
    for (std::int64_t k = 0; k < K; ++k) {
        typename S::V b[NV];
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) b[v] = S::load(B + k * ldb + v * S::W);
#pragma GCC unroll 16
        for (int r = 0; r < MR; ++r) {
            const typename S::V a = S::splat(A[r * lda + k]);
#pragma GCC unroll 4
            for (int v = 0; v < NV; ++v) c[r][v] = S::fma(a, b[v], c[r][v]);
        }
    }
#pragma GCC unroll 16
    for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) S::store(C + r * ldc + v * S::W, c[r][v]);
}

// ---- Stage 4: the micro-kernel on packed panels -------------------------------
// The same register tile, but A and B come packed: the MR values of A for
// step p are a[p*MR .. p*MR+MR) and the NR values of B are b[p*NR .. p*NR+NR),
// so both are read strictly sequentially with no address arithmetic beyond
// two pointer increments: a from L1 (the A sliver is reused by every call of
// loop 1), b streaming from L2 (labs/common/blis_loops.cpp says why).
//
// Only `rows` x `cols` of the tile are in C (the edges of C): the k loop
// always computes the full tile - packing padded the missing rows and
// columns with zeros - and only the C update looks at rows and cols, with
// masked loads and stores (load_first, store_first), so an edge tile costs
// about what a full one does and nothing outside C is touched.
// The C update of an edge tile: the first `rows` rows and `cols` columns of
// the MR x NR tile at `tile` (row stride NR) into C, vector by vector with
// masked loads and stores: vector v holds the columns [v*W, v*W + W), of
// which min(W, cols - v*W) are in C. Never inlined (see micro below).
template <class S, int NR>
__attribute__((noinline)) void update_edge(const float* tile, float* C, std::int64_t ldc, bool accumulate, int rows,
                                           int cols) {
    for (int r = 0; r < rows; ++r)
        for (int v = 0; v * S::W < cols; ++v) {
            const int n = cols - v * S::W < S::W ? cols - v * S::W : S::W;
            float* out = C + r * ldc + v * S::W;
            const typename S::V t = S::load(tile + r * NR + v * S::W);
            S::store_first(out, accumulate ? S::add(S::load_first(out, n), t) : t, n);
        }
}

//
// NV_PACKED: the vectors per row of the packed B micro-panel. micro<S, MR,
// NV> is the full tile; micro<S, MR, NV / 2, NV> its left half, for the last
// micro-panel of B when at most NR/2 of its columns are in C (N = 1000 with
// NR = 32 leaves 8): it reads the same packed panel, skips the right half of
// each row, and does half the FMAs of the full tile, all of them useful ones.
template <class S, int MR, int NV, int NV_PACKED = NV>
void micro(std::int64_t kc, const float* a, const float* b, float* C, std::int64_t ldc, bool accumulate, int rows,
           int cols) {
    constexpr int NR = NV * S::W;
    typename S::V c[MR][NV];
#pragma GCC unroll 16
    for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) c[r][v] = S::zero();
#pragma GCC unroll 4
    for (std::int64_t p = 0; p < kc; ++p) {
        typename S::V bv[NV];
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) bv[v] = S::load(b + v * S::W);
#pragma GCC unroll 16
        for (int r = 0; r < MR; ++r) {
            const typename S::V av = S::splat(a[r]);
#pragma GCC unroll 4
            for (int v = 0; v < NV; ++v) c[r][v] = S::fma(av, bv[v], c[r][v]);
        }
        a += MR;
        b += NV_PACKED * S::W;
    }
    if (rows == MR && cols == NR) {
        // The full tile. All the loads of C come before the first store: the
        // MR rows of the tile are ldc floats apart, and when ldc is a multiple
        // of 1024 (N = 2048, 4096) they share their address bits 0-11, so a
        // load issued after a store to another row looks to the CPU as if it
        // might read what that store writes ("4K aliasing") and waits for it.
        if (accumulate) {
#pragma GCC unroll 16
            for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
                for (int v = 0; v < NV; ++v) c[r][v] = S::add(S::load(C + r * ldc + v * S::W), c[r][v]);
        }
#pragma GCC unroll 16
        for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
            for (int v = 0; v < NV; ++v) S::store(C + r * ldc + v * S::W, c[r][v]);
        return;
    }
    // An edge tile: rows < MR and/or cols < NR. The accumulators go to a
    // small buffer and a separate function writes the part that is in C.
    // (Written here, next to the k loop, the edge code made gcc 12 keep one
    // of the 24 accumulators of the AVX-512 tile on the stack during the k
    // loop - a load and a store per step on top of each of its FMAs - and
    // the full tiles ran at 83 % of the FMA peak instead of 90+ %.)
    alignas(64) float tile[MR * NR];
#pragma GCC unroll 16
    for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) S::store(tile + r * NR + v * S::W, c[r][v]);
    update_edge<S, NR>(tile, C, ldc, accumulate, rows, cols);
}

}  // namespace reference::lab5::bodies
