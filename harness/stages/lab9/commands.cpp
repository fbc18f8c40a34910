// Lab 9's own mmlab commands:
//   mmlab phvm         the paper's Experiment 1: BasicMM, PHVM, cublasSgemm and the
//                      one-pass kernel on the skinny shapes, with bandwidth and checks
//   mmlab phvm-sweep   the paper's Experiment 2: PHVM over GS x BS, measured beside
//                      the time-cost model (Fig. 9-10), with a CSV for plots
//   mmlab phvm-model   the model alone (no GPU needed for the paper's two GPUs)
//   mmlab gpu-latency  the micro-benchmarks the model takes its inputs from
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <sstream>

#include "cpu/reference.h"
#include "gpu/bandwidth.h"
#include "gpu/device_info.h"
#include "gpu/latency.h"
#include "harness/cli.h"
#include "harness/commands.h"
#include "harness/csv_file.h"
#include "harness/gpu_backend.h"
#include "harness/report.h"
#include "harness/stages/lab9/lab9.h"
#include "harness/targets.h"
#include "solutions/lab9/config_model.h"

namespace mml::lab9 {
namespace {

using reference::lab9::ModelGpu;
using reference::lab9::UsmReading;

// ---------------------------------------------------------------- helpers

using Args = CommandArgs;  // harness/cli.h

double parse_real(const std::string& text, const std::string& what, double lo, double hi) {
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !(v >= lo && v <= hi))
        throw UsageError(what + " must be a number in [" + fixed(lo, 3) + ", " + fixed(hi, 0) + "], got '" + text + "'");
    return v;
}

// The largest K whose E and F fit both in the GPU's free memory (90 %, less
// the one-pass workspace) and in the host's available memory (60 %: the host
// holds E and F too, and the checks a little more). If the shape's K does not
// fit, say so and return the shape at that K (rounded down to a round number).
Shape fit_shape(Shape s, bool quiet) {
    const gpu::DeviceInfo info = gpu::probe();
    const double per_k = 4.0 * double(s.M + s.N);
    const double gpu_room = 0.90 * double(info.free_bytes) - 4.0 * double(s.M * s.N) - 64e6;
    const double host_room = 0.60 * available_memory_bytes() - 4.0 * double(s.M * s.N);
    const double kmax = std::floor(std::min(gpu_room, host_room) / per_k);
    if (double(s.K) <= kmax) return s;
    if (kmax < 1) throw UsageError("shape " + shape_text(s) + " cannot fit at any K on this machine");
    long long k = (long long)kmax;
    for (long long round : {1000000000LL, 100000000LL, 10000000LL, 1000000LL, 1000LL, 4LL})
        if (k >= 2 * round) {
            k -= k % round;
            break;
        }
    if (!quiet)
        std::printf("note: %s needs %.1f GB for E and F; this machine has room for %.1f GB (GPU %.1f GB free, "
                    "host %.1f GB available): running at the largest K that fits, K = %lld\n",
                    shape_text(s).c_str(), per_k * double(s.K) / 1e9, std::min(gpu_room, host_room) / 1e9,
                    double(info.free_bytes) / 1e9, available_memory_bytes() / 1e9, k);
    return {s.M, s.N, k};
}

// E, F and the float64 reference of one shape, computed once for every kernel.
struct Problem {
    explicit Problem(Shape shape) : s(shape), A(s.M, s.K), B(s.K, s.N), C(s.M, s.N), dev(s) {
        const std::uint64_t seed = fresh_seed();
        fill_inputs(A, B, seed);
        const auto t0 = std::chrono::steady_clock::now();
        dev.upload(A.data(), B.data());  // synchronous cudaMemcpy from pageable memory
        h2d_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        reference_product_f64(A.data(), B.data(), s, ref, absref);
    }
    Shape s;
    Matrix A, B, C;
    gpu::DeviceProblem dev;
    std::vector<double> ref, absref;
    double h2d_ms = 0, d2h_ms = 0;

