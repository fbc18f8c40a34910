// Every mmlab command, in one registry: the core ones (harness/commands/:
// list, machine, peak, run, lab, demo) and each lab's own, which live beside
// the lab's stages (harness/stages/labN/), registered by a static object:
//   static mml::CommandRegistrar r({"phvm-model", "one line", usage, run, 9});
// `run` gets the words after the command name. The core commands parse them
// with parse_options (harness/cli.h: the flags they share); a lab's command
// parses its own with CommandArgs. Bad input is a UsageError (exit 2).
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
    int lab = 0;          // the lab it belongs to; 0 = a core command
};

// Core commands first (by name), then each lab's (by lab, then name).
std::vector<const Command*> all_commands();
const Command* find_command(const std::string& name);
// The text of `mmlab --help`: the core commands, the shared options, then
// every lab's commands.
std::string help_text();

struct CommandRegistrar {
    explicit CommandRegistrar(Command c);
};

}  // namespace mml
