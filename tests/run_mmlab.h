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
// An environment notice: a line that begins "mmlab: note: " says once what a
// variable of the user's environment changed (never an error, never a result).
// A bad input gets exactly one error line whatever the environment, so tests
// that count an answer's lines count the others (error_lines).
inline bool is_notice(const std::string& line) { return line.rfind("mmlab: note: ", 0) == 0; }

// The lines of `output` that are not environment notices.
inline int error_lines(const std::string& output) {
    int n = 0;
    std::size_t start = 0;
    while (start < output.size()) {
        std::size_t end = output.find('\n', start);
        if (end == std::string::npos) end = output.size();
        n += !is_notice(output.substr(start, end - start));
        start = end + 1;
    }
    return n;
}

// The first line of `output` that is not an environment notice.
inline std::string first_message(const std::string& output) {
    std::size_t start = 0;
    while (start < output.size()) {
        std::size_t end = output.find('\n', start);
        if (end == std::string::npos) end = output.size();
        std::string line = output.substr(start, end - start);
        if (!is_notice(line)) return line;
        start = end + 1;
    }
    return "";
}

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
