#include "harness/report.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
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
    if (peak.stored) {
        // Below the stored peak with the others idle: the clock moved, not the load
        // (an idle 16-core GPU host, 2026-12-08: "while other programs used the
        // cores (0.0 cores' worth)" contradicted itself).
        const bool others_idle = peak.others_busy_cores >= 0 && peak.others_busy_cores < kQuietCores;
        return "this run measured " + fixed(top, 1) + " GFLOP/s " +
               (others_idle ? "while other programs were idle (" + fixed(peak.others_busy_cores, 2) +
                                  " cores' worth: the CPU's clock moved)"
                            : "while other programs used the cores" + others) +
               ": % peak divides by this machine's stored quiet peak instead (" + peak_store_path() +
               ", kept from a run that had the cores to itself)";
    }
    if (!(peak.lowest < kQuietRuns * top)) return "";
    const std::string range = "its runs ranged " + fixed(peak.lowest, 1) + "-" + fixed(top, 1) + " GFLOP/s";
    if (peak.others_busy_cores < 0 || peak.others_busy_cores >= kQuietCores)
        return range + ": other programs were using the cores" + others +
               ", so timings and % peak may move between runs; rerun when the machine is quiet";
    return range + " while other programs were idle (" + fixed(peak.others_busy_cores, 2) +
           " cores' worth): the CPU's clock moved (turbo, power or heat limits), so timings and % peak may move "
           "a little between runs";
}

namespace {

constexpr int kLabelWidth = 10;  // "machine : ": a header line's continuation starts under its text

// A header line, wrapped to `columns` (0: as one line).
void print_fitted(const std::string& line, int columns) {
    for (const std::string& l : wrap(line, columns, kLabelWidth)) std::printf("%s\n", l.c_str());
}

// A header item: on a slide its essentials as one line, cut to `columns`;
// else the full text, wrapped.
void print_item(const std::string& full, const std::string& essentials, int columns, bool slide) {
    if (slide) std::printf("%s\n", (columns > 0 ? shorten(essentials, columns) : essentials).c_str());
    else print_fitted(full, columns);
}

}  // namespace

std::string short_cpu_model(const std::string& model) {
    std::string s = model;
    // Trademarks, the words every model has, and the base clock (the peak line measures the real one).
    if (const std::size_t at = s.find(" @ "); at != std::string::npos) s.erase(at);
    for (const char* noise : {"(R)", "(r)", "(TM)", "(tm)", " CPU", " Processor", " processor"})
        for (std::size_t at; (at = s.find(noise)) != std::string::npos;) s.erase(at, std::string(noise).size());
    std::string out;  // single spaces, none at the ends
    for (char c : s)
        if (c != ' ' || (!out.empty() && out.back() != ' ')) out += c;
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out.empty() ? model : out;
}

std::string machine_essentials(const std::string& cpu_model, int cores, const std::string& simd, int columns) {
    const std::string label = "machine : ", tail = ", " + std::to_string(cores) + " cores, " + simd;
    // The model gives way first: the cores and SIMD width are what the numbers depend on.
    const int room = columns > 0 ? columns - display_width(label + tail) : 1 << 20;
    return label + shorten(short_cpu_model(cpu_model), std::max(room, 8)) + tail;
}

