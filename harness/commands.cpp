#include "harness/commands.h"

#include <algorithm>

#include "harness/cli.h"

namespace mml {

namespace {
std::vector<Command>& registry() {
    static std::vector<Command> commands;
    return commands;
}
}  // namespace

CommandRegistrar::CommandRegistrar(Command c) { registry().push_back(std::move(c)); }

std::vector<const Command*> all_commands() {
    std::vector<const Command*> out;
    for (const Command& c : registry()) out.push_back(&c);
    std::sort(out.begin(), out.end(), [](const Command* a, const Command* b) {
        return a->lab != b->lab ? a->lab < b->lab : a->name < b->name;
    });
    return out;
}

const Command* find_command(const std::string& name) {
    for (const Command& c : registry())
        if (c.name == name) return &c;
    return nullptr;
}

std::string help_text() {
    std::string core, labs;
    for (const Command* c : all_commands()) {
        std::string name = c->name;
        name.resize(std::max<std::size_t>(name.size(), 20), ' ');
        (c->lab == 0 ? core : labs) += "  " + name + " " + c->summary + "\n";
    }
    return "mmlab - the matmul-lab harness: run, time and verify C = A*B stages.\n\n"
           "usage: mmlab <command> [options]\n\ncommands:\n" +
           core + "\n" + shared_options_text() +
           "the labs' own commands (mmlab NAME --help for each):\n" + labs +
           "\nenvironment (docs/setup.md, \"Your environment\"): OPENBLAS_CORETYPE narrower than this CPU is set aside\n"
           "(MMLAB_KEEP_OPENBLAS_CORETYPE=1 keeps it); OMP_NUM_THREADS and OPENBLAS_NUM_THREADS yield to --threads;\n"
           "OMP_PROC_BIND, OMP_PLACES, GOMP_CPU_AFFINITY and CUDA_VISIBLE_DEVICES are honoured and named where they\n"
           "change a result. A bad input gets exactly one line, whatever the environment.\n";
}

}  // namespace mml
