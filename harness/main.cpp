// mmlab: the one harness program. `mmlab --help` documents it; every command,
// core or a lab's own, is in the registry of harness/commands.h.
#include <cstdio>
#include <exception>
#include <new>

#include "harness/cli.h"
#include "harness/commands.h"
#include "peers/openblas.h"

using namespace mml;

int main(int argc, char** argv) {
    mml::peers::run_openblas_with_its_own_kernel(argv);  // the strongest peer, always
    try {
        const std::vector<std::string> args(argv + 1, argv + argc);
        if (args.empty()) throw UsageError("no command given; try 'mmlab --help'");
        if (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
            std::fputs(help_text().c_str(), stdout);
            return 0;
        }
        const Command* command = find_command(args[0]);
        if (!command) throw UsageError("unknown command '" + args[0] + "'; try 'mmlab --help'");
        const std::vector<std::string> rest(args.begin() + 1, args.end());
        for (const auto& a : rest)
            if (a == "--help" || a == "-h") {  // a core command's help is the whole help text
                std::fputs((command->usage.empty() ? help_text() : command->usage).c_str(), stdout);
                return 0;
            }
        return command->run(rest);
    } catch (const UsageError& e) {
        std::fprintf(stderr, "mmlab: error: %s\n", e.what());
        return 2;
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "mmlab: error: out of memory; choose a smaller --size\n");
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "mmlab: error: %s\n", e.what());
        return 1;
    }
}
