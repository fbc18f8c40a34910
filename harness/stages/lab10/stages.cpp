// Lab 10 - performance models. Not a table of stages: `mmlab lab 10` (make
// lab10) puts the measured stages of labs 1-8 on the roofline with the
// student's traffic and bound functions, then evaluates seed 004's
// latency-hidden-factor model with the student's LH / TimeOneRep / TimeTotal:
// on the paper's Tesla C1060 inputs (no GPU needed), and on this GPU beside
// the measured kernel times (harness/stages/lab10/measured_gpu.cpp).
// Commands: mmlab roofline, mmlab lh-model (the same sections, with options
// and CSV output for plots).
#include "harness/stages/lab10/lab10.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "cpu/machine.h"
#include "cpu/peak.h"
#include "cpu/stream_bandwidth.h"
#include "harness/cli.h"
#include "harness/commands.h"
#include "harness/csv_file.h"
#include "harness/gpu_backend.h"
#include "harness/report.h"
#include "harness/targets.h"
#include "labs/lab10/models.h"
#include "solutions/lab10/kernel_models.h"
#include "solutions/lab10/models.h"

namespace mml::lab10 {

ModelFns model_fns(Impl impl) {
    if (impl == Impl::Student)
        return {student::lab10::compulsory_bytes, student::lab10::tiled_bytes, student::lab10::arithmetic_intensity,
                student::lab10::roofline_gflops, student::lab10::time_total_cycles};
    return {reference::lab10::compulsory_bytes, reference::lab10::tiled_bytes, reference::lab10::arithmetic_intensity,
            reference::lab10::roofline_gflops, reference::lab10::time_total_cycles};
}

GpuSections& gpu_sections() {
    static GpuSections s;
    return s;
}

namespace {

// ---------------------------------------------------------------- the roofline

// The CPU stages placed on the roofline, and the tile each algorithm keeps in
// cache (rows of C it finishes while its inputs stay there). N means "a whole
// row of C" (tile_n = -1 is replaced by N).
const std::vector<RooflineStage>& cpu_stages() {
    static const std::vector<RooflineStage> s = {
        {"lab1.ijk", 1, 1, "1x1: each element of C reads a row of A and a column of B"},
        {"lab2.interchanged", 1, -1, "1xN: row i of C stays in cache while B streams past"},
        {"lab2.transposed", 1, -1, "1xN: row i of A stays in cache while B^T streams past"},
        {"lab2.blocked", 0, 0, ""},
        {"lab4.omp_static", 0, 0, ""},
        {"lab5.blis", 0, 0, ""},
        {"lab5.openblas", 0, 0, ""},
    };
    return s;
}

struct RoofRow {
    std::string device, stage, model;
    Shape shape;
    int threads = 1;
    double bytes = 0, ai = 0, gflops = 0, peak = 0, bw = 0, bound = 0;
};

std::vector<RoofRow> roof_rows(const std::vector<Measurement>& ms, const std::vector<RooflineStage>& stages,
                               const char* device, const ModelFns& f,
                               const std::function<double(const Measurement&)>& peak,
                               const std::function<double(const Measurement&)>& bw) {
    std::vector<RoofRow> rows;
    for (const Measurement& m : ms) {
        if (m.skipped || !m.passed || m.median_seconds <= 0) continue;
        const auto st = std::find_if(stages.begin(), stages.end(), [&](const RooflineStage& r) { return m.stage == r.stage; });
        if (st == stages.end()) continue;
        RoofRow r;
        r.device = device, r.stage = m.stage, r.shape = m.shape, r.threads = m.threads;
        r.gflops = m.gflops, r.peak = peak(m), r.bw = bw(m);
        auto add = [&](const std::string& model, double bytes) {
            r.model = model;
            r.bytes = bytes;
            r.ai = f.arithmetic_intensity(m.shape, bytes);
            r.bound = f.roofline_gflops(r.ai, r.peak, r.bw);
            rows.push_back(r);
        };
        add("compulsory", f.compulsory_bytes(m.shape));
        if (st->tile_m != 0) {
            const long long tm = st->tile_m < 0 ? m.shape.M : st->tile_m, tn = st->tile_n < 0 ? m.shape.N : st->tile_n;
            add("tile " + std::to_string(tm) + "x" + std::to_string(tn), f.tiled_bytes(m.shape, tm, tn));
        }
    }
    return rows;
}

void print_roof_rows(const std::vector<RoofRow>& rows) {
    std::printf("%-4s %-24s %-12s %-14s %10s %10s %10s %8s  %s\n", "", "stage", "shape", "traffic model", "FLOP/byte",
                "GFLOP/s", "bound", "% bound", "bound set by");
    for (const RoofRow& r : rows) {
        const bool memory = r.ai * r.bw < r.peak;
        std::printf("%-4s %-24s %-12s %-14s %10.3g %10.1f %10.1f %7.1f%%  %s\n", r.device.c_str(),
                    (r.stage + (r.threads > 1 ? " (" + std::to_string(r.threads) + "t)" : "")).c_str(),
                    shape_text(r.shape).c_str(), r.model.c_str(), r.ai, r.gflops, r.bound,
                    r.bound > 0 ? 100 * r.gflops / r.bound : 0.0, memory ? "memory" : "compute");
    }
}

void write_roof_csv(std::FILE* out, const std::vector<RoofRow>& rows) {
    for (const RoofRow& r : rows)
        std::fprintf(out, "%s,%s,%lld,%lld,%lld,%d,%s,%.6g,%.6g,%.4f,%.4f,%.4f,%.4f,%.3f\n", r.device.c_str(),
                     r.stage.c_str(), (long long)r.shape.M, (long long)r.shape.N, (long long)r.shape.K, r.threads,
                     r.model.c_str(), r.bytes, r.ai, r.gflops, r.peak, r.bw, r.bound,
                     r.bound > 0 ? 100 * r.gflops / r.bound : 0.0);
}
const char* kRoofCsvHeader =
    "device,stage,M,N,K,threads,model,bytes,flop_per_byte,gflops,peak_gflops,bandwidth_gbs,bound_gflops,pct_of_bound\n";

// Relative difference, for comparing the student's numbers with the reference's.
bool same(double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max({1.0, std::fabs(a), std::fabs(b)}); }

struct Comparison {
    int rows = 0, differ = 0;
    std::string first;  // the first row that differs
    void check(bool ok, const std::string& what) {
        ++rows;
        if (!ok && differ++ == 0) first = what;
    }
};

void compare_roof(const std::vector<RoofRow>& mine, const std::vector<RoofRow>& ref, Comparison& c) {
    for (std::size_t i = 0; i < ref.size(); ++i) {
        const bool ok = i < mine.size() && same(mine[i].bytes, ref[i].bytes) && same(mine[i].ai, ref[i].ai) &&
                        same(mine[i].bound, ref[i].bound);
        c.check(ok, ref[i].stage + " " + ref[i].model + " at " + shape_text(ref[i].shape) + ": bytes " +
                        (i < mine.size() ? fixed(mine[i].bytes, 0) : "-") + " (reference " + fixed(ref[i].bytes, 0) +
                        "), FLOP/byte " + (i < mine.size() ? fixed(mine[i].ai, 4) : "-") + " (reference " +
                        fixed(ref[i].ai, 4) + "), bound " + (i < mine.size() ? fixed(mine[i].bound, 2) : "-") +
                        " (reference " + fixed(ref[i].bound, 2) + ")");
    }
}

std::vector<Measurement> time_cpu_stages(const std::vector<Shape>& shapes, int threads, const BenchSettings& settings) {
    std::vector<Job> jobs;
    for (Shape s : shapes)
        for (const RooflineStage& rs : cpu_stages())
            if (const Stage* st = Registry::instance().find(rs.stage)) jobs.push_back({st, Impl::Reference, Impl::Reference, s, false, {}});
    BenchSettings b = settings;
    b.params.threads = threads;
    for (const Job& j : jobs) check_fits_in_memory(j.shape, Device::Cpu);
    return measure(jobs, b).rows;
}

// A shape as --size takes it: "1300" (square) or "300x200x100".
std::string size_arg(Shape s) {
    if (s.M == s.N && s.N == s.K) return std::to_string(s.M);
    return std::to_string(s.M) + "x" + std::to_string(s.N) + "x" + std::to_string(s.K);
}

// Prints the roofline section(s); returns the rows computed with `f` and with the reference.
struct RoofResult {
    std::vector<RoofRow> mine, ref;
    int wrong = 0;  // stages whose result failed its check (left off the table)
};

RoofResult roofline_section(const std::vector<Shape>& cpu_shapes, int threads, Shape gpu_shape, bool with_gpu,
                            const BenchSettings& settings, const ModelFns& f) {
    RoofResult out;
    const ModelFns ref = model_fns(Impl::Reference);
    std::printf("\n-- Part 1: the roofline (reference versions of the stages, timed now) --\n");
    const double peak1 = measured_peak_gflops(1), peakt = measured_peak_gflops(threads);
    const StreamBandwidth bw1 = measure_stream_bandwidth(1), bwt = threads > 1 ? measure_stream_bandwidth(threads) : bw1;
    std::printf("CPU: measured FMA peak %.1f GFLOP/s (1 thread), %.1f (%d threads); measured read bandwidth %.1f GB/s "
                "(1 thread), %.1f (%d threads); triad %.1f / %.1f GB/s\n",
                peak1, peakt, threads, bw1.read_gbs, bwt.read_gbs, threads, bw1.triad_gbs, bwt.triad_gbs);
    std::printf("     ridge point: %.1f FLOP/byte (1 thread), %.1f (%d threads): below it memory sets the bound\n",
                peak1 / bw1.read_gbs, peakt / bwt.read_gbs, threads);
    std::fflush(stdout);
    const auto ms = time_cpu_stages(cpu_shapes, threads, settings);
    auto peak = [&](const Measurement& m) { return m.threads > 1 ? peakt : peak1; };
    auto bw = [&](const Measurement& m) { return m.threads > 1 ? bwt.read_gbs : bw1.read_gbs; };
    out.mine = roof_rows(ms, cpu_stages(), "CPU", f, peak, bw);
    out.ref = roof_rows(ms, cpu_stages(), "CPU", ref, peak, bw);
    for (const Measurement& m : ms)
        if (m.skipped)  // past a slow stage's size limit (lab1.ijk beyond about 1290^3): say so, not vanish
            std::printf("CPU  %s at %s: not timed (too slow: over its limit of %.1fe9 multiply-adds), left off; "
                        "'mmlab run --stage %s --size %s --force' times it\n",
                        m.stage.c_str(), shape_text(m.shape).c_str(),
                        Registry::instance().find(m.stage) ? Registry::instance().find(m.stage)->max_macs / 1e9 : 0.0,
                        m.stage.c_str(), size_arg(m.shape).c_str());
        else if (!m.passed) {
            std::printf("CPU  %s at %s: WRONG (%s), left off\n", m.stage.c_str(), shape_text(m.shape).c_str(), m.failure.c_str());
            ++out.wrong;
        }
    const gpu::DeviceInfo info = gpu::probe();
    std::vector<RoofRow> gmine, gref;
    std::string gpu_note;
    if (!with_gpu) gpu_note = "GPU roofline: not asked for";
    else if (!gpu_sections().roofline) gpu_note = "GPU roofline: skipped: " + info.why_not;  // no CUDA in this build
    else if (!info.available) gpu_note = "GPU roofline: skipped: " + info.why_not;
    else {
        const GpuRoofline g = gpu_sections().roofline(gpu_shape, settings);
        std::printf("GPU: %s\n", g.device.c_str());
        auto gp = [&](const Measurement&) { return g.peak_gflops; };
        auto gb = [&](const Measurement&) { return g.bandwidth_gbs; };
        gmine = roof_rows(g.rows, g.stages, "GPU", f, gp, gb);
        gref = roof_rows(g.rows, g.stages, "GPU", ref, gp, gb);
        for (const Measurement& m : g.rows)
            if (!m.skipped && !m.passed) {
                std::printf("GPU  %s at %s: WRONG (%s), left off\n", m.stage.c_str(), shape_text(m.shape).c_str(), m.failure.c_str());
                ++out.wrong;
            }
    }
    out.mine.insert(out.mine.end(), gmine.begin(), gmine.end());
    out.ref.insert(out.ref.end(), gref.begin(), gref.end());
    std::printf("\n");
    print_roof_rows(out.mine);
    if (!gpu_note.empty()) std::printf("%s\n", gpu_note.c_str());
    std::printf("bound = min(peak, FLOP/byte x read bandwidth); GFLOP/s = 2MNK / median time. A stage above a tile\n"
                "model's bound moves fewer bytes than that model says: the caches give it more reuse.\n");
    return out;
}

// ---------------------------------------------------------------- the latency-hidden model

struct LhRow {
    std::string kernel;
    Shape shape;
    mml::lh::Occupancy occ;
    long long nb = 0, reps = 0;
    double predicted_ms = 0, printed_ms = 0, measured_ms = -1;
};

LhRow lh_row(const std::string& name, Shape s, const lh::Kernel& k, const ModelFns& f) {
    LhRow r;
    r.kernel = name, r.shape = s, r.occ = k.occupancy, r.nb = k.grid_blocks;
    r.reps = reference::lab10::rep_num(k.grid_blocks, k.occupancy.blocks_per_sm, k.sm_count);
    const double cycles_to_ms = 1e-6 / k.clock_ghz;
    r.predicted_ms = f.time_total_cycles(k) * cycles_to_ms;
    r.printed_ms = reference::lab10::time_one_rep_as_printed(k.blocks, k.occupancy) * double(r.reps) * cycles_to_ms;
    return r;
}

double gflops_of(Shape s, double ms) { return ms > 0 ? s.flops() / (ms * 1e-3) / 1e9 : 0; }

void print_lh_rows(const std::vector<LhRow>& rows, bool measured) {
    std::printf("%-9s %-7s %-9s %8s %6s %12s %9s %12s %9s %8s %14s\n", "kernel", "n", "TLPxBLP", "NB", "RepNum",
                "predicted", "GFLOP/s", measured ? "measured" : "", measured ? "GFLOP/s" : "", measured ? "error" : "",
                "sum as printed");
    for (const LhRow& r : rows) {
        std::string meas = "", mg = "", err = "";
        if (measured && r.measured_ms > 0) {
            meas = format_seconds(r.measured_ms / 1e3);
            mg = fixed(gflops_of(r.shape, r.measured_ms), 0);
            err = (r.predicted_ms >= r.measured_ms ? "+" : "") + fixed(100 * (r.predicted_ms - r.measured_ms) / r.measured_ms, 0) + "%";
        } else if (measured) meas = "not run";
        std::printf("%-9s %-7lld %-9s %8lld %6lld %12s %9.0f %12s %9s %8s %14s\n", r.kernel.c_str(), (long long)r.shape.M,
                    (std::to_string(r.occ.warps_per_block) + "x" + std::to_string(r.occ.blocks_per_sm)).c_str(), r.nb,
                    r.reps, format_seconds(r.predicted_ms / 1e3).c_str(), gflops_of(r.shape, r.predicted_ms),
                    meas.c_str(), mg.c_str(), err.c_str(), format_seconds(r.printed_ms / 1e3).c_str());
    }
}

void compare_lh(const std::vector<LhRow>& mine, const std::vector<LhRow>& ref, Comparison& c) {
    for (std::size_t i = 0; i < ref.size(); ++i)
        c.check(i < mine.size() && same(mine[i].predicted_ms, ref[i].predicted_ms),
                "TimeTotal of " + ref[i].kernel + " at n = " + std::to_string(ref[i].shape.M) + ": " +
                    (i < mine.size() ? fixed(mine[i].predicted_ms, 4) : "-") + " ms (reference " +
                    fixed(ref[i].predicted_ms, 4) + " ms)");
}

std::vector<long long> paper_sizes(const std::vector<long long>& exps, bool plus32) {
    std::vector<long long> v;
    for (long long e : exps) v.push_back((1LL << e) + (plus32 ? 32 : 0));
    return v;
}

// The paper's machine, with its own inputs (Tables 2-3): needs no GPU.
void c1060_section(const ModelFns& f, Comparison& c) {
    using namespace reference::lab10;
    const Hardware hw = paper_c1060();
    std::printf("\nModel on the paper's Tesla C1060 (Table 2: 30 SMs, 1.30 GHz, global 550 cycles / 102 GB/s, shared 36\n"
                "cycles; occupancy from Table 3: naive and CUBLAS 1.1 with 16x16 threads, 4 blocks an SM). The paper\n"
                "gives its measured C1060 results only as plots (Fig. 14-16) and a mean error of 0.19.\n");
    std::vector<LhRow> mine, ref;
    const lh::Occupancy occ{8, 4};
    for (int kernel = 0; kernel < 2; ++kernel)
        for (long long n : paper_sizes({8, 9, 10, 11, 12}, true)) {
            const Shape s{n, n, n};
            const lh::Kernel k = kernel == 0 ? naive_model(hw, s, 16, 16, occ) : tiled_model(hw, s, 16, occ);
            const char* name = kernel == 0 ? "naive16" : "tiled16";
            mine.push_back(lh_row(name, s, k, f));
            ref.push_back(lh_row(name, s, k, model_fns(Impl::Reference)));
        }
    print_lh_rows(mine, false);
    compare_lh(mine, ref, c);
}

// The sizes of the H100 run recorded on 2026-11-22 (the paper's 2^i + 32 and 2^i).
const std::vector<long long> kRecordedH100Sizes = {1056, 2080, 4128, 1024, 2048, 4096};

std::string recorded_sizes_text() {
    std::string t;
    for (long long n : kRecordedH100Sizes) t += (t.empty() ? "" : ", ") + std::to_string(n);
    return t;
}

// Where there is no GPU: the model on the H100 inputs measured on 2026-11-22,
// beside the kernel times measured in that run (handouts/data/lab10-lh-h100.csv,
// read from the repository when present), at the recorded sizes in `sizes`
// (all of them when it is empty). Nothing here is measured now.
void recorded_h100_section(const std::vector<long long>& sizes, const ModelFns& f, Comparison& c) {
    using namespace reference::lab10;
    const Hardware hw = recorded_h100();
    std::map<std::pair<std::string, long long>, double> measured;
    if (std::FILE* in = std::fopen("handouts/data/lab10-lh-h100.csv", "r")) {
        char line[512];
        while (std::fgets(line, sizeof line, in)) {
            char name[32];
            long long n = 0;
            int wpb = 0, bps = 0;
            long long nb = 0, reps = 0;
            double pred = 0, meas = 0;
            if (std::sscanf(line, "%31[^,],%lld,%d,%d,%lld,%lld,%lf,%lf", name, &n, &wpb, &bps, &nb, &reps, &pred, &meas) == 8)
                measured[{name, n}] = meas;
        }
        std::fclose(in);
    }
    std::printf("\nNo GPU here: the model on the H100 inputs recorded on 2026-11-22 (%d SMs, %.2f GHz, DRAM %.0f cycles,\n"
                "shared %.0f cycles, %.0f GB/s; occupancy as the CUDA runtime reported it), beside the kernel times\n"
                "measured in that run (%s).\n",
                hw.sm_count, hw.clock_ghz, hw.latency_global, hw.latency_shared, hw.bandwidth_gbs,
                measured.empty() ? "handouts/data/lab10-lh-h100.csv not found: predictions only"
                                 : "handouts/data/lab10-lh-h100.csv");
    std::vector<LhRow> mine, ref;
    for (const char* name : {"naive", "tiled16", "tiled32", "volkov"})
        for (long long n : sizes.empty() ? kRecordedH100Sizes : sizes) {
            const Shape s{n, n, n};
            const lh::Occupancy occ = recorded_h100_occupancy(name);
            const std::string k = name;
            const lh::Kernel model = k == "naive"     ? naive_model(hw, s, kNaiveBlockX, kNaiveBlockY, occ)
                                     : k == "tiled16" ? tiled_model(hw, s, 16, occ)
                                     : k == "tiled32" ? tiled_model(hw, s, 32, occ)
                                                      : volkov_model(hw, s, occ);
            LhRow r = lh_row(name, s, model, f);
            const auto it = measured.find({k, n});
            r.measured_ms = it == measured.end() ? -1 : it->second;
            mine.push_back(r);
            ref.push_back(lh_row(name, s, model, model_fns(Impl::Reference)));
        }
    print_lh_rows(mine, !measured.empty());
    compare_lh(mine, ref, c);
}

struct LhResult {
    std::vector<LhRow> mine;
    std::string note;  // why the GPU part did not run
};

LhResult gpu_lh_section(const std::vector<long long>& sizes, int reps, bool quiet, const ModelFns& f, Comparison& c) {
    LhResult out;
    const gpu::DeviceInfo info = gpu::probe();
    if (!gpu_sections().lh || !info.available) {
        std::printf("\nlatency-hidden model on this GPU, predicted vs measured: skipped: %s\n",
                    info.why_not.c_str());  // without CUDA in the build, probe() says why
        recorded_h100_section(sizes, f, c);
        return out;
    }
    const GpuLh g = gpu_sections().lh(sizes, reps, quiet);
    std::printf("\nModel on this GPU, predicted vs measured. %s\ninputs: %s\n", g.device.c_str(), g.inputs.c_str());
    std::string last;
    for (const LhCase& k : g.cases)
        if (k.kernel != last) {
            last = k.kernel;
            std::printf("  %-8s %3d registers/thread, %5d bytes shared/block, %d warps/block, %d blocks/SM (occupancy API)%s\n",
                        k.kernel.c_str(), k.regs_per_thread, k.shared_bytes, k.model.occupancy.warps_per_block,
                        k.blocks_per_sm_device, k.check == "ok" ? "" : (", CHECK: " + k.check).c_str());
        }
    std::vector<LhRow> ref;
    for (const LhCase& k : g.cases) {
        LhRow r = lh_row(k.kernel, k.shape, k.model, f);
        r.measured_ms = k.measured_ms;
        out.mine.push_back(r);
        ref.push_back(lh_row(k.kernel, k.shape, k.model, model_fns(Impl::Reference)));
    }
    print_lh_rows(out.mine, true);
    compare_lh(out.mine, ref, c);
    // Mean |error| per kernel, as the paper reports it (0.19 over its three kernels on the C1060).
    std::vector<std::string> names;
    for (const LhRow& r : out.mine)
        if (std::find(names.begin(), names.end(), r.kernel) == names.end()) names.push_back(r.kernel);
    std::printf("mean |predicted - measured| / measured:");
    double all = 0;
    int count = 0;
    for (const std::string& n : names) {
        double sum = 0;
        int m = 0;
        for (const LhRow& r : out.mine)
            if (r.kernel == n && r.measured_ms > 0) sum += std::fabs(r.predicted_ms - r.measured_ms) / r.measured_ms, ++m;
        if (m) std::printf(" %s %.2f;", n.c_str(), sum / m);
        all += sum, count += m;
    }
    if (count) std::printf(" all %.2f (the paper, C1060: 0.19)\n", all / count);
    std::printf("predicted: TimeTotal with the longest exposed wait per block; 'sum as printed': the paper's sum over\n"
                "warps read literally. The model sends every global access to DRAM (no caches): handouts/lab10.md.\n");
    return out;
}

void write_lh_csv(std::FILE* out, const std::vector<LhRow>& rows) {
    std::fprintf(out, "kernel,n,warps_per_block,blocks_per_sm,grid_blocks,rep_num,predicted_ms,measured_ms,printed_sum_ms\n");
    for (const LhRow& r : rows)
        std::fprintf(out, "%s,%lld,%d,%d,%lld,%lld,%.6f,%.6f,%.6f\n", r.kernel.c_str(), (long long)r.shape.M,
                     r.occ.warps_per_block, r.occ.blocks_per_sm, r.nb, r.reps, r.predicted_ms, r.measured_ms, r.printed_ms);
}

// ---------------------------------------------------------------- commands

using Args = CommandArgs;  // harness/cli.h

int default_threads() { return std::max(1, describe_machine().logical_cores); }

const char* kRoofUsage = R"(usage: mmlab roofline [--size LIST] [--gpu-size N] [--threads T] [--no-gpu] [--student] [--csv FILE]
                      [--quiet]
Places the measured stages of labs 1-8 on the roofline. CPU: lab1.ijk, lab2.interchanged,
lab2.transposed, lab2.blocked, lab4.omp_static, lab5.blis, lab5.openblas at --size (default
1000; threaded stages on --threads, default all cores), against the measured FMA peak (mmlab
peak) and the measured read bandwidth (STREAM-style, cpu/stream_bandwidth.h). GPU (when
present): lab 6-8 kernels and cuBLAS at --gpu-size (default 4096) against the FP32 spec peak
and the measured read bandwidth. Each stage gets the compulsory-traffic model and, where the
algorithm has one, its tile model. Columns: FLOP/byte, measured GFLOP/s, the bound
min(peak, FLOP/byte x bandwidth), % of bound. --student uses your labs/lab10 functions (default:
the reference). --csv writes every row (for plots: handouts/lab10.md has a gnuplot line).
--quiet: no progress lines on stderr.
)";

int run_roofline(const std::vector<std::string>& raw) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    Args a(raw, "roofline");
    std::vector<Shape> shapes = {{1000, 1000, 1000}};
    Shape gpu_shape{4096, 4096, 4096};
    int threads = default_threads();
    bool with_gpu = true;
    Impl impl = Impl::Reference;
    std::string csv;
    BenchSettings settings;
    for (std::string fl; a.next(fl);) {
        if (fl == "--size") shapes = parse_shapes(a.value(fl));
        else if (fl == "--gpu-size") {
            const auto v = parse_shapes(a.value(fl));
            if (v.size() != 1) throw UsageError("--gpu-size takes one shape");
            gpu_shape = v[0];
        } else if (fl == "--threads") threads = int(parse_integer(a.value(fl), "--threads", 1, 1024));
        else if (fl == "--no-gpu") with_gpu = false;
        else if (fl == "--student") impl = Impl::Student;
        else if (fl == "--csv") csv = a.value(fl);
        else if (fl == "--quiet") settings.quiet = true;
        else a.unknown(fl);
    }
    CsvFile out(csv);
    print_machine_header(with_gpu);
    const RoofResult r = roofline_section(shapes, threads, gpu_shape, with_gpu, settings, model_fns(impl));
    if (out.get()) {
        std::fputs(kRoofCsvHeader, out.get());
        write_roof_csv(out.get(), r.mine);
        out.commit();
        std::printf("wrote %s\n", csv.c_str());
    }
    return r.wrong > 0 ? 1 : 0;  // a wrong stage is a failure, even though the table has the others
}