void print_machine_header(bool include_gpu, int columns, bool spread_note, bool slide) {
    const MachineInfo m = describe_machine();
    const std::string limited = simd_limited();
    print_item("machine : " + m.cpu_model + ", " + std::to_string(m.logical_cores) + " logical cores, widest SIMD " +
                   simd_name(m.simd) + (limited.empty() ? "" : " (" + limited + ")"),
               machine_essentials(m.cpu_model, m.logical_cores,
                                  std::string(simd_name(m.simd)) + (limited.empty() ? "" : " (limited: --wide)"), columns),
               columns, slide);
    const PeakSpread peak = measured_peak_spread(1);
    print_item("peak    : " + fixed(peak.best, 1) + " GFLOP/s on 1 thread (measured: back-to-back " +
                   simd_name(m.simd) + " FMAs, 2 flops each; best of " + std::to_string(kPeakRuns) + " runs of " +
                   fixed(kPeakRunSeconds, 2) + " s, more while other programs hold the cores; on a busy machine the "
                   "stored quiet peak where higher)",
               "peak    : " + fixed(peak.best, 1) + " GFLOP/s on 1 thread (measured: " + simd_name(m.simd) +
                   " FMAs, 2 flops each)",
               columns, slide);
    if (const std::string note = peak_spread_note(peak); spread_note && !note.empty())
        print_fitted("          " + note, columns);
    print_item("compiler: " + m.compiler + " | flags: " + m.flags, "compiler: " + m.compiler + " | flags: " + m.flags,
               columns, slide);
    if (const std::string placement = openmp_placement_in_environment(); !placement.empty())
        print_item("environ : " + placement + " (honoured: OpenMP places the threaded stages' threads as it says, and "
                   "a place list narrower than --threads makes them share cores; unset it to let the OS place them)",
                   "environ : " + placement + " (honoured; why it matters: --wide)", columns, slide);
    if (include_gpu) {
        const gpu::DeviceInfo g = gpu::probe();
        if (g.available)
            print_item("gpu     : " + g.name + " (sm_" + std::to_string(g.cc_major) + std::to_string(g.cc_minor) +
                           ", " + std::to_string(g.sm_count) + " SMs, " + fixed(g.sm_clock_ghz, 2) + " GHz, FP32 peak " +
                           fixed(g.fp32_peak_gflops, 0) + " GFLOP/s from the spec, " + fixed(g.total_bytes / 1e9, 1) +
                           " GB)",
                       "gpu     : " + g.name + ", FP32 peak " + fixed(g.fp32_peak_gflops, 0) + " GFLOP/s (spec)",
                       columns, slide);
        else
            print_item("gpu     : none (" + g.why_not + ")", "gpu     : none (" + g.why_not + ")", columns, slide);
        if (g.available)
            print_item(std::string("gpu L2  : ") + (gpu::flush_l2()
                                                 ? "flushed before each timed run (--l2 flush: cold, inputs from DRAM)"
                                                 : "warm: inputs left in L2 between timed runs (--l2 flush: cold)"),
                       std::string("gpu L2  : ") + (gpu::flush_l2() ? "flushed before each timed run (cold)"
                                                                    : "warm between timed runs (--l2 flush: cold)"),
                       columns, slide);
    }
}

namespace {

// A peer's description split "; " by "; ": its own facts, and the warnings
// among them (they start "WARNING: ", as the peers write them).
std::pair<std::vector<std::string>, std::vector<std::string>> facts_and_warnings(const std::string& description) {
    std::vector<std::string> facts, warnings;
    // The next "; " outside parentheses (an aside may hold its own "; ").
    const auto next_break = [&](std::size_t from) {
        int depth = 0;
        for (std::size_t i = from; i + 1 < description.size(); ++i) {
            depth += description[i] == '(' ? 1 : description[i] == ')' ? -1 : 0;
            if (depth <= 0 && description[i] == ';' && description[i + 1] == ' ') return i;
        }
        return description.size();
    };
    std::size_t from = 0;
    while (from <= description.size()) {
        const std::size_t to = next_break(from);
        std::string piece = description.substr(from, to - from);
        // The peers put their warnings last, and a warning may hold "; " of its own.
        if (piece.rfind("WARNING: ", 0) == 0) warnings.push_back(piece.substr(9));
        else if (!warnings.empty()) warnings.back() += "; " + piece;
        else if (!piece.empty()) facts.push_back(piece);
        from = to + 2;
    }
    return {facts, warnings};
}

}  // namespace

