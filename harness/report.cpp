#include "harness/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sstream>
#include <map>
#include <unistd.h>

#include "cpu/machine.h"
#include "cpu/peak.h"
#include "harness/format.h"
#include "harness/gpu_backend.h"
#include "harness/targets.h"

namespace mml {

std::string format_seconds(double s) {
    char buf[32];
    if (s < 1e-3) std::snprintf(buf, sizeof buf, "%.1f us", s * 1e6);
    else if (s < 1.0) std::snprintf(buf, sizeof buf, "%.2f ms", s * 1e3);
    else std::snprintf(buf, sizeof buf, "%.2f s", s);
    return buf;
}

namespace {

// The environment's OpenMP placement (GOMP_CPU_AFFINITY, OMP_PROC_BIND,
// OMP_PLACES), honoured - lab 4 may study it - but said once under the header:
// "GOMP_CPU_AFFINITY=0" puts every OpenMP thread on core 0, and the threaded
// stages would lose their speed without a word. Empty when none is set.
std::string openmp_placement_in_environment() {
    std::string set;
    for (const char* name : {"GOMP_CPU_AFFINITY", "OMP_PROC_BIND", "OMP_PLACES"})
        if (const char* v = std::getenv(name); v && *v) set += (set.empty() ? "" : " ") + std::string(name) + "=" + v;
    return set;
}

}  // namespace

// The spread, when it moved, and its cause: other programs (they used CPU
// time meanwhile), or the clock (an idle 16-core GPU host's turbo moved its
// runs 140-175 GFLOP/s, and this line used to blame other programs there);
// and which peak % peak divides by where this run's was not trustworthy
// (cpu/peak.h, choose_peak: the stored quiet one, or none).
std::string peak_spread_note(const PeakSpread& peak) {
    const double top = peak.measured > 0 ? peak.measured : peak.best;  // this run's own best
    const std::string others =
        peak.others_busy_cores < 0 ? "" : " (" + fixed(peak.others_busy_cores, 1) + " cores' worth)";
    if (!peak.unsure.empty()) return peak.unsure + ": no speed verdict from this run; " + rerun_advice();
    if (peak.stored)
        return "this run measured " + fixed(top, 1) + " GFLOP/s while other programs used the cores" + others +
               ": % peak divides by this machine's stored quiet peak instead (" + peak_store_path() +
               ", kept from a run that had the cores to itself)";
    if (!(peak.lowest < 0.9 * top)) return "";
    const std::string range = "its runs ranged " + fixed(peak.lowest, 1) + "-" + fixed(top, 1) + " GFLOP/s";
    if (peak.others_busy_cores < 0 || peak.others_busy_cores >= kQuietCores)
        return range + ": other programs were using the cores" + others +
               ", so timings and % peak may move between runs; rerun when the machine is quiet";
    return range + " while other programs were idle (" + fixed(peak.others_busy_cores, 2) +
           " cores' worth): the CPU's clock moved (turbo, power or heat limits), so timings and % peak may move "
           "a little between runs";
}

void print_machine_header(bool include_gpu) {
    const MachineInfo m = describe_machine();
    const std::string limited = simd_limited();
    std::printf("machine : %s, %d logical cores, widest SIMD %s%s\n", m.cpu_model.c_str(), m.logical_cores,
                simd_name(m.simd), limited.empty() ? "" : (" (" + limited + ")").c_str());
    const PeakSpread peak = measured_peak_spread(1);
    std::printf("peak    : %.1f GFLOP/s on 1 thread (measured: back-to-back %s FMAs, 2 flops each; best of %d runs "
                "of %.2f s, more while other programs hold the cores; on a busy machine the stored quiet peak where higher)\n",
                peak.best, simd_name(m.simd), kPeakRuns, kPeakRunSeconds);
    if (const std::string note = peak_spread_note(peak); !note.empty()) std::printf("          %s\n", note.c_str());
    std::printf("compiler: %s | flags: %s\n", m.compiler.c_str(), m.flags.c_str());
    if (const std::string placement = openmp_placement_in_environment(); !placement.empty())
        std::printf("environ : %s (honoured: OpenMP places the threaded stages' threads as it says, and a place list "
                    "narrower than --threads makes them share cores; unset it to let the OS place them)\n",
                    placement.c_str());
    if (include_gpu) {
        const gpu::DeviceInfo g = gpu::probe();
        if (g.available)
            std::printf("gpu     : %s (sm_%d%d, %d SMs, %.2f GHz, FP32 peak %.0f GFLOP/s from the spec, %.1f GB)\n",
                        g.name.c_str(), g.cc_major, g.cc_minor, g.sm_count, g.sm_clock_ghz,
                        g.fp32_peak_gflops, g.total_bytes / 1e9);
        else
            std::printf("gpu     : none (%s)\n", g.why_not.c_str());
        if (g.available)
            std::printf("gpu L2  : %s\n", gpu::flush_l2()
                                               ? "flushed before each timed run (--l2 flush: cold, inputs from DRAM)"
                                               : "warm: inputs left in L2 between timed runs (--l2 flush: cold)");
    }
}

void print_peer_libraries(const std::vector<Job>& jobs) {
    // (description, the stages that use it), in the order of the run: two
    // cuBLAS rows (FP32 and TF32) share one line.
    std::vector<std::pair<std::string, std::string>> lines;
    std::vector<const Stage*> seen;
    for (const Job& job : jobs) {
        const Stage* s = job.stage;
        if (!s->describe_library || std::find(seen.begin(), seen.end(), s) != seen.end()) continue;
        seen.push_back(s);
        const std::string library = s->describe_library();
        auto same = std::find_if(lines.begin(), lines.end(), [&](const auto& l) { return l.first == library; });
        if (same == lines.end()) lines.push_back({library, s->name});
        else same->second += ", " + s->name;
    }
    for (const auto& [library, stages] : lines) std::printf("peer    : %s = %s\n", stages.c_str(), library.c_str());
}

void print_table(const std::vector<Measurement>& rows) {
    // The x ijk column only where some row has a speedup over the baseline
    // (lab 4's 2048^3 is over the triple loop's limit: a column of dashes).
    const bool ijk = std::any_of(rows.begin(), rows.end(), [](const Measurement& r) { return r.speedup_vs_baseline > 0; });
    const auto ijk_cell = [ijk](const std::string& text) {
        if (ijk) std::printf(" %9s", text.c_str());
    };
    // The kernels column only where a stage has several code paths (lab 5's kernel sets).
    const bool kernels = std::any_of(rows.begin(), rows.end(), [](const Measurement& r) { return !r.kernel_set.empty(); });
    std::printf("\n%-18s %-9s %-15s %4s %s%11s %9s %9s %7s", "stage", "version", "shape (MxNxK)", "thr",
                kernels ? "kernels  " : "", "median", "reps", "GFLOP/s", "% peak");
    ijk_cell("x ijk");
    // The x prev column only where the lab names its previous lab's best stage (Lab::previous_best).
    const auto with_prev = std::find_if(rows.begin(), rows.end(), [](const Measurement& r) { return r.speedup_vs_previous > 0; });
    const bool prev = with_prev != rows.end();
    const auto prev_cell = [prev](const std::string& text) {
        if (prev) std::printf(" %9s", text.c_str());
    };
    prev_cell("x prev");
    std::printf("  %s\n", "check: worst error / bound");
    for (const auto& r : rows) {
        std::printf("%-18s %-9s %-15s %4d ", r.stage.c_str(), impl_name(r.impl), shape_text(r.shape).c_str(),
                    r.threads);
        if (kernels) std::printf("%-9s", r.kernel_set.empty() ? "-" : r.kernel_set.c_str());
        if (r.skipped || !r.passed) {
            std::printf("%11s %9s %9s %7s", "-", "-", "-", "-");
            ijk_cell("-");
            prev_cell("-");
            std::printf("  %s: %s\n", r.skipped ? "skipped" : "WRONG", (r.skipped ? r.skip_reason : r.failure).c_str());
            continue;
        }
        const std::string peak = r.percent_of_peak >= 0 ? fixed(r.percent_of_peak, 1) : "?";
        // "*": the baseline's time scaled from a smaller shape (said under the table).
        const std::string speedup = r.speedup_vs_baseline > 0 ? fixed(r.speedup_vs_baseline, 1) + "x" +
                                                                   (r.baseline_scaled_from.flops() > 0 ? "*" : "")
                                                             : "-";
        const std::string reps = std::to_string(r.repetitions) + "x" + std::to_string(r.iterations);
        // Reduced-precision rows (lab 11) add their error against the unrounded inputs.
        char unrounded[48] = "";
        if (r.error_vs_unrounded >= 0)
            std::snprintf(unrounded, sizeof unrounded, "; vs fp32 inputs %.1e", r.error_vs_unrounded);
        std::printf("%11s %9s %9.2f %7s", format_seconds(r.median_seconds).c_str(), reps.c_str(), r.gflops,
                    peak.c_str());
        ijk_cell(speedup);
        prev_cell(r.speedup_vs_previous > 0 ? fixed(r.speedup_vs_previous, 2) + "x" : "-");
        std::printf("  ok %.3f (%s%s)\n", r.worst_ratio, r.check_method.c_str(), unrounded);
    }
    std::printf("\nmedian: of the timed repetitions (reps = repetitions x calls per repetition; CPU: wall clock "
                "of the call; GPU: kernel time between CUDA events); %% peak: of the measured FMA peak on the "
                "stage's threads (GPU: of the spec FP32 peak); %scheck: largest |error| / error bound (<= 1 "
                "passes), full or randomized check.\n",
                ijk ? "x ijk: speedup over the reference triple loop at the same shape; " : "");
    // Each extrapolated x ijk said as one: which shape the triple loop ran at, for which.
    std::vector<std::pair<Shape, Shape>> scaled;  // (timed at, standing for)
    for (const auto& r : rows)
        if (r.baseline_scaled_from.flops() > 0 &&
            std::find(scaled.begin(), scaled.end(), std::make_pair(r.baseline_scaled_from, r.shape)) == scaled.end())
            scaled.push_back({r.baseline_scaled_from, r.shape});
    for (const auto& [from, to] : scaled)
        std::printf("x ijk*: at %s lab1.ijk is too slow for this table; it was timed at %s and its time scaled "
                    "by M*N*K (x%s): an extrapolation, and a low one (the triple loop only slows further at larger n).\n",
                    shape_text(to).c_str(), shape_text(from).c_str(), fixed(to.flops() / from.flops(), 0).c_str());
    if (prev)
        std::printf("x prev: speedup over the previous lab's best stage, %s (reference), at the same shape (its row shows the threads it ran on).\n",
                    with_prev->previous_best.c_str());
    // Said only when a reduced-precision row (lab 11) is in the table.
    if (std::any_of(rows.begin(), rows.end(), [](const Measurement& r) { return r.error_vs_unrounded >= 0; }))
        std::printf("bf16/tf32 rows: checked against the float64 product of the ROUNDED inputs under the FP32 "
                    "accumulation bound; 'vs fp32 inputs' is the relative error ||C - AB|| / ||AB|| against the "
                    "float32 inputs as given (4096 sampled entries): what the precision costs, not judged.\n");
    // The CPU peaks the % peak column divided by, per thread count, measured
    // in this run (the header shows the first 1-thread measurement; a row
    // faster than a remembered peak has it measured again). A threaded peak
    // well under threads x the 1-thread one means other programs held cores
    // while this ran, and the threaded rows are slowed with it.
    std::vector<int> counts;
    for (const auto& r : rows) {
        const Stage* s = Registry::instance().find(r.stage);
        if (s && s->device == Device::Cpu && r.passed && !r.skipped && r.gflops > 0 &&
            std::find(counts.begin(), counts.end(), r.threads) == counts.end())
            counts.push_back(r.threads);
    }
    std::sort(counts.begin(), counts.end());
    if (!counts.empty()) {
        std::printf("%% peak divides by the FMA peak measured in this run:");
        for (std::size_t i = 0; i < counts.size(); ++i)
            std::printf("%s %.1f GFLOP/s on %d thread%s%s", i ? "," : "", measured_peak_gflops(counts[i]), counts[i],
                        counts[i] > 1 ? "s" : "", measured_peak_spread(counts[i]).stored ? " (the stored quiet peak)" : "");
        std::printf(".\n");
        // The threaded peaks' own notes (the header has the 1-thread one's).
        for (int t : counts)
            if (const PeakSpread p = measured_peak_spread(t); t > 1 && (p.stored || !p.unsure.empty()))
                std::printf("          %d threads: %s\n", t, peak_spread_note(p).c_str());
        const int cores = describe_machine().logical_cores;
        const double one = measured_peak_gflops(1);
        for (int t : counts)
            if (t > 1 && measured_peak_gflops(t) < 0.8 * std::min(t, cores) * one &&
                measured_peak_spread(t).unsure.empty())  // (else the line above said why already)
                std::printf("WARNING: the peak on %d threads is well under %d times the 1-thread peak: other programs "
                            "held cores while this ran, so the %d-thread rows are slowed too; rerun when the machine "
                            "is quiet.\n", t, std::min(t, cores), t);
    }
}

namespace {

std::string json_string(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\t': out += "\\t"; break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", c);
                    out += buf;
                } else {
                    out += c;
                }
        }
    }
    return out + "\"";
}

