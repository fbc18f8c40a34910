// Lab 5 reference, internal: the kernel set each kernels_<level>.cpp defines.
// No starter counterpart: the starter has one set of its own kernels. Only
// kernels.cpp may hand these out (after checking the CPU), so they are not in
// kernels.h; included by the kernels_*.cpp files and kernels.cpp, nothing else.
#pragma once

#include "solutions/lab5/kernels.h"

namespace reference::lab5 {

const KernelSet& scalar_kernels();     // kernels_scalar.cpp
const KernelSet& avx2_kernels();       // kernels_avx2.cpp
const KernelSet& avx2_pair_kernels();  // kernels_avx2.cpp (test only)
const KernelSet& avx512_kernels();     // kernels_avx512.cpp

}  // namespace reference::lab5