std::string peer_essentials(const std::string& stages, const std::string& description, int columns) {
    std::vector<std::string> facts = facts_and_warnings(description).first;
    if (facts.empty()) return "peer    : " + stages;
    const auto line_of = [&] {
        std::string l = "peer    : " + stages + " = " + facts[0];
        for (std::size_t i = 1; i < facts.size(); ++i) l += "; " + facts[i];
        return l;
    };
    // The library's own configuration line ("OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH ...")
    // gives way to its name and version first, and each fact's aside in
    // parentheses (an OPENBLAS_CORETYPE set aside), so that the kernel and threading stay.
    if (columns > 0 && display_width(line_of()) > columns) {
        const std::size_t second_space = facts[0].find(' ', facts[0].find(' ') + 1);
        if (second_space != std::string::npos) facts[0].erase(second_space);
        for (std::string& f : facts)
            if (const std::size_t aside = f.find(" ("); aside != std::string::npos && aside > 0) f.erase(aside);
    }
    return columns > 0 ? shorten(line_of(), columns) : line_of();
}

std::vector<MachineNote> peer_warning_notes(const std::vector<Job>& jobs) {
    std::vector<MachineNote> notes;
    std::vector<std::string> seen;
    for (const Job& job : jobs) {
        if (!job.stage->describe_library) continue;
        const std::string description = job.stage->describe_library();
        if (std::find(seen.begin(), seen.end(), description) != seen.end()) continue;
        seen.push_back(description);
        const std::string name = description.substr(0, description.find(' '));  // "OpenBLAS"
        for (const std::string& w : facts_and_warnings(description).second) {
            // "OpenBLAS warned: runs its Haswell kernel ...", its name said once
            const std::string said = w.rfind(name + " ", 0) == 0 ? w.substr(name.size() + 1) : w;
            notes.push_back({name + " warned: " + said, "WARNING (" + job.stage->name + "): " + w, false});
        }
    }
    return notes;
}

void print_peer_libraries(const std::vector<Job>& jobs, int columns, bool slide) {
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
    for (const auto& [library, stages] : lines)
        print_item("peer    : " + stages + " = " + library, peer_essentials(stages, library, columns), columns, slide);
}

