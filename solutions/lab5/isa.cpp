#include "solutions/lab5/isa.h"

#include "cpu/machine.h"

namespace reference::lab5 {

const char* isa_name(Isa isa) {
    switch (isa) {
        case Isa::Avx512: return "AVX-512";
        case Isa::Avx2: return "AVX2+FMA";
        default: return "scalar";
    }
}

int isa_lanes(Isa isa) { return isa == Isa::Avx512 ? 16 : isa == Isa::Avx2 ? 8 : 1; }

bool isa_available(Isa isa) {
    switch (isa) {
        case Isa::Avx512: return mml::cpu_has_avx512();
        case Isa::Avx2: return mml::cpu_has_avx2_fma();
        default: return true;
    }
}

Isa widest_isa() {
    if (isa_available(Isa::Avx512)) return Isa::Avx512;
    if (isa_available(Isa::Avx2)) return Isa::Avx2;
    return Isa::Scalar;
}

}  // namespace reference::lab5
