// The shared code every stage relies on: fill, poison, the float64
// reference, the error bound and the verifier (which must reject wrong,
// NaN, Inf and unwritten results, and accept correct ones).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "cpu/reference.h"
#include "cpu/verify.h"

using namespace mml;

namespace {

// C = A*B in float32, the i-k-j loop: a correct float32 product, with its own
// rounding errors, for the verifier to accept (whatever the stages do).
void float32_product(const float* A, const float* B, float* C, Shape s) {
    for (std::int64_t i = 0; i < s.M; ++i) {
        float* c = C + i * s.N;
        for (std::int64_t j = 0; j < s.N; ++j) c[j] = 0.0f;
        for (std::int64_t k = 0; k < s.K; ++k)
            for (std::int64_t j = 0; j < s.N; ++j) c[j] += A[i * s.K + k] * B[k * s.N + j];
    }
}

struct Product {
    Shape s;
    Matrix A, B, C;
    explicit Product(Shape shape) : s(shape), A(s.M, s.K), B(s.K, s.N), C(s.M, s.N) {
        const auto seed = fresh_seed();
        fill_uniform(A, seed);
        fill_uniform(B, seed + 99);
        float32_product(A.data(), B.data(), C.data(), s);
    }
    CheckResult check(VerifyMethod m = VerifyMethod::Auto) const {
        return verify_product(A.data(), B.data(), C.data(), s, classical_bound(s), m, fresh_seed());
    }
};

}  // namespace

