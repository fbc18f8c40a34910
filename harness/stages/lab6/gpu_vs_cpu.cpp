// `mmlab gpu-vs-cpu` (lab 6): the CUDA lab report's table - one CPU stage against one
// GPU stage over sizes whose m*n*k runs from 10^3 to 10^10 - with the GPU
// timed two ways: the kernel alone, and the whole trip (allocate, copy A and B
// in, compute, copy C out, free), so that the crossover where the GPU starts
// to pay is visible.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "cpu/stats.h"
#include "cpu/verify.h"
#include "harness/cli.h"
#include "harness/commands.h"
#include "harness/format.h"
#include "harness/gpu_backend.h"
#include "harness/report.h"
#include "harness/run_stage.h"

namespace mml {
namespace {

const char* kUsage = R"(usage: mmlab gpu-vs-cpu [--gpu-stage NAME] [--cpu-stage NAME] [--size LIST]
                        [--impl student|reference] [--reps R] [--threads T] [--quiet]
The CUDA lab report's table: for each size, the CPU stage (default lab1.ikj) and
the GPU stage (default lab6.naive_coalesced), both verified, and the GPU's speedup
counting the kernel alone and counting the whole trip: cudaMalloc, copies in,
kernel, copy out, cudaFree (as `mmlab breakdown` splits it).
Default sizes: 10,22,46,100,215,464,1000,2154 (m*n*k = 10^3 ... 10^10).
Each time is the median of R runs (default 3; the CPU stage runs once when a
run takes over a second). --impl picks the version of both stages. A row whose
CPU or GPU result fails its check shows no speedups (exit code 1). --quiet: no
progress lines on stderr.
)";

const Stage& stage_named(const std::string& name, Device want) {
    const Stage& s = stage_or_error(name);
    if (s.device != want)
        throw UsageError(name + (want == Device::Gpu ? " is not a GPU stage" : " is not a CPU stage"));
    return s;
}

int run_gpu_vs_cpu(const std::vector<std::string>& args) {
    std::string gpu_name = "lab6.naive_coalesced", cpu_name = "lab1.ikj";
    std::vector<Shape> shapes;
    for (long long n : {10, 22, 46, 100, 215, 464, 1000, 2154}) shapes.push_back({n, n, n});
    Impl impl = Impl::Reference;
    int reps = 3;
    bool quiet = false;
    StageParams params;
    CommandArgs a(args, "gpu-vs-cpu");
    for (std::string f; a.next(f);) {
        if (f == "--gpu-stage") gpu_name = a.value(f);
        else if (f == "--cpu-stage") cpu_name = a.value(f);
        else if (f == "--size") shapes = parse_shapes(a.value(f));
        else if (f == "--reps") reps = int(parse_integer(a.value(f), "--reps", 1, 1000));
        else if (f == "--threads") params.threads = int(parse_integer(a.value(f), "--threads", 1, 1024));
        else if (f == "--impl") impl = parse_impl(a.value(f));
        else if (f == "--quiet") quiet = true;
        else a.unknown(f);
    }
    const Stage& gpu_stage = stage_named(gpu_name, Device::Gpu);
    const Stage& cpu_stage = stage_named(cpu_name, Device::Cpu);
    if (impl == Impl::Student && (!gpu_stage.student || !cpu_stage.student))
        throw UsageError("--impl student: both stages need a student version");
    for (Shape s : shapes) check_fits_in_memory(s, Device::Cpu);
    gpu::require_gpu("'mmlab gpu-vs-cpu'");
    print_machine_header(true);
    std::printf("\nCPU: %s, GPU: %s (%s versions)\n", cpu_name.c_str(), gpu_name.c_str(), impl_name(impl));
    std::printf("%-16s %9s %11s %11s %11s %9s %9s %9s  %s\n", "shape", "m*n*k", "CPU", "GPU kernel",
                "GPU trip", "x kernel", "x trip", "kernel%", "check");
    bool all_ok = true;
    std::vector<std::string> wrong;
    for (Shape shape : shapes) {
        if (!quiet) std::fprintf(stderr, "[gpu-vs-cpu] %s: CPU, then GPU...\n", shape_text(shape).c_str());
        Problem p(shape);

        // CPU: the first run is timed and verified; then the median of `reps` (one if slow).
        const MatmulFn& cpu_fn = version_of(cpu_stage, impl);
        const CheckedRun first = run_once_and_verify(cpu_stage, cpu_fn, p, params);
        const CheckResult& cpu_check = first.check;
        std::vector<double> cpu_s = {first.seconds};
        while (int(cpu_s.size()) < reps && cpu_s[0] <= 1.0) {
            const auto t0 = std::chrono::steady_clock::now();
            cpu_fn(p.A.data(), p.B.data(), p.C.data(), shape, params);
            cpu_s.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        }

        // GPU: the whole trip, step by step (not one kernel on inputs already on
        // the device, as run_once_and_verify runs it), then its result verified.
        poison(p.C);
        const gpu::CostBreakdown g = gpu::measure_breakdown(version_of(gpu_stage, impl), p.A.data(), p.B.data(),
                                                            p.C.data(), shape, params, reps);
        const CheckResult gpu_check = verify_product(p.A.data(), p.B.data(), p.C.data(), shape,
                                                     gpu_stage.bound(shape, params), VerifyMethod::Auto, p.check_seed);

        const double cpu = median(cpu_s), kernel = g.kernel_ms / 1e3, trip = g.total_ms() / 1e3;
        std::string check = "ok";
        if (!cpu_check.passed) check = "CPU WRONG: " + cpu_check.failure;
        if (!gpu_check.passed) check = "GPU WRONG: " + gpu_check.failure;
        const bool ok = cpu_check.passed && gpu_check.passed;
        all_ok = all_ok && ok;
        if (!ok) wrong.push_back(shape_text(shape));
        char mnk[32];
        std::snprintf(mnk, sizeof mnk, "%.2e", double(shape.M) * double(shape.N) * double(shape.K));
        // A speedup of a wrong result is no speedup: those cells stay empty.
        std::string x_kernel = "-", x_trip = "-", share = "-";
        if (ok) {
            char buf[3][32];
            std::snprintf(buf[0], sizeof buf[0], "%.1f", cpu / kernel);
            std::snprintf(buf[1], sizeof buf[1], "%.2f", cpu / trip);
            std::snprintf(buf[2], sizeof buf[2], "%.1f%%", 100.0 * kernel / trip);
            x_kernel = buf[0], x_trip = buf[1], share = buf[2];
        }
        std::printf("%-16s %9s %11s %11s %11s %9s %9s %9s  %s\n", shape_text(shape).c_str(), mnk,
                    format_seconds(cpu).c_str(), format_seconds(kernel).c_str(), format_seconds(trip).c_str(),
                    x_kernel.c_str(), x_trip.c_str(), share.c_str(), check.c_str());
    }
    std::printf("\nx kernel = CPU time / kernel time; x trip = CPU time / (cudaMalloc + copies in + kernel +\n"
                "copy out + cudaFree); kernel%% = the kernel's share of the trip. GPU times: median of %d runs\n"
                "after a warm-up (`mmlab breakdown` shows each step); CPU: wall clock, one thread.\n",
                reps);
    if (!all_ok) {
        std::string which;
        for (const std::string& w : wrong) which += (which.empty() ? "" : ", ") + w;
        std::printf("WRONG at %s: no speedup is shown there, and where the GPU starts to pay cannot be read\n"
                    "from this table until every row passes.\n", which.c_str());
    }
    return all_ok ? 0 : 1;
}

CommandRegistrar gpu_vs_cpu_command(
    {"gpu-vs-cpu", "lab 6: a CPU stage against a GPU stage across sizes, kernel alone and with transfers",
     kUsage, run_gpu_vs_cpu, 6});

}  // namespace
}  // namespace mml
