#include "harness/commands.h"

namespace mml {

std::vector<Command>& extra_commands() {
    static std::vector<Command> commands;
    return commands;
}

const Command* find_command(const std::string& name) {
    for (const Command& c : extra_commands())
        if (c.name == name) return &c;
    return nullptr;
}

}  // namespace mml