TEST_SUITE("shared") {
    TEST_CASE("fill_uniform: values in [-1,1), reproducible from the seed, different seeds differ") {
        Matrix a(50, 40), b(50, 40), c(50, 40);
        fill_uniform(a, 7);
        fill_uniform(b, 7);
        fill_uniform(c, 8);
        double sum = 0;
        int differ = 0;
        for (std::int64_t e = 0; e < a.size(); ++e) {
            CHECK(a.data()[e] >= -1.0f);
            CHECK(a.data()[e] < 1.0f);
            CHECK(a.data()[e] == b.data()[e]);
            differ += a.data()[e] != c.data()[e];
            sum += a.data()[e];
        }
        CHECK(differ > 1900);
        CHECK(std::fabs(sum / double(a.size())) < 0.1);  // mean near 0 for U(-1,1)
    }

    TEST_CASE("poison marks every element and is recognised only as poison") {
        Matrix m(3, 5);
        poison(m);
        for (std::int64_t e = 0; e < m.size(); ++e) CHECK(is_poison(m.data()[e]));
        CHECK_FALSE(is_poison(std::numeric_limits<float>::quiet_NaN()));
        CHECK_FALSE(is_poison(0.0f));
    }

    TEST_CASE("Matrix storage is 64-byte aligned") {
        for (int n : {1, 3, 17, 100}) {
            Matrix m(n, n + 1);
            CHECK(reinterpret_cast<std::uintptr_t>(m.data()) % 64 == 0);
        }
    }

    TEST_CASE("float64 reference: hand-computed products") {
        // [1 2; 3 4] * [5 6; 7 8] = [19 22; 43 50]
        const float A[] = {1, 2, 3, 4}, B[] = {5, 6, 7, 8};
        std::vector<double> C, absC;
        reference_product_f64(A, B, {2, 2, 2}, C, absC);
        CHECK(C == std::vector<double>{19, 22, 43, 50});
        CHECK(absC == std::vector<double>{19, 22, 43, 50});
        // Signs: |A||B| differs from |A*B|. [1 -2] * [3; 4] = -5, |.|-sum = 11
        const float a[] = {1, -2}, b[] = {3, 4};
        reference_product_f64(a, b, {1, 1, 2}, C, absC);
        CHECK(C[0] == -5.0);
        CHECK(absC[0] == 11.0);
        double c, ac;
        reference_entry_f64(a, b, {1, 1, 2}, 0, 0, c, ac);
        CHECK(c == -5.0);
        CHECK(ac == 11.0);
    }

    TEST_CASE("error bound: gamma_K grows with K and is vacuous past 1/u") {
        CHECK(gamma_n(1, kFloat32UnitRoundoff) == doctest::Approx(kFloat32UnitRoundoff).epsilon(1e-6));
        CHECK(classical_bound({4, 4, 1000}).factor > classical_bound({4, 4, 10}).factor);
        CHECK(std::isinf(gamma_n(2e8, kFloat32UnitRoundoff)));
        CHECK(tf32_bound({8, 8, 8}).factor > classical_bound({8, 8, 8}).factor);
    }

    TEST_CASE("verifier accepts a correct float32 product, full and randomized") {
        for (Shape s : {Shape{1, 1, 1}, Shape{17, 31, 63}, Shape{200, 3, 1}, Shape{64, 64, 64}}) {
            Product p(s);
            const CheckResult full = p.check(VerifyMethod::Full);
            CHECK_MESSAGE(full.passed, full.failure);
            CHECK(full.worst_ratio <= 1.0);
            CHECK(full.method == "full");
            const CheckResult rnd = p.check(VerifyMethod::Randomized);
            CHECK_MESSAGE(rnd.passed, rnd.failure);
            CHECK(rnd.method == "randomized");
        }
    }

    TEST_CASE("verifier rejects an element just past its bound") {
        Product p({20, 30, 40});
        std::vector<double> ref, absref;
        reference_product_f64(p.A.data(), p.B.data(), p.s, ref, absref);
        const std::int64_t e = 7 * 30 + 11;
        const double bound = classical_bound(p.s).factor * absref[std::size_t(e)];
        // Just inside its bound (0.9x) the element is accepted, just past it
        // (1.1x) rejected: a verifier with a tolerance off by more than 10%
        // either way fails here. (Rounding the value to float moves it by at
        // most u|C| ~ 6e-8 |A||B|, far below 0.1 x gamma_40 |A||B| ~ 2.4e-7 |A||B|.)
        p.C.data()[e] = float(ref[std::size_t(e)] + 0.9 * bound);
        const CheckResult inside = p.check(VerifyMethod::Full);
        CHECK_MESSAGE(inside.passed, inside.failure);
        CHECK(inside.worst_ratio > 0.8);
        CHECK(inside.worst_ratio < 1.0);
        p.C.data()[e] = float(ref[std::size_t(e)] + 1.1 * bound);
        const CheckResult r = p.check(VerifyMethod::Full);
        CHECK_FALSE(r.passed);
        CHECK(r.failure.find("C[7][11]") != std::string::npos);
        CHECK_MESSAGE(r.failure.find("1 of 600 elements are wrong, in rows 7, columns 11") != std::string::npos,
                      r.failure);
        CHECK(r.worst_ratio > 1.0);
        CHECK(r.worst_ratio < 1.2);
        // Randomized: 600 entries are few enough to be checked one by one (a
        // 1.1x error in one entry hides from Freivalds' block sums).
        for (int run = 0; run < 20; ++run) CHECK_FALSE(p.check(VerifyMethod::Randomized).passed);
    }

    TEST_CASE("full check: how many elements are wrong, and in which rows and columns") {
        Product p({20, 30, 40});
        std::vector<double> ref, absref;
        reference_product_f64(p.A.data(), p.B.data(), p.s, ref, absref);
        for (std::size_t e = 0; e < ref.size(); ++e) p.C.data()[e] = float(ref[e]);
        for (std::int64_t j = 0; j < 30; ++j) p.C.data()[19 * 30 + j] = 0;  // a loop that stops at M - 1
        const CheckResult r = p.check(VerifyMethod::Full);
        CHECK_FALSE(r.passed);
        CHECK_MESSAGE(r.failure.find("C[19][0] = 0") == 0, r.failure);
        CHECK_MESSAGE(r.failure.find("30 of 600 elements are wrong, in rows 19, columns 0..29") != std::string::npos,
                      r.failure);
    }

    // An untouched starter that stores its zeroed accumulators: the message
    // says nothing was added, not "check the indexing" (walkthrough of lab 8's
    // TF32 starter, issue 26).
    TEST_CASE("verifier: a C of zeros is named as nothing added, full and randomized") {
        for (Shape s : {Shape{9, 13, 5}, Shape{600, 500, 1000}}) {
            Product p(s);
            std::fill(p.C.data(), p.C.data() + s.M * s.N, 0.0f);
            const CheckResult r = p.check();
            CHECK_FALSE(r.passed);
            CHECK_MESSAGE(r.failure.find("every element of C is 0: nothing was added") == 0, r.failure);
        }
    }

    TEST_CASE("verifier rejects NaN, Inf and unwritten elements, naming the place") {
        for (Shape s : {Shape{9, 13, 5}, Shape{600, 500, 1000}}) {  // full, then randomized
            Product p(s);
            p.C.at(3, 4) = std::numeric_limits<float>::quiet_NaN();
            CheckResult r = p.check();
            CHECK_FALSE(r.passed);
            CHECK(r.failure.find("C[3][4] is NaN") != std::string::npos);

            p.C.at(3, 4) = std::numeric_limits<float>::infinity();
            r = p.check();
            CHECK_FALSE(r.passed);
            CHECK(r.failure.find("Inf") != std::string::npos);

            p.C.at(3, 4) = poison_value();
            r = p.check();
            CHECK_FALSE(r.passed);
            CHECK(r.failure.find("never written") != std::string::npos);
        }
    }

    TEST_CASE("randomized check catches one wrong element in a large product") {
        Product p({600, 500, 1000});  // 3e8 multiply-adds: past the full check's limit
        CHECK(p.check().method == "randomized");
        CHECK_MESSAGE(p.check().passed, p.check().failure);
        // gamma_K*|A||B| is about 6e-5 * 250 = 0.015 per element here, and the
        // summed bound of a block of 32 about 32*0.75 times that (0.36): one
        // interior element off by 1 is found by the blocked Freivalds test...
        Product q({600, 500, 1000});
        q.C.at(321, 123) += 1.0f;
        const CheckResult one = q.check();
        CHECK_FALSE(one.passed);
        CHECK(one.failure.find("row 321, columns 96..127") != std::string::npos);
        // ...and so are errors on whole tiles (here: different wrong values
        // in a 16x16 tile, as a kernel that skips part of the k loop gives).
        Matrix noise(16, 16);
        fill_uniform(noise, fresh_seed());
        for (int i = 0; i < 16; ++i)
            for (int j = 0; j < 16; ++j) p.C.at(100 + i, 200 + j) += noise.at(i, j);
        CHECK_FALSE(p.check().passed);
        Product r({600, 500, 1000});
        r.C.at(599, 17) += 0.05f;  // the last row: checked element by element
        CHECK_FALSE(r.check().passed);
    }

    TEST_CASE("verifier rejects a transposed-index bug") {
        Product p({16, 16, 16});
        // C^T instead of C: the classic i/j swap.
        Matrix t(16, 16);
        for (int i = 0; i < 16; ++i)
            for (int j = 0; j < 16; ++j) t.at(i, j) = p.C.at(j, i);
        CHECK_FALSE(verify_product(p.A.data(), p.B.data(), t.data(), p.s, classical_bound(p.s)).passed);
    }

    TEST_CASE("norm-wise bounds accept a small error everywhere and reject a large one") {
        Product p({10, 10, 10});
        ErrorBound nb{ErrorBound::Kind::Normwise, 1e-4, "test"};
        for (std::int64_t e = 0; e < p.C.size(); ++e) p.C.data()[e] += 1e-6f;
        CHECK(verify_product(p.A.data(), p.B.data(), p.C.data(), p.s, nb).passed);
        p.C.data()[5] += 1e-2f;
        CHECK_FALSE(verify_product(p.A.data(), p.B.data(), p.C.data(), p.s, nb).passed);
    }
}
