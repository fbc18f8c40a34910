// mmlab demo (make demo): each lab's main stages (the catalog's demo column),
// reference code, CPU at 1000^3 and GPU at 4096^3 unless --size says otherwise;
// --lab N (make demo LAB=N): every stage of lab N instead. Shown as a slide of
// at most 100 columns (--wide: every column and note, the header in full).
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

// The machine's notes, then, where the header left them out (the slide's),
// the peers' warnings (OpenBLAS's kernel narrower than the CPU).
std::vector<MachineNote> demo_notes(const std::vector<Job>& jobs, const std::vector<Measurement>& rows, bool slide) {
    std::vector<MachineNote> notes = machine_notes(rows, machine_busy());
    if (slide)
        for (MachineNote& n : peer_warning_notes(jobs)) notes.push_back(std::move(n));
    return notes;
}

int demo_command(const std::vector<std::string>& args) {
    const Options o = parse_options("demo", args);
    refuse_no_baseline(o);
    const bool gpu = gpu::probe().available;
    std::vector<const Stage*> cpu_stages, gpu_stages;
    for (const Stage* s : o.lab ? timed_stages_of_lab(o.lab) : Registry::instance().stages()) {
        if (!o.lab && !in_demo(*s)) continue;
        (s->device == Device::Gpu ? gpu_stages : cpu_stages).push_back(s);
    }
    // CPU: 1000, not 1024: at powers of two the triple loop's column walks
    // collide in the cache's sets and the baseline runs 3-5x slower, which
    // would inflate every speedup in the table (lab 2's handout shows it).
    // --lab N: 512^3, as `mmlab run --lab N` (every stage of the lab, lab 1's
    // slow loop orders among them, in seconds, not minutes).
    const Shape cpu_default = o.lab ? Shape{512, 512, 512} : Shape{1000, 1000, 1000};
    const Shape gpu_default = o.lab ? Shape{512, 512, 512} : Shape{4096, 4096, 4096};
    const std::vector<Shape> cpu_shapes = o.shapes.empty() ? std::vector<Shape>{cpu_default} : o.shapes;
    const std::vector<Shape> gpu_shapes = o.shapes.empty() ? std::vector<Shape>{gpu_default} : o.shapes;
    std::vector<Job> jobs = make_jobs(cpu_stages, cpu_shapes, ImplChoice::Reference, false);
    add_baseline(jobs, cpu_shapes);
    if (gpu)
        for (const Stage* s : gpu_stages) {  // a stage may name its own demo shapes (lab 9)
            const bool own = o.shapes.empty() && !o.lab && !s->demo_shapes.empty();
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
    // The slide's header: one line an item, its essentials (--wide: in full);
    // the peak's spread and the peers' own warnings: in the note under the table.
    const bool slide = !o.wide;
    print_machine_header(true, columns, false, slide);
    print_peer_libraries(jobs, columns, slide);
    if (!gpu && !gpu_stages.empty())
        std::printf("(the %zu GPU stages are left out: no usable GPU)\n", gpu_stages.size());
    const BenchOutput out = measure(jobs, settings);
    for (const std::string& line : demo_lines(out.rows, o.wide, columns, demo_notes(jobs, out.rows, slide)))
        std::printf("%s\n", line.c_str());
    if (!o.json_path.empty()) write_json(o.json_path, o, out, std::nullopt, "");
    return all_passed(out) ? 0 : 1;
}

CommandRegistrar demo_cmd({"demo", "the progression: each lab's main stages, reference code (`make demo`)", "",
                           demo_command});

}  // namespace
}  // namespace mml
