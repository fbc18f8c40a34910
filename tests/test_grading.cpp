// The instructors' grading script (tools/grade.py) on made-up lab 1
// submissions: the untouched starter, the reference, code that does not
// compile, an endless loop, endless output and a 10 GB file, a write outside
// its folder, an empty folder, a weights file, and bad command lines. The
// checks themselves are in tests/grading/test_grade.py (Python, like the
// script); this test case runs it so that `make test` counts it. It takes
// about a minute (eight small builds), so it runs only where MML_GRADING_TESTS
// is set, as `make test` does; elsewhere (make sanitize, make gpu-check) it is
// reported as skipped.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

namespace {

bool grading_tests_enabled() { return std::getenv("MML_GRADING_TESTS") != nullptr; }

std::string read_all(const std::string& path) {
    std::ifstream f(path);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

// The FAIL lines and the last line of the script's report.
std::string failures_and_verdict(const std::string& log) {
    std::istringstream in(log);
    std::string line, out, last;
    while (std::getline(in, line)) {
        if (line.rfind("FAIL", 0) == 0 || line.rfind("       ", 0) == 0) out += line.substr(0, 400) + "\n";
        if (!line.empty()) last = line;
    }
    return out + last;
}

}  // namespace

TEST_SUITE("grading") {
    TEST_CASE("tools/grade.py: scores, feedback, CSV and results.json; broken, slow and hostile submissions contained" *
              doctest::skip(!grading_tests_enabled())) {
        REQUIRE_MESSAGE(std::ifstream("tests/grading/test_grade.py").good(),
                        "run the tests from the repository root (make test does)");
        REQUIRE_MESSAGE(std::system("command -v python3 > /dev/null 2>&1") == 0,
                        "python3 is not installed: the grading script needs it (sudo apt-get install python3)");
        char log_name[] = "/tmp/mmlab-grading-test-XXXXXX";
        const int fd = mkstemp(log_name);
        REQUIRE(fd >= 0);
        close(fd);
        const std::string command = std::string("python3 tests/grading/test_grade.py > ") + log_name + " 2>&1";
        const int status = std::system(command.c_str());
        const std::string log = read_all(log_name);
        std::remove(log_name);
        CHECK_MESSAGE(status == 0, "tests/grading/test_grade.py failed:\n" << failures_and_verdict(log));
        CHECK_MESSAGE(log.find("grading tests: all passed") != std::string::npos,
                      "tests/grading/test_grade.py did not finish:\n" << log.substr(log.size() > 3000 ? log.size() - 3000 : 0));
    }
}