namespace {

std::string cell(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string cell(const char* format, ...) {
    char buf[512];
    va_list args;
    va_start(args, format);
    std::vsnprintf(buf, sizeof buf, format, args);
    va_end(args);
    return buf;
}

bool timed(const Measurement& r) { return !r.skipped && r.passed; }

// Thread counts of the CPU rows whose % peak divides by a measured peak, smallest first.
std::vector<int> cpu_thread_counts(const std::vector<Measurement>& rows) {
    std::vector<int> counts;
    for (const auto& r : rows) {
        const Stage* s = Registry::instance().find(r.stage);
        if (s && s->device == Device::Cpu && timed(r) && r.gflops > 0 &&
            std::find(counts.begin(), counts.end(), r.threads) == counts.end())
            counts.push_back(r.threads);
    }
    std::sort(counts.begin(), counts.end());
    return counts;
}

// The thread counts whose measured peak is well under threads x the 1-thread
// one: other programs held cores while this ran, and those rows are slowed with it.
std::vector<int> low_threaded_peaks(const std::vector<Measurement>& rows) {
    std::vector<int> low;
    const int cores = describe_machine().logical_cores;
    const double one = measured_peak_gflops(1);
    for (int t : cpu_thread_counts(rows))
        // (a peak that could not be measured has its own note, which says why)
        if (t > 1 && measured_peak_gflops(t) < 0.8 * std::min(t, cores) * one && measured_peak_spread(t).unsure.empty())
            low.push_back(t);
    return low;
}

std::string low_peak_warning(int t) {
    const int cores = std::min(t, describe_machine().logical_cores);
    return "WARNING: the peak on " + std::to_string(t) + " threads is well under " + std::to_string(cores) +
           " times the 1-thread peak: other programs held cores while this ran, so the " + std::to_string(t) +
           "-thread rows are slowed too; rerun when the machine is quiet.";
}

// Each extrapolated x ijk said as one: which shape the triple loop ran at, for which.
std::vector<std::string> scaled_baseline_notes(const std::vector<Measurement>& rows) {
    std::vector<std::pair<Shape, Shape>> scaled;  // (timed at, standing for)
    for (const auto& r : rows)
        if (r.baseline_scaled_from.flops() > 0 &&
            std::find(scaled.begin(), scaled.end(), std::make_pair(r.baseline_scaled_from, r.shape)) == scaled.end())
            scaled.push_back({r.baseline_scaled_from, r.shape});
    std::vector<std::string> notes;
    for (const auto& [from, to] : scaled)
        notes.push_back("x ijk*: at " + shape_text(to) + " lab1.ijk is too slow for this table; it was timed at " +
                        shape_text(from) + " and its time scaled by M*N*K (x" + fixed(to.flops() / from.flops(), 0) +
                        "): an extrapolation, and a low one (the triple loop only slows further at larger n).");
    return notes;
}

void add_fitted(std::vector<std::string>& lines, const std::string& text, int columns, int indent) {
    for (std::string& l : wrap(text, columns, indent)) lines.push_back(std::move(l));
}

// The baseline row that `row`'s x ijk divides (nullptr: none).
const Measurement* baseline_of(const std::vector<Measurement>& rows, const Measurement& row) {
    const Shape at = row.baseline_scaled_from.flops() > 0 ? row.baseline_scaled_from : row.shape;
    for (const auto& b : rows)
        if (b.stage == kBaselineStage && b.impl == Impl::Reference && timed(b) && b.shape == at) return &b;
    return nullptr;
}

// A number as the slide prints it, two significant digits or more: whole from
// 10 ("62"), one decimal from 1 ("5.2"), two below ("0.04": a row slower than its baseline).
std::string slide_digits(double x) { return fixed(x, x >= 9.95 ? 0 : x >= 0.995 ? 1 : 2); }

}  // namespace

std::vector<std::string> table_lines(const std::vector<Measurement>& rows) {
    std::vector<std::string> lines;
    // The x ijk column only where some row has a speedup over the baseline
    // (lab 4's 2048^3 is over the triple loop's limit: a column of dashes).
    const bool ijk = std::any_of(rows.begin(), rows.end(), [](const Measurement& r) { return r.speedup_vs_baseline > 0; });
    // The x prev column only where the lab names its previous lab's best stage (Lab::previous_best).
    const bool prev = std::any_of(rows.begin(), rows.end(), [](const Measurement& r) { return r.speedup_vs_previous > 0; });
    // The kernels column only where a stage has several code paths (lab 5's kernel sets).
    const bool kernels = std::any_of(rows.begin(), rows.end(), [](const Measurement& r) { return !r.kernel_set.empty(); });
    const auto ratio_cells = [&](const std::string& speedup, const std::string& previous) {
        return (ijk ? cell(" %9s", speedup.c_str()) : "") + (prev ? cell(" %9s", previous.c_str()) : "");
    };
    lines.push_back(cell("%-18s %-9s %-15s %4s %s%11s %9s %9s %7s", "stage", "version", "shape (MxNxK)", "thr",
                         kernels ? "kernels  " : "", "median", "reps", "GFLOP/s", "% peak") +
                    ratio_cells("x ijk", "x prev") + "  check: worst error / bound");
    for (const auto& r : rows) {
        std::string line = cell("%-18s %-9s %-15s %4d ", r.stage.c_str(), impl_name(r.impl), shape_text(r.shape).c_str(),
                                r.threads);
        if (kernels) line += cell("%-9s", r.kernel_set.empty() ? "-" : r.kernel_set.c_str());
        if (!timed(r)) {
            lines.push_back(line + cell("%11s %9s %9s %7s", "-", "-", "-", "-") + ratio_cells("-", "-") +
                            "  " + (r.skipped ? "skipped: " + r.skip_reason : "WRONG: " + r.failure));
            continue;
        }
        const std::string peak = r.percent_of_peak >= 0 ? fixed(r.percent_of_peak, 1) : "?";
        // "*": the baseline's time scaled from a smaller shape (said under the table).
        const std::string speedup = r.speedup_vs_baseline > 0 ? fixed(r.speedup_vs_baseline, 1) + "x" +
                                                                   (r.baseline_scaled_from.flops() > 0 ? "*" : "")
                                                             : "-";
        const std::string reps = std::to_string(r.repetitions) + "x" + std::to_string(r.iterations);
        // Reduced-precision rows (lab 11) add their error against the unrounded inputs.
        const std::string unrounded =
            r.error_vs_unrounded >= 0 ? cell("; vs fp32 inputs %.1e", r.error_vs_unrounded) : "";
        lines.push_back(line + cell("%11s %9s %9.2f %7s", format_seconds(r.median_seconds).c_str(), reps.c_str(),
                                    r.gflops, peak.c_str()) +
                        ratio_cells(speedup, r.speedup_vs_previous > 0 ? fixed(r.speedup_vs_previous, 2) + "x" : "-") +
                        cell("  ok %.3f (%s%s)", r.worst_ratio, r.check_method.c_str(), unrounded.c_str()));
    }
    return lines;
}

std::vector<std::string> table_notes(const std::vector<Measurement>& rows, int columns, bool machine_warnings) {
    std::vector<std::string> lines;
    const bool ijk = std::any_of(rows.begin(), rows.end(), [](const Measurement& r) { return r.speedup_vs_baseline > 0; });
    // The legend, a short line a column.
    add_fitted(lines, "median : of the timed repetitions; reps = repetitions x calls per repetition", columns, 9);
    add_fitted(lines, "         (CPU: wall clock of the call; GPU: kernel time between CUDA events)", columns, 9);
    add_fitted(lines, "% peak : of the measured FMA peak on the stage's threads (GPU: of the spec FP32 peak)", columns, 9);
    if (ijk) add_fitted(lines, "x ijk  : speedup over the reference triple loop at the same shape", columns, 9);
    add_fitted(lines, "check  : largest |error| / error bound (<= 1 passes), full or randomized check", columns, 9);
    for (const std::string& note : scaled_baseline_notes(rows)) add_fitted(lines, note, columns, 8);
    const auto with_prev = std::find_if(rows.begin(), rows.end(), [](const Measurement& r) { return r.speedup_vs_previous > 0; });
    if (with_prev != rows.end())
        add_fitted(lines, "x prev: speedup over the previous lab's best stage, " + with_prev->previous_best +
                              " (reference), at the same shape (its row shows the threads it ran on).", columns, 8);
    // Said only when a reduced-precision row (lab 11) is in the table.
    if (std::any_of(rows.begin(), rows.end(), [](const Measurement& r) { return r.error_vs_unrounded >= 0; }))
        add_fitted(lines, "bf16/tf32 rows: checked against the float64 product of the ROUNDED inputs under the FP32 "
                          "accumulation bound; 'vs fp32 inputs' is the relative error ||C - AB|| / ||AB|| against the "
                          "float32 inputs as given (4096 sampled entries): what the precision costs, not judged.",
                   columns, 0);
    // The CPU peaks the % peak column divided by, per thread count, measured
    // in this run (the header shows the first 1-thread measurement; a row
    // faster than a remembered peak has it measured again).
    const std::vector<int> counts = cpu_thread_counts(rows);
    if (!counts.empty()) {
        std::string text = "% peak divides by the FMA peak measured in this run:";
        for (std::size_t i = 0; i < counts.size(); ++i)
            text += std::string(i ? "," : "") + " " + fixed(measured_peak_gflops(counts[i]), 1) + " GFLOP/s on " +
                    std::to_string(counts[i]) + " thread" + (counts[i] > 1 ? "s" : "") +
                    (measured_peak_spread(counts[i]).stored ? " (the stored quiet peak)" : "");
        add_fitted(lines, text + ".", columns, 0);
        // The threaded peaks' own notes (the header has the 1-thread one's).
        if (machine_warnings)
            for (int t : counts)
                if (const PeakSpread p = measured_peak_spread(t); t > 1 && (p.stored || !p.unsure.empty()))
                    add_fitted(lines, "          " + std::to_string(t) + " threads: " + peak_spread_note(p), columns, 10);
    }
    if (machine_warnings)
        for (int t : low_threaded_peaks(rows)) add_fitted(lines, low_peak_warning(t), columns, 0);
    return lines;
}

void print_table(const std::vector<Measurement>& rows) {
    std::printf("\n");
    for (const std::string& line : table_lines(rows)) std::printf("%s\n", line.c_str());
    std::printf("\n");
    for (const std::string& line : table_notes(rows, 0, true)) std::printf("%s\n", line.c_str());
}

TimeRatio speedup_range(const std::vector<Measurement>& rows, const Measurement& row) {
    if (!(row.speedup_vs_baseline > 0)) return {};
    const Measurement* base = baseline_of(rows, row);
    // The baseline's own row is 1x by definition, not a ratio of two timings.
    if (!base || base == &row) return {row.speedup_vs_baseline, row.speedup_vs_baseline, row.speedup_vs_baseline};
    const TimeRatio times = time_ratio(*base, row);
    const double scale = row.speedup_vs_baseline / times.value;  // M*N*K where the baseline ran smaller (x ijk*)
    return {row.speedup_vs_baseline, times.low * scale, times.high * scale};
}

bool moved_beyond_noise(const TimeRatio& r) {
    // kQuietRuns: the noise a quiet machine leaves in one timing. A ratio of
    // two such timings can move by that on each side, high / low up to
    // (1 / 0.9)^2 = 1.23, by noise alone; beyond that, one of the two rows
    // moved more than a quiet measurement does, and the one number would not
    // survive a rerun.
    return r.low > 0 && r.high * kQuietRuns * kQuietRuns > r.low;
}

std::string ratio_text(const TimeRatio& r) {
    return moved_beyond_noise(r) ? slide_digits(r.low) + "-" + slide_digits(r.high) + "x" : slide_digits(r.value) + "x";
}

std::vector<std::string> slide_table_lines(const std::vector<Measurement>& rows, int columns) {
    std::vector<std::string> lines;
    // One shape for all rows (the CPU-only demo): said once above the table, not in a column.
    const bool shapes = std::any_of(rows.begin(), rows.end(), [&](const Measurement& r) { return !(r.shape == rows[0].shape); });
    const bool ijk = std::any_of(rows.begin(), rows.end(), [](const Measurement& r) { return r.speedup_vs_baseline > 0; });
    std::vector<std::string> ijk_cells;
    bool ranges = false, scaled = false;
    for (const auto& r : rows) {
        std::string text = "-";
        if (timed(r) && r.speedup_vs_baseline > 0) {
            text = ratio_text(speedup_range(rows, r));
            ranges = ranges || text.find('-') != std::string::npos;
            if (r.baseline_scaled_from.flops() > 0) text += "*";
            scaled = scaled || r.baseline_scaled_from.flops() > 0;
        }
        ijk_cells.push_back(text);
    }
    int stage_w = display_width("stage"), shape_w = display_width("shape"), ijk_w = display_width("x ijk");
    for (std::size_t i = 0; i < rows.size(); ++i) {
        stage_w = std::max(stage_w, display_width(rows[i].stage));
        shape_w = std::max(shape_w, display_width(shape_text(rows[i].shape)));
        ijk_w = std::max(ijk_w, display_width(ijk_cells[i]));
    }
    // The columns after "what it is": [shape] thr GFLOP/s [x ijk] % peak ok, two spaces apart.
    const int numbers_w = (shapes ? 2 + shape_w : 0) + 2 + 3 + 2 + 8 + (ijk ? 2 + ijk_w : 0) + 2 + 6 + 2 + 2;
    // "what it is" takes what is left of the slide (no more than the longest
    // summary), down to none on a narrow terminal.
    int summaries_w = 0;
    for (const auto& r : rows)
        if (const Stage* s = Registry::instance().find(r.stage)) summaries_w = std::max(summaries_w, display_width(s->summary));
    const int what_w = std::min(summaries_w, columns - stage_w - 2 - numbers_w);
    const bool what = what_w >= display_width("what it is");
    const auto line_of = [&](const std::string& stage, const std::string& summary, const std::string& shape,
                             const std::string& thr, const std::string& gflops, const std::string& ijk_cell,
                             const std::string& peak, const std::string& ok) {
        std::string l = pad_right(stage, stage_w);
        if (what) l += "  " + pad_right(shorten(summary, what_w), what_w);
        if (shapes) l += "  " + pad_left(shape, shape_w);
        l += "  " + pad_left(thr, 3) + "  " + pad_left(gflops, 8);
        if (ijk) l += "  " + pad_left(ijk_cell, ijk_w);
        return l + "  " + pad_left(peak, 6) + "  " + ok;
    };
    if (!shapes && !rows.empty()) lines.push_back("every row at " + shape_text(rows[0].shape) + " (M x N x K)");
    lines.push_back(line_of("stage", "what it is", "shape", "thr", "GFLOP/s", "x ijk", "% peak", "ok"));
    std::vector<std::string> not_timed;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const Measurement& r = rows[i];
        const Stage* s = Registry::instance().find(r.stage);
        const std::string summary = s ? s->summary : "";
        if (!timed(r)) {
            lines.push_back(line_of(r.stage, summary, shape_text(r.shape), std::to_string(r.threads), "-", "-", "-",
                                    r.skipped ? "-" : "✗"));
            const std::string why = r.stage + (r.skipped ? " skipped: " + r.skip_reason : " WRONG: " + r.failure);
            if (std::find(not_timed.begin(), not_timed.end(), why) == not_timed.end()) not_timed.push_back(why);  // once, not per shape
            continue;
        }
        lines.push_back(line_of(r.stage, summary, shape_text(r.shape), std::to_string(r.threads),
                                fixed(r.gflops, r.gflops >= 0.995 ? 1 : 2),
                                ijk_cells[i], r.percent_of_peak >= 0 ? fixed(r.percent_of_peak, 1) : "?", "✓"));
    }
    lines.push_back("");
    for (const std::string& why : not_timed) add_fitted(lines, why, columns, 2);
    // The legend, a short line a column.
    add_fitted(lines, "GFLOP/s: 2 flops per multiply-add over the median timed run (CPU: wall clock; GPU: CUDA "
                      "events)", columns, 9);
    if (ijk) add_fitted(lines, "x ijk  : speedup over the triple loop (lab1.ijk, reference) at the same shape", columns, 9);
    if (ranges)
        add_fitted(lines, "a-bx   : the repetitions spread the speedup from a to b, wider than a quiet machine's "
                          "noise", columns, 9);
    add_fitted(lines, "% peak : of the FMA peak measured on the row's threads (GPU: of the spec FP32 peak)", columns, 9);
    add_fitted(lines, "ok     : ✓ the result matched a float64 product within its error bound, ✗ it did not",
               columns, 9);
    if (scaled)
        for (const std::string& note : scaled_baseline_notes(rows)) add_fitted(lines, note, columns, 8);
    return lines;
}