// ---------------------------------------------------------------- --explain: where the time goes

lh::Kernel model_for(const std::string& kernel, const std::string& inputs, long long n) {
    using namespace reference::lab10;
    const Shape s{n, n, n};
    const bool known = kernel == "naive" || kernel == "tiled16" || kernel == "tiled32" || kernel == "volkov";
    if (!known) throw UsageError("--explain takes naive, tiled16, tiled32 or volkov, got '" + kernel + "'");
    if (inputs == "c1060") {
        if (kernel != "naive" && kernel != "tiled16")
            throw UsageError("on the C1060's inputs --explain takes naive or tiled16 (Table 3 gives only their "
                             "occupancy; tile 32 needs 1024 threads a block, more than the C1060 allows)");
        const Hardware hw = paper_c1060();
        return kernel == "naive" ? naive_model(hw, s, 16, 16, {8, 4}) : tiled_model(hw, s, 16, {8, 4});
    }
    if (inputs == "gpu") {
        if (!gpu_sections().lh || !gpu::probe().available)
            throw UsageError("--inputs gpu needs a CUDA GPU, but " +
                             (gpu_sections().lh ? gpu::probe().why_not : std::string("this build has no CUDA")));
        for (const LhCase& c : gpu_sections().lh({n}, 1, true).cases)
            if (c.kernel == kernel) return c.model;
        throw UsageError("no case for kernel " + kernel);
    }
    if (inputs != "recorded") throw UsageError("--inputs takes gpu, recorded or c1060, got '" + inputs + "'");
    const Hardware hw = recorded_h100();
    const lh::Occupancy occ = recorded_h100_occupancy(kernel);
    return kernel == "naive"     ? naive_model(hw, s, kNaiveBlockX, kNaiveBlockY, occ)
           : kernel == "tiled16" ? tiled_model(hw, s, 16, occ)
           : kernel == "tiled32" ? tiled_model(hw, s, 32, occ)
                                 : volkov_model(hw, s, occ);
}

