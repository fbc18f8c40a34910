// Given code for lab 11 (starters and reference alike): thin wrappers around
// the Hopper PTX instructions that lab11.wgmma is built from, and the host
// call that describes a matrix to the Tensor Memory Accelerator. Each device
// wrapper is one instruction (PTX ISA, NVIDIA):
//   mbarrier.init / arrive / arrive.expect_tx / try_wait.parity   shared-memory barriers
//       that count arrivals AND bytes: the copy engine completes them
//   cp.async.bulk.tensor.2d ... mbarrier::complete_tx::bytes    one TMA copy of a 2-D box
//       of a matrix into shared memory (out-of-range elements arrive as zeros)
//   wgmma.fence / mma_async / commit_group / wait_group        the warpgroup's asynchronous
//       tensor-core product, 64 x N x 16 (bf16), 64 x N x 8 (tf32) or 64 x N x 32 (FP8 e4m3)
//       per instruction, N = 256 or 128
//   setmaxnreg.inc / dec                                       move registers between warpgroups
// wgmma and setmaxnreg exist on sm_90a only: files that use them are named
// *_sm90a.cu, which the Makefile builds for sm_90a alone.
#pragma once

#include <cuda.h>           // CUtensorMap (a type only: no driver library to link)
#include <cudaTypedefs.h>   // PFN_cuTensorMapEncodeTiled
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "gpu/cuda_check.h"
#include "labs/common/ampere_ptx.cuh"  // smem_u32

namespace lab11 {

// The device wrappers are declared in every compiler pass; their instructions
// exist only in the sm_90a pass (LAB11_SM90A). Elsewhere their bodies are
// empty: the host pass never runs them, and the launchers refuse GPUs older
// than sm_90 before any kernel starts.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define LAB11_SM90A 1
#endif

// --- mbarrier: a 64-bit barrier in shared memory --------------------------------
// A phase completes when `count` threads have arrived AND every byte announced
// with expect_tx has landed; then the barrier flips to the next phase. Waiters
// name the phase by its parity (0, 1, 0, ...).
__device__ __forceinline__ void mbar_init(std::uint64_t* bar, unsigned count) {
#ifdef LAB11_SM90A
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_u32(bar)), "r"(count) : "memory");
#endif
}
// Makes the initialised barriers visible to the other threads and to the copy
// engine (call once after the inits, before the __syncthreads that publishes them).
__device__ __forceinline__ void mbar_fence_init() {
#ifdef LAB11_SM90A
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
#endif
#ifdef LAB11_SM90A
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}
// One arrival, announcing `bytes` more bytes that the copy engine will deliver.
__device__ __forceinline__ void mbar_arrive_expect_tx(std::uint64_t* bar, unsigned bytes) {
#ifdef LAB11_SM90A
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_u32(bar)), "r"(bytes)
                 : "memory");
#endif
}
__device__ __forceinline__ void mbar_arrive(std::uint64_t* bar) {
#ifdef LAB11_SM90A
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem_u32(bar)) : "memory");
#endif
}
// Returns once the phase of parity `parity` has completed. (On a fresh
// barrier, parity 1 - "the phase before the first" - counts as completed.)
// A wait of more than 2^34 clock cycles (about 9 s) is a barrier-protocol bug
// (a phase nobody completes: a missing arrive, a wrong parity, bytes that never
// come): it stops the kernel with an error (__trap) instead of hanging the GPU.
__device__ __forceinline__ void mbar_wait(std::uint64_t* bar, unsigned parity) {
#ifdef LAB11_SM90A
    const std::uint32_t addr = smem_u32(bar);
    const long long start = clock64();
    std::uint32_t done = 0;
    for (;;) {
        asm volatile(
            "{\n.reg .pred p;\n"
            "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
            "selp.u32 %0, 1, 0, p;\n}\n"
            : "=r"(done)
            : "r"(addr), "r"(parity)
            : "memory");
        if (done) break;
        if (clock64() - start > (1ll << 34)) __trap();
    }
#endif
}

