// mmlab phvm (lab 9): Lei et al. 2024's Experiment 1 on this GPU - BasicMM, PHVM,
// cublasSgemm and the one-pass kernel (reference versions) on the skinny
// shapes, each checked once (run_once_and_verify) and then timed, with its
// bandwidth, the copies around it and its speedup over cuBLAS.
#include <cstdio>
#include <string>
#include <vector>

#include "gpu/bandwidth.h"
#include "harness/cli.h"
#include "harness/commands.h"
#include "harness/csv_file.h"
#include "harness/format.h"
#include "harness/gpu_backend.h"
#include "harness/report.h"
#include "harness/run_stage.h"
#include "harness/stages/lab9/command_helpers.h"
#include "harness/stages/lab9/lab9.h"

namespace mml::lab9 {
namespace {

const char* kUsage = R"(usage: mmlab phvm [--size LIST] [--k K] [--param gs=G,bs=B] [--reps R] [--csv FILE]
Experiment 1 of Lei et al. 2024 (PHVM) on this GPU: BasicMM, PHVM, cublasSgemm
and the one-pass kernel on skinny products R = E*F (E M x K, F K x N). --size
takes MxNxK shapes or the paper's names MTXA, MTXB, MTXC (Table 1), MTX1, MTX2,
MTX3 (Table 2); default MTX1,MTX2,MTX3,MTXA,MTXB. --k K replaces every shape's
K. A shape that does not fit in GPU or host memory runs at the largest K that
does (it says so).
PHVM and BasicMM use GS=gs, BS=bs (default: BS 256, GS*BS = SMs x max threads/SM).
Columns: the kernel time (CUDA events, inputs on the device, as the paper
times), the time with the copies of E and F in and R out (pageable memory),
GB/s = (bytes of E, F and R) / kernel time, % of the measured read bandwidth,
speedup over cublasSgemm, and the check against the float64 reference:
worst |error| / bound over all M*N entries, and the bound's formula.
)";

// Timed runs after the checked one: fewer for slow kernels.
int reps_for(double first_ms, int requested) {
    if (requested > 0) return requested;
    return first_ms > 200 ? 3 : first_ms > 20 ? 5 : 11;
}

struct Row {
    std::string name, config, check;
    double ms = -1, ratio = 0;  // ms < 0: not timed (wrong, or not run)
};

int run_phvm(const std::vector<std::string>& raw) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);  // lines reach a log even if the run is cut short
    CommandArgs a(raw, "phvm");
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
    check_param_names({&stage_or_error("lab9.basicmm"), &stage_or_error("lab9.phvm"), &stage_or_error("lab9.one_pass")},
                      params);
    for (const char* name : {"lab9.phvm", "lab9.one_pass"}) stage_or_error(name).check_params(params);
    gpu::require_gpu("'mmlab phvm'");
    const PhvmConfig cfg = phvm_config(params);
    CsvFile csv_file(csv);  // whole or not at all (harness/csv_file.h)
    std::FILE* out = csv_file.get();
    const double bw = gpu::measured_read_bandwidth().gbs;
    print_device_line(bw);
    if (out) std::fprintf(out, "M,N,K,kernel,gs,bs,kernel_ms,with_transfers_ms,gbs,pct_read_bw,x_cublas,worst_ratio,bound\n");
    const char* names[] = {"lab9.basicmm", "lab9.phvm", "lab9.cublas", "lab9.one_pass"};
    bool all_ok = true;
    for (Shape s : shapes) {
        if (k_override) s.K = k_override;
        s = fit_shape(s);
        std::fprintf(stderr, "[phvm] %s: filling E and F, copying...\n", shape_text(s).c_str());
        Problem p(s);
        const double h2d_ms = upload_ms(p);
        std::vector<Row> rows;
        double cublas_ms = -1;
        for (const char* name : names) {
            const Stage& st = stage_or_error(name);
            Row r;
            r.name = name + 5;
            r.config = st.name == "lab9.phvm" || st.name == "lab9.basicmm"
                           ? "GS " + std::to_string(cfg.gs) + " BS " + std::to_string(cfg.bs)
                           : "-";
            try {
                const MatmulFn& fn = version_of(st, Impl::Reference);
                const CheckedRun first = run_once_and_verify(st, fn, p, params);
                r.ratio = first.check.worst_ratio;
                if (!first.check.passed) {
                    r.check = "WRONG: " + first.check.failure;
                    all_ok = false;
                } else {
                    r.check = "ok " + fixed(r.ratio, 4) + " (" + st.bound(s, params).formula + ")";
                    r.ms = median_kernel_ms(p, fn, params, reps_for(first.seconds * 1e3, reps));
                }
            } catch (const UsageError&) {
                throw;
            } catch (const std::exception& e) {  // e.g. cuBLAS's 32-bit dimensions
                r.check = std::string("not run: ") + e.what();
            }
            if (st.name == "lab9.cublas") cublas_ms = r.ms;
            rows.push_back(r);
        }
        const double d2h_ms = download_ms(p);
        std::printf("\n%-15s %-8s %-15s %11s %13s %8s %7s %8s  %s\n", ("shape " + shape_text(s)).c_str(), "kernel",
                    "config", "kernel", "+ transfers", "GB/s", "% BW", "x cuBLAS", "check: worst error/bound");
        for (const Row& r : rows) {
            if (r.ms < 0) {
                std::printf("%-15s %-8s %-15s %11s %13s %8s %7s %8s  %s\n", "", r.name.c_str(), r.config.c_str(), "-",
                            "-", "-", "-", "-", r.check.c_str());
                continue;
            }
            const double gbs = min_bytes(s) / (r.ms * 1e-3) / 1e9;
            const double with = r.ms + h2d_ms + d2h_ms;
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
                    h2d_ms, d2h_ms, min_bytes(s) / 1e9);
    }
    csv_file.commit();
    std::printf("\nkernel: median of the timed runs (CUDA events), after one checked run. %% BW: of the measured read "
                "bandwidth. x cuBLAS: cuBLAS's kernel time / this kernel's.\n");
    return all_ok ? 0 : 1;
}

CommandRegistrar phvm_cmd({"phvm", "lab 9: BasicMM, PHVM, cuBLAS and one-pass on the skinny shapes (Lei et al. 2024, Exp. 1)",
                           kUsage, run_phvm, 9});

}  // namespace
}  // namespace mml::lab9
