// mmlab lab N (make labN): the student's version beside the reference and the
// baseline, then whether the lab's target is met.
#include <algorithm>
#include <cstdio>

#include "cpu/machine.h"
#include "harness/catalog.h"
#include "harness/commands.h"
#include "harness/gpu_backend.h"
#include "harness/jobs.h"
#include "harness/report.h"
#include "harness/targets.h"

namespace mml {

const Lab& lab_or_error(int number) {
    const Lab* lab = Registry::instance().find_lab(number);
    if (lab) return *lab;
    const CatalogEntry* entry = catalog_entry(number);
    if (!entry) throw UsageError("there is no lab " + std::to_string(number) + ": the labs are 1 to " +
                                 std::to_string(last_lab_number()) + " ('mmlab list')");
    throw UsageError("lab " + std::to_string(number) + " is not in this build: " +
                     (entry->kind == Device::Gpu && !gpu::built_with_cuda() ? gpu::probe().why_not
                                                                             : "its stages are not registered"));
}

std::vector<const Stage*> timed_stages_of_lab(int number) {
    lab_or_error(number);
    const auto of_lab = Registry::instance().stages_of_lab(number);
    if (of_lab.empty())  // lab 10: models and commands, no stage of its own (make demo LAB=10 got here)
        throw UsageError("lab " + std::to_string(number) + " has no stages of its own to time: 'mmlab lab " +
                         std::to_string(number) + "' (make lab" + std::to_string(number) +
                         ") runs what it has; 'mmlab --help' lists its commands");
    return of_lab;
}

namespace {

int lab_command(const std::vector<std::string>& args) {
    const Options o = parse_options("lab", args);
    refuse_no_baseline(o);
    const Lab& lab = lab_or_error(o.lab);
    const CatalogEntry& entry = *catalog_entry(o.lab);
    if (lab.run) return lab.run(o);
    if (entry.kind == Device::Gpu) gpu::require_gpu("lab " + std::to_string(o.lab));
    const auto stages = Registry::instance().stages_of_lab(o.lab);
    const std::vector<Shape> shapes = o.shapes.empty() ? lab.default_shapes : o.shapes;
    std::vector<Job> jobs = make_jobs(stages, shapes, o.impl_given ? o.impl : ImplChoice::Both, o.solution);
    // The CPU baseline beside the CPU labs only, and only at the shapes within
    // its size limit (lab 4's 2048^3 is not, a GPU lab's 4096^3 neither): a
    // row saying "skipped" is only noise; and only where the lab wants it (Lab::baseline).
    if (lab.add_jobs) lab.add_jobs(jobs, o.params);
    if (entry.kind == Device::Cpu && lab.baseline) {
        if (lab.baseline_limit_macs > 0) add_lab_baseline(jobs, shapes, lab.baseline_limit_macs, o.force);
        else add_baseline(jobs, baseline_shapes(shapes, o.force));
    }
    // The previous lab's best stage beside this lab's rows: the "x prev" column.
    if (!lab.previous_best.empty()) add_previous_best(jobs, lab.previous_best, shapes, o.params);
    validate(jobs, o.params);
    check_json_path(o.json_path);
    const BenchSettings settings = settings_from(o);  // before the header, which says how L2 is treated
    std::printf("== lab %d: %s ==\n", lab.number, entry.title.c_str());
    if (o.solution) std::printf("SOLUTION=1: the reference runs in the student's place.\n");
    print_machine_header(entry.kind == Device::Gpu);
    print_peer_libraries(jobs);
    // A peer library that is not installed (lab5.blis_lib without libblis-dev):
    // the peer line above says so and how to install it; a table row of
    // "skipped" would only repeat it. (mmlab run keeps the rows it is asked for.)
    jobs.erase(std::remove_if(jobs.begin(), jobs.end(),
                              [](const Job& j) {
                                  return j.stage->describe_library && !j.stage->student && j.stage->unavailable &&
                                         !j.stage->unavailable().empty();
                              }),
               jobs.end());
    BenchOutput out = measure(jobs, settings);
    if (!lab.previous_best.empty()) fill_previous_speedups(out.rows, lab.previous_best);
    print_table(out.rows);
    // (The CPU labs' timings only: a GPU kernel's time between CUDA events does not see the CPU's load.)
    TargetVerdict v = lab.judge ? lab.judge(out.rows) : TargetVerdict{true, "no target set"};
    if (entry.kind == Device::Cpu) v = settle(v);
    v = distrust_impossible(v, out.rows);  // a row above its peak: no verdict from this run
    if (const std::string limited = simd_limited(); !limited.empty())
        v.explanation += "; this run was " + limited + ", not as the CPU is";
    std::printf("\ntarget : %s\nresult : %s - %s%s\n", lab.target.c_str(), verdict_word(v).c_str(),
                v.explanation.c_str(), v.inconclusive ? ("\nwhat now: " + rerun_advice()).c_str() : "");
    if (!o.json_path.empty()) write_json(o.json_path, o, out, v, lab.target);
    return all_passed(out) ? 0 : 1;
}

// make labN asks this first: a GPU lab where no GPU can run it ends here, in
// the one line `mmlab lab N` would end with (why, and what to do), exit 2,
// instead of after a test program whose every case is skipped.
int lab_ready_command(const std::vector<std::string>& args) {
    if (args.size() != 1) throw UsageError("'mmlab lab-ready' needs one lab number, e.g. 'mmlab lab-ready 8'");
    const int number = int(parse_integer(args[0], "lab number", 1, last_lab_number()));
    lab_or_error(number);
    if (catalog_entry(number)->kind == Device::Gpu) gpu::require_gpu("lab " + std::to_string(number));
    return 0;
}

CommandRegistrar lab_ready_cmd({"lab-ready", "lab-ready N: exit 0 when lab N can run here, else why not in one line, exit 2\n"
                                             "                       (make labN asks it before the tests)",
                                "", lab_ready_command});

CommandRegistrar lab_cmd({"lab", "lab N: your version beside the reference and the baseline, then whether the lab's\n"
                                 "                       target is met (what `make labN` runs)",
                          "", lab_command});

}  // namespace
}  // namespace mml
