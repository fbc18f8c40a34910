#include "cpu/matrix.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <new>
#include <random>

namespace mml {

float poison_value() {
    float f;
    std::memcpy(&f, &kPoisonBits, sizeof f);
    return f;
}

bool is_poison(float x) {
    std::uint32_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    return bits == kPoisonBits;
}

void Matrix::AlignedFree::operator()(float* p) const { std::free(p); }

Matrix::Matrix(std::int64_t rows, std::int64_t cols) : rows_(rows), cols_(cols) {
    // aligned_alloc needs a size that is a multiple of the alignment.
    std::size_t bytes = std::size_t(rows) * std::size_t(cols) * sizeof(float);
    bytes = (bytes + 63) / 64 * 64;
    if (bytes == 0) bytes = 64;
    void* p = std::aligned_alloc(64, bytes);
    if (!p) throw std::bad_alloc();
    data_.reset(static_cast<float*>(p));
}

namespace {
// splitmix64: tiny, fast, and good enough for test data.
inline std::uint64_t splitmix64(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
}  // namespace

void fill_uniform(float* p, std::int64_t count, std::uint64_t seed) {
    // splitmix64's state after i steps is seed + i*gamma, so each chunk can
    // start its own stream at the right place: the values do not depend on
    // the number of threads (this matters for the 10^9-element inputs of lab 9).
    constexpr std::int64_t kChunk = std::int64_t(1) << 20;
    const std::int64_t chunks = (count + kChunk - 1) / kChunk;
#pragma omp parallel for schedule(static) if (chunks > 8)
    for (std::int64_t c = 0; c < chunks; ++c) {
        std::uint64_t state = seed + std::uint64_t(c * kChunk) * 0x9e3779b97f4a7c15ull;
        const std::int64_t end = std::min(count, (c + 1) * kChunk);
        for (std::int64_t i = c * kChunk; i < end; ++i) {
            // 24 random bits -> a float in [0,1) exactly, then map to [-1,1).
            float u = float(splitmix64(state) >> 40) * (1.0f / 16777216.0f);
            p[i] = 2.0f * u - 1.0f;
        }
    }
}

void fill_uniform(Matrix& m, std::uint64_t seed) { fill_uniform(m.data(), m.size(), seed); }

void fill_inputs(Matrix& A, Matrix& B, std::uint64_t seed) {
    fill_uniform(A, seed);
    fill_uniform(B, seed ^ 0x5bd1e995u);
}

void poison(float* p, std::int64_t count) {
    const float v = poison_value();
    for (std::int64_t i = 0; i < count; ++i) p[i] = v;
}

void poison(Matrix& m) { poison(m.data(), m.size()); }

std::uint64_t fresh_seed() {
    static std::random_device rd;
    auto now = std::uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
    return (std::uint64_t(rd()) << 32) ^ std::uint64_t(rd()) ^ now;
}

}  // namespace mml
