// Lab 12 (given code): how lab 8's kernel becomes the GPU SUMMA's tile product
// "--tile lab8" (labs/common/lab12_gpu.h). Plain C++, no CUDA headers: the
// binding (harness/stages/lab12/references_gpu.cpp) is compiled by the C++
// compiler.
#pragma once

#include <cstdint>

namespace mml::lab12 {

// Lab 8's fastest kernel: C = A*B, contiguous row-major, device pointers,
// launched on the default stream.
using Lab8Kernel = void (*)(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K);
void bind_lab8_kernel(Lab8Kernel kernel, const char* name);
bool lab8_kernel_available();

}  // namespace mml::lab12