// One row per kind of basic block (blocks with the same description added
// up): how often it runs, its inputs, and its share of TimeOneRep.
void explain(const lh::Kernel& k, const std::string& inputs, long long n) {
    namespace ref = reference::lab10;
    struct Kind {
        std::string what;
        long long count = 0, barriers = 0;
        double ilp = 0, latency = 0, bandwidth = 0, issue = 0, exposed = 0;
    };
    std::vector<Kind> kinds;
    const int tnt = k.occupancy.warps_on_sm();
    for (std::size_t i = 0; i < k.blocks.size(); ++i) {
        const lh::Block& b = k.blocks[i];
        const lh::Block& next = k.blocks[(i + 1) % k.blocks.size()];
        double exposed = 0;
        for (int j = 1; j <= tnt; ++j)
            exposed = std::max(exposed, ref::waiting_cycles(b, k.occupancy, j) * ref::latency_hidden(b, next, k.occupancy, j));
        auto it = std::find_if(kinds.begin(), kinds.end(), [&](const Kind& x) { return x.what == b.what; });
        if (it == kinds.end()) {
            kinds.push_back({b.what, 0, 0, b.ilp, b.latency, b.bandwidth, 0, 0});
            it = kinds.end() - 1;
        }
        ++it->count;
        it->barriers += b.barrier ? 1 : 0;
        it->issue += tnt * b.ilp;
        it->exposed += exposed;
    }
    const double one_rep = ref::time_one_rep(k.blocks, k.occupancy);
    const long long reps = ref::rep_num(k.grid_blocks, k.occupancy.blocks_per_sm, k.sm_count);
    std::printf("\n%s at n = %lld on the %s inputs: TLP x BLP = %d x %d warps, NB %lld, RepNum %lld, clock %.2f GHz\n",
                k.name.c_str(), n, inputs.c_str(), k.occupancy.warps_per_block, k.occupancy.blocks_per_sm, k.grid_blocks,
                reps, k.clock_ghz);
    std::printf("%-48s %7s %8s %8s %8s %12s %12s %7s\n", "basic block (one warp)", "count", "ILP", "La", "Bw",
                "TNT x ILP", "exposed", "share");
    for (const Kind& x : kinds)
        std::printf("%-48s %7lld %8.2f %8.1f %8.2f %12.0f %12.0f %6.1f%%\n",
                    (x.what + (x.barriers == x.count ? (x.what.find("barrier") == std::string::npos ? ", barrier" : "")
                               : x.barriers    ? " (" + std::to_string(x.barriers) + " at barrier)"
                                               : std::string())).c_str(), x.count, x.ilp, x.latency, x.bandwidth, x.issue,
                    x.exposed, 100 * (x.issue + x.exposed) / one_rep);
    std::printf("TimeOneRep %.0f cycles x RepNum %lld = %.0f cycles = %s. In cycles: ILP, La, Bw of one block;\n"
                "the last three columns add up over its count. exposed = max over warps j of W(i,j) x LH(i,j).\n",
                one_rep, reps, one_rep * double(reps), format_seconds(one_rep * double(reps) / (k.clock_ghz * 1e9)).c_str());
}

