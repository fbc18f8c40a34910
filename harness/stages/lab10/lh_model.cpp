// Lab 10, part 2: Yuan et al. 2010's latency-hidden-factor model with the functions
// given (the student's under make lab10, the reference's by default under
// `mmlab lh-model`), for the kernels models/lh_kernels.h describes: on the
// paper's Tesla C1060 inputs (no GPU needed), then on this GPU beside the
// measured kernel times (measured_gpu.cpp) or, without one, on the H100
// inputs recorded beside that run's times (handouts/data/lab10-lh-h100.csv). (`mmlab lh-model`
// is in lh_command.cpp.)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "harness/csv_file.h"
#include "harness/format.h"
#include "harness/gpu_backend.h"
#include "harness/report.h"
#include "harness/stages/lab10/lab10.h"
#include "models/lh_kernels.h"

namespace mml::lab10 {
namespace {

struct LhRow {
    std::string kernel;
    Shape shape;
    lh::Occupancy occ;
    long long nb = 0, reps = 0;
    double predicted_ms = 0;  // the paper's model: every global load to DRAM
    double cached_ms = -1;    // lab 10's cache-aware model (<0: none, e.g. on the C1060)
    double printed_ms = 0, measured_ms = -1;
};

double ms_of(const ModelFns& f, const lh::Kernel& k) { return f.time_total_cycles(k) * 1e-6 / k.clock_ghz; }

// The prediction with `f` of the DRAM-only model `k` and, when given, of the
// cache-aware one `cached`; RepNum and the printed sum always from the
// reference where this build has it (they are shown, not judged).
LhRow lh_row(const std::string& name, Shape s, const lh::Kernel& k, const lh::Kernel* cached, const ModelFns& f) {
    const ModelFns& shown = reference_or(f);
    LhRow r;
    r.kernel = name, r.shape = s, r.occ = k.occupancy, r.nb = k.grid_blocks;
    r.reps = shown.rep_num(k.grid_blocks, k.occupancy.blocks_per_sm, k.sm_count);
    r.predicted_ms = ms_of(f, k);
    if (cached) r.cached_ms = ms_of(f, *cached);
    r.printed_ms = lh::time_one_rep_as_printed(k.blocks, k.occupancy, shown.waiting_cycles, shown.latency_hidden) *
                   double(r.reps) * 1e-6 / k.clock_ghz;
    return r;
}

double gflops_of(Shape s, double ms) { return ms > 0 ? s.flops() / (ms * 1e-3) / 1e9 : 0; }

std::string error_text(double predicted, double measured) {
    if (predicted < 0 || measured <= 0) return "";
    return (predicted >= measured ? "+" : "") + fixed(100 * (predicted - measured) / measured, 0) + "%";
}

void print_lh_rows(const std::vector<LhRow>& rows, bool measured) {
    const bool cached = !rows.empty() && rows.front().cached_ms >= 0;
    std::printf("%-9s %-7s %-9s %8s %6s %12s %8s %12s %8s %12s %9s %14s\n", "kernel", "n", "TLPxBLP", "NB", "RepNum",
                "DRAM only", measured ? "error" : "", cached ? "caches" : "", cached && measured ? "error" : "",
                measured ? "measured" : "", measured ? "GFLOP/s" : "", "sum as printed");
    for (const LhRow& r : rows) {
        std::string meas = "", mg = "";
        if (measured && r.measured_ms > 0) {
            meas = format_seconds(r.measured_ms / 1e3);
            mg = fixed(gflops_of(r.shape, r.measured_ms), 0);
        } else if (measured) meas = "not run";
        std::printf("%-9s %-7lld %-9s %8lld %6lld %12s %8s %12s %8s %12s %9s %14s\n", r.kernel.c_str(),
                    (long long)r.shape.M,
                    (std::to_string(r.occ.warps_per_block) + "x" + std::to_string(r.occ.blocks_per_sm)).c_str(), r.nb,
                    r.reps, format_seconds(r.predicted_ms / 1e3).c_str(),
                    measured ? error_text(r.predicted_ms, r.measured_ms).c_str() : "",
                    r.cached_ms >= 0 ? format_seconds(r.cached_ms / 1e3).c_str() : "",
                    measured ? error_text(r.cached_ms, r.measured_ms).c_str() : "", meas.c_str(), mg.c_str(),
                    format_seconds(r.printed_ms / 1e3).c_str());
    }
}

// Mean |predicted - measured| / measured per kernel, as the paper reports it
// (0.19 over its three kernels on the C1060), for both models.
void print_mean_errors(const std::vector<LhRow>& rows) {
    std::vector<std::string> names;
    for (const LhRow& r : rows)
        if (std::find(names.begin(), names.end(), r.kernel) == names.end()) names.push_back(r.kernel);
    for (const bool cached : {false, true}) {
        std::string line;
        double all = 0;
        int count = 0;
        for (const std::string& n : names) {
            double sum = 0;
            int m = 0;
            for (const LhRow& r : rows) {
                const double p = cached ? r.cached_ms : r.predicted_ms;
                if (r.kernel == n && r.measured_ms > 0 && p >= 0) sum += std::fabs(p - r.measured_ms) / r.measured_ms, ++m;
            }
            if (m) line += " " + n + " " + fixed(sum / m, 2) + ";";
            all += sum, count += m;
        }
        if (count)
            std::printf("mean |predicted - measured| / measured, %-9s:%s all %.2f%s\n", cached ? "caches" : "DRAM only",
                        line.c_str(), all / count, cached ? "" : " (the paper, C1060: 0.19)");
    }
}

// Each row's prediction with `f` against the reference's (where this build has it).
// (both models where the row has the cache-aware one: `cached` is then parallel to `models`).
void compare_lh(const std::vector<LhRow>& mine, const std::vector<lh::Kernel>& models,
                const std::vector<lh::Kernel>& cached, Comparison& c) {
    const ModelFns* ref = model_fns(Impl::Reference);
    if (!ref) return;
    auto check = [&](const LhRow& r, double got, double want, const char* which) {
        c.check(same_number(got, want), "TimeTotal (" + std::string(which) + ") of " + r.kernel + " at n = " +
                                            std::to_string(r.shape.M) + ": " + fixed(got, 4) + " ms (reference " +
                                            fixed(want, 4) + " ms)");
    };
    for (std::size_t i = 0; i < mine.size(); ++i) {
        check(mine[i], mine[i].predicted_ms, ms_of(*ref, models[i]), "DRAM only");
        if (i < cached.size()) check(mine[i], mine[i].cached_ms, ms_of(*ref, cached[i]), "caches");
    }
}

// The paper's machine, with its own inputs (Tables 2-3): needs no GPU.
void c1060_section(const ModelFns& f, Comparison& c) {
    const lh::Hardware hw = lh::paper_c1060();
    std::printf("\nModel on the paper's Tesla C1060 (Table 2: 30 SMs, 1.30 GHz, global 550 cycles / 102 GB/s, shared 36\n"
                "cycles; occupancy from Table 3: naive and CUBLAS 1.1 with 16x16 threads, 4 blocks an SM). The paper\n"
                "gives its measured C1060 results only as plots (Fig. 14-16) and a mean error of 0.19.\n");
    std::vector<LhRow> rows;
    std::vector<lh::Kernel> models;
    const lh::Occupancy occ{8, 4};
    for (const char* name : {"naive16", "tiled16"})
        for (int e = 8; e <= 12; ++e) {  // the paper's sizes 2^i + 32
            const long long n = (1LL << e) + 32;
            const Shape s{n, n, n};
            models.push_back(std::string(name) == "naive16" ? lh::naive_model(hw, s, 16, 16, occ)
                                                            : lh::tiled_model(hw, s, 16, occ));
            rows.push_back(lh_row(name, s, models.back(), nullptr, f));
        }
    print_lh_rows(rows, false);
    compare_lh(rows, models, {}, c);
}

// Where there is no GPU: the model on the recorded H100 inputs (models/lh_kernels.h),
// beside the kernel times measured in that run (handouts/data/lab10-lh-h100.csv,
// read from the repository when present), at the recorded sizes in `sizes`
// (all of them when it is empty). Nothing here is measured now.
void recorded_h100_section(const std::vector<long long>& sizes, const ModelFns& f, Comparison& c) {
    const lh::Hardware hw = lh::recorded_h100();
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
    std::printf("\nNo GPU here: the model on the H100 inputs recorded on %s (%d SMs, %.2f GHz, DRAM %.0f cycles,\n"
                "L2 hit %.0f, L1 hit %.0f, shared %.0f cycles, %.0f GB/s from DRAM, %.0f GB/s from the L2, L2 %.0f MiB;\n"
                "occupancy as the CUDA runtime reported it), beside the kernel times measured in that run (%s).\n",
                lh::kRecordedH100Date, hw.sm_count, hw.clock_ghz, hw.latency_global, hw.latency_l2, hw.latency_l1,
                hw.latency_shared, hw.bandwidth_gbs, hw.l2_bandwidth_gbs, hw.l2_bytes / 1048576.0,
                measured.empty() ? "handouts/data/lab10-lh-h100.csv not found: predictions only"
                                 : "handouts/data/lab10-lh-h100.csv");
    std::vector<LhRow> rows;
    std::vector<lh::Kernel> models, cached;
    for (const std::string& name : lh::modelled_kernels())
        for (long long n : sizes.empty() ? lh::recorded_h100_sizes() : sizes) {
            const Shape s{n, n, n};
            const lh::Occupancy occ = lh::recorded_h100_occupancy(name);
            models.push_back(lh::kernel_model(name, hw, s, occ, lh::Memory::DramOnly));
            cached.push_back(lh::kernel_model(name, hw, s, occ, lh::Memory::Caches));
            LhRow r = lh_row(name, s, models.back(), &cached.back(), f);
            const auto it = measured.find({name, n});
            r.measured_ms = it == measured.end() ? -1 : it->second;
            rows.push_back(r);
        }
    print_lh_rows(rows, !measured.empty());
    compare_lh(rows, models, cached, c);
    if (!measured.empty()) print_mean_errors(rows);
}

// On this GPU: the model's inputs read from the device, beside the measured
// times. Returns the rows (for --csv).
std::vector<LhRow> this_gpu_section(const std::vector<long long>& sizes, int reps, bool quiet, const ModelFns& f,
                                    Comparison& c) {
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
    std::vector<LhRow> rows;
    std::vector<lh::Kernel> models, cached;
    for (const LhCase& k : g.cases) {
        LhRow r = lh_row(k.kernel, k.shape, k.model, &k.cached, f);
        r.measured_ms = k.measured_ms;
        rows.push_back(r);
        models.push_back(k.model);
        cached.push_back(k.cached);
    }
    print_lh_rows(rows, true);
    compare_lh(rows, models, cached, c);
    print_mean_errors(rows);
    std::printf("predicted: TimeTotal with the longest exposed wait per block; 'DRAM only': the paper's model, every\n"
                "global access to DRAM; 'caches': each load split between L1, L2 and DRAM by the reuse analysis\n"
                "(models/lh_reuse.h); 'sum as printed': the paper's sum over warps read literally, DRAM only.\n"
                "handouts/lab10.md, part 2.\n");
    return rows;
}

void write_lh_csv(std::FILE* out, const std::vector<LhRow>& rows) {
    std::fprintf(out, "kernel,n,warps_per_block,blocks_per_sm,grid_blocks,rep_num,predicted_ms,measured_ms,printed_sum_ms,"
                      "predicted_caches_ms\n");
    for (const LhRow& r : rows)
        std::fprintf(out, "%s,%lld,%d,%d,%lld,%lld,%.6f,%.6f,%.6f,%.6f\n", r.kernel.c_str(), (long long)r.shape.M,
                     r.occ.warps_per_block, r.occ.blocks_per_sm, r.nb, r.reps, r.predicted_ms, r.measured_ms, r.printed_ms,
                     r.cached_ms);
}

}  // namespace

int lh_sections(const std::vector<long long>& sizes, int reps, bool quiet, const ModelFns& f, Comparison& c,
                CsvFile* csv) {
    c1060_section(f, c);
    std::vector<LhRow> measured_here;
    const std::string why_not = gpu_lh_unavailable();
    if (!why_not.empty()) {
        std::printf("\nlatency-hidden model on this GPU, predicted vs measured: skipped: %s\n", why_not.c_str());
        recorded_h100_section(sizes, f, c);
    } else {
        measured_here = this_gpu_section(sizes, reps, quiet, f, c);
    }
    if (csv && csv->get() && !measured_here.empty()) {
        write_lh_csv(csv->get(), measured_here);
        csv->commit();
    }
    return int(measured_here.size());
}

}  // namespace mml::lab10