    // Run once with R poisoned, download, and compare every entry with the
    // reference: returns the worst error / bound ratio (> 1: wrong), or
    // +inf with `why` set when an entry is NaN, Inf or never written.
    double run_and_check(const MatmulFn& fn, const StageParams& p, const ErrorBound& b, std::string& why) {
        dev.poison_c();
        dev.run_timed_ms(fn, p);
        const auto t0 = std::chrono::steady_clock::now();
        dev.download_c(C.data());
        d2h_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        double worst = 0;
        for (std::int64_t e = 0; e < s.M * s.N; ++e) {
            const double got = C.data()[e];
            if (is_poison(C.data()[e]) || !std::isfinite(got)) {
                why = "R[" + std::to_string(e / s.N) + "][" + std::to_string(e % s.N) + "] is " +
                      (is_poison(C.data()[e]) ? "never written" : "not finite");
                return INFINITY;
            }
            const double allowed = b.factor * absref[e] + gamma_n(double(s.K), kFloat64UnitRoundoff) * absref[e];
            const double ratio = allowed > 0 ? std::fabs(got - ref[e]) / allowed : (got == ref[e] ? 0 : INFINITY);
            if (ratio > worst) worst = ratio;
        }
        if (worst > 1) why = "error exceeds the bound (" + b.formula + ")";
        return worst;
    }

    double median_ms(const MatmulFn& fn, const StageParams& p, int reps) {
        std::vector<double> t;
        for (int r = 0; r < reps; ++r) t.push_back(dev.run_timed_ms(fn, p));
        std::sort(t.begin(), t.end());
        return t[t.size() / 2];
    }
};

int reps_for(double first_ms, int requested) {
    if (requested > 0) return requested;
    return first_ms > 200 ? 3 : first_ms > 20 ? 5 : 11;
}

void print_device_line(double bw) {
    const gpu::DeviceInfo info = gpu::probe();
    std::printf("GPU     : %s (sm_%d%d), %d SMs, %.2f GHz, %.1f GB free; measured read bandwidth %.0f GB/s\n",
                info.name.c_str(), info.cc_major, info.cc_minor, info.sm_count, info.sm_clock_ghz,
                double(info.free_bytes) / 1e9, bw);
}

// ---------------------------------------------------------------- mmlab phvm

const char* kPhvmUsage = R"(usage: mmlab phvm [--size LIST] [--k K] [--param gs=G,bs=B] [--reps R] [--csv FILE]
Seed 000's Experiment 1 on this GPU: BasicMM, PHVM, cublasSgemm and the one-pass
kernel on skinny products R = E*F (E M x K, F K x N). --size takes MxNxK shapes
or the paper's names MTXA, MTXB, MTXC (Table 1), MTX1, MTX2, MTX3 (Table 2);
default MTX1,MTX2,MTX3,MTXA,MTXB. --k K replaces every shape's K. A shape that
does not fit in GPU or host memory runs at the largest K that does (it says so).
PHVM and BasicMM use GS=gs, BS=bs (default: BS 256, GS*BS = SMs x max threads/SM).
Columns: the kernel time (CUDA events, inputs on the device, as the paper
times), the time with the copies of E and F in and R out (pageable memory),
GB/s = (bytes of E, F and R) / kernel time, % of the measured read bandwidth,
speedup over cublasSgemm, and the check against the float64 reference:
worst |error| / bound over all M*N entries, and the bound's formula.
)";

