// Lab 3's two mmlab commands:
//   mmlab crossover        where one level of Strassen starts to beat the classical kernel
//   mmlab strassen-error   how the error of Strassen and of the classical product grows with n
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "cpu/reference.h"
#include "harness/bench.h"
#include "harness/cli.h"
#include "harness/commands.h"
#include "harness/format.h"
#include "harness/report.h"
#include "harness/run_stage.h"
#include "harness/stages/lab3/crossover.h"
#include "harness/stages/lab3/cutoff_param.h"
#include "harness/targets.h"
#include "labs/common/classical_kernel.h"
#include "labs/common/strassen_bound.h"
#include "labs/common/strassen_plan.h"

namespace mml {

namespace lab3 {

Pays one_level_pays(const CrossoverPoint& p) {
    // One repetition measures no noise: nothing to conclude from.
    if (p.classical.repetitions < 2 || p.one_level.repetitions < 2) return Pays::Noise;
    const TimeRatio r = time_ratio(p.classical, p.one_level);  // > 1: one level is faster
    if (r.low > 1) return Pays::Yes;
    if (r.high < 1) return Pays::No;
    return Pays::Noise;
}

std::string crossover_conclusion(const std::vector<CrossoverPoint>& points) {
    // From the largest size down: the crossover is where it pays from then on.
    std::size_t first = points.size();
    while (first > 0 && one_level_pays(points[first - 1]) == Pays::Yes) --first;
    // The sizes where the medians say one level pays but the repetitions overlap.
    std::string unsettled;
    for (const CrossoverPoint& p : points) {
        if (one_level_pays(p) != Pays::Noise || !(p.one_level.median_seconds < p.classical.median_seconds)) continue;
        const TimeRatio r = time_ratio(p.classical, p.one_level);
        unsettled += (unsettled.empty() ? "" : ", ") + shape_text(p.classical.shape) + " (" + fixed(r.low, 2) + "-" +
                     fixed(r.high, 2) + ")";
    }
    std::string out;
    if (first < points.size())
        out = "one level of Strassen pays from " + shape_text(points[first].classical.shape) +
              " on (at every larger size measured, beyond the noise of the repetitions); the recursion\n"
              "should stop below that: a cutoff about half of it stops the level that no longer pays.\n";
    else
        out = "one level of Strassen does not pay beyond the noise at the largest size measured.\n";
    for (const CrossoverPoint& p : points)
        if (p.classical.repetitions < 2 || p.one_level.repetitions < 2) {
            out += "one repetition per version measures no noise, so nothing is concluded from it: use --reps 3 or more.\n";
            return out;
        }
    if (!unsettled.empty())
        out += "inside the noise: the medians say one level is faster at " + unsettled +
               ", but the repetitions' ratios span 1 there (range in brackets); more --reps or a quiet machine "
               "can settle them.\n";
    return out;
}

}  // namespace lab3

namespace {

// ---------------------------------------------------------------- crossover
const char* kCrossoverUsage = R"(usage: mmlab crossover [--size LIST] [--cutoff C] [--impl student|reference] [--reps R] [--quiet]
At each size, times three things on the same inputs (each verified first):
  classical   the classical kernel alone (stage lab3.classical)
  one level   ONE level of Strassen: 7 products of half size by that same kernel,
              18 half-size additions, and the fix-ups of odd sizes (cutoff = min(M,N,K) - 1)
  recursive   the full recursion with --cutoff C (default: the version's own
              cutoff - your kYourCutoff, the reference's while yours is 0)
and prints classical time / Strassen time (> 1: Strassen is faster) and the
one-level ratio's range over the repetitions. The crossover is the smallest
size from which one level pays beyond that noise; a cutoff just below it is
where the recursion should stop. Default sizes:
64,128,256,384,512,768,1024,1536,2048.
)";

int run_crossover(const std::vector<std::string>& args) {
    std::vector<Shape> shapes = parse_shapes("64,128,256,384,512,768,1024,1536,2048");
    long long cutoff = 0;  // 0: the version's own (below)
    BenchSettings settings;
    Impl impl = Impl::Reference;
    CommandArgs a(args, "crossover");
    for (std::string f; a.next(f);) {
        if (f == "--size") shapes = parse_shapes(a.value(f));
        else if (f == "--cutoff") cutoff = parse_integer(a.value(f), "--cutoff", 1, 1LL << 40);
        else if (f == "--reps") settings.reps = int(parse_integer(a.value(f), "--reps", 1, 1000));
        else if (f == "--quiet") settings.quiet = true;
        else if (f == "--impl") impl = parse_impl(a.value(f));
        else a.unknown(f);
    }
    if (cutoff == 0) cutoff = lab3::cutoff_of({}, impl == Impl::Student ? lab3::your_cutoff() : common::lab3::kDefaultCutoff);
    const Stage* classical = Registry::instance().find("lab3.classical");
    const Stage* strassen = Registry::instance().find("lab3.strassen");
    if (!classical || !strassen) throw UsageError("lab 3 is not in this build");
    std::vector<Job> jobs;
    for (Shape s : shapes) {
        check_fits_in_memory(s, Device::Cpu);
        if (std::min({s.M, s.N, s.K}) < 2) throw UsageError("crossover needs M, N, K >= 2, got " + shape_text(s));
        StageParams one_level, recursive;
        one_level.values["cutoff"] = std::min({s.M, s.N, s.K}) - 1;
        recursive.values["cutoff"] = cutoff;
        jobs.push_back({classical, Impl::Reference, Impl::Reference, s, true, {}});
        jobs.push_back({strassen, impl, impl, s, true, one_level});
        jobs.push_back({strassen, impl, impl, s, true, recursive});
    }
    print_machine_header(false);
    const BenchOutput out = measure(jobs, settings);
    std::printf("\nStrassen (%s) against the classical kernel it stops at; ratio = classical time / Strassen time\n",
                impl_name(impl));
    std::printf("%-15s %11s %11s %7s %11s %13s %7s\n", "shape", "classical", "one level", "ratio", "range",
                ("cutoff " + std::to_string(cutoff)).c_str(), "ratio");
    std::vector<std::string> wrong;  // "shape (which column)" of every result that failed its check
    std::vector<lab3::CrossoverPoint> points;
    const char* column[3] = {"classical", "one level", "recursive"};
    for (std::size_t i = 0; i < shapes.size(); ++i) {
        const Measurement* r[3] = {&out.rows[3 * i], &out.rows[3 * i + 1], &out.rows[3 * i + 2]};
        std::printf("%-15s", shape_text(shapes[i]).c_str());
        for (int c = 0; c < 3; ++c) {
            if (!r[c]->passed) {
                wrong.push_back(shape_text(shapes[i]) + " " + column[c]);
                std::printf(" %s (%s): %s", r[c]->skipped ? "SKIPPED" : "WRONG", column[c],
                            (r[c]->skipped ? r[c]->skip_reason : r[c]->failure).c_str());
                break;
            }
            if (c == 0) std::printf(" %11s", format_seconds(r[0]->median_seconds).c_str());
            else
                std::printf(" %*s %7.2f", c == 1 ? 11 : 13, format_seconds(r[c]->median_seconds).c_str(),
                            r[0]->median_seconds / r[c]->median_seconds);
            if (c == 1) {  // the one-level ratio's range over the repetitions: the noise it is read against
                const TimeRatio range = time_ratio(*r[0], *r[1]);
                std::printf(" %11s", (fixed(range.low, 2) + "-" + fixed(range.high, 2)).c_str());
            }
        }
        std::printf("\n");
        if (r[0]->passed && r[1]->passed) points.push_back({*r[0], *r[1]});
    }
    // A crossover read from a table with a wrong (or missing) result would be
    // a guess: a wrong Strassen may be fast because it skips work.
    if (!wrong.empty()) {
        std::string which;
        for (const std::string& w : wrong) which += (which.empty() ? "" : ", ") + w;
        std::printf("\nno crossover to report: %zu result(s) wrong or not run (%s); fix them and run again.\n",
                    wrong.size(), which.c_str());
    } else
        std::printf("\n%s", lab3::crossover_conclusion(points).c_str());
    std::printf("Timed: wall clock of one call, median of the repetitions (range: classical's fastest / one level's\n"
                "slowest to classical's slowest / one level's fastest); the sizes run in increasing order.\n");
    return wrong.empty() ? 0 : 1;
}

// ---------------------------------------------------------------- error growth
const char* kErrorUsage = R"(usage: mmlab strassen-error [--size LIST] [--cutoff LIST] [--impl student|reference] [--seed S]
For each size: A, B with U(-1,1) entries, the exact product in float64, then
the largest error of the classical kernel and of Strassen at each cutoff, in
units of u * max|A| * max|B| (u = 2^-24), beside each one's norm-wise bound in
the same unit (classical: K^2 from gamma_K; Strassen: f of Higham Thm 23.2,
labs/common/strassen_bound.h). Default sizes 32,64,...,1024; cutoffs 4,32,128.
A Strassen result that is no product (an element never written, NaN or Inf, or
an error above its bound) shows WRONG instead of an error, and the exit code is 1.
)";

double max_abs(const float* p, std::int64_t n) {
    double m = 0;
    for (std::int64_t i = 0; i < n; ++i) m = std::max(m, double(std::fabs(p[i])));
    return m;
}

double max_error(const std::vector<double>& exact, const Matrix& C) {
    double e = 0;
    for (std::int64_t i = 0; i < C.size(); ++i) e = std::max(e, std::fabs(double(C.data()[i]) - exact[std::size_t(i)]));
    return e;
}

// Why C's error cannot be shown, or "" when it can: an element never written
// (still the poison value, which max_error would skip as NaN) or not finite.
std::string unusable(const Matrix& C) {
    for (std::int64_t i = 0; i < C.size(); ++i) {
        const float x = C.data()[i];
        if (is_poison(x) || !std::isfinite(x)) {
            const std::string where = "C(" + std::to_string(i / C.cols()) + "," + std::to_string(i % C.cols()) + ")";
            return where + (is_poison(x) ? " never written" : " is NaN or Inf");
        }
    }
    return "";
}

std::string sci(double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, x < 1e5 ? "%.1f" : "%.2e", x);
    return buf;
}