const char* kLhUsage = R"(usage: mmlab lh-model [--sizes LIST] [--reps R] [--student] [--csv FILE] [--quiet]
       mmlab lh-model --explain KERNEL [--n N] [--inputs gpu|recorded|c1060]
Seed 004's latency-hidden-factor model for lab 6's naive kernel, lab 7's tiled16/tiled32
(the paper's CUBLAS 1.1 scheme) and lab 7's Volkov kernel. First on the paper's Tesla C1060
inputs (Tables 2-3; no GPU needed), then on this GPU: occupancy from the compiled kernels
(cudaFuncGetAttributes, cudaOccupancyMaxActiveBlocksPerMultiprocessor), latencies from the
pointer-chasing micro-benchmarks (mmlab gpu-latency), bandwidth measured, and each kernel timed
(CUDA events, median of --reps, default 5) at every n of --sizes (default: 2^i + 32 as in the
paper and 2^i, i = 10..12). Without a GPU, the H100 run recorded on 2026-11-22 stands in for this
GPU: --sizes then picks from its sizes (1056, 2080, 4128, 1024, 2048, 4096); --reps and --csv need
a GPU. --student uses your labs/lab10 functions (default: the reference). --csv writes the GPU rows.
--explain KERNEL (naive, tiled16, tiled32, volkov) shows where the model's time goes for one
kernel at n = N (default 4096): one row per kind of basic block, with its ILP, latency, transfer
time, issue time and exposed wait; --inputs: this GPU's (default where there is one), the H100's
recorded on 2026-11-22 (default elsewhere) or the paper's C1060 (naive, tiled16).
)";

