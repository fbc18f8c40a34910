#include "harness/jobs.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <set>

#include "harness/gpu_backend.h"

namespace mml {

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

void add_lab_baseline(std::vector<Job>& jobs, const std::vector<Shape>& shapes, double limit_macs, bool force) {
    const Stage* base = Registry::instance().find(kBaselineStage);
    if (!base) return;
    auto macs = [](Shape s) { return double(s.M) * double(s.N) * double(s.K); };
    std::vector<Shape> within;
    for (Shape s : shapes) {
        if (force || macs(s) <= limit_macs) {
            within.push_back(s);
            continue;
        }
        Shape small = s;
        while (macs(small) > limit_macs && small.M > 1 && small.N > 1 && small.K > 1)
            small = {(small.M + 1) / 2, (small.N + 1) / 2, (small.K + 1) / 2};
        Job j{base, Impl::Reference, Impl::Reference, small, false, {}};
        j.scaled_to = s;
        jobs.insert(jobs.begin(), j);
    }
    add_baseline(jobs, within);
}

void add_previous_best(std::vector<Job>& jobs, const std::string& stage_name, const std::vector<Shape>& shapes,
                       const StageParams& params) {
    const Stage* prev = Registry::instance().find(stage_name);
    if (!prev) return;
    for (Shape s : shapes) {
        Job j{prev, Impl::Reference, Impl::Reference, s, true, {}};
        j.params.threads = params.threads;  // its own defaults otherwise: this lab's --param names are not its
        jobs.push_back(j);
    }
}

void fill_previous_speedups(std::vector<Measurement>& rows, const std::string& stage_name) {
    for (auto& m : rows) {
        if (m.median_seconds <= 0 || m.stage == stage_name || m.stage == kBaselineStage) continue;
        for (const auto& p : rows)
            if (p.stage == stage_name && p.impl == Impl::Reference && !p.skipped && p.passed && p.median_seconds > 0 &&
                p.shape == m.shape) {
                m.speedup_vs_previous = p.median_seconds / m.median_seconds;
                m.previous_best = stage_name;
            }
    }
}

std::vector<Shape> baseline_shapes(const std::vector<Shape>& shapes, bool force) {
    const Stage* base = Registry::instance().find(kBaselineStage);
    std::vector<Shape> within;
    for (Shape s : shapes)
        if (force || !base || base->max_macs <= 0 || double(s.M) * double(s.N) * double(s.K) <= base->max_macs)
            within.push_back(s);
    return within;
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
    if (!gpu_stages.empty()) gpu::require_gpu("stage " + *gpu_stages.begin());
}

void check_json_path(const std::string& path) {
    if (path.empty()) return;
    const std::string probe = path + ".tmp";
    std::ofstream f(probe);
    if (!f) throw UsageError("cannot write --json " + path + " (does its folder exist and is it writable?)");
    f.close();
    std::remove(probe.c_str());
}

BenchSettings settings_from(const Options& o) {
    BenchSettings s;
    s.reps = o.reps;
    s.params = o.params;
    s.force = o.force;
    s.quiet = o.quiet;
    gpu::set_flush_l2(o.flush_l2);  // the GPU backend's, process-wide: every timed GPU run of the command
    return s;
}

bool all_passed(const BenchOutput& out) {
    for (const auto& r : out.rows)
        if (!r.skipped && !r.passed) return false;
    return true;
}

void refuse_no_baseline(const Options& o) {
    if (o.no_baseline)  // the speedup column and lab 2's target are measured against it
        throw UsageError("--no-baseline is for 'mmlab run'; '" + o.command + "' needs the baseline row");
}

}  // namespace mml