int run_strassen_error(const std::vector<std::string>& args) {
    std::vector<Shape> shapes = parse_shapes("32,64,128,256,512,1024");
    std::vector<long long> cutoffs = {4, 32, 128};
    std::uint64_t seed = 2024;
    Impl impl = Impl::Reference;
    CommandArgs a(args, "strassen-error");
    for (std::string f; a.next(f);) {
        if (f == "--size") shapes = parse_shapes(a.value(f));
        else if (f == "--cutoff") cutoffs = parse_integer_list(a.value(f), "--cutoff", 1, 1LL << 40);
        else if (f == "--seed") seed = std::uint64_t(parse_integer(a.value(f), "--seed", 0, 1LL << 62));
        else if (f == "--impl") impl = parse_impl(a.value(f));
        else a.unknown(f);
    }
    for (Shape s : shapes) check_fits_in_memory(s, Device::Cpu);
    const Stage* strassen = Registry::instance().find("lab3.strassen");
    if (!strassen) throw UsageError("lab 3 is not in this build");
    if (impl == Impl::Reference && !strassen->reference) throw UsageError(std::string("--impl reference: ") + kNoReference);
    const MatmulFn& strassen_version = version_of(*strassen, impl);
    std::printf("max |C^ - C| / (u max|A| max|B|), u = 2^-24, inputs U(-1,1) (seed %llu); Strassen: %s\n",
                (unsigned long long)seed, impl_name(impl));
    std::printf("%-15s %10s %10s", "shape", "classical", "bound K^2");
    for (long long c : cutoffs)
        std::printf(" %12s %10s", ("cutoff " + std::to_string(c)).c_str(), "bound f");
    std::printf("\n");
    std::vector<std::string> wrong;  // "shape cutoff c: what is wrong"
    for (Shape s : shapes) {
        Matrix A(s.M, s.K), B(s.K, s.N), C(s.M, s.N);
        fill_inputs(A, B, seed);
        std::vector<double> exact, abs_exact;
        reference_product_f64(A.data(), B.data(), s, exact, abs_exact);
        const double unit = kFloat32UnitRoundoff * max_abs(A.data(), A.size()) * max_abs(B.data(), B.size());
        common::lab3::matmul_classical(A.data(), B.data(), C.data(), s.M, s.N, s.K);
        std::printf("%-15s %10s %10s", shape_text(s).c_str(), sci(max_error(exact, C) / unit).c_str(),
                    sci(double(s.K) * double(s.K)).c_str());
        for (long long c : cutoffs) {
            poison(C);
            StageParams with_cutoff;
            with_cutoff.values["cutoff"] = c;
            strassen_version(A.data(), B.data(), C.data(), s, with_cutoff);
            const double bound = common::lab3::strassen_error_constant(s, c);
            std::string problem = unusable(C);
            const double error = problem.empty() ? max_error(exact, C) / unit : 0;
            if (problem.empty() && error > bound) problem = "error " + sci(error) + " above its bound " + sci(bound);
            if (!problem.empty()) wrong.push_back(shape_text(s) + " cutoff " + std::to_string(c) + ": " + problem);
            std::printf(" %12s %10s", problem.empty() ? sci(error).c_str() : "WRONG", sci(bound).c_str());
        }
        std::printf("\n");
        std::fflush(stdout);
    }
    std::printf("A cutoff >= the size means no Strassen level: the classical kernel alone.\n");
    if (!wrong.empty()) {
        // An error read from a wrong product says nothing about Strassen's error growth.
        std::printf("\nWRONG: %zu Strassen (%s) result(s) are not products; no error is shown for them:\n",
                    wrong.size(), impl_name(impl));
        for (const std::string& w : wrong) std::printf("  %s\n", w.c_str());
        return 1;
    }
    return 0;
}

CommandRegistrar crossover_command({"crossover", "lab 3: where one level of Strassen beats the classical kernel",
                                    kCrossoverUsage, run_crossover, 3});
CommandRegistrar error_command({"strassen-error", "lab 3: error growth with n, classical vs Strassen, beside the bounds",
                                kErrorUsage, run_strassen_error, 3});

}  // namespace
}  // namespace mml
