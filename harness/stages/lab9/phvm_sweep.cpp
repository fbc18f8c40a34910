// mmlab phvm-sweep (lab 9): Lei et al. 2024's Experiment 2 on this GPU - the
// reference PHVM timed at every (GS, BS) of a grid, each configuration checked
// first (run_once_and_verify), beside the time-cost model's prediction
// (models/phvm_config_model.h) and a bytes model, as the paper's Fig. 9-10,
// with a CSV for plots.
#include <algorithm>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include "gpu/bandwidth.h"
#include "gpu/latency.h"
#include "harness/cli.h"
#include "harness/commands.h"
#include "harness/csv_file.h"
#include "harness/format.h"
#include "harness/gpu_backend.h"
#include "harness/report.h"
#include "harness/run_stage.h"
#include "harness/stages/lab9/command_helpers.h"
#include "models/phvm_config_model.h"

namespace mml::lab9 {
namespace {

// Spearman's rank correlation: does the model order the configurations as
// the measurement does (the paper's claim is about the trend)?
double spearman(const std::vector<double>& x, const std::vector<double>& y) {
    auto ranks = [](const std::vector<double>& v) {
        std::vector<std::size_t> idx(v.size());
        std::iota(idx.begin(), idx.end(), 0);
        std::sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
        std::vector<double> r(v.size());
        for (std::size_t i = 0; i < idx.size(); ++i) r[idx[i]] = double(i);
        return r;
    };
    const auto rx = ranks(x), ry = ranks(y);
    const double n = double(x.size());
    double d2 = 0;
    for (std::size_t i = 0; i < x.size(); ++i) d2 += (rx[i] - ry[i]) * (rx[i] - ry[i]);
    return n > 1 ? 1 - 6 * d2 / (n * (n * n - 1)) : 0;
}

const char* kUsage = R"(usage: mmlab phvm-sweep [--size LIST] [--bs LIST] [--gs LIST | --gs-sm LIST] [--usm U]
                        [--paper-latencies] [--reps R] [--csv FILE]
Experiment 2 of Lei et al. 2024 (PHVM) on this GPU: PHVM timed at every (GS, BS)
of the grid, beside the time-cost model's prediction (Eq. 1-11), as the paper's
Fig. 9-10.
Default shapes MTX1,MTX2,MTX3; BS 32..1024 (powers of two); GS = SMs x
(1,2,4,8,16,32,64) (--gs-sm), or absolute --gs values. The model takes the
SM count, max threads/SM, warp size and CUDA cores from the device and the
latencies sigma_g (DRAM pointer chase), sigma_s, sigma_add, sigma_mul from the
micro-benchmarks (mmlab gpu-latency); --paper-latencies uses the paper's A100
values (Table 4) instead. u_SM defaults to the paper's A100 value 0.16
(Table 4: Nsight Compute on PHVM); --usm sets a measured one.
Marks: '<- measured best', '<- model optimum' (over the configurations that
satisfy Eq. 2-4: GS*BS = SMs*SMS, whole warps, whole blocks per SM), and
prints the measured time of the model's optimum over the measured best.
Every configuration's result is checked against the float64 reference.
)";

int run_sweep(const std::vector<std::string>& raw) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    CommandArgs a(raw, "phvm-sweep");
    std::vector<Shape> shapes = parse_shapes("MTX1,MTX2,MTX3");
    std::vector<long long> bss = {32, 64, 128, 256, 512, 1024}, gs_abs, gs_sm = {1, 2, 4, 8, 16, 32, 64};
    double usm = 0.16;
    bool paper_lat = false;
    int reps = 3;
    long long k_override = 0;
    std::string csv;
    for (std::string f; a.next(f);) {
        if (f == "--size") shapes = parse_shapes(a.value(f));
        else if (f == "--k") k_override = parse_integer(a.value(f), "--k", 1, 1LL << 40);
        else if (f == "--bs") bss = parse_integer_list(a.value(f), "--bs", 32, 1024);
        else if (f == "--gs") gs_abs = parse_integer_list(a.value(f), "--gs", 1, 2147483647LL);
        else if (f == "--gs-sm") gs_sm = parse_integer_list(a.value(f), "--gs-sm", 1, 1 << 20);
        else if (f == "--usm") usm = parse_real(a.value(f), "--usm", 1e-3, 1);
        else if (f == "--paper-latencies") paper_lat = true;
        else if (f == "--reps") reps = int(parse_integer(a.value(f), "--reps", 1, 1000));
        else if (f == "--csv") csv = a.value(f);
        else a.unknown(f);
    }
    for (long long bs : bss)
        if (bs % 32) throw UsageError("--bs values must be multiples of 32 (whole warps), got " + std::to_string(bs));
    gpu::require_gpu("'mmlab phvm-sweep'");
    const Stage& st = stage_or_error("lab9.phvm");
    if (!st.reference) throw UsageError("'mmlab phvm-sweep' times the reference PHVM, and " + std::string(kNoReference));
    CsvFile csv_file(csv);  // whole or not at all (harness/csv_file.h)
    std::FILE* out = csv_file.get();

