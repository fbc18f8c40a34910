#include "cpu/verify.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "cpu/reference.h"

namespace mml {
namespace {

std::string where(std::int64_t i, std::int64_t j) {
    return "C[" + std::to_string(i) + "][" + std::to_string(j) + "]";
}

std::string fmt(double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", x);
    return buf;
}

// Pass 1, over every element: unwritten and non-finite values.
bool scan_for_garbage(const float* C, Shape s, CheckResult& r) {
    std::int64_t unwritten = 0, nonfinite = 0, first_unwritten = -1, first_nonfinite = -1;
    for (std::int64_t e = 0; e < s.M * s.N; ++e) {
        if (is_poison(C[e])) {
            if (unwritten++ == 0) first_unwritten = e;
        } else if (!std::isfinite(C[e])) {
            if (nonfinite++ == 0) first_nonfinite = e;
        }
    }
    if (unwritten > 0 && unwritten == s.M * s.N) {
        r.never_written = true;
        r.failure = "C was never written (all " + std::to_string(unwritten) + " elements still hold the poison value)";
        return false;
    }
    if (unwritten > 0) {
        r.failure = where(first_unwritten / s.N, first_unwritten % s.N) +
                    " was never written (it still holds the poison value); " +
                    std::to_string(unwritten) + " of " + std::to_string(s.M * s.N) +
                    " elements unwritten: the code must write every element of C" +
                    " (C arrives holding a NaN: code that only adds into C, +=, must set it to 0 first)";
        return false;
    }
    if (nonfinite > 0) {
        r.failure = where(first_nonfinite / s.N, first_nonfinite % s.N) + " is " +
                    (std::isnan(C[first_nonfinite]) ? "NaN" : "Inf") + " (" +
                    std::to_string(nonfinite) +
                    " such elements) although A and B hold finite values in [-1,1)";
        return false;
    }
    return true;
}

// The admissible error at one entry, given c = (A*B)_ij and absc = (|A||B|)_ij.
struct EntryBound {
    const ErrorBound& bound;
    double normwise_scale;  // max|A|*max|B| for norm-wise bounds
    double K;
    double operator()(double absc) const {
        // The float64 reference itself is off by at most gamma_K(2^-53)*|A||B|.
        const double ref_err = gamma_n(K, kFloat64UnitRoundoff) * absc;
        if (bound.kind == ErrorBound::Kind::Normwise)
            return bound.factor * normwise_scale + ref_err;
        return bound.factor * absc + ref_err;
    }
};

// Record one compared entry; returns false (and fills r.failure) if out of bound.
bool judge_entry(double got, double want, double admissible, std::int64_t i, std::int64_t j,
                 CheckResult& r) {
    const double err = std::fabs(got - want);
    // A bound of 0 happens only when every product in the sum is exactly 0.
    const double ratio = admissible > 0 ? err / admissible : (err > 0 ? INFINITY : 0.0);
    r.max_abs_error = std::max(r.max_abs_error, err);
    if (ratio >= r.worst_ratio) {
        r.worst_ratio = ratio;
        r.bound_at_worst = admissible;
    }
    if (ratio > 1.0) {
        r.failure = where(i, j) + " = " + fmt(got) + " but the float64 reference gives " +
                    fmt(want) + ": error " + fmt(err) + " exceeds the bound " + fmt(admissible) +
                    " (check the indexing and the loop bounds)";
        return false;
    }
    return true;
}

double max_abs(const float* p, std::int64_t n) {
    double m = 0;
    for (std::int64_t e = 0; e < n; ++e) m = std::max(m, double(std::fabs(p[e])));
    return m;
}

bool full_check(const float* A, const float* B, const float* C, Shape s,
                const EntryBound& admissible, CheckResult& r) {
    std::vector<double> ref, absref;
    reference_product_f64(A, B, s, ref, absref);
    // Every element is judged: the message names the first wrong one, and how
    // many are wrong and where (a missing last row, a column off by one...).
    std::int64_t bad = 0, row0 = 0, row1 = 0, col0 = 0, col1 = 0;
    std::string first;
    for (std::int64_t i = 0; i < s.M; ++i)
        for (std::int64_t j = 0; j < s.N; ++j) {
            const std::size_t e = std::size_t(i * s.N + j);
            if (judge_entry(C[e], ref[e], admissible(absref[e]), i, j, r)) continue;
            if (bad++ == 0) {
                first = r.failure;
                row0 = row1 = i, col0 = col1 = j;
            }
            row0 = std::min(row0, i), row1 = std::max(row1, i);
            col0 = std::min(col0, j), col1 = std::max(col1, j);
        }
    if (bad == 0) return true;
    if (s.M * s.N == 1) {  // nothing to add to "C[0][0] = ..."
        r.failure = first;
        return false;
    }
    auto range = [](std::int64_t a, std::int64_t b) {
        return a == b ? std::to_string(a) : std::to_string(a) + ".." + std::to_string(b);
    };
    r.failure = first + "; " + std::to_string(bad) + " of " + std::to_string(s.M * s.N) +
                " elements are wrong, in rows " + range(row0, row1) + ", columns " + range(col0, col1);
    return false;
}

// Freivalds' test on column blocks of width kFreivaldsBlock: with x a random
// vector (random signs, magnitudes in [0.5,1)), for every row i and column
// block b,  sum_{j in b} C_ij x_j  must equal  (A (B x_b))_i  up to
// sum_{j in b} bound_ij |x_j|. One pass over B builds Y = B*X (K x blocks),
// then each row of A times Y: M*K*N/kFreivaldsBlock multiply-adds in all,
// 1/32 of the product itself. Comparing 32 elements at a time keeps the
// summed bound small: a wrong tile, row or column, or one element wrong by
// more than about 50 times its bound (|x_j| >= 0.5), fails.
constexpr std::int64_t kFreivaldsBlock = 32;

bool blocked_freivalds(const float* A, const float* B, const float* C, Shape s,
                       const EntryBound& admissible, std::mt19937_64& rng, CheckResult& r) {
    const std::int64_t nb = (s.N + kFreivaldsBlock - 1) / kFreivaldsBlock;
    std::uniform_real_distribution<double> mag(0.5, 1.0);
    std::vector<double> x(std::size_t(s.N));
    for (auto& v : x) v = (rng() & 1 ? 1.0 : -1.0) * mag(rng);
    // Y[k][b] = sum_{j in b} B_kj x_j, and the same with absolute values.
    std::vector<double> Y(std::size_t(s.K * nb), 0.0), absY(std::size_t(s.K * nb), 0.0);
#pragma omp parallel for schedule(static)
    for (std::int64_t k = 0; k < s.K; ++k)
        for (std::int64_t j = 0; j < s.N; ++j) {
            const double b = B[k * s.N + j];
            const std::size_t e = std::size_t(k * nb + j / kFreivaldsBlock);
            Y[e] += b * x[std::size_t(j)];
            absY[e] += std::fabs(b) * std::fabs(x[std::size_t(j)]);
        }
    const double ref_gamma = gamma_n(admissible.K, kFloat64UnitRoundoff);
    std::int64_t bad_row = -1, bad_block = -1;
    double bad_err = 0, bad_allowed = 0;
#pragma omp parallel
    {
        std::vector<double> want(static_cast<std::size_t>(nb)), abswant(static_cast<std::size_t>(nb));
#pragma omp for schedule(dynamic, 16)
        for (std::int64_t i = 0; i < s.M; ++i) {
            std::fill(want.begin(), want.end(), 0.0);
            std::fill(abswant.begin(), abswant.end(), 0.0);
            for (std::int64_t k = 0; k < s.K; ++k) {
                const double a = A[i * s.K + k], aa = std::fabs(a);
                const double* y = &Y[std::size_t(k * nb)];
                const double* ay = &absY[std::size_t(k * nb)];
                for (std::int64_t b = 0; b < nb; ++b) {
                    want[std::size_t(b)] += a * y[b];
                    abswant[std::size_t(b)] += aa * ay[b];
                }
            }
            for (std::int64_t b = 0; b < nb; ++b) {
                const std::int64_t j0 = b * kFreivaldsBlock, j1 = std::min(s.N, j0 + kFreivaldsBlock);
                double got = 0, sumx = 0, maxc = 0;
                for (std::int64_t j = j0; j < j1; ++j) {
                    const double c = C[i * s.N + j];
                    got += c * x[std::size_t(j)];
                    sumx += std::fabs(x[std::size_t(j)]);
                    maxc = std::max(maxc, std::fabs(c));
                }
                // sum_j (factor*|A||B|_ij + ref_err_ij)|x_j|, written with the block sums;
                // for norm-wise bounds the constant term is multiplied by sum|x_j|.
                double allowed = admissible(abswant[std::size_t(b)]);
                if (admissible.bound.kind == ErrorBound::Kind::Normwise)
                    allowed = admissible.bound.factor * admissible.normwise_scale * sumx +
                              ref_gamma * abswant[std::size_t(b)];
                // Summing C x in double adds its own tiny error.
                allowed += gamma_n(double(kFreivaldsBlock), kFloat64UnitRoundoff) * sumx * maxc;
                const double err = std::fabs(got - want[std::size_t(b)]);
                if (!(err <= allowed)) {
#pragma omp critical
                    if (bad_row < 0 || i < bad_row) {
                        bad_row = i;
                        bad_block = b;
                        bad_err = err;
                        bad_allowed = allowed;
                    }
                }
            }
        }
    }
    if (bad_row >= 0) {
        const std::int64_t j0 = bad_block * kFreivaldsBlock, j1 = std::min(s.N, j0 + kFreivaldsBlock) - 1;
        r.failure = "Freivalds' test fails on row " + std::to_string(bad_row) + ", columns " + std::to_string(j0) +
                    ".." + std::to_string(j1) + " of C: |sum_j (C_ij - (AB)_ij) x_j| = " + fmt(bad_err) +
                    " exceeds the summed bound " + fmt(bad_allowed) + " (some element there is wrong)";
        return false;
    }
    return true;
}

bool randomized_check(const float* A, const float* B, const float* C, Shape s,
                      const EntryBound& admissible, std::uint64_t seed, CheckResult& r) {
    std::mt19937_64 rng(seed);
    if (!blocked_freivalds(A, B, C, s, admissible, rng, r)) return false;
    // Every element of the first and last rows and columns, of 8 random rows
    // and columns, and 2048 random entries (every entry when there are no
    // more), against the float64 reference.
    std::uniform_int_distribution<std::int64_t> row(0, s.M - 1), col(0, s.N - 1);
    std::vector<std::int64_t> rows = {0, s.M - 1}, cols = {0, s.N - 1};
    for (int t = 0; t < 8; ++t) {
        rows.push_back(row(rng));
        cols.push_back(col(rng));
    }
    // Whole rows: row i of A times B, walking B along its rows (unit stride).
    std::vector<double> ref(std::size_t(s.N)), absref(std::size_t(s.N));
    for (std::int64_t i : rows) {
        std::fill(ref.begin(), ref.end(), 0.0);
        std::fill(absref.begin(), absref.end(), 0.0);
#pragma omp parallel for schedule(static)
        for (std::int64_t j0 = 0; j0 < s.N; j0 += 256) {  // each thread owns a slice of the row
            const std::int64_t j1 = std::min(s.N, j0 + 256);
            for (std::int64_t k = 0; k < s.K; ++k) {
                const double a = A[i * s.K + k], aa = std::fabs(a);
                const float* b = B + k * s.N;
                for (std::int64_t j = j0; j < j1; ++j) {
                    ref[std::size_t(j)] += a * double(b[j]);
                    absref[std::size_t(j)] += aa * std::fabs(double(b[j]));
                }
            }
        }
        for (std::int64_t j = 0; j < s.N; ++j)
            if (!judge_entry(C[i * s.N + j], ref[std::size_t(j)], admissible(absref[std::size_t(j)]), i, j, r))
                return false;
    }
    // Whole columns: gather column j of B once, then a dot product per row of A.
    std::vector<double> bcol(std::size_t(s.K)), cref(std::size_t(s.M)), abscref(std::size_t(s.M));
    for (std::int64_t j : cols) {
        for (std::int64_t k = 0; k < s.K; ++k) bcol[std::size_t(k)] = B[k * s.N + j];
#pragma omp parallel for schedule(static)
        for (std::int64_t i = 0; i < s.M; ++i) {
            double c = 0, ac = 0;
            for (std::int64_t k = 0; k < s.K; ++k) {
                const double p = double(A[i * s.K + k]) * bcol[std::size_t(k)];
                c += p;
                ac += std::fabs(p);
            }
            cref[std::size_t(i)] = c;
            abscref[std::size_t(i)] = ac;
        }
        for (std::int64_t i = 0; i < s.M; ++i)
            if (!judge_entry(C[i * s.N + j], cref[std::size_t(i)], admissible(abscref[std::size_t(i)]), i, j, r))
                return false;
    }
    // An output of at most 2048 entries is checked entry by entry instead:
    // 2048 draws with replacement would miss a given entry of 600 about once
    // in 30 runs.
    constexpr std::int64_t kSamples = 2048;
    const bool every_entry = s.M * s.N <= kSamples;
    for (std::int64_t t = 0; t < (every_entry ? s.M * s.N : kSamples); ++t) {
        const std::int64_t i = every_entry ? t / s.N : row(rng), j = every_entry ? t % s.N : col(rng);
        double want, absw;
        reference_entry_f64(A, B, s, i, j, want, absw);
        if (!judge_entry(C[i * s.N + j], want, admissible(absw), i, j, r)) return false;
    }
    return true;
}

}  // namespace

double relative_error_sampled(const float* A, const float* B, const float* C, Shape s, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<std::int64_t> row(0, s.M - 1), col(0, s.N - 1);
    const bool every_entry = s.M * s.N <= kRelativeErrorSamples;
    double err2 = 0, ref2 = 0;
    for (std::int64_t t = 0; t < (every_entry ? s.M * s.N : kRelativeErrorSamples); ++t) {
        const std::int64_t i = every_entry ? t / s.N : row(rng), j = every_entry ? t % s.N : col(rng);
        double want, absw;
        reference_entry_f64(A, B, s, i, j, want, absw);
        const double e = double(C[i * s.N + j]) - want;
        err2 += e * e;
        ref2 += want * want;
    }
    return ref2 > 0 ? std::sqrt(err2 / ref2) : (err2 > 0 ? INFINITY : 0.0);
}

CheckResult verify_product(const float* A, const float* B, const float* C, Shape s,
                           const ErrorBound& bound, VerifyMethod method, std::uint64_t seed) {
    CheckResult r;
    if (method == VerifyMethod::Auto)
        method = double(s.M) * double(s.N) * double(s.K) <= kFullCheckMaxMacs ||
                         double(s.M) * double(s.N) <= kFullCheckMaxEntries
                     ? VerifyMethod::Full
                     : VerifyMethod::Randomized;
    r.method = method == VerifyMethod::Full ? "full" : "randomized";
    if (!scan_for_garbage(C, s, r)) return r;
    const double scale = bound.kind == ErrorBound::Kind::Normwise
                             ? max_abs(A, s.M * s.K) * max_abs(B, s.K * s.N)
                             : 0.0;
    const EntryBound admissible{bound, scale, double(s.K)};
    r.passed = method == VerifyMethod::Full ? full_check(A, B, C, s, admissible, r)
                                            : randomized_check(A, B, C, s, admissible, seed, r);
    // A C of zeros where the product is not zero: nothing was ever added - an
    // untouched starter that stores its zeroed accumulators, more often than
    // an indexing slip. Say so first, so that the advice fits.
    if (!r.passed && std::all_of(C, C + s.M * s.N, [](float c) { return c == 0.0f; }))
        r.failure = "every element of C is 0: nothing was added into the accumulators (is the product's TODO "
                    "written?); " + r.failure;
    return r;
}

}  // namespace mml