int run_phvm(const std::vector<std::string>& raw) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);  // lines reach a log even if the run is cut short
    Args a(raw, "phvm");
    std::vector<Shape> shapes = parse_shapes("MTX1,MTX2,MTX3,MTXA,MTXB");
    long long k_override = 0;
    int reps = 0;
    StageParams params;
    std::string csv;
    for (std::string f; a.next(f);) {
        if (f == "--size") shapes = parse_shapes(a.value(f));
        else if (f == "--k") k_override = parse_integer(a.value(f), "--k", 1, 1LL << 40);
        else if (f == "--reps") reps = int(parse_integer(a.value(f), "--reps", 1, 1000));
        else if (f == "--csv") csv = a.value(f);
        else if (f == "--param") {
            for (const auto& [key, v] : parse_param_list(a.value(f)).values) params.values[key] = v;
        } else a.unknown(f);
    }
    check_param_names({&stage_or_error("lab9.basicmm"), &stage_or_error("lab9.phvm"), &stage_or_error("lab9.onepass")},
                      params);
    for (const char* name : {"lab9.phvm", "lab9.onepass"}) stage_or_error(name).check_params(params);
    if (!gpu::probe().available) throw UsageError("'mmlab phvm' needs a CUDA GPU, but " + gpu::probe().why_not);
    const PhvmConfig cfg = phvm_config(params);
    CsvFile csv_file(csv);  // whole or not at all (harness/csv_file.h)
    std::FILE* out = csv_file.get();
    const double bw = gpu::measured_read_bandwidth().gbs;
    print_device_line(bw);
    if (out) std::fprintf(out, "M,N,K,kernel,gs,bs,kernel_ms,with_transfers_ms,gbs,pct_read_bw,x_cublas,worst_ratio,bound\n");
    const char* names[] = {"lab9.basicmm", "lab9.phvm", "lab9.cublas", "lab9.onepass"};
    bool all_ok = true;
    for (Shape s : shapes) {
        if (k_override) s.K = k_override;
        s = fit_shape(s, false);
        std::fprintf(stderr, "[phvm] %s: filling E and F, copying, float64 reference...\n", shape_text(s).c_str());
        Problem p(s);
        struct Row { std::string name, config, check; double ms = -1, ratio = 0; };
        std::vector<Row> rows;
        double cublas_ms = -1;
        for (const char* name : names) {
            const Stage* st = Registry::instance().find(name);
            Row r;
            r.name = name + 5;
            r.config = st->name == "lab9.phvm" || st->name == "lab9.basicmm"
                           ? "GS " + std::to_string(cfg.gs) + " BS " + std::to_string(cfg.bs)
                           : "-";
            try {
                const ErrorBound b = st->bound(s, params);
                std::string why;
                const auto t0 = std::chrono::steady_clock::now();
                r.ratio = p.run_and_check(st->reference, params, b, why);
                const double first = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
                if (r.ratio > 1) {
                    r.check = "WRONG: " + why;
                    all_ok = false;
                } else {
                    r.check = "ok " + fixed(r.ratio, 4) + " (" + b.formula + ")";
                    r.ms = p.median_ms(st->reference, params, reps_for(first, reps));
                }
            } catch (const UsageError&) {
                throw;
            } catch (const std::exception& e) {  // e.g. cuBLAS's 32-bit dimensions
                r.check = std::string("not run: ") + e.what();
            }
            if (st->name == "lab9.cublas") cublas_ms = r.ms;
            rows.push_back(r);
        }
        std::printf("\n%-15s %-8s %-15s %11s %13s %8s %7s %8s  %s\n", ("shape " + shape_text(s)).c_str(), "kernel",
                    "config", "kernel", "+ transfers", "GB/s", "% BW", "x cuBLAS", "check: worst error/bound");
        for (const Row& r : rows) {
            if (r.ms < 0) {
                std::printf("%-15s %-8s %-15s %11s %13s %8s %7s %8s  %s\n", "", r.name.c_str(), r.config.c_str(), "-",
                            "-", "-", "-", "-", r.check.c_str());
                continue;
            }
            const double gbs = min_bytes(s) / (r.ms * 1e-3) / 1e9;
            const double with = r.ms + p.h2d_ms + p.d2h_ms;
            const std::string x = cublas_ms > 0 ? fixed(cublas_ms / r.ms, 2) + "x" : "-";
            std::printf("%-15s %-8s %-15s %11s %13s %8.0f %7.1f %8s  %s\n", "", r.name.c_str(), r.config.c_str(),
                        format_seconds(r.ms / 1e3).c_str(), format_seconds(with / 1e3).c_str(), gbs, 100 * gbs / bw,
                        x.c_str(), r.check.c_str());
            if (out)
                std::fprintf(out, "%lld,%lld,%lld,%s,%lld,%lld,%.6f,%.6f,%.2f,%.2f,%.4f,%.5f,\"%s\"\n", (long long)s.M,
                             (long long)s.N, (long long)s.K, r.name.c_str(), r.config == "-" ? 0LL : cfg.gs,
                             r.config == "-" ? 0LL : cfg.bs, r.ms, with, gbs, 100 * gbs / bw,
                             cublas_ms > 0 ? cublas_ms / r.ms : 0.0, r.ratio, r.check.c_str());
        }
        std::printf("%-15s transfers: E and F in %.1f ms, R out %.3f ms; bytes moved by the kernel at least %.3f GB\n", "",
                    p.h2d_ms, p.d2h_ms, min_bytes(s) / 1e9);
    }
    csv_file.commit();
    std::printf("\nkernel: median of the timed runs (CUDA events), after one checked run. %% BW: of the measured read "
                "bandwidth. x cuBLAS: cuBLAS's kernel time / this kernel's.\n");
    return all_ok ? 0 : 1;
}

