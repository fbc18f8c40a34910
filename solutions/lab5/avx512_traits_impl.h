// Lab 5 reference, internal: the vector traits of the AVX-512 kernels (the
// "S" of kernel_bodies_impl.h) and those bodies, compiled for AVX-512F
// whatever the build flags (push_options ... pop_options). Included by
// kernels_avx512.cpp only: the functions there that use these carry
// __attribute__((target("avx512f"))) and are called only after cpuid has said
// the CPU (and the OS) support AVX-512F.
#pragma once

#include <immintrin.h>

#include <cstdint>

#pragma GCC push_options
#pragma GCC target("avx512f")
#include "solutions/lab5/kernel_bodies_impl.h"

namespace reference::lab5 {
namespace {

struct Avx512 {
    using V = __m512;
    static constexpr int W = 16;
    static V zero() { return _mm512_setzero_ps(); }
    static V load(const float* p) { return _mm512_loadu_ps(p); }
    static void store(float* p, V v) { _mm512_storeu_ps(p, v); }
    static V splat(float x) { return _mm512_set1_ps(x); }
    static V fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
    static V add(V a, V b) { return _mm512_add_ps(a, b); }
    static float sum(V v) {
        // Once per dot product, so plain and obviously right beats clever:
        // store the 16 lanes and add them up.
        alignas(64) float lanes[16];
        _mm512_store_ps(lanes, v);
        float s = 0.0f;
        for (float x : lanes) s += x;
        return s;
    }
    // A k-mask with bit i set for lane i < n (n <= 0: none, n >= 16: all).
    static __mmask16 first(int n) { return n <= 0 ? 0 : n >= 16 ? 0xFFFF : static_cast<__mmask16>((1u << n) - 1); }
    static V load_first(const float* p, int n) { return _mm512_maskz_loadu_ps(first(n), p); }
    static void store_first(float* p, V v, int n) { _mm512_mask_storeu_ps(p, first(n), v); }
};

}  // namespace
}  // namespace reference::lab5
#pragma GCC pop_options
