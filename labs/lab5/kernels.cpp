// Lab 5 - given: the run-time dispatch. The binary is built for any x86-64,
// so it asks the CPU (cpuid, through cpu/machine.h) before it calls a
// function compiled for AVX2: on a CPU without it, that would be an
// "illegal instruction" crash.
#include "cpu/machine.h"
#include "labs/lab5/kernels.h"

namespace student::lab5 {

const KernelSet& scalar_kernels() {
    static const KernelSet k{"scalar 6x16", MR, NR, dot_scalar, tile_scalar, micro_scalar};
    return k;
}

const KernelSet& kernels_for_this_cpu() {
    static const KernelSet avx2{"AVX2+FMA 6x16", MR, NR, dot_avx2, tile_avx2, micro_avx2};
    return mml::cpu_has_avx2_fma() ? avx2 : scalar_kernels();
}

}  // namespace student::lab5
