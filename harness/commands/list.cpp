// mmlab list: every lab of the catalog and its stages, one line each.
#include <cstdio>

#include "harness/catalog.h"
#include "harness/cli.h"
#include "harness/commands.h"
#include "harness/gpu_backend.h"

namespace mml {
namespace {

int list_command(const std::vector<std::string>& args) {
    parse_options("list", args);  // --size is checked this way by make labN SIZE=...
    const auto& reg = Registry::instance();
    std::string left_out;
    for (const CatalogEntry& lab : catalog()) {
        std::printf("lab %d (%s): %s\n", lab.number, lab.kind == Device::Gpu ? "GPU" : "CPU", lab.title.c_str());
        if (!reg.find_lab(lab.number)) {  // a GPU lab in a build without CUDA
            std::printf("  (not in this build: %s)\n", gpu::probe().why_not.c_str());
            continue;
        }
        for (const Stage* s : reg.stages_of_lab(lab.number)) {
            std::string params;  // the --param names it reads, where the summary does not say them
            if (s->summary.find("--param") == std::string::npos)
                for (const auto& n : s->param_names) params += (params.empty() ? " (--param " : ",") + n;
            if (!params.empty()) params += ")";
            std::printf("  %-20s %s%s%s\n", s->name.c_str(), s->summary.c_str(), params.c_str(),
                        s->student ? "" : " [peer: no student version]");
        }
        if (reg.stages_of_lab(lab.number).empty())  // lab 10: models of the other labs' stages
            std::printf("  (no stages of its own: make lab%d runs its models)\n", lab.number);
    }
    if (!gpu::built_with_cuda())
        std::printf("(GPU labs %s, and the GPU parts of the CPU labs, are not in this build: configured without CUDA)\n",
                    lab_numbers(Device::Gpu).c_str());
    return 0;
}

CommandRegistrar list_cmd({"list", "every stage and lab, with one line each", "", list_command});

}  // namespace
}  // namespace mml
