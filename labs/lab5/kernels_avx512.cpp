// Lab 5 - the extension (optional): AVX-512 kernels. Read handouts/lab5.md
// ("Extension: AVX-512") first.
#include "labs/lab5/kernels.h"

namespace student::lab5 {

// TODO(lab5, extension): a kernel set of AVX-512 kernels (16 floats per zmm
//   register; a 12 x 32 register tile fits in 32 of them): dot, tile and
//   micro as in kernels_avx2.cpp, each marked __attribute__((target("avx512f"))),
//   returned as a pointer to a static KernelSet{name, mml::SimdLevel::Avx512,
//   MR, NR, ...}. The given kernels.cpp then runs it on CPUs with AVX-512, and
//   your loops and your packing take its MR x NR. nullptr: none (your
//   AVX2 kernels run there). Judged: the tests, with --param simd=16, on an
//   AVX-512 machine.
const KernelSet* avx512_kernels() {
    return nullptr;
}

}  // namespace student::lab5