int run_lh(const std::vector<std::string>& raw) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    Args a(raw, "lh-model");
    std::vector<long long> sizes;
    int reps = 5;
    Impl impl = Impl::Reference;
    std::string csv, explain_kernel, inputs;
    long long n = 4096;
    bool quiet = false;
    for (std::string fl; a.next(fl);) {
        if (fl == "--quiet") quiet = true;
        else if (fl == "--sizes") sizes = parse_integer_list(a.value(fl), "--sizes", 1, 65536);
        else if (fl == "--reps") reps = int(parse_integer(a.value(fl), "--reps", 1, 1000));
        else if (fl == "--student") impl = Impl::Student;
        else if (fl == "--csv") csv = a.value(fl);
        else if (fl == "--explain") explain_kernel = a.value(fl);
        else if (fl == "--n") n = parse_integer(a.value(fl), "--n", 1, 65536);
        else if (fl == "--inputs") inputs = a.value(fl);
        else a.unknown(fl);
    }
    if (!explain_kernel.empty()) {
        if (inputs.empty()) inputs = gpu_sections().lh && gpu::probe().available ? "gpu" : "recorded";
        explain(model_for(explain_kernel, inputs, n), inputs, n);
        return 0;
    }
    if (!(gpu_sections().lh && gpu::probe().available)) {
        // No GPU: the recorded H100 rows stand in, and they exist at their sizes only.
        for (long long n : sizes)
            if (std::find(kRecordedH100Sizes.begin(), kRecordedH100Sizes.end(), n) == kRecordedH100Sizes.end())
                throw UsageError("--sizes " + std::to_string(n) + ": with no GPU here, lh-model shows the H100 run "
                                 "recorded on 2026-11-22, which has n = " + recorded_sizes_text() + " only");
    }
    if (sizes.empty()) {
        sizes = paper_sizes({10, 11, 12}, true);
        for (long long n : paper_sizes({10, 11, 12}, false)) sizes.push_back(n);
    }
    CsvFile out(csv);
    Comparison c;
    c1060_section(model_fns(impl), c);
    const LhResult r = gpu_lh_section(sizes, reps, quiet, model_fns(impl), c);
    if (!r.note.empty()) std::printf("\n%s\n", r.note.c_str());
    if (out.get() && !r.mine.empty()) {
        write_lh_csv(out.get(), r.mine);
        out.commit();
        std::printf("wrote %s\n", csv.c_str());
    } else if (!csv.empty())
        std::printf("--csv %s not written: it holds this GPU's measured rows, and none were measured here\n", csv.c_str());
    return 0;
}

