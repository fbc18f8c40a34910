// Given code for the stream-K stages of labs 8 and 11 (starters and reference
// alike): how one block hands a partial sum to another within one launch.
// The writer stores its partial, then raises its flag to this launch's epoch
// with a release; the reader spins with acquires until the flag holds the
// epoch, then reads the partial. Flags are never reset: each launch counts
// the epoch up, so a flag left from an earlier launch never reads as raised.
// The PTX ISA ("Memory Consistency Model") defines st.release / ld.acquire
// at .gpu scope: the stores before a release are seen by whoever acquires it.
#pragma once

namespace common::streamk {

__device__ __forceinline__ void flag_release(unsigned* flag, unsigned value) {
    asm volatile("st.release.gpu.global.u32 [%0], %1;\n" ::"l"(flag), "r"(value) : "memory");
}
__device__ __forceinline__ unsigned flag_acquire(const unsigned* flag) {
    unsigned v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];\n" : "=r"(v) : "l"(flag) : "memory");
    return v;
}

// Spins until *flag == epoch. A flag that never comes (a partial never handed
// over) would hang the GPU: after 2^27 tries (over 8 s, far beyond any wait of
// a correct run) the kernel traps, and the harness reports a launch failure.
__device__ __forceinline__ void wait_for_flag(const unsigned* flag, unsigned epoch) {
    for (unsigned tries = 0; flag_acquire(flag) != epoch; ++tries) {
        if (tries == (1u << 27)) __trap();
        __nanosleep(64);
    }
}

}  // namespace common::streamk
