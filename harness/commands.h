// Extra mmlab commands that a lab adds from its own file (for example a
// parameter sweep or a performance model), without touching main.cpp:
//   static mml::CommandRegistrar r({"phvm-model", "one line", usage, run});
// `run` gets the words after the command name and parses them itself with
// the helpers of harness/cli.h, throwing UsageError for bad input (exit 2).
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace mml {

struct Command {
    std::string name;
    std::string summary;  // one line for `mmlab --help`
    std::string usage;    // the command's own help text (`mmlab NAME --help`)
    std::function<int(const std::vector<std::string>& args)> run;
};

std::vector<Command>& extra_commands();
const Command* find_command(const std::string& name);

struct CommandRegistrar {
    explicit CommandRegistrar(Command c) { extra_commands().push_back(std::move(c)); }
};

}  // namespace mml
