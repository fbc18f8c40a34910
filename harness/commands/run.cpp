// mmlab run: time and verify the stages chosen with --stage or --lab.
#include <cstdio>

#include "harness/catalog.h"
#include "harness/commands.h"
#include "harness/jobs.h"
#include "harness/report.h"

namespace mml {
namespace {

int run_command(const std::vector<std::string>& args) {
    const Options o = parse_options("run", args);
    std::vector<const Stage*> stages;
    for (const auto& name : o.stages) stages.push_back(&stage_or_error(name));
    if (o.lab) {
        for (const Stage* s : timed_stages_of_lab(o.lab)) stages.push_back(s);
    }
    if (stages.empty()) throw UsageError("'mmlab run' needs --stage NAME or --lab N; 'mmlab list' shows them");
    const std::vector<Shape> shapes = o.shapes.empty() ? std::vector<Shape>{{512, 512, 512}} : o.shapes;
    std::vector<Job> jobs = make_jobs(stages, shapes, o.impl, o.solution);
    if (!o.no_baseline) add_baseline(jobs, shapes);
    validate(jobs, o.params);
    check_json_path(o.json_path);
    const BenchSettings settings = settings_from(o);  // before the header, which says how L2 is treated
    bool any_gpu = false;
    for (const Job& j : jobs) any_gpu = any_gpu || j.stage->device == Device::Gpu;
    print_machine_header(any_gpu);
    print_peer_libraries(jobs);
    const BenchOutput out = measure(jobs, settings);
    print_table(out.rows);
    if (!o.json_path.empty()) write_json(o.json_path, o, out, std::nullopt, "");
    return all_passed(out) ? 0 : 1;
}

CommandRegistrar run_cmd({"run", "time and verify the stages chosen with --stage or --lab", "", run_command});

}  // namespace
}  // namespace mml
