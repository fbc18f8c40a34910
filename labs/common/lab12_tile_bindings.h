// Lab 12 (given code): how earlier labs' kernels become the GPU SUMMA's tile
// product (labs/common/lab12_gpu.h): "--tile lab8" is lab 8's stage-4 kernel
// (double_buffer; not the faster stage 5 or 6), "--tile lab11" lab 11's wgmma
// kernel (bf16, sm_90). Plain C++, no
// CUDA headers: the binding (harness/stages/lab12/references_gpu.cpp) is
// compiled by the C++ compiler, and only where the references are built; a
// build without them leaves the pointers empty and the tiles say so.
#pragma once

#include <cstdint>

namespace mml::lab12 {

// Lab 8's kernel (the one bound: its stage 4): C = A*B, contiguous row-major,
// device pointers, launched on the default stream.
using Lab8Kernel = void (*)(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K);
void bind_lab8_kernel(Lab8Kernel kernel, const char* name);
bool lab8_kernel_available();

// Lab 11's wgmma kernel (gpu/lowp_operands.h's operands): C (M x N, float32,
// row-major, row stride N) = A * Bt^T, overwritten; A (M x K) and Bt (N x K)
// hold bfloat16, both K-major, rows `ld` elements apart (ld >= K, ld * 2 bytes
// a multiple of 16, rows 16-byte aligned: the TMA's rules). Device pointers,
// launched on the default stream; Hopper (sm_90) only.
using Lab11Kernel = void (*)(const void* A, const void* Bt, std::int64_t ld, float* C, std::int64_t M, std::int64_t N,
                             std::int64_t K);
void bind_lab11_kernel(Lab11Kernel kernel, const char* name);
bool lab11_kernel_available();

}  // namespace mml::lab12
