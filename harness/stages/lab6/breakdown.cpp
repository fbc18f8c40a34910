// mmlab breakdown (lab 6): where the time of one GPU product goes -
// allocation, copies in, the kernel, the copy out, free (Fig. 9 of Cao's survey).
#include <cstdio>

#include "cpu/matrix.h"
#include "cpu/verify.h"
#include "harness/cli.h"
#include "harness/commands.h"
#include "harness/format.h"
#include "harness/gpu_backend.h"
#include "harness/report.h"
#include "harness/run_stage.h"

namespace mml {
namespace {

int breakdown_command(const std::vector<std::string>& args) {
    const Options o = parse_options("breakdown", args);
    if (o.stages.empty()) throw UsageError("'mmlab breakdown' needs --stage NAME (a GPU stage)");
    const std::vector<Shape> shapes = o.shapes.empty() ? std::vector<Shape>{{1024, 1024, 1024}} : o.shapes;
    const Impl impl = o.impl == ImplChoice::Student ? Impl::Student : Impl::Reference;
    std::vector<const Stage*> stages;
    for (const auto& name : o.stages) {
        const Stage& s = stage_or_error(name);
        if (s.device != Device::Gpu) throw UsageError("'mmlab breakdown' is for GPU stages; " + name + " runs on the CPU");
        if (impl == Impl::Student && !s.student) throw UsageError(name + " has no student version");
        stages.push_back(&s);
    }
    for (Shape s : shapes) check_fits_in_memory(s, Device::Gpu);
    gpu::require_gpu("'mmlab breakdown'");
    const int reps = o.reps > 0 ? o.reps : 3;
    bool all_ok = true;
    print_machine_header(true);
    std::printf("\n%-18s %-15s %10s %10s %10s %10s %10s %10s %7s  %s\n", "stage", "shape", "alloc", "copy in",
                "kernel", "copy out", "free", "total", "kernel%", "check");
    for (Shape shape : shapes) {
        Problem p(shape);
        for (const Stage* s : stages) {
            // The whole trip, step by step (not one kernel on inputs already on
            // the device, as run_once_and_verify runs it), then its result verified.
            poison(p.C);
            const auto b = gpu::measure_breakdown(version_of(*s, impl), p.A.data(), p.B.data(), p.C.data(), shape,
                                                  o.params, reps);
            const CheckResult c = verify_product(p.A.data(), p.B.data(), p.C.data(), shape, s->bound(shape, o.params),
                                                 VerifyMethod::Auto, p.check_seed);
            all_ok = all_ok && c.passed;
            std::printf("%-18s %-15s %10s %10s %10s %10s %10s %10s %6.1f%%  %s\n", s->name.c_str(),
                        shape_text(shape).c_str(), format_seconds(b.alloc_ms / 1e3).c_str(),
                        format_seconds(b.copy_in_ms / 1e3).c_str(), format_seconds(b.kernel_ms / 1e3).c_str(),
                        format_seconds(b.copy_out_ms / 1e3).c_str(), format_seconds(b.free_ms / 1e3).c_str(),
                        format_seconds(b.total_ms() / 1e3).c_str(), 100.0 * b.kernel_ms / b.total_ms(),
                        c.passed ? "ok" : ("WRONG: " + c.failure).c_str());
        }
    }
    std::printf("\n%s version; each step the median of %d runs of the whole sequence, after one warm-up run\n"
                "(the CUDA context is created first and is not counted; the first launch of a kernel loads its\n"
                "code, which the warm-up absorbs). Copies use pageable host memory (plain new/malloc), as Cao's\n"
                "survey did; allocation and free are host-clock times of cudaMalloc/cudaFree.\n",
                impl_name(impl), reps);
    return all_ok ? 0 : 1;
}

CommandRegistrar breakdown_cmd({"breakdown", "lab 6: GPU cost split: allocation, copies in, kernel, copy out, free "
                                             "(--stage NAME, the shared options)",
                                "", breakdown_command, 6});

}  // namespace
}  // namespace mml