CommandRegistrar roofline_cmd({"roofline", "lab 10: the measured stages of labs 1-8 on the roofline (CSV for plots)",
                               kRoofUsage, run_roofline, 10});
CommandRegistrar lh_cmd({"lh-model", "lab 10: seed 004's latency-hidden model, predicted vs measured (naive, tiled, Volkov)",
                         kLhUsage, run_lh, 10});

// ---------------------------------------------------------------- make lab10

const char* kTarget =
    "your eight functions give the reference's numbers (relative difference <= 1e-9) on every row: the roofline's "
    "bytes, FLOP/byte and bounds, and the model's TimeTotal on the C1060 and, with a GPU, on this GPU";

int run_lab10(const Options& o) {
    if (!o.json_path.empty())
        throw UsageError("lab 10 writes CSV, not --json: use 'mmlab roofline --csv FILE' and 'mmlab lh-model --csv FILE'");
    const Impl impl = o.solution ? Impl::Reference : Impl::Student;
    const ModelFns f = model_fns(impl);
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    std::printf("== lab 10: performance models: the roofline, seed 004's latency-hidden-factor model ==\n");
    if (o.solution) std::printf("SOLUTION=1: the reference functions run in the student's place.\n");
    print_machine_header(true);
    const std::vector<Shape> shapes = o.shapes.empty() ? std::vector<Shape>{{1000, 1000, 1000}} : o.shapes;
    BenchSettings settings;
    settings.reps = o.reps;
    settings.quiet = o.quiet;
    Comparison c;
    const RoofResult roof = roofline_section(shapes, o.threads, {4096, 4096, 4096}, true, settings, f);
    compare_roof(roof.mine, roof.ref, c);
    std::printf("\n-- Part 2: seed 004's latency-hidden-factor model --\n");
    c1060_section(f, c);
    std::vector<long long> sizes = paper_sizes({10, 11, 12}, true);
    for (long long n : paper_sizes({10, 11, 12}, false)) sizes.push_back(n);
    const LhResult lh = gpu_lh_section(sizes, 5, o.quiet, f, c);
    if (!lh.note.empty()) std::printf("\n%s\n", lh.note.c_str());
    const bool met = c.differ == 0 && c.rows > 0;
    std::printf("\ntarget : %s\nresult : %s - %s\n", kTarget, met ? "TARGET MET" : "TARGET NOT MET",
                met ? (std::to_string(c.rows) + " rows agree with the reference").c_str()
                    : (std::to_string(c.differ) + " of " + std::to_string(c.rows) + " rows differ; first: " + c.first).c_str());
    return met ? 0 : 1;
}

Registrar lab10_registration([](Registry& reg) {
    Lab lab;
    lab.number = 10;
    lab.default_shapes = {{1000, 1000, 1000}};
    lab.target = kTarget;
    lab.run = run_lab10;
    reg.add_lab(std::move(lab));
});

}  // namespace
}  // namespace mml::lab10
