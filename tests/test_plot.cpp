// The lecturers' plotting script (tools/plot.py) on a real mmlab run at tiny
// shapes and a checked-in roofline CSV: every chart well-formed SVG with the
// stages and their values, failed and skipped stages drawn as such, bad input
// refused with one line and exit 2, nothing half-written. The checks are in
// tests/plot/test_plot.py (Python, like the script); this test case runs it
// so that `make test` counts it. It takes a few seconds.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

namespace {

std::string read_file(const std::string& path) {
    std::ifstream f(path);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

// The FAIL lines (with their detail lines) and the last line of the script's report.
std::string plot_failures(const std::string& log) {
    std::istringstream in(log);
    std::string line, out, last;
    while (std::getline(in, line)) {
        if (line.rfind("FAIL", 0) == 0 || line.rfind("       ", 0) == 0) out += line.substr(0, 400) + "\n";
        if (!line.empty()) last = line;
    }
    return out + last;
}

}  // namespace

TEST_SUITE("plot") {
    TEST_CASE("tools/plot.py: progression, sizes and roofline SVGs from real output; failed rows shown; bad input exits 2") {
        REQUIRE_MESSAGE(std::ifstream("tests/plot/test_plot.py").good(),
                        "run the tests from the repository root (make test does)");
        REQUIRE_MESSAGE(std::system("command -v python3 > /dev/null 2>&1") == 0,
                        "python3 is not installed: the plotting script needs it (sudo apt-get install python3)");
        char log_name[] = "/tmp/mmlab-plot-test-log-XXXXXX";
        const int fd = mkstemp(log_name);
        REQUIRE(fd >= 0);
        close(fd);
        // MMLAB (set by make test) names the mmlab binary that writes the JSON.
        const std::string command = std::string("python3 tests/plot/test_plot.py > ") + log_name + " 2>&1";
        const int status = std::system(command.c_str());
        const std::string log = read_file(log_name);
        std::remove(log_name);
        CHECK_MESSAGE(status == 0, "tests/plot/test_plot.py failed:\n" << plot_failures(log));
        CHECK_MESSAGE(log.find("plot tests: all passed") != std::string::npos,
                      "tests/plot/test_plot.py did not finish:\n" << log.substr(log.size() > 3000 ? log.size() - 3000 : 0));
    }
}
