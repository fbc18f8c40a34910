// Lab 10, part 1: the roofline. The measured stages of labs 1-8 and 11
// (reference versions, timed now; models/roofline_stages.h says which, with
// which tile model and under which ceiling) placed against the peak of the
// units they run on (CPU: measured FMA peak; GPU: spec FP32, bf16 or TF32
// tensor-core peak) and the measured read bandwidth, with the traffic and
// bound of the functions given (the student's under make lab10, the
// reference's by default under `mmlab roofline`). Also `mmlab roofline`.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "cpu/machine.h"
#include "cpu/peak.h"
#include "cpu/stream_bandwidth.h"
#include "harness/cli.h"
#include "harness/commands.h"
#include "harness/csv_file.h"
#include "harness/format.h"
#include "harness/gpu_backend.h"
#include "harness/jobs.h"
#include "harness/report.h"
#include "harness/run_stage.h"
#include "harness/stages/lab10/lab10.h"

namespace mml::lab10 {
namespace {

using roofline::RooflineStage;

struct RoofRow {
    std::string device, stage, model, ceiling;
    std::string code;  // whose version of the stage was timed ("reference" here: lab 10 times the earlier labs' answers)
    Shape shape;
    int threads = 1;
    double bytes = 0, ai = 0, gflops = 0, peak = 0, bw = 0, bound = 0;
};

// One row per traffic model of each measured stage that passed its check.
// The model functions count 4 bytes an element; a stage that reads bf16 A and
// B (RooflineStage::input_bytes) has its inputs' part of the bytes scaled.
std::vector<RoofRow> roof_rows(const std::vector<Measurement>& ms, const std::vector<RooflineStage>& stages,
                               const char* device, const ModelFns& f,
                               const std::function<double(const Measurement&, const RooflineStage&)>& peak,
                               const std::function<double(const Measurement&)>& bw) {
    std::vector<RoofRow> rows;
    for (const Measurement& m : ms) {
        if (m.skipped || !m.passed || m.median_seconds <= 0) continue;
        const auto st = std::find_if(stages.begin(), stages.end(), [&](const RooflineStage& r) { return m.stage == r.stage; });
        if (st == stages.end()) continue;
        RoofRow r;
        r.device = device, r.stage = m.stage, r.shape = m.shape, r.threads = m.threads, r.code = impl_name(m.runs);
        r.gflops = m.gflops, r.peak = peak(m, *st), r.bw = bw(m);
        r.ceiling = roofline::ceiling_name(st->ceiling);
        auto add = [&](const std::string& model, double float32_bytes) {
            r.model = model;
            r.bytes = st->input_bytes == 4 ? float32_bytes
                                           : roofline::bytes_at_input_size(float32_bytes, m.shape.M, m.shape.N,
                                                                           st->input_bytes);
            r.ai = f.arithmetic_intensity(m.shape, r.bytes);
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
    std::printf("%-4s %-24s %-9s %-12s %-14s %10s %10s %10s %8s  %s\n", "", "stage", "code", "shape", "traffic model",
                "FLOP/byte", "GFLOP/s", "bound", "% bound", "bound set by");
    for (const RoofRow& r : rows) {
        const bool memory = r.ai * r.bw < r.peak;
        const std::string by = memory ? "memory" : r.device == "GPU" ? "compute (" + r.ceiling + ")" : "compute";
        std::printf("%-4s %-24s %-9s %-12s %-14s %10.3g %10.1f %10.1f %7.1f%%  %s\n", r.device.c_str(),
                    (r.stage + (r.threads > 1 ? " (" + std::to_string(r.threads) + "t)" : "")).c_str(), r.code.c_str(),
                    shape_text(r.shape).c_str(), r.model.c_str(), r.ai, r.gflops, r.bound,
                    r.bound > 0 ? 100 * r.gflops / r.bound : 0.0, by.c_str());
    }
}

// `ceiling`: the units whose peak is peak_gflops (FP32, bf16 or TF32 tensor cores).
const char* kRoofCsvHeader =
    "device,stage,M,N,K,threads,model,bytes,flop_per_byte,gflops,peak_gflops,bandwidth_gbs,bound_gflops,pct_of_bound,"
    "ceiling\n";

void write_roof_csv(std::FILE* out, const std::vector<RoofRow>& rows) {
    std::fputs(kRoofCsvHeader, out);
    for (const RoofRow& r : rows)
        std::fprintf(out, "%s,%s,%lld,%lld,%lld,%d,%s,%.6g,%.6g,%.4f,%.4f,%.4f,%.4f,%.3f,%s\n", r.device.c_str(),
                     r.stage.c_str(), (long long)r.shape.M, (long long)r.shape.N, (long long)r.shape.K, r.threads,
                     r.model.c_str(), r.bytes, r.ai, r.gflops, r.peak, r.bw, r.bound,
                     r.bound > 0 ? 100 * r.gflops / r.bound : 0.0, r.ceiling.c_str());
}

void compare_roof(const std::vector<RoofRow>& mine, const std::vector<RoofRow>& ref, Comparison& c) {
    for (std::size_t i = 0; i < ref.size(); ++i) {
        const bool ok = i < mine.size() && same_number(mine[i].bytes, ref[i].bytes) &&
                        same_number(mine[i].ai, ref[i].ai) && same_number(mine[i].bound, ref[i].bound);
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
        for (const RooflineStage& rs : roofline::cpu_stages())
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

// A stage the table leaves off, and why; returns whether it was wrong.
bool say_left_off(const char* device, const Measurement& m) {
    const Stage* st = Registry::instance().find(m.stage);
    const bool too_slow = st && st->max_macs > 0 && double(m.shape.M) * double(m.shape.N) * double(m.shape.K) > st->max_macs;
    if (m.skipped && !too_slow) {  // no reference in this build, or a stage this GPU cannot run (wgmma below sm_90)
        std::printf("%-4s %s at %s: not timed: %s\n", device, m.stage.c_str(), shape_text(m.shape).c_str(),
                    m.skip_reason.c_str());
    } else if (m.skipped) {  // past a slow stage's size limit (lab1.ijk beyond about 1290^3): say so, not vanish
        std::printf("%-4s %s at %s: not timed (too slow: over its limit of %.1fe9 multiply-adds), left off; "
                    "'mmlab run --stage %s --size %s --force' times it\n",
                    device, m.stage.c_str(), shape_text(m.shape).c_str(), st ? st->max_macs / 1e9 : 0.0,
                    m.stage.c_str(), size_arg(m.shape).c_str());
    } else if (!m.passed) {
        std::printf("%-4s %s at %s: WRONG (%s), left off\n", device, m.stage.c_str(), shape_text(m.shape).c_str(),
                    m.failure.c_str());
        return true;
    }
    return false;
}

}  // namespace

double GpuRoofline::peak_for(roofline::Ceiling c) const {
    switch (c) {
        case roofline::Ceiling::Bf16Tensor: return bf16_peak_gflops;
        case roofline::Ceiling::Tf32Tensor: return tf32_peak_gflops;
        default: return peak_gflops;
    }
}

int roofline_section(const std::vector<Shape>& cpu_shapes, int threads, Shape gpu_shape, bool with_gpu,
                     const BenchSettings& settings, const ModelFns& f, Comparison& c, CsvFile* csv) {
    const ModelFns* ref = model_fns(Impl::Reference);
    int wrong = 0;
    // Two different things are someone's code here, and both are said: the
    // stages timed (the reference versions of labs 1-8 and 11: the code column)
    // and the traffic and bound functions that place them (lab 10's tasks 1-4).
    const bool own_model = &f == model_fns(Impl::Student);
    std::printf("\n-- Part 1: the roofline (reference versions of the stages, timed now) --\n");
    std::printf("model: %s (compulsory_bytes, tiled_bytes, arithmetic_intensity, roofline_gflops)%s\n",
                own_model ? "your lab 10 functions, labs/lab10/" : "the reference's lab 10 functions",
                own_model ? "" : "; --student uses yours");
    const double peak1 = measured_peak_gflops(1), peakt = measured_peak_gflops(threads);
    const StreamBandwidth bw1 = measure_stream_bandwidth(1), bwt = threads > 1 ? measure_stream_bandwidth(threads) : bw1;
    std::printf("CPU: measured FMA peak %.1f GFLOP/s (1 thread), %.1f (%d threads); measured read bandwidth %.1f GB/s "
                "(1 thread), %.1f (%d threads); triad %.1f / %.1f GB/s\n",
                peak1, peakt, threads, bw1.read_gbs, bwt.read_gbs, threads, bw1.triad_gbs, bwt.triad_gbs);
    // A ridge from a peak that a busy machine lowered (or kept from being measured) says nothing: it is
    // left out where that peak could not be measured, and the threaded one where it came out below the 1-thread one.
    const PeakSpread spread1 = measured_peak_spread(1), spreadt = measured_peak_spread(threads);
    const bool ridge1 = spread1.unsure.empty();
    const bool ridget = threads == 1 ? ridge1 : peakt >= peak1 && spreadt.unsure.empty();
    std::printf("     ridge point: %s (1 thread), %s (%d threads): below it memory sets the bound\n",
                ridge1 ? (fixed(peak1 / bw1.read_gbs, 1) + " FLOP/byte").c_str() : "not shown",
                ridget ? fixed(peakt / bwt.read_gbs, 1).c_str() : "not shown", threads);
    for (const PeakSpread* p : {&spread1, &spreadt}) {
        if (p->stored || !p->unsure.empty()) std::printf("     %s\n", peak_spread_note(*p).c_str());
        if (threads == 1) break;
    }
    if (threads > 1 && peakt < peak1 && spreadt.unsure.empty())
        std::printf("     the %d-thread peak came out below the 1-thread one: other programs held cores while it was "
                    "measured, so its ridge is not shown and the threaded rows' %% of roof rest on it: rerun when quiet\n",
                    threads);
    std::fflush(stdout);
    const auto ms = time_cpu_stages(cpu_shapes, threads, settings);
    auto peak = [&](const Measurement& m, const RooflineStage&) { return m.threads > 1 ? peakt : peak1; };
    auto bw = [&](const Measurement& m) { return m.threads > 1 ? bwt.read_gbs : bw1.read_gbs; };
    std::vector<RoofRow> mine = roof_rows(ms, roofline::cpu_stages(), "CPU", f, peak, bw), refs;
    if (ref) refs = roof_rows(ms, roofline::cpu_stages(), "CPU", *ref, peak, bw);
    for (const Measurement& m : ms) wrong += say_left_off("CPU", m);

    const gpu::DeviceInfo info = gpu::probe();
    std::string gpu_note;
    if (!with_gpu) gpu_note = "GPU roofline: not asked for";
    else if (!gpu_sections().roofline || !info.available)  // no CUDA in this build, or no GPU: probe() says which
        gpu_note = "GPU roofline: skipped: " + info.why_not;
    else {
        const GpuRoofline g = gpu_sections().roofline(gpu_shape, settings);
        std::printf("GPU: %s\n", g.device.c_str());
        std::printf("%s\n", g.ceilings.c_str());
        auto gp = [&](const Measurement&, const RooflineStage& st) { return g.peak_for(st.ceiling); };
        auto gb = [&](const Measurement&) { return g.bandwidth_gbs; };
        const std::vector<RoofRow> gmine = roof_rows(g.rows, g.stages, "GPU", f, gp, gb);
        mine.insert(mine.end(), gmine.begin(), gmine.end());
        if (ref) {
            const std::vector<RoofRow> gref = roof_rows(g.rows, g.stages, "GPU", *ref, gp, gb);
            refs.insert(refs.end(), gref.begin(), gref.end());
        }
        for (const Measurement& m : g.rows) wrong += say_left_off("GPU", m);
    }
    std::printf("\n");
    print_roof_rows(mine);
    if (!gpu_note.empty()) std::printf("%s\n", gpu_note.c_str());
    std::printf("bound = min(peak, FLOP/byte x read bandwidth), the peak of the units the stage runs on (GPU: FP32,\n"
                "or the bf16 / TF32 tensor cores; bf16 stages' A and B counted at 2 bytes); GFLOP/s = 2MNK / median\n"
                "time. A stage above a tile model's bound moves fewer bytes than that model says: the caches give it\n"
                "more reuse.\n");
    compare_roof(mine, refs, c);
    if (csv && csv->get()) {
        write_roof_csv(csv->get(), mine);
        csv->commit();
    }
    return wrong;
}

namespace {

const char* kUsage = R"(usage: mmlab roofline [--size LIST] [--gpu-size N] [--threads T] [--no-gpu] [--student] [--csv FILE]
                      [--quiet]
Places the measured stages of labs 1-8 and 11 on the roofline. CPU: lab1.ijk, lab2.interchanged,
lab2.transposed, lab2.blocked, lab4.omp_static, lab5.blis, lab5.openblas at --size (default
1000; threaded stages on --threads, default all cores), against the measured FMA peak (mmlab
peak) and the measured read bandwidth (STREAM-style, cpu/stream_bandwidth.h). GPU (when
present): lab 6-8 kernels and cuBLAS at --gpu-size (default 4096) against the FP32 spec peak;
lab 8's TF32 and lab 11's tensor-core stages and cuBLAS bf16/TF32 against the tensor cores'
spec peak in their format (SMs x clock x a table of FLOPs a clock an SM: models/tensor_peaks.h);
all against the measured read bandwidth. Each stage gets the compulsory-traffic model and, where the
algorithm has one, its tile model. Columns: FLOP/byte, measured GFLOP/s, the bound
min(peak, FLOP/byte x bandwidth), % of bound. --student uses your labs/lab10 functions (default:
the reference); the output's "model:" line says whose, and each row's code column whose
version of the stage was timed (the reference's: lab 10 places the earlier labs' answers). --csv writes every row (for plots: handouts/lab10.md has a gnuplot line).
--quiet: no progress lines on stderr.
)";

int run_roofline(const std::vector<std::string>& raw) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    CommandArgs a(raw, "roofline");
    std::vector<Shape> shapes = {{1000, 1000, 1000}};
    Shape gpu_shape{4096, 4096, 4096};
    int threads = std::max(1, describe_machine().logical_cores);
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
    const ModelFns& f = model_fns_or_error(impl, "'mmlab roofline'");
    CsvFile out(csv);
    print_machine_header(with_gpu);
    Comparison unused;  // `mmlab roofline` shows the numbers; make lab10 judges them
    const int wrong = roofline_section(shapes, threads, gpu_shape, with_gpu, settings, f, unused, &out);
    if (!csv.empty()) std::printf("wrote %s\n", csv.c_str());
    return wrong > 0 ? 1 : 0;  // a wrong stage is a failure, even though the table has the others
}

CommandRegistrar roofline_cmd({"roofline", "lab 10: the measured stages of labs 1-8 and 11 on the roofline (CSV for plots)",
                               kUsage, run_roofline, 10});

}  // namespace
}  // namespace mml::lab10
