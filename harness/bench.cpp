#include "harness/bench.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>

#include "cpu/peak.h"
#include "harness/format.h"
#include "harness/gpu_backend.h"
#include "harness/run_stage.h"
#include "harness/runner/remote.h"
#include "harness/runner/remote_timing.h"

namespace mml {
namespace {

// Collects Google Benchmark's runs instead of printing them: the harness
// prints its own table.
class CollectingReporter : public benchmark::BenchmarkReporter {
public:
    bool ReportContext(const Context&) override { return true; }
    void ReportRuns(const std::vector<Run>& runs) override {
        for (const Run& r : runs) {
            RawRun raw;
            raw.name = r.run_name.function_name;
            raw.run_type = r.run_type == Run::RT_Aggregate ? "aggregate" : "iteration";
            raw.aggregate = r.aggregate_name;
            raw.iterations = r.iterations;
            raw.repetitions = r.repetitions;
            raw.repetition_index = r.repetition_index;
            raw.threads = r.threads;
            const double iters = r.iterations > 0 ? double(r.iterations) : 1.0;
            raw.real_seconds_per_iteration = r.real_accumulated_time / iters;
            raw.cpu_seconds_per_iteration = r.cpu_accumulated_time / iters;
            collected.push_back(raw);
        }
    }
    std::vector<RawRun> collected;
};

// may_remeasure: false for the final pass, so that every row and the table's
// footer divide by one and the same peak (a remeasure there would move it
// under the rows already done).
double percent_of_peak(const Stage& stage, const Measurement& m, bool may_remeasure = true) {
    // bf16/TF32 rows (lab 11) run on the tensor cores: a % of the FP32 peak
    // (over 1000 %) would mislead, and the tensor-core peak is not probed: "?".
    if (stage.input_rounding != InputRounding::None) return -1;
    if (stage.device == Device::Gpu) {
        static const double gpu_peak = gpu::probe().fp32_peak_gflops;
        return gpu_peak > 0 ? 100.0 * m.gflops / gpu_peak : -1;
    }
    double peak = measured_peak_gflops(m.threads);
    if (may_remeasure && m.gflops > peak) peak = remeasured_peak_gflops(m.threads);  // a row "above the peak": measure it again
    return 100.0 * m.gflops / peak;
}

// Unique within a run: the job's index first (a run may time one stage twice).
std::string job_name(const Job& job, int index) {
    return std::to_string(index) + ":" + job.stage->name + "/" + impl_name(job.impl) + "/" +
           shape_text(job.shape);
}

void initialise_benchmark_once() {
    static bool initialised = false;
    if (initialised) return;
    int argc = 1;
    char name[] = "mmlab";
    char* argv[] = {name, nullptr};
    benchmark::Initialize(&argc, argv);
    initialised = true;
}

// The jobs' indices, smallest product first: the jobs of one shape end up
// next to each other, so that only one shape's matrices live at a time.
std::vector<std::size_t> smallest_first(const std::vector<Job>& jobs) {
    std::vector<std::size_t> order(jobs.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return jobs[a].shape.flops() < jobs[b].shape.flops();
    });
    return order;
}

const StageParams& params_of(const Job& job, const BenchSettings& settings) {
    return job.own_params ? job.params : settings.params;
}

// The row's labels, before anything runs.
void label_row(const Job& job, const BenchSettings& settings, Measurement& m) {
    m.stage = job.stage->name;
    m.impl = job.impl;
    m.runs = job.runs;
    m.shape = job.shape;
    m.threads = job.stage->threaded ? params_of(job, settings).threads : 1;
    m.params = params_of(job, settings);
    if (job.stage->kernel_set && !(job.runs == Impl::Reference && !job.stage->reference)) {
        const bool here = !runner::remote_version(version_of(*job.stage, job.runs));
        m.kernel_set = job.stage->kernel_set(job.runs, m.params, here);
    }
}

// Why the job is not run, or "" when it is: no reference version, over the
// stage's size limit (without --force), or not available here (e.g. a
// Hopper-only stage on an older GPU).
std::string skip_reason(const Job& job, const BenchSettings& settings) {
    const double macs = double(job.shape.M) * double(job.shape.N) * double(job.shape.K);
    if (job.runs == Impl::Reference && !job.stage->reference) return kNoReference;
    if (job.stage->max_macs > 0 && macs > job.stage->max_macs && !settings.force)
        return "over this stage's limit of " + fixed(job.stage->max_macs / 1e9, 1) +
               "e9 multiply-adds (too slow); --force runs it";
    if (job.stage->unavailable) return job.stage->unavailable();
    return "";
}

// Runs the version once on `problem` and checks the result: the row's
// verdict. Returns the run's seconds (the pilot that sizes the timing).
double check_once(const Job& job, const MatmulFn& fn, const StageParams& params, Problem& problem, Measurement& m) {
    const CheckedRun first_run = run_once_and_verify(*job.stage, fn, problem, params);
    m.passed = first_run.check.passed;
    m.worst_ratio = first_run.check.worst_ratio;
    m.max_abs_error = first_run.check.max_abs_error;
    m.error_vs_unrounded = first_run.check.error_vs_unrounded;
    m.check_method = first_run.check.method;
    m.failure = first_run.check.failure;
    return first_run.seconds;
}

// Registers the version's timed runs with Google Benchmark under `name`;
// returns the repetitions. A version in the grader's runner is timed by
// harness/runner/remote_timing.h, which leaves why a timed run failed in
// `failure`.
int register_timing(const std::string& name, const Job& job, const MatmulFn& fn, const StageParams& params,
                    Problem& problem, double pilot, const BenchSettings& settings,
                    const std::shared_ptr<std::string>& failure) {
    Problem* p = &problem;
    const bool on_gpu = job.stage->device == Device::Gpu;
    const MatmulFn prepare = job.stage->prepare;  // untimed (Stage::prepare)
    runner::RemoteVersion* remote = runner::remote_version(fn);
    const ErrorBound bound = job.stage->bound(problem.shape, params);
    const std::string stage_name = job.stage->name;
    auto* b = benchmark::RegisterBenchmark(name.c_str(), [p, fn, params, on_gpu, prepare, remote, bound, failure,
                                                          stage_name](benchmark::State& state) {
        if (remote) {
            runner::time_remote(state, *remote, *p, params, bound, *failure);
            return;
        }
        for (auto _ : state) {
            if (on_gpu) {
                state.SetIterationTime(p->device().run_timed_ms(fn, params, prepare, stage_name) / 1e3);
            } else {
                fn(p->A.data(), p->B.data(), p->C.data(), p->shape, params);
                benchmark::ClobberMemory();
            }
        }
    });
    const bool slow = pilot > 0.25;
    const int reps = settings.reps > 0 ? settings.reps : (slow ? 3 : 5);
    b->Repetitions(reps)->Unit(benchmark::kMillisecond);
    if (slow) b->Iterations(1);
    else if (remote) b->Iterations(runner::remote_iterations(*remote, *p, params, bound, *failure));
    else b->MinTime(0.1);
    // GPU: the kernel time from CUDA events. CPU: wall clock - also for
    // sizing the iterations, or a threaded stage, whose calling thread
    // mostly waits in join (little CPU time), would run ~100x too often.
    if (on_gpu || remote) b->UseManualTime();
    else b->UseRealTime();
    return reps;
}

// Runs the registered versions and files their runs and medians into the
// rows (by_name: the job of each registered name; timed_failures: why a
// remote version's timed runs failed, "" when they did not).
void run_registered(const std::vector<Job>& jobs, Shape shape, const std::map<std::string, std::size_t>& by_name,
                    const std::map<std::size_t, std::shared_ptr<std::string>>& timed_failures,
                    const BenchSettings& settings, BenchOutput& out) {
    if (!settings.quiet)
        std::fprintf(stderr, "        timing %zu version(s) at %s with Google Benchmark...\n", by_name.size(),
                     shape_text(shape).c_str());
    CollectingReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    std::map<std::size_t, std::vector<double>> times;
    for (const auto& [idx, why] : timed_failures)
        if (!why->empty()) {
            out.rows[idx].passed = false;
            out.rows[idx].failure = *why;
        }
    for (RawRun r : reporter.collected) {
        auto it = by_name.find(r.name);
        if (it == by_name.end() || !out.rows[it->second].passed) continue;
        r.job = int(it->second);
        out.raw.push_back(r);
        if (r.run_type != "iteration") continue;
        times[it->second].push_back(r.real_seconds_per_iteration);
        out.rows[it->second].iterations = r.iterations;
    }
    for (auto& [idx, t] : times) {
        Measurement& m = out.rows[idx];
        m.median_seconds = median(t);
        m.fastest_seconds = *std::min_element(t.begin(), t.end());
        m.slowest_seconds = *std::max_element(t.begin(), t.end());
        m.gflops = shape.flops() / m.median_seconds / 1e9;
        m.percent_of_peak = percent_of_peak(*jobs[idx].stage, m);
    }
}

// The jobs order[first, last), all of one shape, on one set of inputs: each
// labelled, skipped or checked once, and the correct ones timed. `done`
// counts the jobs started, for the progress lines.
void measure_shape(const std::vector<Job>& jobs, const std::vector<std::size_t>& order, std::size_t first,
                   std::size_t last, const BenchSettings& settings, std::size_t& done, BenchOutput& out) {
    const Shape shape = jobs[order[first]].shape;
    Problem problem(shape);
    benchmark::ClearRegisteredBenchmarks();
    std::map<std::string, std::size_t> by_name;
    // Why a job's timed runs failed (only versions in another process can:
    // each of their timed runs is checked, harness/runner/remote.h).
    std::map<std::size_t, std::shared_ptr<std::string>> timed_failures;
    for (std::size_t o = first; o < last; ++o) {
        const std::size_t idx = order[o];
        const Job& job = jobs[idx];
        Measurement& m = out.rows[idx];
        label_row(job, settings, m);
        ++done;
        const std::string skip = skip_reason(job, settings);
        if (!skip.empty()) {
            m.skipped = true;
            m.skip_reason = skip;
            continue;
        }
        if (!settings.quiet)
            std::fprintf(stderr, "[%zu/%zu] checking %s (%s) at %s\n", done, jobs.size(), job.stage->name.c_str(),
                         impl_name(job.impl), shape_text(shape).c_str());
        const MatmulFn fn = version_of(*job.stage, job.runs);
        const StageParams params = params_of(job, settings);
        const double pilot = check_once(job, fn, params, problem, m);
        if (!m.passed) continue;  // a wrong result is not timed
        const std::string name = job_name(job, int(idx));
        by_name[name] = idx;
        auto failure = timed_failures[idx] = std::make_shared<std::string>();
        m.repetitions = register_timing(name, job, fn, params, problem, pilot, settings, failure);
    }
    if (!by_name.empty()) run_registered(jobs, shape, by_name, timed_failures, settings, out);
}

// % of peak again, now that every row is timed: a row above the remembered
// peak had it measured again (higher), and every row of one thread count
// must be divided by the same peak, not the earlier rows by the lower one.
void refresh_percent_of_peak(const std::vector<Job>& jobs, BenchOutput& out) {
    for (std::size_t idx = 0; idx < out.rows.size(); ++idx) {
        Measurement& m = out.rows[idx];
        if (!(m.median_seconds > 0 && m.gflops > 0)) continue;
        const Stage& stage = *jobs[idx].stage;
        m.percent_of_peak = percent_of_peak(stage, m, false);
        if (stage.device == Device::Cpu && stage.input_rounding == InputRounding::None && m.percent_of_peak > 0)
        {
            m.peak_ceiling_percent = 100.0 * (1.0 + peak_tolerance(measured_peak_spread(m.threads)));
            m.peak_gflops = measured_peak_gflops(m.threads);
            m.peak_gflops_one_thread = measured_peak_gflops(1);
            m.peak_unsure = measured_peak_spread(m.threads).unsure;
            m.peak_simd = simd_name(detect_simd());
        }
    }
}

// Speedups over the reference baseline at the same shape, or, where it ran
// at a smaller shape for this one (Job::scaled_to), over its time scaled by
// M*N*K.
void fill_speedups(const std::vector<Job>& jobs, BenchOutput& out) {
    for (auto& m : out.rows) {
        if (m.median_seconds <= 0) continue;
        for (std::size_t b = 0; b < out.rows.size(); ++b) {
            const Measurement& base = out.rows[b];
            if (base.stage != kBaselineStage || base.impl != Impl::Reference || base.skipped || !base.passed ||
                base.median_seconds <= 0)
                continue;
            if (base.shape == m.shape && jobs[b].scaled_to.flops() == 0) {
                m.speedup_vs_baseline = base.median_seconds / m.median_seconds;
                m.baseline_scaled_from = {0, 0, 0};
                break;
            }
            if (jobs[b].scaled_to == m.shape && jobs[b].scaled_to.flops() > 0) {
                m.speedup_vs_baseline = base.median_seconds * (m.shape.flops() / base.shape.flops()) / m.median_seconds;
                m.baseline_scaled_from = base.shape;
            }
        }
    }
}

}  // namespace

