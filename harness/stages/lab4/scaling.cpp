// `mmlab scaling`: how one stage's time falls as threads are added, e.g.
//   mmlab scaling --stage lab4.pthreads --size 2048 --threads-list 1,2
// Speedup S(T) = time(1 thread) / time(T threads); parallel efficiency
// E(T) = S(T) / T (1.0 = every added core fully used). Wall-clock time of one
// call, as Cao's survey timed threads with clock_gettime: clock() would add up
// the CPU time of all threads and hide the speedup.
#include "harness/stages/lab4/scaling.h"

#include <algorithm>
#include <cstdio>

#include "cpu/machine.h"
#include "harness/cli.h"
#include "harness/commands.h"
#include "harness/report.h"
#include "harness/targets.h"

namespace mml::lab4 {

// The thread counts are timed in ROUNDS, T = 1, 2, ..., 1, 2, ..., one timed
// call each per round, and each count keeps the median over the rounds: a
// burst of another program's work then lands on one sample of each count,
// not on all samples of one count (which would fake a speedup or hide one):
// measure_in_rounds (harness/bench.h).
std::vector<Measurement> measure_scaling(const Stage& stage, Impl label, Impl runs, Shape shape,
                                         const std::vector<int>& thread_counts,
                                         const StageParams& params, const BenchSettings& settings) {
    std::vector<Job> jobs;
    for (int t : thread_counts) {
        StageParams p = params;
        p.threads = t;
        jobs.push_back({&stage, label, runs, shape, true, p});
    }
    return measure_in_rounds(jobs, settings.reps > 0 ? settings.reps : 3, settings);
}

double speedup(const std::vector<Measurement>& rows, std::size_t i) {
    if (rows.empty() || rows[i].median_seconds <= 0 || !rows[0].passed || !rows[i].passed) return 0;
    return rows[0].median_seconds / rows[i].median_seconds;
}

double efficiency(const std::vector<Measurement>& rows, std::size_t i) {
    return speedup(rows, i) * double(rows[0].threads) / double(rows[i].threads);
}

namespace {

const char* kUsage = R"(usage: mmlab scaling --stage NAME [--size LIST] [--threads-list 1,2,...]
                     [--impl student|reference] [--param k=v,...] [--reps R] [--quiet]
Times a threaded stage at each thread count (default 1 up to the logical cores)
on the same inputs, after verifying each, in R rounds (--reps, default 3) of
one call per thread count (1, 2, ..., 1, 2, ...: a burst of other work hits
one sample of each count), and prints the median wall-clock time, GFLOP/s, speedup over the first thread count and parallel efficiency
(speedup / threads). Default size 2048. Other programs running on the machine
take cores away: measure when it is quiet.
)";

int run_scaling(const std::vector<std::string>& args) {
    std::string stage_name;
    std::vector<Shape> shapes = {{2048, 2048, 2048}};
    std::vector<int> counts;
    BenchSettings settings;
    StageParams params;
    Impl impl = Impl::Reference;
    CommandArgs a(args, "scaling");
    for (std::string f; a.next(f);) {
        if (f == "--stage") stage_name = a.value(f);
        else if (f == "--size") shapes = parse_shapes(a.value(f));
        else if (f == "--threads-list") {
            for (long long t : parse_integer_list(a.value(f), "--threads-list", 1, 1024)) counts.push_back(int(t));
        } else if (f == "--reps") settings.reps = int(parse_integer(a.value(f), "--reps", 1, 1000));
        else if (f == "--quiet") settings.quiet = true;
        else if (f == "--param") {
            for (const auto& [key, v] : parse_param_list(a.value(f)).values) params.values[key] = v;
        } else if (f == "--impl") impl = parse_impl(a.value(f));
        else a.unknown(f);
    }
    if (stage_name.empty()) throw UsageError("'mmlab scaling' needs --stage NAME (a threaded stage, e.g. lab4.pthreads)");
    const Stage* stage = &stage_or_error(stage_name);
    if (!stage->threaded) throw UsageError(stage_name + " does not use threads; try lab4.pthreads");
    if (stage->device != Device::Cpu) throw UsageError("'mmlab scaling' is for CPU stages");
    if (impl == Impl::Student && !stage->student) throw UsageError(stage_name + " has no student version");
    check_param_names({stage}, params);
    if (stage->check_params) stage->check_params(params);
    const int cores = describe_machine().logical_cores;
    if (counts.empty())
        for (int t = 1; t <= cores; ++t) counts.push_back(t);
    for (Shape s : shapes) check_fits_in_memory(s, Device::Cpu);

    print_machine_header(false);
    bool all_ok = true;
    for (Shape s : shapes) {
        const auto rows = measure_scaling(*stage, impl, impl, s, counts, params, settings);
        std::printf("\n%s (%s) at %s; speedup and efficiency relative to %d thread(s)\n", stage_name.c_str(),
                    impl_name(impl), shape_text(s).c_str(), counts[0]);
        std::printf("%8s %11s %9s %8s %11s  %s\n", "threads", "median", "GFLOP/s", "speedup", "efficiency", "check");
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const Measurement& m = rows[i];
            if (!m.passed) {
                all_ok = false;
                std::printf("%8d %11s %9s %8s %11s  WRONG: %s\n", counts[i], "-", "-", "-", "-", m.failure.c_str());
                continue;
            }
            const char* extra = counts[i] > cores ? "  (more threads than cores)" : "";
            if (!rows[0].passed) {  // a speedup over a wrong result would be no speedup at all
                std::printf("%8d %11s %9.2f %8s %11s  ok%s (no speedup: the %d-thread result was wrong)\n", counts[i],
                            format_seconds(m.median_seconds).c_str(), m.gflops, "-", "-", extra, counts[0]);
                continue;
            }
            std::printf("%8d %11s %9.2f %7.2fx %11.2f  ok%s\n", counts[i], format_seconds(m.median_seconds).c_str(),
                        m.gflops, speedup(rows, i), efficiency(rows, i), extra);
        }
    }
    std::printf("\nwall-clock time of one call, median of the repetitions; this machine has %d logical cores.\n", cores);
    if (!all_ok)
        std::printf("WRONG: a result failed its check (above); speedups are shown only between correct results.\n");
    return all_ok ? 0 : 1;
}

CommandRegistrar scaling_command({"scaling", "lab 4: time a threaded stage at T = 1, 2, ... threads; speedup, efficiency",
                                  kUsage, run_scaling, 4});

}  // namespace
}  // namespace mml::lab4
