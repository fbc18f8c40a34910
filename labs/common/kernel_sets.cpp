// Given code (lab 5): the run-time choice of a kernel set (kernel_sets.h).
#include "labs/common/kernel_sets.h"

#include <stdexcept>
#include <string>

namespace common::lab5 {

const KernelSet& widest_kernels(mml::SimdLevel simd, std::initializer_list<const KernelSet*> sets) {
    if (!mml::simd_available(simd)) throw std::invalid_argument(std::string("this CPU has no ") + mml::simd_name(simd));
    const KernelSet* best = nullptr;
    for (const KernelSet* k : sets)
        if (k && mml::simd_lanes(k->simd) <= mml::simd_lanes(simd) && (!best || mml::simd_lanes(k->simd) > mml::simd_lanes(best->simd)))
            best = k;
    if (!best) throw std::invalid_argument(std::string("no kernel set for ") + mml::simd_name(simd));
    return *best;
}

}  // namespace common::lab5