// ---------------------------------------------------------------- the model's inputs

ModelGpu this_gpu_model(const gpu::Latencies& L, double usm) {
    const gpu::DeviceInfo info = gpu::probe();
    const gpu::ThreadLimits lim = gpu::thread_limits();
    ModelGpu g;
    g.name = info.name + " (this GPU: limits read from the device, latencies measured)";
    g.sm_num = lim.sm_count;
    g.sms = lim.max_threads_per_sm;
    g.ws = lim.warp_size;
    g.max_block = lim.max_block;
    g.cores = lim.sm_count * gpu::fp32_lanes_per_sm(info.cc_major, info.cc_minor);
    g.sigma_add = L.fadd, g.sigma_mul = L.fmul, g.sigma_g = L.global_dram, g.sigma_s = L.shared;
    g.u_sm = usm;
    return g;
}

void print_model_inputs(const ModelGpu& g) {
    std::printf("model inputs: %s\n  SM_NUM %d, SMS %d, WS %d, CoreS %d, max block %d; sigma_add %.2f, sigma_mul %.2f, "
                "sigma_g %.1f, sigma_s %.2f cycles; u_SM %.3f\n",
                g.name.c_str(), g.sm_num, g.sms, g.ws, g.cores, g.max_block, g.sigma_add, g.sigma_mul, g.sigma_g,
                g.sigma_s, g.u_sm);
}

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

// ---------------------------------------------------------------- mmlab phvm-sweep

const char* kSweepUsage = R"(usage: mmlab phvm-sweep [--size LIST] [--bs LIST] [--gs LIST | --gs-sm LIST] [--usm U]
                        [--paper-latencies] [--reps R] [--csv FILE]
Seed 000's Experiment 2 on this GPU: PHVM timed at every (GS, BS) of the grid,
beside the time-cost model's prediction (Eq. 1-11), as the paper's Fig. 9-10.
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
    Args a(raw, "phvm-sweep");
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
    if (!gpu::probe().available) throw UsageError("'mmlab phvm-sweep' needs a CUDA GPU, but " + gpu::probe().why_not);
    CsvFile csv_file(csv);  // whole or not at all (harness/csv_file.h)
    std::FILE* out = csv_file.get();

    const gpu::Latencies L = gpu::measure_latencies();
    ModelGpu g = this_gpu_model(L, usm);
    if (paper_lat) {
        const ModelGpu p = reference::lab9::paper_a100();
        g.sigma_add = p.sigma_add, g.sigma_mul = p.sigma_mul, g.sigma_g = p.sigma_g, g.sigma_s = p.sigma_s;
        g.name += ", latencies: paper's A100 (Table 4)";
    }
    const double bw = gpu::measured_read_bandwidth().gbs;
    print_device_line(bw);
    print_model_inputs(g);
    const double ghz = L.sm_clock_ghz;
    if (out) std::fprintf(out, "M,N,K,gs,bs,measured_ms,model_cycles,model_ms,equation,feasible,worst_ratio,bytes_model_ms,usm\n");
    const Stage* st = Registry::instance().find("lab9.phvm");
    bool all_ok = true;
    for (Shape s : shapes) {
        if (k_override) s.K = k_override;
        s = fit_shape(s, false);
        std::fprintf(stderr, "[phvm-sweep] %s: filling E and F, copying, float64 reference...\n", shape_text(s).c_str());
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
                std::string why;
                const double ratio = p.run_and_check(st->reference, prm, st->bound(s, prm), why);
                if (ratio > 1) {
                    std::printf("WRONG at GS %lld BS %lld: %s\n", gs, bs, why.c_str());
                    all_ok = false;
                    continue;
                }
                const double ms = p.median_ms(st->reference, prm, reps);
                const auto t = reference::lab9::predict(g, s.M, s.N, s.K, gs, bs);
                pts.push_back({gs, bs, ms, t.total, t.equation, reference::lab9::satisfies_constraints(g, gs, bs), ratio});
            }
        if (pts.empty()) continue;
        const auto opt = reference::lab9::model_optimum(g, s.M, s.N, s.K);
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