    const gpu::Latencies L = gpu::measure_latencies();
    phvm::ModelGpu g = this_gpu_model(L, usm);
    if (paper_lat) {
        const phvm::ModelGpu p = phvm::paper_a100();
        g.sigma_add = p.sigma_add, g.sigma_mul = p.sigma_mul, g.sigma_g = p.sigma_g, g.sigma_s = p.sigma_s;
        g.name += ", latencies: paper's A100 (Table 4)";
    }
    const double bw = gpu::measured_read_bandwidth().gbs;
    print_device_line(bw);
    print_model_inputs(g);
    const double ghz = L.sm_clock_ghz;
    if (out) std::fprintf(out, "M,N,K,gs,bs,measured_ms,model_cycles,model_ms,equation,feasible,worst_ratio,bytes_model_ms,usm\n");
    bool all_ok = true;
    for (Shape s : shapes) {
        if (k_override) s.K = k_override;
        s = fit_shape(s);
        std::fprintf(stderr, "[phvm-sweep] %s: filling E and F, copying...\n", shape_text(s).c_str());
        Problem p(s);
        std::vector<long long> gss = gs_abs;
        if (gss.empty())
            for (long long m : gs_sm) gss.push_back(m * g.sm_num);
        // Our alternative: PHVM is bound by the bytes it moves. Each of the M*N
        // launches reads a row of E (4K bytes) and column j of F, whose values
        // lie 4N bytes apart. We count DRAM traffic in 64-byte units (two
        // 32-byte sectors; the L2 fetches at least that much on a miss - the
        // H100's times for N = 9, 36-byte rows, agree with it and not with
        // 32-byte units): while 4N <= 64 every unit of F holds a value of
        // column j, so all of F (4NK bytes) comes through DRAM; past that,
        // 64 bytes per k.
        const double phvm_bytes = double(s.M) * double(s.N) * (4.0 * double(s.K) + std::min(4.0 * double(s.N), 64.0) * double(s.K));
        const double bytes_ms = phvm_bytes / (bw * 1e9) * 1e3;
        struct Point { long long gs, bs; double ms, cycles; int eq; bool feasible; double ratio; };
        std::vector<Point> pts;
        for (long long bs : bss)
            for (long long gs : gss) {
                StageParams prm;
                prm.values["gs"] = gs;
                prm.values["bs"] = bs;
                const CheckedRun checked = run_once_and_verify(st, st.reference, p, prm);
                if (!checked.check.passed) {
                    std::printf("WRONG at GS %lld BS %lld: %s\n", gs, bs, checked.check.failure.c_str());
                    all_ok = false;
                    continue;
                }
                const double ms = median_kernel_ms(p, st.reference, prm, reps);
                const auto t = phvm::predict(g, s.M, s.N, s.K, gs, bs);
                pts.push_back({gs, bs, ms, t.total, t.equation, phvm::satisfies_constraints(g, gs, bs),
                               checked.check.worst_ratio});
            }
        if (pts.empty()) continue;
        const auto opt = phvm::model_optimum(g, s.M, s.N, s.K);
        std::size_t best = 0, model_pt = pts.size(), best_feasible = pts.size();
        for (std::size_t i = 0; i < pts.size(); ++i) {
            if (pts[i].ms < pts[best].ms) best = i;
            if (pts[i].gs == opt.config.gs && pts[i].bs == opt.config.bs) model_pt = i;
            if (pts[i].feasible && (best_feasible == pts.size() || pts[i].ms < pts[best_feasible].ms)) best_feasible = i;
        }
        std::printf("\nPHVM on %s: measured vs model (cycles; ms = cycles / %.2f GHz)\n", shape_text(s).c_str(), ghz);
        std::printf("bytes model: PHVM moves %.2f GB (M*N passes over a row of E and a column of F) -> %s at %.0f GB/s, "
                    "for every configuration that keeps enough loads in flight\n",
                    phvm_bytes / 1e9, format_seconds(bytes_ms / 1e3).c_str(), bw);
        std::printf("%7s %5s %11s %8s %14s %11s %4s %5s\n", "GS", "BS", "measured", "/bytes", "model cycles", "model", "Eq.", "2-4?");
        std::vector<double> meas, pred;
        for (std::size_t i = 0; i < pts.size(); ++i) {
            const Point& q = pts[i];
            std::string mark;
            if (i == best) mark += "  <- measured best";
            if (i == model_pt) mark += "  <- model optimum";
            std::printf("%7lld %5lld %11s %8.2f %14.4g %11s %4d %5s%s\n", q.gs, q.bs, format_seconds(q.ms / 1e3).c_str(),
                        q.ms / bytes_ms, q.cycles, format_seconds(q.cycles / (ghz * 1e9)).c_str(), q.eq, q.feasible ? "yes" : "no",
                        mark.c_str());
            meas.push_back(q.ms);
            pred.push_back(q.cycles);
            if (out)
                std::fprintf(out, "%lld,%lld,%lld,%lld,%lld,%.6f,%.6g,%.6f,%d,%d,%.5f,%.6f,%.4f\n", (long long)s.M,
                             (long long)s.N, (long long)s.K, q.gs, q.bs, q.ms, q.cycles, q.cycles / (ghz * 1e6), q.eq,
                             q.feasible ? 1 : 0, q.ratio, bytes_ms, g.u_sm);
        }
        std::printf("summary %s: measured best GS %lld BS %lld %s", shape_text(s).c_str(), pts[best].gs, pts[best].bs,
                    format_seconds(pts[best].ms / 1e3).c_str());
        if (best_feasible < pts.size())
            std::printf(" (best satisfying Eq. 2-4: GS %lld BS %lld %s)", pts[best_feasible].gs, pts[best_feasible].bs,
                        format_seconds(pts[best_feasible].ms / 1e3).c_str());
        std::printf("; model optimum GS %lld BS %lld", (long long)opt.config.gs, (long long)opt.config.bs);
        if (model_pt < pts.size())
            std::printf(", measured %s = %.3fx the measured best", format_seconds(pts[model_pt].ms / 1e3).c_str(),
                        pts[model_pt].ms / pts[best].ms);
        else
            std::printf(" (not in the swept grid)");
        std::printf("; rank correlation model vs measured %.2f\n", spearman(pred, meas));
        std::printf("summary %s: bytes model %s; measured best = %.3fx it\n", shape_text(s).c_str(),
                    format_seconds(bytes_ms / 1e3).c_str(), pts[best].ms / bytes_ms);
    }
    csv_file.commit();
    return all_ok ? 0 : 1;
}

CommandRegistrar sweep_cmd({"phvm-sweep", "lab 9: PHVM over GS x BS, measured vs the time-cost model (Lei et al. 2024, Exp. 2)",
                            kUsage, run_sweep, 9});

}  // namespace
}  // namespace mml::lab9
