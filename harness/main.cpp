// mmlab: the one harness program. `mmlab --help` documents it.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <fstream>
#include <set>

#include "cpu/machine.h"
#include "cpu/peak.h"
#include "harness/bench.h"
#include "harness/cli.h"
#include "harness/commands.h"
#include "harness/gpu_backend.h"
#include "harness/report.h"
#include "harness/run_stage.h"
#include "harness/targets.h"

using namespace mml;

namespace {

const Lab& lab_or_error(int number) {
    const Lab* lab = Registry::instance().find_lab(number);
    if (!lab) {
        const bool gpu_lab = number >= 6;
        throw UsageError("lab " + std::to_string(number) + " is not in this build" +
                         (gpu_lab && !gpu::built_with_cuda()
                              ? ": " + gpu::probe().why_not
                              : std::string(": it has not been written yet")));
    }
    return *lab;
}

void require_gpu_for(const std::string& what) {
    const gpu::DeviceInfo info = gpu::probe();
    if (!info.available) throw UsageError(what + " needs a CUDA GPU, but " + info.why_not);
}

void check_json_path(const std::string& path) {
    if (path.empty()) return;
    const std::string probe = path + ".tmp";
    std::ofstream f(probe);
    if (!f) throw UsageError("cannot write --json " + path + " (does its folder exist and is it writable?)");
    f.close();
    std::remove(probe.c_str());
}

int cmd_list() {
    const auto& reg = Registry::instance();
    for (const Lab* lab : reg.labs()) {
        std::printf("lab %d (%s): %s\n", lab->number, lab->device == Device::Gpu ? "GPU" : "CPU", lab->title.c_str());
        for (const Stage* s : reg.stages_of_lab(lab->number)) {
            std::string params;  // the --param names it reads, where the summary does not say them
            if (s->summary.find("--param") == std::string::npos)
                for (const auto& n : s->param_names) params += (params.empty() ? " (--param " : ",") + n;
            if (!params.empty()) params += ")";
            std::printf("  %-20s %s%s%s\n", s->name.c_str(), s->summary.c_str(), params.c_str(),
                        s->student ? "" : " [peer: no student version]");
        }
        if (reg.stages_of_lab(lab->number).empty())  // lab 10: models of the other labs' stages
            std::printf("  (no stages of its own: make lab%d runs its models)\n", lab->number);
    }
    if (!gpu::built_with_cuda())
        std::printf("(GPU labs 6-9, and lab 10's GPU part, are not in this build: configured without CUDA)\n");
    return 0;
}

int cmd_peak(const Options& o) {
    const MachineInfo m = describe_machine();
    std::printf("machine: %s, %d logical cores\n", m.cpu_model.c_str(), m.logical_cores);
    std::printf("measured float32 peak, back-to-back independent FMAs, 2 flops per lane:\n");
    const int max_threads = o.threads_given ? o.threads : m.logical_cores;
    std::vector<SimdLevel> levels = {SimdLevel::Scalar};
    if (cpu_has_avx2_fma()) levels.push_back(SimdLevel::Avx2);
    if (cpu_has_avx512()) levels.push_back(SimdLevel::Avx512);
    std::printf("%-10s %8s %12s\n", "SIMD", "threads", "GFLOP/s");
    for (SimdLevel level : levels)
        for (int t = 1; t <= max_threads; ++t) {
            const PeakResult r = measure_fma_peak(level, t, 0.3);
            std::printf("%-10s %8d %12.1f\n", simd_name(level), t, r.gflops);
        }
    if (!cpu_has_avx512()) std::printf("(no AVX-512 on this CPU)\n");
    return 0;
}

// Adds the baseline's reference at every shape (for the speedup column).
void add_baseline(std::vector<Job>& jobs, const std::vector<Shape>& shapes) {
    const Stage* base = Registry::instance().find(kBaselineStage);
    if (!base) return;
    for (Shape s : shapes) {
        bool present = false;
        for (const Job& j : jobs)
            present = present || (j.stage == base && j.impl == Impl::Reference && j.shape.M == s.M &&
                                  j.shape.N == s.N && j.shape.K == s.K);
        if (!present) jobs.insert(jobs.begin(), Job{base, Impl::Reference, Impl::Reference, s, false, {}});
    }
}

std::vector<Job> make_jobs(const std::vector<const Stage*>& stages, const std::vector<Shape>& shapes,
                           ImplChoice choice, bool solution) {
    std::vector<Job> jobs;
    for (Shape shape : shapes)
        for (const Stage* s : stages) {
            if ((choice == ImplChoice::Student || choice == ImplChoice::Both) && s->student)
                jobs.push_back({s, Impl::Student, solution ? Impl::Reference : Impl::Student, shape, false, {}});
            if (choice == ImplChoice::Reference || choice == ImplChoice::Both || !s->student)
                jobs.push_back({s, Impl::Reference, Impl::Reference, shape, false, {}});
        }
    return jobs;
}

void validate(const std::vector<Job>& jobs, const StageParams& params) {
    std::set<std::string> gpu_stages;
    std::vector<const Stage*> stages;  // each once: --param names must be read by one of them
    for (const Job& j : jobs) {
        check_fits_in_memory(j.shape, j.stage->device);
        if (j.own_params) check_param_names({j.stage}, j.params);
        if (j.stage->check_params) j.stage->check_params(j.own_params ? j.params : params);
        if (j.stage->device == Device::Gpu) gpu_stages.insert(j.stage->name);
        if (std::find(stages.begin(), stages.end(), j.stage) == stages.end()) stages.push_back(j.stage);
    }
    check_param_names(stages, params);
    if (!gpu_stages.empty()) require_gpu_for("stage " + *gpu_stages.begin());
}

BenchSettings settings_from(const Options& o) {
    BenchSettings s;
    s.reps = o.reps;
    s.params = o.params;
    s.force = o.force;
    s.quiet = o.quiet;
    return s;
}

bool all_passed(const BenchOutput& out) {
    for (const auto& r : out.rows)
        if (!r.skipped && !r.passed) return false;
    return true;
}

int cmd_run(const Options& o) {
    std::vector<const Stage*> stages;
    for (const auto& name : o.stages) stages.push_back(&stage_or_error(name));
    if (o.lab) {
        lab_or_error(o.lab);
        const auto of_lab = Registry::instance().stages_of_lab(o.lab);
        if (of_lab.empty())  // lab 10: models and commands, no stage of its own (make demo LAB=10 got here)
            throw UsageError("lab " + std::to_string(o.lab) + " has no stages of its own to time: 'mmlab lab " +
                             std::to_string(o.lab) + "' (make lab" + std::to_string(o.lab) +
                             ") runs what it has; 'mmlab --help' lists its commands");
        for (const Stage* s : of_lab) stages.push_back(s);
    }
    if (stages.empty()) throw UsageError("'mmlab run' needs --stage NAME or --lab N; 'mmlab list' shows them");
    const std::vector<Shape> shapes = o.shapes.empty() ? std::vector<Shape>{{512, 512, 512}} : o.shapes;
    std::vector<Job> jobs = make_jobs(stages, shapes, o.impl, o.solution);
    if (!o.no_baseline) add_baseline(jobs, shapes);
    validate(jobs, o.params);
    check_json_path(o.json_path);
    bool any_gpu = false;
    for (const Job& j : jobs) any_gpu = any_gpu || j.stage->device == Device::Gpu;
    print_machine_header(any_gpu);
    print_peer_libraries(jobs);
    const BenchOutput out = measure(jobs, settings_from(o));
    print_table(out.rows);
    if (!o.json_path.empty()) write_json(o.json_path, o, out, std::nullopt, "");
    return all_passed(out) ? 0 : 1;
}

int cmd_lab(const Options& o) {
    if (o.no_baseline)  // the speedup column and lab 2's target are measured against it
        throw UsageError("--no-baseline is for 'mmlab run'; '" + o.command + "' needs the baseline row");
    const Lab& lab = lab_or_error(o.lab);
    if (lab.run) return lab.run(o);
    if (lab.device == Device::Gpu) require_gpu_for("lab " + std::to_string(o.lab));
    const auto stages = Registry::instance().stages_of_lab(o.lab);
    const std::vector<Shape> shapes = o.shapes.empty() ? lab.default_shapes : o.shapes;
    std::vector<Job> jobs = make_jobs(stages, shapes, o.impl_given ? o.impl : ImplChoice::Both, o.solution);
    // The CPU baseline beside the CPU labs only: at a GPU lab's sizes (4096^3)
    // it is over its size limit, and a row saying "skipped" is only noise.
    if (lab.device == Device::Cpu) add_baseline(jobs, shapes);
    validate(jobs, o.params);
    check_json_path(o.json_path);
    std::printf("== lab %d: %s ==\n", lab.number, lab.title.c_str());
    if (o.solution) std::printf("SOLUTION=1: the reference runs in the student's place.\n");
    print_machine_header(lab.device == Device::Gpu);
    print_peer_libraries(jobs);
    const BenchOutput out = measure(jobs, settings_from(o));
    print_table(out.rows);
    const TargetVerdict v = lab.judge ? lab.judge(out.rows) : TargetVerdict{true, "no target set"};
    std::printf("\ntarget : %s\nresult : %s - %s\n", lab.target.c_str(), v.met ? "TARGET MET" : "TARGET NOT MET",
                v.explanation.c_str());
    if (!o.json_path.empty()) write_json(o.json_path, o, out, v, lab.target);
    return all_passed(out) ? 0 : 1;
}

int cmd_demo(const Options& o) {
    if (o.no_baseline)  // the speedup column and lab 2's target are measured against it
        throw UsageError("--no-baseline is for 'mmlab run'; '" + o.command + "' needs the baseline row");
    const bool gpu = gpu::probe().available;
    std::vector<const Stage*> cpu_stages, gpu_stages;
    for (const Stage* s : Registry::instance().stages()) {
        if (!s->in_demo) continue;
        (s->device == Device::Gpu ? gpu_stages : cpu_stages).push_back(s);
    }
    // CPU: 1000, not 1024: at powers of two the triple loop's column walks
    // collide in the cache's sets and the baseline runs 3-5x slower, which
    // would inflate every speedup in the table (lab 2's handout shows it).
    const std::vector<Shape> cpu_shapes = o.shapes.empty() ? std::vector<Shape>{{1000, 1000, 1000}} : o.shapes;
    const std::vector<Shape> gpu_shapes = o.shapes.empty() ? std::vector<Shape>{{4096, 4096, 4096}} : o.shapes;
    std::vector<Job> jobs = make_jobs(cpu_stages, cpu_shapes, ImplChoice::Reference, false);
    add_baseline(jobs, cpu_shapes);
    if (gpu)
        for (const Stage* s : gpu_stages) {  // a stage may name its own demo shapes (lab 9)
            const bool own = o.shapes.empty() && !s->demo_shapes.empty();
            auto g = make_jobs({s}, own ? s->demo_shapes : gpu_shapes, ImplChoice::Reference, false);
            jobs.insert(jobs.end(), g.begin(), g.end());
        }
    validate(jobs, o.params);
    check_json_path(o.json_path);
    std::printf("== matmul-lab: the progression, reference solutions ==\n");
    print_machine_header(true);
    print_peer_libraries(jobs);
    if (!gpu && !gpu_stages.empty())
        std::printf("(the %zu GPU stages are left out: no usable GPU)\n", gpu_stages.size());
    const BenchOutput out = measure(jobs, settings_from(o));
    print_table(out.rows);
    if (!o.json_path.empty()) write_json(o.json_path, o, out, std::nullopt, "");
    return all_passed(out) ? 0 : 1;
}

int cmd_breakdown(const Options& o) {
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
    require_gpu_for("'mmlab breakdown'");
    const int reps = o.reps > 0 ? o.reps : 3;
    bool all_ok = true;
    print_machine_header(true);
    std::printf("\n%-18s %-15s %10s %10s %10s %10s %10s %10s %7s  %s\n", "stage", "shape", "alloc", "copy in",
                "kernel", "copy out", "free", "total", "kernel%", "check");
    for (Shape shape : shapes) {
        Matrix A(shape.M, shape.K), B(shape.K, shape.N), C(shape.M, shape.N);
        const auto seed = fresh_seed();
        fill_inputs(A, B, seed);
        for (const Stage* s : stages) {
            poison(C);
            const auto b = gpu::measure_breakdown(version_of(*s, impl), A.data(), B.data(), C.data(), shape,
                                                  o.params, reps);
            const CheckResult c = verify_product(A.data(), B.data(), C.data(), shape, s->bound(shape, o.params));
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
                "code, which the warm-up absorbs). Copies use pageable host memory (plain new/malloc), as seed\n"
                "003 did; allocation and free are host-clock times of cudaMalloc/cudaFree.\n",
                impl_name(impl), reps);
    return all_ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        if (argc >= 2) {
            if (const Command* extra = find_command(argv[1])) {
                const std::vector<std::string> args(argv + 2, argv + argc);
                for (const auto& a : args)
                    if (a == "--help" || a == "-h") {
                        std::fputs(extra->usage.c_str(), stdout);
                        return 0;
                    }
                return extra->run(args);
            }
        }
        const Options o = parse_options(argc, argv);
        if (o.command == "help") {
            std::fputs(usage_text().c_str(), stdout);
            if (!extra_commands().empty()) std::printf("\nmore commands (mmlab NAME --help for each):\n");
            for (const Command& c : extra_commands()) std::printf("  %-20s %s\n", c.name.c_str(), c.summary.c_str());
            return 0;
        }
        if (o.command == "list") return cmd_list();
        if (o.command == "machine") {
            print_machine_header(true);
            return 0;
        }
        if (o.command == "peak") return cmd_peak(o);
        if (o.command == "run") return cmd_run(o);
        if (o.command == "lab") return cmd_lab(o);
        if (o.command == "demo") return cmd_demo(o);
        if (o.command == "breakdown") return cmd_breakdown(o);
        throw UsageError("unknown command '" + o.command + "'");
    } catch (const UsageError& e) {
        std::fprintf(stderr, "mmlab: error: %s\n", e.what());
        return 2;
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "mmlab: error: out of memory; choose a smaller --size\n");
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "mmlab: error: %s\n", e.what());
        return 1;
    }
}
