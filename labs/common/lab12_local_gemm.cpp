// Lab 12's local product (lab12_local_gemm.h): lab 5's GEMM where this build
// has it, OpenBLAS otherwise.
#include "labs/common/lab12_local_gemm.h"

#include <cblas.h>  // OpenBLAS's (tools/configure.sh checks): it declares openblas_set_num_threads

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "cpu/matrix.h"


namespace mml::lab12 {
namespace {

struct State {
    ContiguousGemm lab5 = nullptr;
    std::string (*describe_lab5)() = nullptr;
    LocalKernel kernel = LocalKernel::OpenBlas;
    bool chosen = false;
    int threads = 1;
};
State& state() {
    static State s;
    return s;
}

// Grow-only 64-byte aligned scratch, kept from call to call (a fresh buffer
// every panel would pay its page faults every time).
struct Scratch {
    Matrix buf;
    float* get(std::int64_t floats) {
        if (buf.size() < floats) buf = Matrix(1, std::max<std::int64_t>(floats, 16));
        return buf.data();
    }
};

// A contiguous copy of a strided rows x cols block (or the block itself when
// it already is contiguous).
const float* contiguous(const float* X, std::int64_t ld, std::int64_t rows, std::int64_t cols, Scratch& s) {
    if (ld == cols) return X;
    float* out = s.get(rows * cols);
    for (std::int64_t r = 0; r < rows; ++r) std::memcpy(out + r * cols, X + r * ld, sizeof(float) * cols);
    return out;
}

void lab5_gemm(const float* A, std::int64_t lda, const float* B, std::int64_t ldb, float* C, std::int64_t ldc,
               std::int64_t m, std::int64_t n, std::int64_t k, bool accumulate) {
    static Scratch sa, sb, sc;
    const State& st = state();
    const float* a = contiguous(A, lda, m, k, sa);
    const float* b = contiguous(B, ldb, k, n, sb);
    if (!accumulate && ldc == n) {  // straight into C
        st.lab5(a, b, C, m, n, k, st.threads);
        return;
    }
    // Lab 5's kernel overwrites a contiguous C: product into scratch, then
    // added (or copied) into the strided or accumulating C. One more pass
    // over C per call: about 3 % of a 1024-deep panel's time on one core.
    float* t = sc.get(m * n);
    st.lab5(a, b, t, m, n, k, st.threads);
    for (std::int64_t r = 0; r < m; ++r) {
        float* c = C + r * ldc;
        const float* tr = t + r * n;
        if (accumulate)
            for (std::int64_t j = 0; j < n; ++j) c[j] += tr[j];
        else
            std::memcpy(c, tr, sizeof(float) * n);
    }
}

}  // namespace

void bind_lab5_kernel(ContiguousGemm gemm, std::string (*describe)()) {
    State& st = state();
    st.lab5 = gemm;
    st.describe_lab5 = describe;
    if (!st.chosen) st.kernel = LocalKernel::Lab5;  // the default where it exists
}

bool lab5_kernel_available() { return state().lab5 != nullptr; }

void set_local_kernel(LocalKernel kernel, int threads) {
    State& st = state();
    if (kernel == LocalKernel::Lab5 && !st.lab5)
        throw std::runtime_error(
            "lab 5's GEMM is not in this build (built without the reference solutions): use --local openblas");
    st.kernel = kernel;
    st.chosen = true;
    st.threads = std::max(1, threads);
    if (kernel == LocalKernel::OpenBlas) openblas_set_num_threads(st.threads);
}

LocalKernel local_kernel() { return state().kernel; }

std::string local_kernel_description() {
    const State& st = state();
    const std::string threads = std::to_string(st.threads) + (st.threads == 1 ? " thread" : " threads");
    if (st.kernel == LocalKernel::Lab5)
        return "lab 5 BLIS-style GEMM (" + (st.describe_lab5 ? st.describe_lab5() : std::string("?")) + "), " + threads;
    return std::string("OpenBLAS sgemm") + (st.lab5 ? "" : " (lab 5's GEMM is not in this build)") + ", " + threads;
}

void local_gemm(const float* A, std::int64_t lda, const float* B, std::int64_t ldb, float* C, std::int64_t ldc,
                std::int64_t m, std::int64_t n, std::int64_t k, bool accumulate) {
    if (m <= 0 || n <= 0) return;
    if (k <= 0) {
        if (!accumulate)
            for (std::int64_t r = 0; r < m; ++r) std::fill(C + r * ldc, C + r * ldc + n, 0.0f);
        return;
    }
    if (state().kernel == LocalKernel::Lab5) {
        lab5_gemm(A, lda, B, ldb, C, ldc, m, n, k, accumulate);
        return;
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(m), static_cast<int>(n),
                static_cast<int>(k), 1.0f, A, static_cast<int>(lda), B, static_cast<int>(ldb),
                accumulate ? 1.0f : 0.0f, C, static_cast<int>(ldc));
}

}  // namespace mml::lab12