BenchOutput measure(const std::vector<Job>& jobs, const BenchSettings& settings) {
    BenchOutput out;
    out.rows.resize(jobs.size());
    const std::vector<std::size_t> order = smallest_first(jobs);
    initialise_benchmark_once();
    std::size_t done = 0;
    for (std::size_t first = 0; first < order.size();) {
        std::size_t last = first;
        while (last < order.size() && jobs[order[last]].shape == jobs[order[first]].shape) ++last;
        measure_shape(jobs, order, first, last, settings, done, out);
        first = last;
    }
    benchmark::ClearRegisteredBenchmarks();
    refresh_percent_of_peak(jobs, out);
    fill_speedups(jobs, out);
    return out;
}

std::vector<Measurement> measure_in_rounds(const std::vector<Job>& jobs, int rounds, const BenchSettings& settings) {
    std::vector<Job> all_jobs;
    for (int r = 0; r < rounds; ++r) all_jobs.insert(all_jobs.end(), jobs.begin(), jobs.end());
    BenchSettings one_each = settings;
    one_each.reps = 1;
    const std::vector<Measurement> all = measure(all_jobs, one_each).rows;
    std::vector<Measurement> out;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        Measurement m = all[i];
        std::vector<double> times;
        for (int r = 0; r < rounds; ++r) {
            const Measurement& x = all[std::size_t(r) * jobs.size() + i];
            if (!x.passed && m.passed) m = x;  // keep the first failure
            if (x.passed && !x.skipped) times.push_back(x.median_seconds);
        }
        if (m.passed && !times.empty()) {
            const double middle = median(times);
            const double faster = m.median_seconds / middle;  // rescale the first round's rates
            m.gflops *= faster;
            m.percent_of_peak *= faster;
            m.median_seconds = middle;
            m.fastest_seconds = *std::min_element(times.begin(), times.end());
            m.slowest_seconds = *std::max_element(times.begin(), times.end());
            m.repetitions = rounds;
        }
        out.push_back(m);
    }
    return out;
}


}  // namespace mml
