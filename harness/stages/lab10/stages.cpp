// Lab 10 - performance models. Not a table of stages: `mmlab lab 10` (make
// lab10) puts the measured stages of labs 1-8 on the roofline with the
// student's traffic and bound functions (roofline.cpp), then evaluates
// Yuan et al. 2010's latency-hidden-factor model with the student's LH / TimeOneRep /
// TimeTotal (lh_model.cpp): on the paper's Tesla C1060 inputs (no GPU
// needed), and on this GPU beside the measured kernel times
// (measured_gpu.cpp). Its target: the student's numbers equal the
// reference's on every row. This file also holds what the others look up:
// the two versions of the model functions, the modelled kernels, the GPU
// sections.
#include "harness/stages/lab10/lab10.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include "harness/cli.h"
#include "harness/gpu_backend.h"
#include "harness/report.h"
#include "harness/run_stage.h"
#include "labs/lab10/models.h"
#include "models/lh_kernels.h"

namespace mml::lab10 {

// ---------------------------------------------------------------- the model functions

namespace {

const ModelFns kStudent = {student::lab10::compulsory_bytes, student::lab10::tiled_bytes,
                           student::lab10::arithmetic_intensity, student::lab10::roofline_gflops,
                           student::lab10::waiting_cycles, student::lab10::latency_hidden,
                           student::lab10::time_one_rep, student::lab10::rep_num, student::lab10::time_total_cycles};

std::optional<ModelFns>& bound_reference() {
    static std::optional<ModelFns> fns;  // set by references.cpp's ReferenceModels
    return fns;
}

}  // namespace

const ModelFns* model_fns(Impl impl) {
    if (impl == Impl::Student) return &kStudent;
    return bound_reference() ? &*bound_reference() : nullptr;
}

const ModelFns& reference_or(const ModelFns& fallback) {
    const ModelFns* ref = model_fns(Impl::Reference);
    return ref ? *ref : fallback;
}

const ModelFns& model_fns_or_error(Impl impl, std::string_view what) {
    if (const ModelFns* f = model_fns(impl)) return *f;
    throw UsageError(std::string(what) + " uses the reference's model functions, and " + std::string(kNoReference) +
                     "; --student uses yours");
}

ReferenceModels::ReferenceModels(const ModelFns& fns) { bound_reference() = fns; }

// ---------------------------------------------------------------- the modelled kernels

namespace {
std::vector<ModelledKernel>& bound_kernels() {
    static std::vector<ModelledKernel> kernels;  // set by references_gpu.cpp
    return kernels;
}
}  // namespace

void bind_modelled_kernel(const ModelledKernel& k) {
    auto& all = bound_kernels();
    all.push_back(k);
    const auto& order = lh::modelled_kernels();
    auto place = [&](const ModelledKernel& m) { return std::find(order.begin(), order.end(), m.kernel) - order.begin(); };
    std::stable_sort(all.begin(), all.end(), [&](const auto& a, const auto& b) { return place(a) < place(b); });
}

const std::vector<ModelledKernel>& modelled_kernels() { return bound_kernels(); }

// ---------------------------------------------------------------- the GPU sections

GpuSections& gpu_sections() {
    static GpuSections s;
    return s;
}

std::string gpu_lh_unavailable() {
    const gpu::DeviceInfo info = gpu::probe();
    if (!gpu_sections().lh || !info.available) return info.why_not;  // without CUDA in the build, probe() says so
    if (modelled_kernels().size() < lh::modelled_kernels().size())
        return "the model describes the reference kernels, and " + std::string(kNoReference);
    return "";
}

std::vector<long long> default_lh_sizes() {
    std::vector<long long> sizes;
    for (int plus : {32, 0})
        for (int e : {9, 10, 11, 12}) sizes.push_back((1LL << e) + plus);
    return sizes;
}

// ---------------------------------------------------------------- make lab10

bool same_number(double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max({1.0, std::fabs(a), std::fabs(b)}); }

void Comparison::check(bool ok, const std::string& what) {
    ++rows;
    if (!ok && differ++ == 0) first = what;
}

namespace {

const char* kTarget =
    "your eight functions give the reference's numbers (relative difference <= 1e-9) on every row: the roofline's "
    "bytes, FLOP/byte and bounds, and the model's TimeTotal on the C1060 and, with a GPU, on this GPU";

int run_lab10(const Options& o) {
    if (!o.json_path.empty())
        throw UsageError("lab 10 writes CSV, not --json: use 'mmlab roofline --csv FILE' and 'mmlab lh-model --csv FILE'");
    const Impl impl = o.solution ? Impl::Reference : Impl::Student;
    const ModelFns& f = model_fns_or_error(impl, "make lab10 SOLUTION=1");
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    std::printf("== lab 10: performance models: the roofline, the latency-hidden-factor model (Yuan et al. 2010) ==\n");
    if (o.solution) std::printf("SOLUTION=1: the reference functions run in the student's place.\n");
    print_machine_header(true);
    const std::vector<Shape> shapes = o.shapes.empty() ? std::vector<Shape>{{1000, 1000, 1000}} : o.shapes;
    BenchSettings settings;
    settings.reps = o.reps;
    settings.quiet = o.quiet;
    Comparison c;
    roofline_section(shapes, o.threads, {4096, 4096, 4096}, true, settings, f, c);
    std::printf("\n-- Part 2: the latency-hidden-factor model of Yuan et al. 2010 --\n");
    lh_sections(default_lh_sizes(), 5, o.quiet, f, c);
    if (!model_fns(Impl::Reference)) {  // a build without the answers: nothing to compare with
        std::printf("\ntarget : %s\nresult : NOT JUDGED - %s\n", kTarget, kNoReference);
        return 1;
    }
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