// ---------------------------------------------------------------- mmlab phvm-model

const char* kModelUsage = R"(usage: mmlab phvm-model [--gpu a100|2080ti|this] [--size LIST] [--usm U]
                        [--sigma-g C] [--sigma-s C] [--sigma-add C] [--sigma-mul C]
                        [--sm-num N] [--sms T] [--cores C]
Seed 000's time-cost model (Eq. 1-11) alone: the predicted time of every
configuration that satisfies Eq. 2-4, which equation (9 or 10) applies, and
the optimum, under the three readings of Eq. 11 (u_SM dividing all of t_prep,
only its load term, or only its reduction term). --gpu a100 / 2080ti use the
paper's Tables 3-4 and need no GPU; --gpu this (default when a GPU is present)
reads the device and measures the latencies. The --sigma-*, --usm, --sm-num,
--sms (max threads per SM) and --cores options replace single inputs, e.g. an
H100 without a GPU at hand: --gpu a100 --sm-num 132 --cores 16896 --sigma-g 696
--sigma-s 29 --sigma-add 4 --sigma-mul 4.
)";

int run_model(const std::vector<std::string>& raw) {
    Args a(raw, "phvm-model");
    std::vector<Shape> shapes = parse_shapes("MTX1,MTX2,MTX3");
    std::string which = gpu::probe().available ? "this" : "a100";
    double usm = -1, sg = -1, ss = -1, sadd = -1, smul = -1;
    long long sm_num = 0, sms = 0, cores = 0;
    for (std::string f; a.next(f);) {
        if (f == "--size") shapes = parse_shapes(a.value(f));
        else if (f == "--gpu") which = a.value(f);
        else if (f == "--usm") usm = parse_real(a.value(f), "--usm", 1e-3, 1);
        else if (f == "--sigma-g") sg = parse_real(a.value(f), "--sigma-g", 0, 1e6);
        else if (f == "--sigma-s") ss = parse_real(a.value(f), "--sigma-s", 0, 1e6);
        else if (f == "--sigma-add") sadd = parse_real(a.value(f), "--sigma-add", 0, 1e6);
        else if (f == "--sigma-mul") smul = parse_real(a.value(f), "--sigma-mul", 0, 1e6);
        else if (f == "--sm-num") sm_num = parse_integer(a.value(f), "--sm-num", 1, 100000);
        else if (f == "--sms") sms = parse_integer(a.value(f), "--sms", 32, 100000);
        else if (f == "--cores") cores = parse_integer(a.value(f), "--cores", 1, 10000000);
        else a.unknown(f);
    }
    ModelGpu g;
    if (which == "a100") g = reference::lab9::paper_a100();
    else if (which == "2080ti") g = reference::lab9::paper_rtx2080ti();
    else if (which == "this") {
        if (!gpu::probe().available) throw UsageError("--gpu this needs a CUDA GPU, but " + gpu::probe().why_not);
        g = this_gpu_model(gpu::measure_latencies(), 0.16);
    } else throw UsageError("--gpu must be a100, 2080ti or this, got '" + which + "'");
    if (usm > 0) g.u_sm = usm;
    if (sg >= 0) g.sigma_g = sg;
    if (ss >= 0) g.sigma_s = ss;
    if (sadd >= 0) g.sigma_add = sadd;
    if (smul >= 0) g.sigma_mul = smul;
    if (sm_num) g.sm_num = int(sm_num);
    if (sms) g.sms = int(sms);
    if (cores) g.cores = int(cores);
    if (sm_num || sms || cores || sg >= 0 || ss >= 0 || sadd >= 0 || smul >= 0 || usm > 0) g.name += ", with the inputs given";
    print_model_inputs(g);
    const UsmReading readings[] = {UsmReading::WholePrep, UsmReading::LoadTermOnly, UsmReading::ReductionTermOnly};
    const char* reading_names[] = {"t_prep/u_SM", "load term/u_SM", "reduction/u_SM"};
    for (Shape s : shapes) {
        std::printf("\n%s: predicted cycles (Eq. 1) for the configurations of Eq. 2-4\n", shape_text(s).c_str());
        std::printf("%7s %5s %13s %13s %13s %13s %4s\n", "GS", "BS", "t_prep", "t_post", "t_single", "total", "Eq.");
        for (const auto& c : reference::lab9::feasible_configs(g)) {
            const auto t = reference::lab9::predict(g, s.M, s.N, s.K, c.gs, c.bs);
            std::printf("%7lld %5lld %13.5g %13.5g %13.5g %13.5g %4d\n", (long long)c.gs, (long long)c.bs, t.t_prep,
                        t.t_post, t.t_single, t.total, t.equation);
        }
        for (int r = 0; r < 3; ++r) {
            const auto o = reference::lab9::model_optimum(g, s.M, s.N, s.K, readings[r]);
            std::printf("optimum (%s): GS %lld BS %lld, %.5g cycles (Eq. %d)\n", reading_names[r],
                        (long long)o.config.gs, (long long)o.config.bs, o.time.total, o.time.equation);
        }
    }
    return 0;
}