std::string host_name() {
    char buf[256] = "";
    return gethostname(buf, sizeof buf - 1) == 0 ? std::string(buf) : std::string();
}

std::string json_number(double x) {
    if (!std::isfinite(x)) return "null";
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.9g", x);
    return buf;
}

}  // namespace

std::string benchmark_name(const Measurement& m) {
    return m.stage + "/" + impl_name(m.impl) + "/" + std::to_string(m.shape.M) + "x" + std::to_string(m.shape.N) +
           "x" + std::to_string(m.shape.K) + "/threads:" + std::to_string(m.threads);
}

void write_json(const std::string& path, const Options& options, const BenchOutput& out,
                const std::optional<TargetVerdict>& verdict, const std::string& lab_target) {
    const MachineInfo m = describe_machine();
    std::ostringstream j;
    j << "{\n  \"machine\": {\"cpu\": " << json_string(m.cpu_model) << ", \"logical_cores\": " << m.logical_cores
      << ", \"simd\": " << json_string(simd_name(m.simd)) << ", \"compiler\": " << json_string(m.compiler)
      << ", \"flags\": " << json_string(m.flags) << ", \"peak_gflops_1_thread\": "
      << json_number(measured_peak_gflops(1)) << "},\n";
    const gpu::DeviceInfo g = gpu::probe();
    j << "  \"gpu\": " << (g.available ? "{\"name\": " + json_string(g.name) + ", \"sm_count\": " +
                                             std::to_string(g.sm_count) + ", \"fp32_peak_gflops_spec\": " +
                                             json_number(g.fp32_peak_gflops) + "}"
                                       : std::string("null"))
      << ",\n";
    // When the run was made (UTC), for plot titles (tools/plot.py).
    char date[32] = "";
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    j << "  \"date\": " << json_string(date) << ",\n";
    j << "  \"command\": " << json_string(options.command) << ", \"threads\": " << options.threads << ",\n";
    // Google Benchmark's own format ("context", "benchmarks"), so that its
    // tools (compare.py) and ours (tools/compare.py) can diff two runs by name.
    char gb_date[40] = "";
    std::strftime(gb_date, sizeof gb_date, "%Y-%m-%dT%H:%M:%S+00:00", std::gmtime(&now));
    j << "  \"context\": {\"date\": " << json_string(gb_date) << ", \"host_name\": " << json_string(host_name())
      << ", \"executable\": \"mmlab\", \"num_cpus\": " << m.logical_cores
      << ", \"mhz_per_cpu\": 0, \"cpu_scaling_enabled\": false, \"library_build_type\": \"release\"},\n";
    j << "  \"benchmarks\": [\n";
    std::map<std::string, int> seen;  // a stage timed twice in one run: the second is "name#2"
    std::vector<std::string> names(out.rows.size());
    for (std::size_t i = 0; i < out.rows.size(); ++i) {
        names[i] = benchmark_name(out.rows[i]);
        if (++seen[names[i]] > 1) names[i] += "#" + std::to_string(seen[names[i]]);
    }
    bool first = true;
    for (const RawRun& r : out.raw) {
        if (r.job < 0) continue;
        const std::string& base = names[std::size_t(r.job)];
        const bool aggregate = r.run_type == "aggregate";
        j << (first ? "" : ",\n") << "    {\"name\": " << json_string(aggregate ? base + "_" + r.aggregate : base)
          << ", \"family_index\": " << r.job << ", \"per_family_instance_index\": 0"
          << ", \"run_name\": " << json_string(base) << ", \"run_type\": " << json_string(r.run_type)
          << ", \"repetitions\": " << r.repetitions << ", \"repetition_index\": " << r.repetition_index
          << ", \"threads\": " << r.threads << ", \"iterations\": " << r.iterations;
        if (aggregate)
          j << ", \"aggregate_name\": " << json_string(r.aggregate) << ", \"aggregate_unit\": "
            << json_string(r.aggregate == "cv" ? "percentage" : "time");
        // Milliseconds, as the timed stages register with Google Benchmark (the cv
        // aggregate is a ratio, not a time: not scaled).
        const double scale = r.aggregate == "cv" ? 1.0 : 1e3;
        j << ", \"real_time\": " << json_number(scale * r.real_seconds_per_iteration)
          << ", \"cpu_time\": " << json_number(scale * r.cpu_seconds_per_iteration) << ", \"time_unit\": \"ms\"}";
        first = false;
    }
    j << "\n";
    j << "  ],\n  \"summary\": [\n";
    for (std::size_t i = 0; i < out.rows.size(); ++i) {
        const Measurement& r = out.rows[i];
        const Stage* st = Registry::instance().find(r.stage);
        const char* device = !st ? "" : st->device == Device::Gpu ? "gpu" : "cpu";
        j << "    {\"stage\": " << json_string(r.stage) << ", \"device\": " << json_string(device)
          << ", \"version\": " << json_string(impl_name(r.impl))
          << ", \"M\": " << r.shape.M << ", \"N\": " << r.shape.N << ", \"K\": " << r.shape.K
          << ", \"threads\": " << r.threads << ", \"skipped\": " << (r.skipped ? "true" : "false")
          << ", \"passed\": " << (r.passed ? "true" : "false")
          << ", \"median_s\": " << json_number(r.median_seconds) << ", \"repetitions\": " << r.repetitions
          << ", \"gflops\": " << json_number(r.gflops) << ", \"percent_of_peak\": " << json_number(r.percent_of_peak)
          << ", \"speedup_vs_baseline\": " << json_number(r.speedup_vs_baseline)
          << ", \"worst_error_over_bound\": " << json_number(r.worst_ratio)
          << ", \"max_abs_error\": " << json_number(r.max_abs_error)
          << ", \"error_vs_unrounded\": " << (r.error_vs_unrounded >= 0 ? json_number(r.error_vs_unrounded) : "null")
          << ", \"check\": " << json_string(r.check_method) << ", \"failure\": " << json_string(r.failure)
          << ", \"skip_reason\": " << json_string(r.skip_reason)
          << ", \"library\": " << json_string(st && st->describe_library ? st->describe_library() : "") << "}" << (i + 1 < out.rows.size() ? ",\n" : "\n");
    }
    j << "  ]";
    if (verdict)
        j << ",\n  \"target\": {\"goal\": " << json_string(lab_target) << ", \"met\": " << (verdict->met ? "true" : "false")
          << ", \"inconclusive\": " << (verdict->inconclusive ? "true" : "false")
          << ", \"explanation\": " << json_string(verdict->explanation) << "}";
    j << "\n}\n";

    const std::string tmp = path + ".tmp";
    {
        std::ofstream f(tmp);
        f << j.str();
        if (!f) throw std::runtime_error("cannot write " + tmp);
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        std::remove(tmp.c_str());
        throw std::runtime_error("cannot rename " + tmp + " to " + path);
    }
}

}  // namespace mml
