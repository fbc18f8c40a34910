// Lab 5 - given: the kernel sets of this build and the run-time choice among
// them (labs/common/kernel_sets.h). The binary is built for any x86-64, so
// it asks the CPU (cpuid, through cpu/machine.h) before it calls a function
// compiled for AVX2 or AVX-512: on a CPU without it, that would be an
// "illegal instruction" crash.
#include "labs/lab5/kernels.h"

namespace student::lab5 {

const KernelSet& kernels_for(mml::SimdLevel simd) {
    static const KernelSet avx2{"AVX2+FMA 6x16", mml::SimdLevel::Avx2, MR, NR, dot_avx2, tile_avx2, micro_avx2};
    return common::lab5::widest_kernels(simd, {&common::lab5::scalar_kernels(), &avx2, avx512_kernels()});
}

}  // namespace student::lab5
