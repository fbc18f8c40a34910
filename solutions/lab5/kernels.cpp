// Lab 5 reference: the starter's kernels.cpp (given), unchanged: the kernel
// sets of this build - the given scalar ones, the AVX2 answer, the AVX-512
// extension (kernels_avx512.cpp) - and the run-time choice among them
// (labs/common/kernel_sets.h), so --param simd=16 gets AVX-512 where cpuid
// says the CPU has it.
#include "solutions/lab5/kernels.h"

namespace reference::lab5 {

const KernelSet& kernels_for(mml::SimdLevel simd) {
    static const KernelSet avx2{"AVX2+FMA 6x16", mml::SimdLevel::Avx2, MR, NR, dot_avx2, tile_avx2, micro_avx2};
    return common::lab5::widest_kernels(simd, {&common::lab5::scalar_kernels(), &avx2, avx512_kernels()});
}

}  // namespace reference::lab5
