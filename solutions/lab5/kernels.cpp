// Lab 5 reference (the starter's kernels.cpp does the same for its own
// kernels): hands out the kernel set of a SIMD level, only after cpuid has
// confirmed that the CPU can run it (calling AVX-512 code on an AVX2 CPU would
// end the program with "illegal instruction").
#include "solutions/lab5/kernels.h"

#include <stdexcept>
#include <string>

#include "solutions/lab5/kernel_sets.h"

namespace reference::lab5 {

const KernelSet& kernels_for(mml::SimdLevel simd) {
    if (!mml::simd_available(simd))
        throw std::invalid_argument(std::string("this CPU has no ") + mml::simd_name(simd));
    switch (simd) {
        case mml::SimdLevel::Avx512: return avx512_kernels();
        case mml::SimdLevel::Avx2: return avx2_kernels();
        default: return scalar_kernels();
    }
}

const KernelSet& avx2_kernels_emulating_avx512() {
    if (!mml::simd_available(mml::SimdLevel::Avx2)) throw std::invalid_argument("this CPU has no AVX2+FMA");
    return avx2_pair_kernels();
}

std::vector<const KernelSet*> runnable_kernel_sets() {
    std::vector<const KernelSet*> sets = {&scalar_kernels(), &scalar_kernels_with_avx512_tile()};
    if (mml::simd_available(mml::SimdLevel::Avx2)) {
        sets.push_back(&avx2_kernels());
        sets.push_back(&avx2_pair_kernels());
    }
    if (mml::simd_available(mml::SimdLevel::Avx512)) sets.push_back(&avx512_kernels());
    return sets;
}

}  // namespace reference::lab5