// --- TMA: one box of a 2-D matrix into shared memory -----------------------------
// Copies the box whose first element is at column x, row y of the matrix that
// `map` describes (make_tensor_map_2d below) to `dst` (1024-byte aligned for
// the 128-byte swizzle), and counts its bytes on `bar`. Elements outside the
// matrix arrive as zeros, and count too.
__device__ __forceinline__ void tma_load_2d(void* dst, const CUtensorMap* map, int x, int y, std::uint64_t* bar) {
#ifdef LAB11_SM90A
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], "
        "[%4];\n" ::"r"(smem_u32(dst)),
        "l"(reinterpret_cast<std::uint64_t>(map)), "r"(x), "r"(y), "r"(smem_u32(bar))
        : "memory");
#endif
}

// --- wgmma: the warpgroup's asynchronous tensor-core product ---------------------
// All 128 threads of a warpgroup (4 consecutive warps, the first one's index a
// multiple of 4) execute these together.
// Orders earlier register and shared-memory accesses before the next wgmma.
__device__ __forceinline__ void wgmma_fence() {
#ifdef LAB11_SM90A
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#endif
}
// Closes the wgmmas issued since the last commit into one group.
__device__ __forceinline__ void wgmma_commit() {
#ifdef LAB11_SM90A
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#endif
}
// Waits until at most kPending committed groups are still running.
template <int kPending>
__device__ __forceinline__ void wgmma_wait() {
#ifdef LAB11_SM90A
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(kPending) : "memory");
#endif
}
// Tells the compiler that the accumulators change here (wgmma writes them
// behind its back): no read of them moves above a wait, no copy below an issue.
template <int kRegs>
__device__ __forceinline__ void fence_accumulators(float (&d)[kRegs]) {
#pragma unroll
    for (int i = 0; i < kRegs; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

#define LAB11_WGMMA_D_REGS \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
    "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
    "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, " \
    "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
    "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, " \
    "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, " \
    "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}"
#define LAB11_WGMMA_D_OPERANDS(d) \
    "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
    "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
    "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
    "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
    "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
    "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
    "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
    "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), \
    "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
    "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), \
    "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), \
    "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), \
    "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), \
    "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), \
    "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), \
    "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])

// d (64 x 256 float32, 128 registers a thread) = A * B + (scale_d ? d : 0),
// A 64 x 16 and B 16 x 256 bf16, both read from shared memory through their
// descriptors, both K-major (k contiguous: A row-major, B stored as B^T).
// Accumulator layout: warp w of the warpgroup holds rows 16w..16w+15; thread
// lane l holds d[4j + r] at row 16w + l/4 + 8*(r/2), column 8j + 2*(l%4) + r%2.
__device__ __forceinline__ void wgmma_m64n256k16_bf16(float (&d)[128], std::uint64_t desc_a, std::uint64_t desc_b,
                                                      int scale_d) {
#ifdef LAB11_SM90A
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 " LAB11_WGMMA_D_REGS
        ", %128, %129, p, 1, 1, 0, 0;\n}\n"
        : LAB11_WGMMA_D_OPERANDS(d)
        : "l"(desc_a), "l"(desc_b), "r"(scale_d));
#endif
}
// The same with TF32 inputs (float32 in shared memory, k = 8 a step): 64 x 8
// of A times 8 x 256 of B. TF32 operands must be K-major (no transpose).
__device__ __forceinline__ void wgmma_m64n256k8_tf32(float (&d)[128], std::uint64_t desc_a, std::uint64_t desc_b,
                                                     int scale_d) {
#ifdef LAB11_SM90A
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 " LAB11_WGMMA_D_REGS
        ", %128, %129, p, 1, 1;\n}\n"
        : LAB11_WGMMA_D_OPERANDS(d)
        : "l"(desc_a), "l"(desc_b), "r"(scale_d));
#endif
}

#define LAB11_WGMMA_D64_REGS \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
    "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
    "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}"
#define LAB11_WGMMA_D64_OPERANDS(d) \
    "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
    "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
    "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
    "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
    "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
    "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
    "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
    "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])

// The same products with N = 128 (64 accumulator registers a thread; thread
// lane l of warp w holds d[4j + r] at row 16w + l/4 + 8*(r/2), column
// 8j + 2*(l%4) + r%2, j = 0..15): for problems too small to fill the GPU with
// 256-wide tiles.
__device__ __forceinline__ void wgmma_m64n128k16_bf16(float (&d)[64], std::uint64_t desc_a, std::uint64_t desc_b,
                                                      int scale_d) {
#ifdef LAB11_SM90A
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 " LAB11_WGMMA_D64_REGS
        ", %64, %65, p, 1, 1, 0, 0;\n}\n"
        : LAB11_WGMMA_D64_OPERANDS(d)
        : "l"(desc_a), "l"(desc_b), "r"(scale_d));
