// Lab 5 reference, internal: the vector traits of the AVX2 kernels (the "S"
// of kernel_bodies_impl.h) and those bodies, compiled for AVX2+FMA whatever
// the build flags (push_options ... pop_options). Included by
// kernels_avx2.cpp only: the functions there that use these carry
// __attribute__((target("avx2,fma"))) and are called only after cpuid has
// said the CPU has AVX2 and FMA.
#pragma once

#include <immintrin.h>

#include <cstdint>

#pragma GCC push_options
#pragma GCC target("avx2,fma")
#include "solutions/lab5/kernel_bodies_impl.h"

namespace reference::lab5 {
namespace {

struct Avx2 {
    using V = __m256;
    static constexpr int W = 8;
    static V zero() { return _mm256_setzero_ps(); }
    static V load(const float* p) { return _mm256_loadu_ps(p); }
    static void store(float* p, V v) { _mm256_storeu_ps(p, v); }
    static V splat(float x) { return _mm256_set1_ps(x); }
    static V fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
    static V add(V a, V b) { return _mm256_add_ps(a, b); }
    static float sum(V v) {
        // 8 -> 4 lanes (add the two 128-bit halves), 4 -> 2, 2 -> 1.
        __m128 x = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
        x = _mm_add_ps(x, _mm_movehl_ps(x, x));
        x = _mm_add_ss(x, _mm_movehdup_ps(x));
        return _mm_cvtss_f32(x);
    }
    // Lane i takes part when i < n: the sign bit of lane i of the mask.
    static __m256i first(int n) { return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)); }
    static V load_first(const float* p, int n) { return _mm256_maskload_ps(p, first(n)); }
    static void store_first(float* p, V v, int n) { _mm256_maskstore_ps(p, first(n), v); }
};

// A 16-float "vector" made of two AVX2 registers: the AVX-512 tile geometry
// (12 x 32) with the same template bodies, so that the tests can run that
// geometry on an AVX2-only machine. Not fast (48 accumulators do not fit in
// 16 registers); only for testing.
struct Avx2Pair {
    struct V {
        __m256 lo, hi;
    };
    static constexpr int W = 16;
    static V zero() { return {_mm256_setzero_ps(), _mm256_setzero_ps()}; }
    static V load(const float* p) { return {_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8)}; }
    static void store(float* p, V v) {
        _mm256_storeu_ps(p, v.lo);
        _mm256_storeu_ps(p + 8, v.hi);
    }
    static V splat(float x) { return {_mm256_set1_ps(x), _mm256_set1_ps(x)}; }
    static V fma(V a, V b, V c) { return {_mm256_fmadd_ps(a.lo, b.lo, c.lo), _mm256_fmadd_ps(a.hi, b.hi, c.hi)}; }
    static V add(V a, V b) { return {_mm256_add_ps(a.lo, b.lo), _mm256_add_ps(a.hi, b.hi)}; }
    static float sum(V v) { return Avx2::sum(_mm256_add_ps(v.lo, v.hi)); }
    static V load_first(const float* p, int n) { return {Avx2::load_first(p, n), Avx2::load_first(p + 8, n - 8)}; }
    static void store_first(float* p, V v, int n) {
        Avx2::store_first(p, v.lo, n);
        Avx2::store_first(p + 8, v.hi, n - 8);
    }
};

}  // namespace

}  // namespace reference::lab5
#pragma GCC pop_options
