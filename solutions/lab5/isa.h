// Lab 5 reference: which SIMD instruction set a stage runs with.
//
// The binary is built for plain x86-64 and may run on a CPU with AVX2+FMA, with
// AVX-512, or with neither. So the choice is made at run time with cpuid
// (cpu/machine.h), never at compile time with -march=native: each ISA's code
// sits in its own file compiled for that ISA alone, and is only called after
// the check says the CPU has it.
#pragma once

namespace reference::lab5 {

enum class Isa { Scalar, Avx2, Avx512 };

const char* isa_name(Isa isa);   // "scalar", "AVX2+FMA", "AVX-512"
int isa_lanes(Isa isa);          // floats per vector register: 1, 8, 16
bool isa_available(Isa isa);     // does this CPU (and OS) support it?
Isa widest_isa();                // the fastest one available here

}  // namespace reference::lab5
