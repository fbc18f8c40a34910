// mmlab demo (make demo): each lab's main stages (the catalog's demo column),
// reference code, CPU at 1000^3 and GPU at 4096^3 unless --size says otherwise;
// shown as a slide of at most 100 columns (--wide: every column and note).
#include <unistd.h>

#include <cstdio>

#include "harness/catalog.h"
#include "harness/commands.h"
#include "harness/format.h"
#include "harness/gpu_backend.h"
#include "harness/jobs.h"
#include "harness/report.h"
#include "harness/targets.h"

namespace mml {
namespace {

int demo_command(const std::vector<std::string>& args) {
    const Options o = parse_options("demo", args);
    refuse_no_baseline(o);
    const bool gpu = gpu::probe().available;
    std::vector<const Stage*> cpu_stages, gpu_stages;
    for (const Stage* s : Registry::instance().stages()) {
        if (!in_demo(*s)) continue;
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
    const BenchSettings settings = settings_from(o);  // before the header, which says how L2 is treated
    // A projected terminal holds about 100 columns (format.h, kSlideColumns):
    // every line fits the terminal, and the table is the slide's unless the
    // full one fits too or --wide asks for it (written to a file, --wide
    // wraps nothing).
    const int columns = o.wide && !isatty(STDOUT_FILENO) ? 0 : terminal_columns();
    std::printf("== matmul-lab: the progression, reference solutions ==\n");
    print_machine_header(true, columns, false);  // the peak's spread: among the notes under the table
    print_peer_libraries(jobs, columns);
    if (!gpu && !gpu_stages.empty())
        std::printf("(the %zu GPU stages are left out: no usable GPU)\n", gpu_stages.size());
    const BenchOutput out = measure(jobs, settings);
    for (const std::string& line : demo_lines(out.rows, o.wide, columns, machine_notes(out.rows, machine_busy())))
        std::printf("%s\n", line.c_str());
    if (!o.json_path.empty()) write_json(o.json_path, o, out, std::nullopt, "");
    return all_passed(out) ? 0 : 1;
}

CommandRegistrar demo_cmd({"demo", "the progression: each lab's main stages, reference code (`make demo`)", "",
                           demo_command});

}  // namespace
}  // namespace mml