std::vector<MachineNote> machine_notes(const std::vector<Measurement>& rows, const std::string& busy) {
    std::vector<MachineNote> notes;
    const PeakSpread peak = measured_peak_spread(1);
    if (const std::string spread = peak_spread_note(peak); !spread.empty()) {
        const bool others = peak.others_busy_cores < 0 || peak.others_busy_cores >= kQuietCores;  // as peak_spread_note says
        notes.push_back({others ? (peak.others_busy_cores < 0 ? std::string("other programs ran")
                                                              : "other programs used " +
                                                                    fixed(peak.others_busy_cores, 1) + " cores")
                                : "the CPU's clock moved",
                         "peak: " + spread});
    }
    for (int t : low_threaded_peaks(rows))
        notes.push_back({"the " + std::to_string(t) + "-thread peak was low", low_peak_warning(t)});
    if (!busy.empty()) {
        double load[1] = {0};
        const std::string brief = getloadavg(load, 1) == 1 ? "load " + fixed(load[0], 1) + " on " +
                                                                 std::to_string(describe_machine().logical_cores) +
                                                                 " cores"
                                                           : "the machine was busy";
        notes.push_back({brief, "load: " + busy});
    }
    if (const std::string why = impossible_numbers(rows); !why.empty())
        notes.push_back({"a peak measured on a busy machine", "% peak: " + why});
    return notes;
}

