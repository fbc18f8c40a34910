// The 16-byte moves that lab 8's register-blocked kernels (stages 2, 3 and 4,
// the starters and the reference alike) make in shared memory and registers,
// written once. Loading from global memory and storing C (with the edges of
// the matrices) is gpu/tile_io.cuh's job.
#pragma once

#include <cuda_runtime.h>

namespace mml::gpu {

// dst[0..3] = src[0..3] as ONE 16-byte move: a fragment of a shared tile into
// a thread's registers with one LDS.128 instead of four LDS.32 (a quarter of
// the shared-load instructions). Both addresses must be 16-byte aligned: the
// tiles are __align__(16) and every offset is a multiple of 4 floats.
__device__ __forceinline__ void copy4(float* dst, const float* src) {
    *reinterpret_cast<float4*>(dst) = *reinterpret_cast<const float4*>(src);
}

// v's four floats DOWN a column of a row-major shared tile whose rows are
// `row_stride` floats long: p[0], p[row_stride], p[2 row_stride], p[3 row_stride].
// This is how A's tile is stored transposed (As[k][m]): the float4 a thread
// read along a row of A (four k, one m) becomes one column m of four k-rows,
// so that the inner loop can then read 4 neighbouring m with one copy4.
// Four scalar stores (STS.32): they go to different rows.
__device__ __forceinline__ void store4_down_column(float* p, int row_stride, float4 v) {
    p[0 * row_stride] = v.x;
    p[1 * row_stride] = v.y;
    p[2 * row_stride] = v.z;
    p[3 * row_stride] = v.w;
}

// Four neighbouring accumulators v[0..3] as one float4, for a 16-byte store of C.
__device__ __forceinline__ float4 as_float4(const float* v) { return make_float4(v[0], v[1], v[2], v[3]); }

}  // namespace mml::gpu