// ---------------------------------------------------------------- mmlab gpu-latency

const char* kLatencyUsage = R"(usage: mmlab gpu-latency
The micro-benchmarks behind the model's inputs: pointer chasing through global
memory (DRAM and L2) and shared memory, dependent FP32 add and multiply chains,
all in SM cycles (clock64), one thread; the read bandwidth; the thread limits.
The paper's Table 4 values are printed beside them.
)";

int run_latency(const std::vector<std::string>& raw) {
    if (!raw.empty()) throw UsageError("'mmlab gpu-latency' takes no options");
    if (!gpu::probe().available) throw UsageError("'mmlab gpu-latency' needs a CUDA GPU, but " + gpu::probe().why_not);
    const gpu::Latencies L = gpu::measure_latencies();
    const auto& bw = gpu::measured_read_bandwidth();
    const auto lim = gpu::thread_limits();
    const gpu::DeviceInfo info = gpu::probe();
    std::printf("GPU: %s, %d SMs, %d threads/SM, warp %d, %d FP32 cores, SM clock %.2f GHz\n", info.name.c_str(),
                lim.sm_count, lim.max_threads_per_sm, lim.warp_size,
                lim.sm_count * gpu::fp32_lanes_per_sm(info.cc_major, info.cc_minor), L.sm_clock_ghz);
    std::printf("%-34s %10s %12s %12s\n", "latency (cycles)", "this GPU", "A100 (paper)", "2080Ti (paper)");
    std::printf("%-34s %10.1f %12s %12s\n", "sigma_g: global load, DRAM", L.global_dram, "317", "346");
    std::printf("%-34s %10.1f %12s %12s\n", "global load, L2 hit (not in model)", L.global_l2, "-", "-");
    std::printf("%-34s %10.2f %12s %12s\n", "sigma_s: shared load", L.shared, "34.46", "49.39");
    std::printf("%-34s %10.2f %12s %12s\n", "sigma_add: FP32 add", L.fadd, "1", "1");
    std::printf("%-34s %10.2f %12s %12s\n", "sigma_mul: FP32 multiply", L.fmul, "2", "2");
    std::printf("read bandwidth: %.0f GB/s (%.2f GB read, median of %d runs)\n", bw.gbs, bw.bytes / 1e9, bw.runs);
    return 0;
}

CommandRegistrar phvm_cmd({"phvm", "lab 9: BasicMM, PHVM, cuBLAS and one-pass on the skinny shapes (seed 000, Exp. 1)",
                           kPhvmUsage, run_phvm, 9});
CommandRegistrar sweep_cmd({"phvm-sweep", "lab 9: PHVM over GS x BS, measured vs the time-cost model (seed 000, Exp. 2)",
                            kSweepUsage, run_sweep, 9});
CommandRegistrar model_cmd({"phvm-model", "lab 9: the PHVM time-cost model (Eq. 1-11) and its optimum", kModelUsage,
                            run_model, 9});
CommandRegistrar latency_cmd({"gpu-latency", "lab 9: latency micro-benchmarks and read bandwidth (the model's inputs)",
                              kLatencyUsage, run_latency, 9});

}  // namespace
}  // namespace mml::lab9
