// Runs a test script (Python for the Python tools: tools/plot.py, and the
// instructors' tools/grade.py; bash for the set-up, tools/configure.sh) from a doctest case,
// so that `make test` counts it: the case fails when the script exits non-zero
// or does not print `done_line`, and then shows the script's FAIL lines (with
// their indented details) and its last line. A script that exits 77 could not
// run here (it prints why): the case says so and passes nothing else. Only for
// test files: it uses doctest's REQUIRE and CHECK.
#pragma once

#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace mml::testing {

inline void run_script_test(const std::string& interpreter, const std::string& script, const std::string& done_line) {
    REQUIRE_MESSAGE(std::ifstream(script).good(), "run the tests from the repository root (make test does)");
    REQUIRE_MESSAGE(std::system(("command -v " + interpreter + " > /dev/null 2>&1").c_str()) == 0,
                    interpreter << " is not installed: the tools under test need it (sudo apt-get install " << interpreter << ")");
    const char* tmp = std::getenv("TMPDIR");  // the user's, where set
    std::string log_path = std::string(tmp && *tmp ? tmp : "/tmp") + "/mmlab-script-test-XXXXXX";
    char* log_name = log_path.data();
    const int fd = mkstemp(log_name);
    REQUIRE(fd >= 0);
    close(fd);
    const int status = std::system((interpreter + " " + script + " > '" + log_path + "' 2>&1").c_str());
    std::ifstream f(log_name);
    std::stringstream all;
    all << f.rdbuf();
    std::remove(log_name);
    const std::string log = all.str();

    std::istringstream in(log);
    std::string line, failures, last;
    while (std::getline(in, line)) {
        if (line.rfind("FAIL", 0) == 0 || line.rfind("       ", 0) == 0) failures += line.substr(0, 400) + "\n";
        if (!line.empty()) last = line;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 77) {  // could not run here: it said why
        MESSAGE(script << " " << last);
        return;
    }
    CHECK_MESSAGE(status == 0, script << " failed:\n" << failures << last);
    CHECK_MESSAGE(log.find(done_line) != std::string::npos,
                  script << " did not finish:\n" << log.substr(log.size() > 3000 ? log.size() - 3000 : 0));
}

}  // namespace mml::testing

namespace mml::testing {
inline void run_python_test(const std::string& script, const std::string& done_line) {
    run_script_test("python3", script, done_line);
}
}  // namespace mml::testing
