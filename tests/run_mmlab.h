// Runs the real mmlab binary ($MMLAB, set by make; build/bin/mmlab otherwise)
// with the given arguments, for the tests of its commands and of its answers
// to bad input. Only for test files: it uses doctest's REQUIRE.
#pragma once

#include <doctest/doctest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace mml::testing {

struct Outcome {
    int exit_code = -1;
    std::string output;  // stdout and stderr together
};

// `env` goes before the command, e.g. "OPENBLAS_CORETYPE=Haswell".
inline Outcome run_mmlab(const std::string& args, const std::string& env = "") {
    const char* path = std::getenv("MMLAB");
    const std::string cmd = (env.empty() ? "" : "env " + env + " ") + std::string(path ? path : "build/bin/mmlab") +
                            " " + args + " 2>&1";
    Outcome o;
    FILE* pipe = popen(cmd.c_str(), "r");
    REQUIRE(pipe != nullptr);
    std::array<char, 512> buf{};
    while (fgets(buf.data(), int(buf.size()), pipe)) o.output += buf.data();
    const int status = pclose(pipe);
    o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return o;
}

}  // namespace mml::testing
