// `mmlab sweep`: time one stage over a grid of parameter values (block sizes,
// grid sizes...) and mark the fastest, e.g.
//   mmlab sweep --stage lab2.blocked --sweep block=16,32,64,128 --size 1024
#include <cstdio>
#include <map>

#include "harness/bench.h"
#include "harness/cli.h"
#include "harness/commands.h"
#include "harness/format.h"
#include "harness/report.h"

namespace mml {
namespace {

const char* kUsage = R"(usage: mmlab sweep --stage NAME --sweep name=v1,v2,... [--sweep name2=...]
                   [--size LIST] [--threads T] [--reps R] [--impl student|reference] [--quiet]
Times the stage at every combination of the listed parameter values (the
reference unless --impl student), verifies each, and marks the fastest per shape.
Each row says whose code it timed (version: student = yours, or reference).
)";

int run_sweep(const std::vector<std::string>& args) {
    std::string stage_name;
    std::vector<std::pair<std::string, std::vector<long long>>> axes;
    std::vector<Shape> shapes = {{1024, 1024, 1024}};
    BenchSettings settings;
    Impl impl = Impl::Reference;
    CommandArgs a(args, "sweep");
    for (std::string f; a.next(f);) {
        if (f == "--stage") stage_name = a.value(f);
        else if (f == "--size") shapes = parse_shapes(a.value(f));
        else if (f == "--threads") settings.params.threads = int(parse_integer(a.value(f), "--threads", 1, 1024));
        else if (f == "--reps") settings.reps = int(parse_integer(a.value(f), "--reps", 1, 1000));
        else if (f == "--quiet") settings.quiet = true;
        else if (f == "--impl") impl = parse_impl(a.value(f));
        else if (f == "--sweep") {
            const std::string kv = a.value(f);
            const auto eq = kv.find('=');
            if (eq == std::string::npos || eq == 0 || eq + 1 == kv.size())
                throw UsageError("--sweep takes name=v1,v2,..., got '" + kv + "'");
            const std::string name = kv.substr(0, eq);
            for (const auto& axis : axes)
                if (axis.first == name)
                    throw UsageError("--sweep " + name + " is given twice: list all its values in one --sweep " + name +
                                     "=v1,v2,...");
            axes.push_back({name, parse_integer_list(kv.substr(eq + 1), "--sweep " + name, 1, 1LL << 40)});
        } else a.unknown(f);
    }
    if (stage_name.empty()) throw UsageError("'mmlab sweep' needs --stage NAME");
    const Stage* stage = &stage_or_error(stage_name);
    if (axes.empty()) throw UsageError("'mmlab sweep' needs at least one --sweep name=v1,v2,...");
    if (impl == Impl::Student && !stage->student) throw UsageError(stage_name + " has no student version");

    // The cartesian product of the axes.
    std::vector<StageParams> grid(1, settings.params);
    for (const auto& [name, vals] : axes) {
        std::vector<StageParams> next;
        for (const auto& p : grid)
            for (long long v : vals) {
                StageParams q = p;
                q.values[name] = v;
                next.push_back(q);
            }
        grid = next;
    }
    std::vector<Job> jobs;
    for (Shape s : shapes) {
        check_fits_in_memory(s, stage->device);
        for (const auto& p : grid) {
            check_param_names({stage}, p);
            if (stage->check_params) stage->check_params(p);
            jobs.push_back({stage, impl, impl, s, true, p});
        }
    }
    print_machine_header(stage->device == Device::Gpu);
    const BenchOutput out = measure(jobs, settings);
    // Whose code every row timed, said once above the table and on every row (the version column).
    std::printf("\ntimed: %s\n", impl == Impl::Student ? "your code (--impl student)"
                                                        : "the reference's code (--impl student times yours)");
    std::printf("%-18s %-9s %-15s %-28s %11s %9s %7s  %s\n", "stage", "version", "shape", "parameters", "median",
                "GFLOP/s", "% peak", "check");
    bool all_ok = true;
    int not_ok = 0;
    for (Shape s : shapes) {
        // The fastest among the results that passed their check; when some did
        // not, the mark says so: a wrong result may have been the faster one.
        const Measurement* best = nullptr;
        bool some_not_ok = false;
        for (std::size_t i = 0; i < jobs.size(); ++i) {
            const Measurement& m = out.rows[i];
            if (jobs[i].shape != s) continue;
            some_not_ok |= !m.passed;
            if (m.passed && (!best || m.median_seconds < best->median_seconds)) best = &m;
        }
        // Settings whose repetitions overlap the fastest's: the mark cannot tell them apart.
        int overlapping = 0;
        for (std::size_t i = 0; best && i < jobs.size(); ++i) {
            const Measurement& m = out.rows[i];
            if (jobs[i].shape == s && m.passed && &m != best && m.fastest_seconds > 0 && best->slowest_seconds > 0 &&
                m.fastest_seconds <= best->slowest_seconds)
                ++overlapping;
        }
        const std::string noise = overlapping == 0 ? ""
                                  : " (inside the noise: " + std::to_string(overlapping) +
                                        " other setting(s) had repetitions as fast)";
        for (std::size_t i = 0; i < jobs.size(); ++i) {
            if (jobs[i].shape != s) continue;
            const Measurement& m = out.rows[i];
            std::string params;
            for (const auto& [k, v] : jobs[i].params.values) params += k + "=" + std::to_string(v) + " ";
            if (!m.passed) {
                all_ok = false;
                ++not_ok;
                std::printf("%-18s %-9s %-15s %-28s %11s %9s %7s  %s: %s\n", m.stage.c_str(), impl_name(m.impl),
                            shape_text(s).c_str(), params.c_str(), "-", "-", "-", m.skipped ? "SKIPPED" : "WRONG",
                            (m.skipped ? m.skip_reason : m.failure).c_str());
                continue;
            }
            std::printf("%-18s %-9s %-15s %-28s %11s %9.2f %7.1f  ok%s\n", m.stage.c_str(), impl_name(m.impl),
                        shape_text(s).c_str(), params.c_str(), format_seconds(m.median_seconds).c_str(), m.gflops, m.percent_of_peak,
                        &m != best ? "" : ((some_not_ok ? "   <- fastest of the correct ones only" : "   <- fastest") + noise).c_str());
        }
    }
    if (!all_ok)
        std::printf("\n%d result(s) were wrong or skipped (above): the fastest setting overall is unknown until\n"
                    "they pass; the mark shows the fastest of those that did.\n", not_ok);
    return all_ok ? 0 : 1;
}

CommandRegistrar sweep_command({"sweep", "time one stage over a grid of parameter values", kUsage, run_sweep});

}  // namespace
}  // namespace mml