std::string note_line(const std::vector<MachineNote>& notes, int columns) {
    if (notes.empty()) return "";
    const bool timings = std::any_of(notes.begin(), notes.end(), [](const MachineNote& n) { return n.timings; });
    const std::string tail = std::string(timings ? " - numbers may move" : "") + "; details: make demo WIDE=1";
    // A note's label, the words before its ": " ("OpenBLAS warned"), and a "…":
    // the least of it that still says something.
    const auto label_width = [](const std::string& brief) {
        const std::size_t colon = brief.find(": ");
        return display_width(colon == std::string::npos ? brief : brief.substr(0, colon)) + 1;
    };
    // Room kept for each peer's warning, at least its label, so the
    // machine's notes never push it off the line.
    int kept = 0;
    for (const MachineNote& n : notes)
        if (!n.timings) kept += 2 + label_width(n.brief);
    const auto width_with = [&](const std::string& briefs) { return display_width("note: " + briefs + tail) + kept; };
    // The machine's notes, in order, those that fit whole (the first shortened if even it alone does not)...
    std::string briefs;
    for (const MachineNote& n : notes) {
        if (!n.timings) continue;
        const std::string more = briefs.empty() ? n.brief : briefs + "; " + n.brief;
        if (width_with(more) <= columns) briefs = more;
        else if (briefs.empty()) briefs = shorten(n.brief, columns - width_with(""));
    }
    // ...then each peer's warning, shortened into the room left.
    for (const MachineNote& n : notes) {
        if (n.timings) continue;
        kept -= 2 + label_width(n.brief);
        const std::string sep = briefs.empty() ? "" : "; ";
        briefs += sep + shorten(n.brief, columns - width_with(briefs + sep));
    }
    return "note: " + briefs + tail;
}

std::vector<std::string> demo_lines(const std::vector<Measurement>& rows, bool wide, int columns,
                                    const std::vector<MachineNote>& notes) {
    std::vector<std::string> full = table_lines(rows);
    int full_w = 0;
    for (const std::string& l : full) full_w = std::max(full_w, display_width(l));
    std::vector<std::string> lines{""};
    if (wide || (columns > 0 && full_w <= columns)) {
        lines.insert(lines.end(), full.begin(), full.end());
        lines.push_back("");
        for (std::string& l : table_notes(rows, columns, false)) lines.push_back(std::move(l));
        for (const MachineNote& n : notes) add_fitted(lines, n.full, columns, 0);
        return lines;
    }
    for (std::string& l : slide_table_lines(rows, columns)) lines.push_back(std::move(l));
    if (const std::string note = note_line(notes, columns); !note.empty()) lines.push_back(note);
    return lines;
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