#endif
}
__device__ __forceinline__ void wgmma_m64n128k8_tf32(float (&d)[64], std::uint64_t desc_a, std::uint64_t desc_b,
                                                     int scale_d) {
#ifdef LAB11_SM90A
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 " LAB11_WGMMA_D64_REGS
        ", %64, %65, p, 1, 1;\n}\n"
        : LAB11_WGMMA_D64_OPERANDS(d)
        : "l"(desc_a), "l"(desc_b), "r"(scale_d));
#endif
}

// FP8: 64 x 32 of A times 32 x 128 of B, both e4m3 (one byte an element, so
// a k-step of 32 is 32 bytes, as bf16's 16), sums in the FP32 registers -
// but the tensor core's own accumulation keeps fewer bits than float32
// (cpu/error_bound.h, fp8_tensor_core_bound): stage 6 promotes. FP8 operands
// must be K-major (no transpose).
__device__ __forceinline__ void wgmma_m64n128k32_e4m3(float (&d)[64], std::uint64_t desc_a, std::uint64_t desc_b,
                                                      int scale_d) {
#ifdef LAB11_SM90A
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 " LAB11_WGMMA_D64_REGS
        ", %64, %65, p, 1, 1;\n}\n"
        : LAB11_WGMMA_D64_OPERANDS(d)
        : "l"(desc_a), "l"(desc_b), "r"(scale_d));
#endif
}

// --- setmaxnreg: registers per thread for the rest of the kernel --------------------
// Every thread of the warpgroup executes it. The kernel needs a register cap
// at entry (__launch_bounds__(threads, 1)).
template <int kRegs>
__device__ __forceinline__ void setmaxnreg_inc() {
#ifdef LAB11_SM90A
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kRegs));
#endif
}
template <int kRegs>
__device__ __forceinline__ void setmaxnreg_dec() {
#ifdef LAB11_SM90A
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kRegs));
#endif
}


// --- host: the tensor map (a 128-byte description of a matrix for the TMA) ----------
// A row-major matrix of `rows` x `cols` elements of `elem_bytes` bytes, rows
// `ld` elements apart (ld * elem_bytes must be a multiple of 16: lab 11's
// operands are padded so), read in boxes of box_rows x box_cols with the
// 128-byte swizzle (box_cols * elem_bytes must be 128). Boxes that stick out
// of the matrix are filled with zeros. The map goes to the kernel by value,
// as a `const __grid_constant__ CUtensorMap` parameter.
inline CUtensorMap make_tensor_map_2d(const void* base, CUtensorMapDataType type, std::uint32_t elem_bytes,
                                      std::uint64_t rows, std::uint64_t cols, std::uint64_t ld,
                                      std::uint32_t box_rows, std::uint32_t box_cols) {
    // The driver's cuTensorMapEncodeTiled, reached through the runtime (no -lcuda).
    static const PFN_cuTensorMapEncodeTiled_v12000 encode = [] {
        void* fn = nullptr;
        cudaDriverEntryPointQueryResult found{};
        CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found));
        if (found != cudaDriverEntryPointSuccess || !fn)
            throw std::runtime_error("cuTensorMapEncodeTiled is not in this driver (TMA needs CUDA 12 and a Hopper GPU)");
        return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
    }();
    CUtensorMap map{};
    const cuuint64_t dims[2] = {cols, rows};             // innermost first
    const cuuint64_t strides[1] = {ld * elem_bytes};     // bytes from one row to the next
    const cuuint32_t box[2] = {box_cols, box_rows};
    const cuuint32_t element_strides[2] = {1, 1};
    const CUresult r = encode(&map, type, 2, const_cast<void*>(base), dims, strides, box, element_strides,
                              CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                              CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS)
        throw std::runtime_error("cuTensorMapEncodeTiled failed (CUresult " + std::to_string(int(r)) + ") for a " +
                                 std::to_string(rows) + " x " + std::to_string(cols) + " matrix, ld " +
                                 std::to_string(ld) + ", box " + std::to_string(box_rows) + " x " +
                                 std::to_string(box_cols));
    return map;
}

}  // namespace lab11
