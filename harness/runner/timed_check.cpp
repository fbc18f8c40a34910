// The check of a timed run's result (timed_check.h).
#include "harness/runner/timed_check.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace mml::runner::detail {

namespace {

std::string entry_name(std::int64_t i, std::int64_t j) { return "C[" + std::to_string(i) + "][" + std::to_string(j) + "]"; }

}  // namespace

std::string check_scaled_product(const float* A, const float* B, const float* d, const float* C, Shape s,
                                 const ErrorBound& bound, InputRounding rounding, std::mt19937_64& rng) {
    const std::int64_t M = s.M, N = s.N, K = s.K;
    for (std::int64_t e = 0; e < M * N; ++e) {
        if (is_poison(C[e])) return entry_name(e / N, e % N) + " was never written (it still holds the poison value)";
        if (!std::isfinite(C[e])) return entry_name(e / N, e % N) + " is " + (std::isnan(C[e]) ? "NaN" : "Inf");
    }
    // The inputs as the stage multiplies them: fl(d_k b_kj), as the runner forms
    // B', then rounded as a reduced-precision stage rounds its inputs
    // (Stage::input_rounding; run_once_and_verify judges those stages so too).
    auto bprime = [&](std::int64_t k, std::int64_t j) { return double(round_input(d[k] * B[k * N + j], rounding)); };
    auto a = [&](std::int64_t i, std::int64_t k) { return double(round_input(A[i * K + k], rounding)); };
    const double ref_u = kFloat64UnitRoundoff;
    double normwise = 0;
    if (bound.kind == ErrorBound::Kind::Normwise) {
        double maxa = 0, maxb = 0;
        for (std::int64_t i = 0; i < M; ++i)
            for (std::int64_t k = 0; k < K; ++k) maxa = std::max(maxa, std::fabs(a(i, k)));
        for (std::int64_t k = 0; k < K; ++k)
            for (std::int64_t j = 0; j < N; ++j) maxb = std::max(maxb, std::fabs(bprime(k, j)));
        normwise = bound.factor * maxa * maxb;
    }
    // Freivalds over rows: y = B' x and |B'| |x|.
    std::uniform_real_distribution<double> mag(0.5, 1.0);
    std::vector<double> x(static_cast<std::size_t>(N)), y(static_cast<std::size_t>(K), 0.0), yabs(static_cast<std::size_t>(K), 0.0);
    double sum_abs_x = 0;
    for (auto& v : x) {
        v = (rng() & 1 ? 1.0 : -1.0) * mag(rng);
        sum_abs_x += std::fabs(v);
    }
    for (std::int64_t k = 0; k < K; ++k)
        for (std::int64_t j = 0; j < N; ++j) {
            const double b = bprime(k, j);
            y[std::size_t(k)] += b * x[std::size_t(j)];
            yabs[std::size_t(k)] += std::fabs(b) * std::fabs(x[std::size_t(j)]);
        }
    const double slack = gamma_n(double(K + N + 2), ref_u);
    for (std::int64_t i = 0; i < M; ++i) {
        double lhs = 0, lhs_abs = 0, rhs = 0, rhs_abs = 0;
        for (std::int64_t j = 0; j < N; ++j) {
            lhs += double(C[i * N + j]) * x[std::size_t(j)];
            lhs_abs += std::fabs(double(C[i * N + j]) * x[std::size_t(j)]);
        }
        for (std::int64_t k = 0; k < K; ++k) {
            rhs += a(i, k) * y[std::size_t(k)];
            rhs_abs += std::fabs(a(i, k)) * yabs[std::size_t(k)];
        }
        const double tol = (normwise > 0 ? normwise * sum_abs_x : bound.factor * rhs_abs) + slack * (lhs_abs + rhs_abs);
        if (std::fabs(lhs - rhs) > tol)
            return "row " + std::to_string(i) + " of C is wrong (a random combination of its elements is off by " +
                   std::to_string(std::fabs(lhs - rhs)) + ", more than its bound " + std::to_string(tol) + ")";
    }
    // Single entries: every one when there are at most 66 (lab 9's skinny
    // products: each costs K), else the two corners and 64 at random.
    std::uniform_int_distribution<std::int64_t> row(0, M - 1), col(0, N - 1);
    const bool every = M * N <= 66;
    for (std::int64_t t = 0; t < (every ? M * N : 66); ++t) {
        const std::int64_t i = every ? t / N : t == 0 ? 0 : t == 1 ? M - 1 : row(rng);
        const std::int64_t j = every ? t % N : t == 0 ? 0 : t == 1 ? N - 1 : col(rng);
        double ref = 0, abs_sum = 0;
        for (std::int64_t k = 0; k < K; ++k) {
            const double p = a(i, k) * bprime(k, j);
            ref += p;
            abs_sum += std::fabs(p);
        }
        const double admissible = (normwise > 0 ? normwise : bound.factor * abs_sum) + gamma_n(double(K), ref_u) * abs_sum;
        const double err = std::fabs(double(C[i * N + j]) - ref);
        if (err > admissible)
            return entry_name(i, j) + " = " + std::to_string(C[i * N + j]) + " but the float64 reference gives " +
                   std::to_string(ref) + " (error " + std::to_string(err) + ", bound " + std::to_string(admissible) + ")";
    }
    return "";
}

}  // namespace mml::runner::detail
