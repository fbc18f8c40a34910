// Shared by the tiled GPU kernels (lab 8's, the student's and the reference): reading a tile of A
// or B from global memory with the edges filled with zeros, writing a thread's
// part of C with the edges left out, and the launch arithmetic.
//
// Why zeros: a block tile that hangs over the edge of A or B (M, N or K not a
// multiple of the tile) still runs the same inner product; the missing
// elements read as 0, so they add 0 * x = 0 to every sum and the result is
// exact. The stores then skip the rows and columns of C that do not exist.
//
// Why two load flavours: a float4 (16-byte) load needs a 16-byte-aligned
// address. A row of A starts at A + i*K, which is aligned only when K is a
// multiple of 4 (and A itself is aligned). So each kernel is compiled twice
// for A and twice for B (template flag kVec...): float4 loads where the rows
// allow them, four scalar loads where they do not.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace mml::gpu {

// 16-byte loads and stores are legal for a matrix whose rows have `row_len`
// floats when the base is 16-byte aligned and every row start is too.
inline bool rows_are_float4_aligned(const void* base, std::int64_t row_len) {
    return row_len % 4 == 0 && reinterpret_cast<std::uintptr_t>(base) % 16 == 0;
}

// Number of tiles of size `tile` that cover `n` elements (the last may be partial).
__host__ __device__ inline std::int64_t tiles_covering(std::int64_t n, std::int64_t tile) { return (n + tile - 1) / tile; }

// One block per block tile of C, numbered along a 1-D grid (a 2-D grid's y
// and z sides stop at 65535; x goes to 2^31 - 1, more tiles than any matrix
// that fits in GPU memory has).
inline unsigned grid_for_tiles(std::int64_t tiles) {
    if (tiles > 2147483647LL)
        throw std::runtime_error("lab8: " + std::to_string(tiles) + " block tiles do not fit in one grid");
    return unsigned(tiles);
}

// The block tile that block `block` computes, numbered down groups of
// `group_rows` block-rows before moving right: the blocks that run at the same
// time share rows of A and columns of B, so more of their loads hit the L2
// cache. Returns the tile's first row m0 and first column n0 of C.
struct TileOrigin {
    std::int64_t m0, n0;
};
__device__ __forceinline__ TileOrigin grouped_tile_origin(std::int64_t block, std::int64_t M, std::int64_t N, int bm,
                                                          int bn, int group_rows) {
    const std::int64_t tiles_m = tiles_covering(M, bm), tiles_n = tiles_covering(N, bn);
    const std::int64_t per_group = std::int64_t(group_rows) * tiles_n;
    const std::int64_t first_row = block / per_group * group_rows;
    const std::int64_t rows_here = min(tiles_m - first_row, std::int64_t(group_rows));
    const std::int64_t in_group = block % per_group;
    return {(first_row + in_group % rows_here) * bm, in_group / rows_here * bn};
}

// Four consecutive floats p[0..3] of which only the first `valid` exist (0 or
// less: none; 4 or more: all); the rest read as 0. With kVec the caller
// promises that p is 16-byte aligned and that valid is never 1, 2 or 3 (rows
// are a multiple of 4 long), so one 16-byte load does it.
template <bool kVec>
__device__ __forceinline__ float4 load4_or_zero(const float* p, std::int64_t valid) {
    float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
    if (kVec) {
        if (valid >= 4) v = __ldg(reinterpret_cast<const float4*>(p));
    } else {
        if (valid > 0) v.x = __ldg(p);
        if (valid > 1) v.y = __ldg(p + 1);
        if (valid > 2) v.z = __ldg(p + 2);
        if (valid > 3) v.w = __ldg(p + 3);
    }
    return v;
}

// Writes the first `valid` of v's four floats to p[0..3] (same promise as above).
template <bool kVec>
__device__ __forceinline__ void store4_in_bounds(float* p, float4 v, std::int64_t valid) {
    if (kVec) {
        if (valid >= 4) *reinterpret_cast<float4*>(p) = v;
    } else {
        if (valid > 0) p[0] = v.x;
        if (valid > 1) p[1] = v.y;
        if (valid > 2) p[2] = v.z;
        if (valid > 3) p[3] = v.w;
    }
}

// Calls launch(std::bool_constant<vec_a>{}, std::bool_constant<vec_b>{}): turns
// two run-time facts into compile-time template flags, so a launcher can
// write  kernel<decltype(va)::value, decltype(vb)::value><<<...>>>(...).
template <typename Launch>
void with_vector_flags(bool vec_a, bool vec_b, Launch&& launch) {
    if (vec_a && vec_b) launch(std::true_type{}, std::true_type{});
    else if (vec_a) launch(std::true_type{}, std::false_type{});
    else if (vec_b) launch(std::false_type{}, std::true_type{});
    else launch(std::false_type{}, std::false_type{});
}

}  // namespace mml::gpu
