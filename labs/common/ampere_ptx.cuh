// Given code for labs 8 and 11 (starters and reference alike): thin wrappers
// around the Ampere-generation PTX instructions that lab11.mma_sync and
// lab8.async_copy are built from, so that the kernels read as what they do.
// Each wrapper is one instruction; the PTX ISA ("Parallel Thread Execution
// ISA", NVIDIA) documents them:
//   cp.async.cg.shared.global   16 bytes global -> shared, asynchronous (sm_80)
//   cp.async.ca.shared.global   4 bytes global -> shared, asynchronous (sm_80)
//   cp.async.commit_group / wait_group   group the copies above, wait for them
//   ldmatrix.sync.aligned.m8n8.x4.shared.b16   four 8x8 16-bit tiles -> registers,
//                                              in the layout mma.sync expects
//   mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32   one warp-wide tensor-core product
// They compile for sm_80 and newer; the callers guard their kernels with
// __CUDA_ARCH__ >= 800.
#pragma once

#include <cstdint>

namespace lab11 {

// The 32-bit shared-memory address of a generic pointer into shared memory
// (what the shared:: forms of the instructions take).
__device__ __forceinline__ std::uint32_t smem_u32(const void* p) {
    return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800

// Copies 16 bytes from global `src` to shared `dst` without passing through
// registers. valid == false writes 16 zero bytes instead and reads nothing
// (src-size 0): the tile edges (rows past M or N, k past ld) become zeros.
__device__ __forceinline__ void cp_async_16(void* dst, const void* src, bool valid) {
    const int src_bytes = valid ? 16 : 0;
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_u32(dst)), "l"(src),
                 "r"(src_bytes)
                 : "memory");
}
// The same 16-byte copy of which only the first `src_bytes` (0..16) are read
// from `src`; the rest of the 16 bytes at `dst` become zeros (a float4 that
// hangs over the right edge of a matrix). 16-byte aligned dst and src.
__device__ __forceinline__ void cp_async_16_first(void* dst, const void* src, int src_bytes) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_u32(dst)), "l"(src), "r"(src_bytes)
                 : "memory");
}
// One float, 4 bytes, global -> shared; valid == false writes a zero and reads
// nothing. The only size besides 16 that lab 8 needs: single floats can land
// anywhere, e.g. transposed (a row of A becomes a column of the shared tile).
__device__ __forceinline__ void cp_async_4(void* dst, const void* src, bool valid) {
    const int src_bytes = valid ? 4 : 0;
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(smem_u32(dst)), "l"(src), "r"(src_bytes)
                 : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
// Waits until at most `kPending` committed groups of this thread are still in flight.
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}

// Four 8x8 tiles of 16-bit elements from shared memory: lane l gives the
// address of row (l % 8) of tile (l / 8) (16 contiguous bytes); r[q] receives
// tile q, each thread holding the two elements of row (lane / 4), columns
// 2 * (lane % 4) and +1 - the fragment layout of mma.sync's operands.
__device__ __forceinline__ void ldmatrix_x4(std::uint32_t (&r)[4], const void* row_address) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_u32(row_address)));
}

// d += a * b on the tensor cores, for the whole warp: a is 16 x 16 bf16
// (row-major fragment, 4 registers of 2 bf16), b is 16 x 8 bf16 (column-major
// fragment, 2 registers), d is 16 x 8 float32 (4 registers): thread t holds
// d[0], d[1] at row t/4, columns 2*(t%4) and +1, and d[2], d[3] eight rows lower.
__device__ __forceinline__ void mma_bf16_16816(float (&d)[4], const std::uint32_t (&a)[4], std::uint32_t b0,
                                               std::uint32_t b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

#endif  // __CUDA_ARCH__ >= 800

}  // namespace lab11
