// A row-major float32 matrix in 64-byte-aligned storage, plus the things every
// stage and test does with one: fill with U(-1,1) from a seed, poison before a
// run. 64-byte alignment lets SIMD code use aligned loads on row starts when
// the row length is a multiple of 16 floats, and keeps rows off shared cache
// lines between threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace mml {

// Every stage computes C = A*B with A M x K, B K x N, C M x N (row-major).
struct Shape {
    std::int64_t M = 1, N = 1, K = 1;
    double flops() const { return 2.0 * double(M) * double(N) * double(K); }
    bool operator==(const Shape& o) const { return M == o.M && N == o.N && K == o.K; }
    bool operator!=(const Shape& o) const { return !(*this == o); }
};

// The value written into C before every run. A quiet NaN with a recognisable
// payload, so the verifier can tell "never written" apart from "computed NaN".
constexpr std::uint32_t kPoisonBits = 0x7fc0dead;
float poison_value();
bool is_poison(float x);

class Matrix {
public:
    Matrix() = default;
    Matrix(std::int64_t rows, std::int64_t cols);  // contents undefined

    std::int64_t rows() const { return rows_; }
    std::int64_t cols() const { return cols_; }
    std::int64_t size() const { return rows_ * cols_; }
    float* data() { return data_.get(); }
    const float* data() const { return data_.get(); }
    float& at(std::int64_t r, std::int64_t c) { return data_.get()[r * cols_ + c]; }
    float at(std::int64_t r, std::int64_t c) const { return data_.get()[r * cols_ + c]; }

private:
    struct AlignedFree { void operator()(float* p) const; };
    std::int64_t rows_ = 0, cols_ = 0;
    std::unique_ptr<float[], AlignedFree> data_;
};

// Fill with independent U(-1,1) values from a 64-bit seed (splitmix64 stream),
// so the same seed gives the same matrix on every machine.
void fill_uniform(Matrix& m, std::uint64_t seed);
void fill_uniform(float* p, std::int64_t count, std::uint64_t seed);
// The inputs A and B of one product from one seed: A from `seed`, B from a
// second stream derived from it (so B is not a copy of A when the shapes agree).
void fill_inputs(Matrix& A, Matrix& B, std::uint64_t seed);

// Write the poison value into every element.
void poison(Matrix& m);
void poison(float* p, std::int64_t count);

// A fresh seed for each check: tests draw new inputs every time they run.
std::uint64_t fresh_seed();

}  // namespace mml
