// Lab 5 reference: hands out the kernel set of an ISA, only after cpuid has
// confirmed that the CPU can run it (calling AVX-512 code on an AVX2 CPU would
// end the program with "illegal instruction").
#include "solutions/lab5/kernels.h"

#include <stdexcept>
#include <string>

#include "solutions/lab5/kernel_sets.h"

namespace reference::lab5 {

const KernelSet& kernels_for(Isa isa) {
    if (!isa_available(isa))
        throw std::invalid_argument(std::string("this CPU has no ") + isa_name(isa));
    switch (isa) {
        case Isa::Avx512: return avx512_kernels();
        case Isa::Avx2: return avx2_kernels();
        default: return scalar_kernels();
    }
}

const KernelSet& avx2_kernels_emulating_avx512() {
    if (!isa_available(Isa::Avx2)) throw std::invalid_argument("this CPU has no AVX2+FMA");
    return avx2_pair_kernels();
}

std::vector<const KernelSet*> runnable_kernel_sets() {
    std::vector<const KernelSet*> sets = {&scalar_kernels(), &scalar_kernels_with_avx512_tile()};
    if (isa_available(Isa::Avx2)) {
        sets.push_back(&avx2_kernels());
        sets.push_back(&avx2_pair_kernels());
    }
    if (isa_available(Isa::Avx512)) sets.push_back(&avx512_kernels());
    return sets;
}

}  // namespace reference::lab5
